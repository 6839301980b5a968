#pragma once
// Shared by the backfill tests: a publisher's archive served from the scripted server on
// 127.0.0.1 (RFC 5005 archived feeds, paged feeds, JSON Feed pages), each page a path.

#include <fmt/format.h>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cli/cli_helpers.h"

namespace feeddiff::test {

/// An Atom entry dated 2020-01-DD (DD = n, 1 to 28).
inline std::string atom_entry(int n) {
  return fmt::format(
      "<entry><id>urn:e{0}</id><title>Entry {0}</title><link href=\"http://example.com/{0}\"/>"
      "<published>2020-01-{0:02}T10:00:00Z</published><updated>2020-01-{0:02}T10:00:00Z"
      "</updated></entry>",
      n);
}

/// An Atom document holding entries `entries` (newest first), with `links` as
/// `<link rel="REL" href="HREF"/>` elements; archive marks it an RFC 5005 archive document.
inline std::string atom_page(const std::vector<int>& entries,
                             const std::vector<std::pair<std::string, std::string>>& links,
                             bool archive = false) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" "
      "xmlns:fh=\"http://purl.org/syndication/history/1.0\"><title>Blog</title>"
      "<id>urn:blog</id><updated>2020-02-01T00:00:00Z</updated>";
  if (archive) out += "<fh:archive/>";
  for (const auto& [rel, href] : links)
    out += fmt::format("<link rel=\"{}\" href=\"{}\"/>", rel, href);
  for (int n : entries) out += atom_entry(n);
  return out + "</feed>\n";
}

/// A JSON Feed page of items `entries`, with next_url when not empty.
inline std::string json_page(const std::vector<int>& entries, const std::string& next_url) {
  std::string items;
  for (int n : entries)
    items += fmt::format(
        "{}{{\"id\":\"j{}\",\"title\":\"Item {}\",\"url\":\"http://example.com/j{}\","
        "\"date_published\":\"2021-03-{:02}T08:00:00Z\",\"content_text\":\"x\"}}",
        items.empty() ? "" : ",", n, n, n, n);
  return fmt::format(
      "{{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"J\",{}\"items\":[{}]}}\n",
      next_url.empty() ? "" : "\"next_url\":\"" + next_url + "\",", items);
}

/// Serves pages by path (the body and its Content-Type), with an ETag per body and 304 to
/// it; 404 for any other path. Pages may be replaced while it runs.
class ArchiveServer {
 public:
  ArchiveServer()
      : server_([this](const RecordedRequest& request) {
          std::lock_guard lock(mutex_);
          auto it = pages_.find(request.target);
          if (it == pages_.end()) return Reply{.status = 404, .body = "not here"};
          const std::string etag =
              "\"" + std::to_string(std::hash<std::string>{}(it->second.first)) + "\"";
          if (request.header("If-None-Match") == etag)
            return Reply{.status = 304, .headers = {{"ETag", etag}}};
          return Reply{.headers = {{"Content-Type", it->second.second}, {"ETag", etag}},
                       .body = it->second.first};
        }) {}
  /// Serves body at path.
  void page(const std::string& path, std::string body, std::string type = "application/atom+xml") {
    std::lock_guard lock(mutex_);
    pages_[path] = {std::move(body), std::move(type)};
  }
  /// The absolute URL of path.
  std::string url(const std::string& path) const { return server_.url(path); }
  /// The paths requested so far, in order.
  std::vector<std::string> paths() const {
    std::vector<std::string> out;
    for (const auto& r : server_.requests()) out.push_back(r.target);
    return out;
  }
  /// The requests so far.
  std::vector<RecordedRequest> requests() const { return server_.requests(); }

 private:
  std::mutex mutex_;
  std::map<std::string, std::pair<std::string, std::string>> pages_;
  HttpServer server_;
};

/// An RFC 5005 archive of 5 pages: the current document /feed.atom (entries 12..9) and
/// archive documents /archive/4.atom .. /archive/1.atom, each overlapping the next by one
/// entry; entries 1 to 12 in all, 1 to 9 on the archive pages. Links are relative.
inline void serve_rfc5005(ArchiveServer& server) {
  server.page("/feed.atom", atom_page({12, 11, 10, 9}, {{"self", "/feed.atom"},
                                                        {"prev-archive", "archive/4.atom"}}));
  server.page("/archive/4.atom",
              atom_page({9, 8, 7}, {{"current", "/feed.atom"}, {"prev-archive", "3.atom"}}, true));
  server.page(
      "/archive/3.atom",
      atom_page({7, 6, 5},
                {{"current", "/feed.atom"}, {"prev-archive", "2.atom"}, {"next-archive", "4.atom"}},
                true));
  server.page(
      "/archive/2.atom",
      atom_page({5, 4, 3},
                {{"current", "/feed.atom"}, {"prev-archive", "1.atom"}, {"next-archive", "3.atom"}},
                true));
  server.page("/archive/1.atom",
              atom_page({3, 2, 1}, {{"current", "/feed.atom"}, {"next-archive", "2.atom"}}, true));
}

/// An archive with source `name` at `path` of server, polled once (its first version).
inline void add_and_poll(const CliArchive& archive, const ArchiveServer& server,
                         const std::string& name, const std::string& path) {
  auto r = archive({"add", name, server.url(path)});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  r = archive({"poll", "--force", "--timeout", "5s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

}  // namespace feeddiff::test
