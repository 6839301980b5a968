#pragma once
// Shared by the poll tests: an archive driven through the built binary (see
// tests/cli/cli_helpers.h), its status read back as JSON, and small feeds to serve.

#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_helpers.h"

namespace feeddiff::test {

/// A small, valid RSS document whose single item carries `tag`.
inline std::string rss(std::string_view tag) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
         "<title>Feed</title><link>http://example.com/</link><description>d</description>"
         "<item><title>" +
         std::string(tag) + "</title><guid>" + std::string(tag) +
         "</guid></item></channel></rss>\n";
}

/// `feeddiff status --json NAME`, the one source's object.
inline nlohmann::json status_json(const CliArchive& archive, const std::string& name) {
  auto r = archive({"status", "--json", name});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["sources"].size() == 1);
  return doc["sources"][0];
}

/// `poll --force` with a 5-second timeout and any extra arguments; its result as it came.
inline RunResult poll_forced(const CliArchive& archive, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"poll", "--force", "--timeout", "5s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return archive(args);
}

/// `poll --force`, which must exit 0 (its output shown when it does not).
inline RunResult poll_ok(const CliArchive& archive) {
  auto r = poll_forced(archive);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

/// `feeddiff status NAME`, its text line.
inline std::string status_text(const CliArchive& archive, const std::string& name) {
  auto r = archive({"status", name});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

/// Whether HEAD's tree holds the path.
inline bool in_head(const CliArchive& archive, const std::string& path) {
  return archive.git({"cat-file", "-e", "HEAD:" + path}).exit_code == 0;
}

/// The number of commits on HEAD.
inline int commit_count(const CliArchive& archive) {
  return std::stoi(archive.git({"rev-list", "--count", "HEAD"}).out);
}

/// The bytes gzip makes of the input (the system's gzip: zlib is not linked into the tests).
inline std::string gzip_bytes(std::string_view data) {
  RunResult r = run({"gzip", "-c", "-n"}, {}, data);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

/// A gzip stream of n zero bytes, made without holding the n bytes in this process.
inline std::string gzip_zeros(std::size_t n) {
  RunResult r = run({"sh", "-c", "head -c " + std::to_string(n) + " /dev/zero | gzip -c -n"});
  REQUIRE(r.exit_code == 0);
  return r.out;
}

/// `feeddiff trust --all`: this machine consents to the hooks feeddiff.toml has now, as a
/// user must after editing them by hand.
inline void trust_all_hooks(const CliArchive& archive) {
  auto r = archive({"trust", "--all"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

/// `feeddiff add news URL`, then toml (hooks, rules) appended to feeddiff.toml, committed and
/// trusted, as a user does by hand; toml empty adds the source only.
inline void add_news(const CliArchive& archive, const std::string& url, const std::string& toml) {
  REQUIRE(archive({"add", "news", url}).exit_code == 0);
  if (toml.empty()) return;
  spit(archive.dir() + "/feeddiff.toml", slurp(archive.dir() + "/feeddiff.toml") + toml);
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "notify",
                    "feeddiff.toml"})
              .exit_code == 0);
  trust_all_hooks(archive);
}

/// Serves `*body` (which the test changes between polls) with an ETag of its own, answering
/// 304 to that ETag.
inline HttpServer serve_changing(const std::string* body) {
  return HttpServer([body](const RecordedRequest& request) {
    const std::string etag = "\"" + std::to_string(std::hash<std::string>{}(*body)) + "\"";
    if (request.header("If-None-Match") == etag)
      return Reply{.status = 304, .headers = {{"ETag", etag}}};
    return Reply{.headers = {{"ETag", etag}}, .body = *body};
  });
}

}  // namespace feeddiff::test
