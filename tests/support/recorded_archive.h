#pragma once
// An archive built in a test without polling: feeddiff.toml naming the sources, then each
// body committed as poll would (raw/NAME/response.xml, the trailers Source, Observed-At and
// Status), 10 minutes apart. Header-only: only the test executables that link store and
// config (changes, site, cli) include it.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/store.h"
#include "support/process.h"

namespace feeddiff::test {

/// A fresh archive under a temporary directory, its sources added in one commit.
class RecordedArchive {
 public:
  /// Sources are named as given, each at https://example.com/NAME.xml.
  explicit RecordedArchive(const std::string& hint, const std::vector<std::string>& sources)
      : dir_(make_temp_dir(hint) + "/archive") {
    auto archive = Archive::init(dir_, clock_);
    REQUIRE(archive);
    Config config;
    for (const auto& name : sources) {
      SourceConfig source;
      source.name = name;
      source.url = "https://example.com/" + name + ".xml";
      config.sources.push_back(source);
    }
    CommitRequest request;
    request.message = "feeddiff: sources added\n";
    request.author_time = request.commit_time = clock_;
    request.files.push_back({"feeddiff.toml", format_config(config)});
    REQUIRE(archive->commit(request));
  }

  /// Commits body as the source's next version; its commit id, or "" when it equals the last.
  /// trailers ("Key: value\n" lines) follow Status.
  std::string record(const std::string& source, const std::string& body,
                     const std::string& trailers = "") {
    auto archive = Archive::open(dir_);
    REQUIRE(archive);
    clock_ += 600'000;
    CommitRequest request;
    request.message = source + ": changed (" + std::to_string(body.size()) +
                      " bytes, HTTP 200)\n\nSource: " + source +
                      "\nObserved-At: " + format_iso8601_ms(clock_) + "\nStatus: 200\n" + trailers;
    request.author_time = request.commit_time = clock_;
    request.files.push_back({"raw/" + source + "/response.xml", body});
    auto made = archive->commit(request);
    REQUIRE(made);
    return made->value_or("");
  }

  /// Commits files (path, bytes) at the next tick, titled `title`, with Observed-At and then
  /// trailers ("Key: value\n" lines) after it: commits that are not a feed's version (an
  /// article's, a backfill's). Its commit id.
  std::string record_files(const std::string& title, const std::string& trailers,
                           const std::vector<std::pair<std::string, std::string>>& files) {
    auto archive = Archive::open(dir_);
    REQUIRE(archive);
    clock_ += 600'000;
    CommitRequest request;
    request.message = title + "\n\nObserved-At: " + format_iso8601_ms(clock_) + "\n" + trailers;
    request.author_time = request.commit_time = clock_;
    for (const auto& [path, bytes] : files) request.files.push_back({path, bytes});
    auto made = archive->commit(request);
    REQUIRE(made);
    return made->value_or("");
  }

  /// The archive, opened afresh.
  Archive open() const {
    auto archive = Archive::open(dir_);
    REQUIRE(archive);
    return std::move(*archive);
  }

  /// The archive's work tree.
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  TimeMs clock_ = *parse_iso8601("2025-01-01T00:00:00Z");
};

}  // namespace feeddiff::test
