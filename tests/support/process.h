#pragma once
// Test helpers: run the built feeddiff binary (or any command) and capture what it says;
// make scratch directories; find fixtures and the shared corpus.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace feeddiff::test {

/// What a finished process said and how it ended.
struct RunResult {
  int exit_code = -1;  ///< exit status, or 128+signal when killed
  std::string out;     ///< standard output
  std::string err;     ///< standard error
};

/// Extra environment for a child: name, value.
using Env = std::vector<std::pair<std::string, std::string>>;

/// Runs argv[0] (looked up in PATH) with the arguments, waits for it, captures both streams.
RunResult run(const std::vector<std::string>& argv, const Env& env = {},
              std::string_view stdin_data = {});

/// Starts the built feeddiff in the background with these arguments and extra environment,
/// its output discarded; returns its pid (the caller kills or waits for it).
int start_feeddiff(const std::vector<std::string>& args, const Env& env = {});

/// Runs the built feeddiff binary with these arguments.
RunResult run_feeddiff(const std::vector<std::string>& args, const Env& env = {});

/// A new empty directory under the tests' scratch space (kTestTmp), unique to this call.
std::string make_temp_dir(std::string_view hint);
/// Removes every directory make_temp_dir made in this process. tests/main.cc calls it when
/// every test of the run passed: the scratch space is usually a tmpfs, which is memory, and a
/// failing test's directories stay for a person to look at.
void remove_temp_dirs();

/// The lines of text without their '\n' (empty lines kept; no last empty line after a final
/// '\n'), as a test compares a command's output line by line.
std::vector<std::string> lines_of(std::string_view text);

/// Path of a file under the project's fixtures/ directory.
std::string fixture_path(std::string_view relative);
/// Path of a file under the shared corpus.
std::string corpus_path(std::string_view relative);

/// Where the build put things, fixed when the build was configured. They are defined in one
/// translation unit (paths.cc), not passed to every test file on its command line, so that a
/// test file compiles to the same object in any checkout and ccache reuses it across clones.
extern const char* const kBinaryPath;  ///< the built feeddiff
extern const char* const kSourceDir;   ///< the checkout
extern const char* const kCorpusDir;   ///< the shared corpus beside it
extern const char* const kTestTmp;  ///< scratch space (FEEDDIFF_TEST_TMP in tests/CMakeLists.txt)
extern const char* const kScreenshotDir;  ///< where the browser tests leave their screenshots
extern const char* const kManDir;         ///< the man pages the build wrote
extern const char* const kVersion;        ///< the project's version

/// s repeated n times: the hostile inputs of the limit tests.
std::string repeat(std::string_view s, std::size_t n);
/// Reads a whole file; fails the test if it cannot.
std::string slurp(const std::string& path);
/// Writes a whole file; fails the test if it cannot.
void spit(const std::string& path, std::string_view content);

}  // namespace feeddiff::test

// The names the tests use for those paths.
#define FEEDDIFF_BINARY ::feeddiff::test::kBinaryPath
#define FEEDDIFF_SOURCE_DIR ::feeddiff::test::kSourceDir
#define FEEDDIFF_CORPUS_DIR ::feeddiff::test::kCorpusDir
#define FEEDDIFF_TEST_TMP ::feeddiff::test::kTestTmp
#define FEEDDIFF_SCREENSHOT_DIR ::feeddiff::test::kScreenshotDir
#define FEEDDIFF_MAN_DIR ::feeddiff::test::kManDir
#define FEEDDIFF_VERSION ::feeddiff::test::kVersion
