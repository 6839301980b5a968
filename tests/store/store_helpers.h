// Helpers shared by the store tests.
#pragma once

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "feeddiff/store.h"
#include "support/process.h"

namespace feeddiff::test {

/// A commit that writes (or, with nullopt, removes) raw/<source>/response.xml, titled and
/// trailered as poll titles a change.
inline CommitRequest source_change(const std::string& source, std::optional<std::string> content,
                                   TimeMs when = 1'790'834'044'027) {
  CommitRequest r;
  r.message = source + ": changed\n\nSource: " + source + "\n";
  r.author_time = r.commit_time = when;
  r.files.push_back({"raw/" + source + "/response.xml", std::move(content)});
  return r;
}

/// git -C dir args...; its stdout, and the test stops when git fails.
inline std::string git_out(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", dir});
  auto r = run(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace feeddiff::test
