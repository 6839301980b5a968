// Every feed of the shared corpus goes through normalize: it parses and is idempotent, or
// it fails with a position.

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "feeddiff/normalize.h"
#include "support/process.h"

namespace feeddiff {
namespace {

// The Content-Type a feedparser test simulates ("Header: Content-type: ..."), if any.
std::string simulated_content_type(const std::string& body) {
  const std::size_t h = body.find("Content-type:");
  if (h == std::string::npos || h > 2000) return {};
  const std::size_t end = body.find('\n', h);
  return body.substr(h + 13, end == std::string::npos ? std::string::npos : end - h - 13);
}

// "line L, column C: reason"
bool has_position(const std::string& message) {
  unsigned line = 0, column = 0;
  int used = 0;
  return std::sscanf(message.c_str(), "line %u, column %u: %n", &line, &column, &used) == 2 &&
         used > 0 && line > 0 && column > 0 && message.size() > static_cast<std::size_t>(used);
}

bool is_feed_file(const std::filesystem::path& p, const std::string& body) {
  const std::string ext = p.extension().string();
  if (ext == ".xml" || ext == ".rss" || ext == ".atom" || ext == ".rdf") return true;
  // JSON files are JSON Feeds or the expected outputs of parser test suites; only the
  // feeds count.
  return ext == ".json" && body.find("jsonfeed.org/version") != std::string::npos;
}

}  // namespace

TEST_CASE("every corpus feed normalizes idempotently or fails with a line and column",
          "[normalize]") {
  const std::string root = test::corpus_path("");
  std::size_t parsed = 0, failed = 0, skipped = 0;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string body = test::slurp(path.string());
    if (!is_feed_file(path, body)) {
      ++skipped;
      continue;
    }
    const std::string rel = std::filesystem::relative(path, root).string();
    const Result<Document> first = normalize(body, simulated_content_type(body));
    if (!first) {
      ++failed;
      if (first.error().code != Errc::bad_xml || !has_position(first.error().message))
        FAIL_CHECK(rel << ": error without a position: " << first.error().message);
      continue;
    }
    ++parsed;
    const Result<Document> second = normalize(first->text);
    if (!second) {
      FAIL_CHECK(rel << ": canonical form does not parse: " << second.error().message);
      continue;
    }
    if (second->text != first->text) {
      FAIL_CHECK(rel << ": not idempotent");
      continue;
    }
    if (!second->repairs.empty())
      FAIL_CHECK(rel << ": canonical form needed a repair: line " << second->repairs[0].line << " "
                     << second->repairs[0].what);
    if (second->feed.items.size() != first->feed.items.size())
      FAIL_CHECK(rel << ": item count changed on the canonical form");
    for (std::size_t i = 0; i < std::min(first->feed.items.size(), second->feed.items.size()); ++i)
      if (first->feed.items[i].id != second->feed.items[i].id ||
          first->feed.items[i].title != second->feed.items[i].title) {
        FAIL_CHECK(rel << ": item " << i << " differs on the canonical form: "
                       << first->feed.items[i].id << " vs " << second->feed.items[i].id);
        break;
      }
  }
  INFO(parsed << " parsed, " << failed << " failed with a position, " << skipped << " not feeds");
  CHECK(parsed > 4000);
  CHECK(failed < parsed / 50);
}

}  // namespace feeddiff
