#pragma once
// A change whose one item carries hostile text in both its before and its after values:
// script and img onerror markup, raw ESC sequences (a JSON Feed can carry U+001B, which XML
// cannot), a bell, bidi overrides and isolates, in the title and in the HTML content.

#include <nlohmann/json.hpp>
#include <string>

#include "cli/render_helpers.h"

namespace feeddiff::test {

/// U+202E RIGHT-TO-LEFT OVERRIDE and U+2066 LEFT-TO-RIGHT ISOLATE, as UTF-8.
inline const std::string kHostileRlo = "\xe2\x80\xae";
inline const std::string kHostileLri = "\xe2\x81\xa6";

/// The item's title at a version ("before" or "after"): markup that would set data-pwned if
/// it ran, terminal sequences and bidi controls.
inline std::string hostile_item_title(const std::string& side) {
  return side + " <script>document.documentElement.setAttribute('data-pwned','" + side +
         "-title')</script><img src=x onerror=\"document.documentElement.setAttribute("
         "'data-pwned','" +
         side + "-img')\"> \x1b[2J\x1b]0;" + side + "\a " + kHostileRlo + "fdp.exe " + kHostileLri +
         side;
}

/// The item's HTML content at a version: live markup (dropped by the word diff, which reads
/// the text) and escaped markup (which the text holds, so the page must escape it again).
inline std::string hostile_item_content(const std::string& side) {
  return "<p>" + side + " words <script>document.documentElement.setAttribute('data-pwned','" +
         side + "-content')</script>&lt;script&gt;alert('" + side +
         "')&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; \x1b[31m" + side + " red " +
         kHostileRlo + side + "-override</p>";
}

/// An archive of the source "both": HEAD~1 records a JSON Feed whose item holds the "before"
/// title and content, HEAD the same item with the "after" ones.
inline std::string both_sides_hostile_archive(const std::string& hint) {
  const std::string dir = make_temp_dir(hint) + "/archive";
  auto archive = Archive::init(dir, *parse_iso8601("2026-02-01T00:00:00Z"));
  REQUIRE(archive);
  auto feed = [](const std::string& side) {
    nlohmann::json doc = {{"version", "https://jsonfeed.org/version/1.1"},
                          {"title", "both"},
                          {"items",
                           {{{"id", "tag:example.com,2026:1"},
                             {"title", hostile_item_title(side)},
                             {"content_html", hostile_item_content(side)}}}}};
    return doc.dump(2) + "\n";
  };
  auto commit = [&](const std::string& body, const char* at) {
    CommitRequest request;
    request.message = "both: changed (" + std::to_string(body.size()) +
                      " bytes, HTTP 200)\n\nSource: both\nObserved-At: " + at + "\nStatus: 200\n";
    request.author_time = request.commit_time = *parse_iso8601(at);
    request.files.push_back({"raw/both/response.json", body});
    REQUIRE(archive->commit(request));
  };
  commit(feed("before"), "2026-02-01T01:00:00.000Z");
  commit(feed("after"), "2026-02-01T02:00:00.000Z");
  return dir;
}

}  // namespace feeddiff::test
