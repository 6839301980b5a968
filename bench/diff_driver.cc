// bench/diff_driver: diff_lines on two files, printed as `git diff --no-index` prints it, so
// the two can be timed side by side (bench/diff) and their outputs compared.
//
//   diff_driver [--numstat] [--stats] [--max-edit-cost N] [--context N] [--repeat N] OLD NEW
//
// --numstat prints `added<TAB>removed<TAB>OLD => NEW` like git; --stats adds one line on
// stderr: milliseconds in diff_lines (the mean of --repeat runs), counts, hunks, whether the
// result is approximate.
// Exit status as diff: 0 equal, 1 different, 2 trouble.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feeddiff/diff.h"

namespace {

bool slurp(const char* path, std::string& out) {
  const int fd = ::open(path, O_RDONLY);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    out.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (ok && got < out.size()) {
      const ssize_t r = ::read(fd, out.data() + got, out.size() - got);
      ok = r > 0;
      if (ok) got += static_cast<std::size_t>(r);
    }
  }
  ::close(fd);
  return ok;
}

void range(std::string& out, std::size_t start, std::size_t count) {
  out += std::to_string(start);
  if (count != 1) out += ',' + std::to_string(count);
}

}  // namespace

int main(int argc, char** argv) {
  bool numstat = false, stats = false;
  int repeat = 1;
  feeddiff::DiffOptions options;
  int arg = 1;
  for (; arg < argc && argv[arg][0] == '-'; ++arg) {
    if (!std::strcmp(argv[arg], "--numstat")) {
      numstat = true;
    } else if (!std::strcmp(argv[arg], "--stats")) {
      stats = true;
    } else if (!std::strcmp(argv[arg], "--max-edit-cost") && arg + 1 < argc) {
      options.max_edit_cost = std::strtoull(argv[++arg], nullptr, 10);
    } else if (!std::strcmp(argv[arg], "--repeat") && arg + 1 < argc) {
      repeat = std::atoi(argv[++arg]);
    } else if (!std::strcmp(argv[arg], "--context") && arg + 1 < argc) {
      options.context = std::strtoull(argv[++arg], nullptr, 10);
    } else {
      std::fprintf(stderr, "diff_driver: unknown option %s\n", argv[arg]);
      return 2;
    }
  }
  if (argc - arg != 2) {
    std::fprintf(stderr, "usage: diff_driver [--numstat] [--stats] [--max-edit-cost N] OLD NEW\n");
    return 2;
  }
  std::string old_text, new_text;
  if (!slurp(argv[arg], old_text) || !slurp(argv[arg + 1], new_text)) {
    std::fprintf(stderr, "diff_driver: cannot read %s or %s\n", argv[arg], argv[arg + 1]);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  feeddiff::LineDiff diff = feeddiff::diff_lines(old_text, new_text, options);
  for (int r = 1; r < repeat; ++r) diff = feeddiff::diff_lines(old_text, new_text, options);
  const auto stop = std::chrono::steady_clock::now();
  if (stats) {
    std::fprintf(stderr, "diff_lines %.1f ms, +%zu -%zu, %zu hunks%s\n",
                 std::chrono::duration<double, std::milli>(stop - start).count() / repeat,
                 diff.added, diff.removed, diff.hunks.size(),
                 diff.approximate ? ", approximate" : "");
  }
  if (diff.empty()) return 0;
  std::string out;
  if (numstat) {
    out = std::to_string(diff.added) + '\t' + std::to_string(diff.removed) + '\t' + argv[arg] +
          " => " + argv[arg + 1] + '\n';
  } else {
    out.reserve((1u << 20) + 4096);
    out += std::string("--- a/") + argv[arg] + "\n+++ b/" + argv[arg + 1] + '\n';
    for (const auto& hunk : diff.hunks) {
      out += "@@ -";
      range(out, hunk.old_start, hunk.old_count);
      out += " +";
      range(out, hunk.new_start, hunk.new_count);
      out += " @@\n";
      for (const auto& line : hunk.lines) {
        out += static_cast<char>(line.kind);
        out += line.text;
        out += '\n';
        if (line.no_newline) out += "\\ No newline at end of file\n";
        if (out.size() > (1u << 20)) {
          std::fwrite(out.data(), 1, out.size(), stdout);
          out.clear();
        }
      }
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 1;
}
