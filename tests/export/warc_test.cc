// `feeddiff export-warc` over versions polled from a scripted server, read back by warcio.js
// (Webrecorder's WARC library, tests/warc/check.mjs) rather than by feeddiff's own code: the
// records it parses, the digests recomputed from what it parsed, and the CDXJ index its own
// indexer makes of the file, which must be the one feeddiff wrote.

#include <fmt/format.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_helpers.h"
#include "feeddiff/core.h"
#include "feeddiff/export.h"

using namespace feeddiff;
using namespace feeddiff::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string feed(const std::string& title) {
  return "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Warc</title>"
         "<item><guid>a</guid><title>" +
         title + "</title></item></channel></rss>\n";
}

// The versions served, one per poll: A, B, C (sent gzip-encoded), then A again.
struct Versions {
  std::atomic<int> version{0};
  std::vector<std::string> bodies = {feed("first"), feed("second"), feed("third"), feed("first")};
  std::string gzipped = run({"gzip", "-c", "-n"}, {}, bodies[2]).out;
  HttpServer server{[this](const RecordedRequest&) {
    const int v = version.load();
    Reply r{.status = 200,
            .headers = {{"Content-Type", "application/rss+xml; charset=utf-8"},
                        {"Set-Cookie", "session=secret"}},
            .body = bodies[static_cast<std::size_t>(v)]};
    if (v == 2) {
      r.headers.push_back({"Content-Encoding", "gzip"});
      r.body = gzipped;
    }
    return r;
  }};
};

void poll_version(CliArchive& archive, Versions& versions, int v) {
  versions.version = v;
  archive.set_now(format_iso8601_ms(*parse_iso8601("2026-10-01T00:00:00Z") + v * 3'600'000LL));
  auto r = archive({"poll", "--force", "--quiet"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

// What warcio makes of a WARC file (tests/warc/check.mjs).
json warcio_read(const std::string& warc) {
  const std::string dir = std::string(kSourceDir) + "/tests/warc";
  INFO("warcio.js is installed by scripts/deps --test (npm ci in tests/warc)");
  REQUIRE(fs::exists(dir + "/node_modules/warcio/package.json"));
  auto r = run({"node", dir + "/check.mjs", warc});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::vector<std::string> records_of_type(const json& read, const std::string& type) {
  std::vector<std::string> ids;
  for (const auto& r : read["records"])
    if (r["type"] == type) ids.push_back(r["fields"]["WARC-Record-ID"]);
  return ids;
}

}  // namespace

TEST_CASE(
    "export-warc writes each polled version as a record warcio reads, a revisit for a body "
    "seen before, and the CDXJ index warcio's indexer makes",
    "[export]") {
  Versions versions;
  CliArchive archive("export-warc");
  const std::string url = versions.server.url("/feed.xml");
  REQUIRE(archive({"add", "warc", url}).exit_code == 0);
  for (int v = 0; v < 4; ++v) poll_version(archive, versions, v);
  const std::string out = make_temp_dir("export-warc-out");
  auto r = archive({"export-warc", "-o", out + "/all.warc.gz"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("warc: 3 responses, 1 revisit") != std::string::npos);

  const json read = warcio_read(out + "/all.warc.gz");
  const auto& records = read["records"];
  REQUIRE(records.size() == 5);
  CHECK(records[0]["type"] == "warcinfo");
  CHECK(std::string(records[0]["block_text"]).find("software: feeddiff") != std::string::npos);
  std::vector<std::string> commits;
  for (const auto& line :
       lines_of(archive.git({"log", "--reverse", "--format=%H %cI", "--", "raw/warc/"}).out))
    commits.push_back(line.substr(0, 40));
  REQUIRE(commits.size() == 4);
  for (std::size_t i = 1; i < records.size(); ++i) {
    const auto& rec = records[i];
    const auto& f = rec["fields"];
    INFO("record " << i << ": " << rec.dump().substr(0, 2000));
    CHECK(rec["type"] == (i == 4 ? "revisit" : "response"));
    CHECK(f["WARC-Target-URI"] == url);
    CHECK(f["Feeddiff-Commit"] == commits[i - 1]);
    CHECK(f["WARC-Warcinfo-ID"] == records[0]["fields"]["WARC-Record-ID"]);
    // Dated by the poll's clock, an hour apart.
    CHECK(f["WARC-Date"] == format_iso8601_ms(*parse_iso8601("2026-10-01T00:00:00Z") +
                                              static_cast<TimeMs>(i - 1) * 3'600'000LL));
    CHECK(rec["status"] == 200);
    CHECK(rec["statusline"] == "HTTP/1.1 200 OK");
    // The block's digest as warcio's parse gives it back, recomputed here.
    CHECK(rec["block_digest"] == f["WARC-Block-Digest"]);
    CHECK(rec["http"]["Set-Cookie"] == "[not recorded]");
    if (i < 4) {
      const std::string& body = versions.bodies[i - 1];
      CHECK(rec["payload_text"] == body);
      CHECK(rec["payload_digest"] == f["WARC-Payload-Digest"]);
      CHECK(rec["http"]["Content-Length"] == std::to_string(body.size()));
    }
  }
  // The gzip-encoded version: stored decoded, and the record says so.
  CHECK(records[3]["http"]["X-Feeddiff-Original-Content-Encoding"] == "gzip");
  CHECK(records[3]["http"]["X-Feeddiff-Original-Content-Length"] ==
        std::to_string(versions.gzipped.size()));
  CHECK_FALSE(records[3]["http"].contains("Content-Encoding"));
  // The revisit: no payload, the first record's digest, and a reference to it.
  const auto& revisit = records[4];
  CHECK(revisit["payload_size"] == 0);
  CHECK(revisit["fields"]["WARC-Payload-Digest"] == records[1]["fields"]["WARC-Payload-Digest"]);
  CHECK(revisit["fields"]["WARC-Refers-To"] == records[1]["fields"]["WARC-Record-ID"]);
  CHECK(revisit["fields"]["WARC-Refers-To-Date"] == records[1]["fields"]["WARC-Date"]);
  CHECK(revisit["fields"]["WARC-Profile"] ==
        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");

  // The CDXJ index beside it is the one warcio's indexer makes from the file.
  std::vector<std::string> ours = lines_of(slurp(out + "/all.cdxj"));
  std::vector<std::string> theirs = read["cdxj"];
  CHECK(ours == theirs);
  CHECK(ours.size() == 4);

  // Incremental: a fifth version, exported after the fourth commit, gives one record with the
  // id a whole export gives it.
  versions.bodies.push_back(feed("fifth"));
  poll_version(archive, versions, 4);
  auto inc = archive({"export-warc", "-o", out + "/new.warc.gz", "--since", commits[3]});
  INFO(inc.out << inc.err);
  REQUIRE(inc.exit_code == 0);
  CHECK(inc.out.find("warc: 1 response, 0 revisits") != std::string::npos);
  auto whole = archive({"export-warc", "-o", out + "/whole.warc.gz"});
  REQUIRE(whole.exit_code == 0);
  const json new_read = warcio_read(out + "/new.warc.gz");
  const json whole_read = warcio_read(out + "/whole.warc.gz");
  REQUIRE(new_read["records"].size() == 2);
  REQUIRE(whole_read["records"].size() == 6);
  CHECK(records_of_type(new_read, "response").back() ==
        records_of_type(whole_read, "response").back());
  CHECK(records_of_type(whole_read, "revisit") == records_of_type(read, "revisit"));
  // Nothing of the export went into the archive.
  CHECK(archive.git({"status", "--porcelain"}).out.empty());
  CHECK(archive.git({"fsck", "--strict"}).exit_code == 0);
}

TEST_CASE("export-warc refuses an unknown source and a file it cannot write, and leaves none",
          "[export]") {
  CliArchive archive("export-warc-errors");
  const std::string out = make_temp_dir("export-warc-errors-out");
  auto unknown = archive({"export-warc", "nosuch", "-o", out + "/x.warc.gz"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("no source 'nosuch'") != std::string::npos);
  auto unwritable = archive({"export-warc", "-o", out + "/no/such/dir/x.warc.gz"});
  CHECK(unwritable.exit_code == 2);
  CHECK(unwritable.err.find("cannot write") != std::string::npos);
  CHECK(fs::is_empty(out));
}

TEST_CASE("a SURT key reverses the host, drops www and the default port, and sorts the query",
          "[export]") {
  CHECK(warc_surt("http://www.Example.com:80/a/B?z=1&a=2#frag") == "com,example)/a/b?a=2&z=1");
  CHECK(warc_surt("https://blog.example.org:8443") == "org,example,blog:8443)/");
  CHECK(warc_surt("https://user:pw@example.com/feed?x") == "com,example)/feed?x");
}
