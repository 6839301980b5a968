#pragma once
// Shared by the end-to-end tests: an archive driven through the built binary.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/http_server.h"
#include "support/process.h"

namespace feeddiff::test {

/// An archive in a fresh directory, driven through the binary with a fixed clock.
class CliArchive {
 public:
  /// Creates it with `feeddiff init` at FEEDDIFF_NOW=now.
  explicit CliArchive(std::string hint, std::string now = "2026-10-01T05:54:04.027Z")
      : dir_(make_temp_dir(hint) + "/archive"), now_(std::move(now)) {
    auto r = run_feeddiff({"init", dir_});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  /// feeddiff -C <dir> args..., at the archive's clock.
  RunResult operator()(std::vector<std::string> args) const {
    args.insert(args.begin(), {"-C", dir_});
    return run_feeddiff(args);
  }
  /// git -C <dir> args...
  RunResult git(std::vector<std::string> args) const {
    args.insert(args.begin(), {"git", "-C", dir_});
    return run(args);
  }
  /// Moves the clock.
  void set_now(std::string now) { now_ = std::move(now); }
  /// The archive's directory.
  const std::string& dir() const { return dir_; }
  /// HEAD's id.
  std::string head() const { return git({"rev-parse", "HEAD"}).out; }

 private:
  RunResult run_feeddiff(const std::vector<std::string>& args) const {
    return feeddiff::test::run_feeddiff(args, {{"FEEDDIFF_NOW", now_}, {"NO_COLOR", "1"}});
  }
  std::string dir_;
  std::string now_;
};

/// Counts the lines of text.
inline std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace feeddiff::test
