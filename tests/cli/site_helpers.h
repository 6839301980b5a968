#pragma once
// What the site's feed and item-page tests share: the feed they serve, the Atom they read
// back, and the commits of a source.

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "feeddiff/normalize.h"
#include "support/process.h"

namespace feeddiff::test {

/// An RSS 2.0 feed of these items, {guid, title} each.
inline std::string rss(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel>\n"
      "<title>t</title>\n<link>https://example.com/</link>\n<description>d</description>\n";
  for (const auto& [guid, title] : items)
    out += "<item><guid>" + guid + "</guid><title>" + title + "</title></item>\n";
  return out + "</channel>\n</rss>\n";
}

/// The feed model of an Atom file the site wrote, which must read as Atom 1.0.
inline Feed parse_feed(const std::string& path) {
  auto doc = normalize(slurp(path));
  INFO(path << ": " << doc.description());
  REQUIRE(doc.ok());
  CHECK(doc->feed.format == "atom1.0");
  return doc->feed;
}

/// The commits that changed a source, newest first.
inline std::vector<std::string> commits_of(const std::string& archive, const std::string& source) {
  std::vector<std::string> out;
  std::istringstream lines(
      run({"git", "-C", archive, "log", "--format=%H", "--", "raw/" + source + "/"}).out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

/// `feeddiff -C archive site site` with any extra arguments, which must exit 0; its stdout.
inline std::string site_of(const std::string& archive, const std::string& site,
                           const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"-C", archive, "site", site};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_feeddiff(args);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace feeddiff::test
