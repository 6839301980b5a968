// Durability of a poll's commit: every rename it makes (packs, the checkout marker, the
// branch, the index, state.json) is of a file already fsync'd, and is itself made durable by
// an fsync of its directory before the next rename; without that a power loss can undo a
// write the poll went on as if it were on disk. A crash test cannot show an fsync; strace,
// which sees what the process asks of the kernel, can.

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;
namespace fs = std::filesystem;

namespace {

// A rename, or an fsync of `path` (strace -y names the file behind the descriptor).
struct Call {
  bool rename = false;
  fs::path from;
  fs::path path;  // the rename's target, or the file or directory flushed
};

// The calls in strace's log, in order, with absolute paths made canonical.
std::vector<Call> read_trace(const std::string& log) {
  const std::regex rename_re(
      R"re(\brename(?:at2?)?\((?:[^"]*, )?"([^"]+)", (?:[^"]*, )?"([^"]+)".*= 0)re");
  const std::regex fsync_re(R"re(\b(?:fsync|fdatasync)\(\d+<([^>]+)>)re");
  auto canonical = [](const std::string& path) {
    return fs::weakly_canonical(fs::path(path).parent_path()) / fs::path(path).filename();
  };
  std::vector<Call> calls;
  for (const auto& line : lines_of(slurp(log))) {
    std::smatch m;
    if (std::regex_search(line, m, rename_re))
      calls.push_back({true, canonical(m[1]), canonical(m[2])});
    else if (std::regex_search(line, m, fsync_re))
      calls.push_back({false, {}, fs::weakly_canonical(std::string(m[1]))});
  }
  return calls;
}

// The sanitizer options of this run, with leak detection off (a no-op outside ASan).
std::string asan_options_without_leaks() {
  const char* current = std::getenv("ASAN_OPTIONS");
  std::string options = current ? current : "";
  return options + (options.empty() ? "" : ":") + "detect_leaks=0";
}

}  // namespace

TEST_CASE(
    "every rename a poll makes is of an fsync'd file, and its directory is fsync'd "
    "before the next rename",
    "[poll]") {
  REQUIRE(run({"sh", "-c", "command -v strace"}).exit_code == 0);  // scripts/deps --test
  std::atomic<int> version{1};
  HttpServer server([&](const RecordedRequest& request) {
    return Reply{.body = rss(request.target + "-version-" + std::to_string(version.load()))};
  });
  CliArchive archive("durability");
  for (const char* name : {"alpha", "beta"})
    REQUIRE(archive({"add", name, server.url(std::string("/") + name)}).exit_code == 0);
  archive.set_now("2026-10-02T06:00:00.000Z");
  REQUIRE(archive({"poll"}).exit_code == 0);

  // The second version: a change, so the poll writes every kind of file a commit has.
  version = 2;
  const std::string log = make_temp_dir("durability-strace") + "/strace";
  RunResult r = run({"strace", "-f", "-y", "-qq", "-o", log, "-e",
                     "trace=fsync,fdatasync,rename,renameat,renameat2", FEEDDIFF_BINARY, "-C",
                     archive.dir(), "poll"},
                    {{"FEEDDIFF_NOW", "2026-10-02T08:00:00.000Z"},
                     {"NO_COLOR", "1"},
                     // LeakSanitizer cannot run under ptrace and aborts the process at exit;
                     // the asan suite checks leaks in every other test.
                     {"ASAN_OPTIONS", asan_options_without_leaks()}});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out.find("alpha: changed") != std::string::npos);

  const std::vector<Call> calls = read_trace(log);
  const fs::path git_dir = fs::canonical(fs::path(archive.dir()) / ".git");
  const fs::path cache = git_dir / "feeddiff" / "cache";
  std::string renamed;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    // The item summary cache is made to be lost: recomputed when missing (store.h).
    if (!c.rename || c.path.string().starts_with(cache.string())) continue;
    renamed += fs::relative(c.path, git_dir).string() + "\n";
    INFO("rename " << c.from << " -> " << c.path);
    bool file_synced = false, dir_synced = false;
    for (std::size_t j = 0; j < i; ++j)
      if (!calls[j].rename && calls[j].path == c.from) file_synced = true;
    for (std::size_t j = i + 1; j < calls.size() && !calls[j].rename; ++j) {
      // The file flushed after the rename counts too, if before its directory: libgit2
      // renames the index unflushed, and feeddiff flushes it, then .git.
      if (calls[j].path == c.path && !dir_synced) file_synced = true;
      if (calls[j].path == c.path.parent_path()) dir_synced = true;
    }
    CHECK(file_synced);
    CHECK(dir_synced);
  }
  // The renames checked are those of a commit: pack, index of the pack, checkout marker,
  // branch, git index, state.
  INFO("renamed:\n" << renamed);
  for (const char* re :
       {R"(objects/pack/pack-[0-9a-f]{40}\.pack\n)", R"(objects/pack/pack-[0-9a-f]{40}\.idx\n)",
        R"(feeddiff/checkout-pending\n)", R"(refs/heads/main\n)", R"((^|\n)index\n)",
        R"(feeddiff/state\.json\n)"}) {
    INFO(re);
    CHECK(std::regex_search(renamed, std::regex(re)));
  }
}
