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

/// Runs the built feeddiff binary with these arguments.
RunResult run_feeddiff(const std::vector<std::string>& args, const Env& env = {});

/// A new empty directory under the build tree, unique to this call.
std::string make_temp_dir(std::string_view hint);

/// Path of a file under the project's fixtures/ directory.
std::string fixture_path(std::string_view relative);
/// Path of a file under the shared corpus.
std::string corpus_path(std::string_view relative);

/// Reads a whole file; fails the test if it cannot.
std::string slurp(const std::string& path);
/// Writes a whole file; fails the test if it cannot.
void spit(const std::string& path, std::string_view content);

}  // namespace feeddiff::test
