// The item summaries in .git/feeddiff/cache (rows of entries.sqlite): poll writes one for each
// change it records, show reads it instead of normalizing both versions, and a missing or
// damaged entry is recomputed into the same page.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;
namespace fs = std::filesystem;

namespace {

// Serves 0001.xml, then 0002.xml, of a recorded feed history.
struct TwoVersions {
  std::atomic<int> version{1};
  HttpServer server{[this](const RecordedRequest&) {
    const char* name =
        version.load() == 1 ? "feeds/openai-research/0001.xml" : "feeds/openai-research/0002.xml";
    return Reply{.status = 200,
                 .headers = {{"Content-Type", "application/rss+xml"}},
                 .body = slurp(fixture_path(name))};
  }};
};

// The cache's per-change entries are rows of one SQLite file; the sqlite3 command reads and
// writes them here, a reader independent of feeddiff's.
std::string entries_file(const CliArchive& archive) {
  return archive.dir() + "/.git/feeddiff/cache/entries.sqlite";
}

std::string sql(const CliArchive& archive, const std::string& statement) {
  auto r = run({"sqlite3", entries_file(archive), statement});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// The names of the item summaries cached.
std::vector<std::string> entries(const CliArchive& archive) {
  std::vector<std::string> out;
  if (!fs::exists(entries_file(archive))) return out;
  std::istringstream lines(sql(archive, "SELECT name FROM entry WHERE name LIKE 'items/%'"));
  for (std::string line; std::getline(lines, line);) out.push_back(line);
  return out;
}

std::string entry_value(const CliArchive& archive, const std::string& name) {
  std::string hex = sql(archive, "SELECT hex(value) FROM entry WHERE name = '" + name + "'");
  while (!hex.empty() && hex.back() == '\n') hex.pop_back();
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

void set_entry(const CliArchive& archive, const std::string& name, const std::string& value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : value) {
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  sql(archive, "UPDATE entry SET value = x'" + hex + "' WHERE name = '" + name + "'");
}

void record_two_versions(CliArchive& archive, TwoVersions& feed) {
  REQUIRE(archive({"add", "openai", feed.server.url("/feed.xml")}).exit_code == 0);
  REQUIRE(archive({"poll"}).exit_code == 0);
  feed.version = 2;
  archive.set_now("2026-10-01T07:00:00.500Z");
  auto second = archive({"poll"});
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
}

}  // namespace

TEST_CASE("poll caches the item summary of a change, and show's page is the same without it",
          "[cli]") {
  TwoVersions feed;
  CliArchive archive("show-cache");
  record_two_versions(archive, feed);

  // The first version (added) has no previous one to compare; the change has its summary.
  const auto cached = entries(archive);
  REQUIRE(cached.size() == 1);
  const std::string old_blob = archive.git({"rev-parse", "HEAD~1:raw/openai/response.xml"}).out;
  const std::string new_blob = archive.git({"rev-parse", "HEAD:raw/openai/response.xml"}).out;
  CHECK(cached[0].starts_with("items/" + old_blob.substr(0, 40) + "-" + new_blob.substr(0, 40) +
                              "-"));

  auto with_cache = archive({"show", "HEAD"});
  REQUIRE(with_cache.exit_code == 0);
  CHECK(with_cache.out.find("Items") != std::string::npos);
  const std::string entry = entry_value(archive, cached[0]);

  fs::remove_all(archive.dir() + "/.git/feeddiff/cache");
  auto without = archive({"show", "HEAD"});
  REQUIRE(without.exit_code == 0);
  CHECK(without.out == with_cache.out);
  // show computed it and cached it again, byte for byte what poll wrote.
  REQUIRE(entries(archive).size() == 1);
  CHECK(entry_value(archive, entries(archive)[0]) == entry);
  CHECK(archive.git({"status", "--porcelain"}).out.empty());
}

TEST_CASE("show reads the cached summary, and recomputes a damaged one", "[cli]") {
  TwoVersions feed;
  CliArchive archive("show-cache-damaged");
  record_two_versions(archive, feed);
  const auto cached = entries(archive);
  REQUIRE(cached.size() == 1);
  const std::string name = cached[0];
  const std::string entry = entry_value(archive, name);
  const std::string page = archive({"show", "HEAD"}).out;

  // A well-formed entry is believed: this one names an item the feed never had.
  // The header line of the format feeddiff writes now, whatever its version.
  set_entry(archive, name,
            entry.substr(0, entry.find('\n')) +
                "\nflags\t0\t0\t0\nitem\tadded\t0\t0\t-\t0\turn:x\tPlanted by the test\nend\n");
  auto planted = archive({"show", "HEAD"});
  REQUIRE(planted.exit_code == 0);
  CHECK(planted.out.find("Planted by the test") != std::string::npos);

  // A cut or garbled one is not: the summary is computed again and the entry rewritten.
  for (const std::string& damaged :
       {entry.substr(0, entry.size() / 2), std::string("garbage\n"), std::string()}) {
    set_entry(archive, name, damaged);
    auto again = archive({"show", "HEAD"});
    REQUIRE(again.exit_code == 0);
    CHECK(again.out == page);
    CHECK(entry_value(archive, name) == entry);
  }
}

TEST_CASE("show works in an archive whose cache cannot be written", "[cli]") {
  TwoVersions feed;
  CliArchive archive("show-cache-readonly");
  record_two_versions(archive, feed);
  const std::string page = archive({"show", "HEAD"}).out;
  fs::remove_all(archive.dir() + "/.git/feeddiff/cache");
  // A file where the cache directory would be: nothing can be cached.
  { std::ofstream(archive.dir() + "/.git/feeddiff/cache") << "in the way"; }
  auto shown = archive({"show", "HEAD"});
  INFO(shown.err);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out == page);
  CHECK(shown.err.empty());
}

TEST_CASE("show and log after a poll read the cache without writing to it", "[cli]") {
  TwoVersions feed;
  CliArchive archive("show-cache-read-only");
  record_two_versions(archive, feed);
  const std::string file = entries_file(archive);
  // poll leaves the WAL empty as it closes: no reader after it copies its frames again.
  REQUIRE(fs::exists(file + "-wal"));
  CHECK(fs::file_size(file + "-wal") == 0);
  const auto written = fs::last_write_time(file);
  const std::string bytes = slurp(file);
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"show", "HEAD"}, {"log"}, {"log", "openai"}, {"status"}}) {
    auto r = archive(command);
    INFO(command[0] << ": " << r.err);
    CHECK(r.exit_code == 0);
  }
  CHECK(fs::last_write_time(file) == written);
  CHECK(slurp(file) == bytes);
  CHECK(fs::file_size(file + "-wal") == 0);
}
