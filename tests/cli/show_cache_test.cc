// The item summaries in .git/feeddiff/cache: poll writes one for each change it records,
// show reads it instead of normalizing both versions, and a missing or damaged entry is
// recomputed into the same page.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

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

std::vector<fs::path> entries(const CliArchive& archive) {
  std::vector<fs::path> out;
  const fs::path dir = archive.dir() + "/.git/feeddiff/cache/items";
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
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
  CHECK(cached[0].filename().string().starts_with(old_blob.substr(0, 40) + "-" +
                                                  new_blob.substr(0, 40) + "-"));

  auto with_cache = archive({"show", "HEAD"});
  REQUIRE(with_cache.exit_code == 0);
  CHECK(with_cache.out.find("Items") != std::string::npos);
  const std::string entry = slurp(cached[0].string());

  fs::remove_all(archive.dir() + "/.git/feeddiff/cache");
  auto without = archive({"show", "HEAD"});
  REQUIRE(without.exit_code == 0);
  CHECK(without.out == with_cache.out);
  // show computed it and cached it again, byte for byte what poll wrote.
  REQUIRE(entries(archive).size() == 1);
  CHECK(slurp(entries(archive)[0].string()) == entry);
  CHECK(archive.git({"status", "--porcelain"}).out.empty());
}

TEST_CASE("show reads the cached summary, and recomputes a damaged one", "[cli]") {
  TwoVersions feed;
  CliArchive archive("show-cache-damaged");
  record_two_versions(archive, feed);
  const auto cached = entries(archive);
  REQUIRE(cached.size() == 1);
  const std::string path = cached[0].string();
  const std::string entry = slurp(path);
  const std::string page = archive({"show", "HEAD"}).out;

  // A well-formed entry is believed: this one names an item the feed never had.
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    // The header line of the format feeddiff writes now, whatever its version.
    out << entry.substr(0, entry.find('\n'))
        << "\nflags\t0\t0\t0\nitem\tadded\t0\t0\t-\t0\turn:x\tPlanted by the test\nend\n";
  }
  auto planted = archive({"show", "HEAD"});
  REQUIRE(planted.exit_code == 0);
  CHECK(planted.out.find("Planted by the test") != std::string::npos);

  // A cut or garbled one is not: the summary is computed again and the entry rewritten.
  for (const std::string& damaged :
       {entry.substr(0, entry.size() / 2), std::string("garbage\n"), std::string()}) {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << damaged;
    }
    auto again = archive({"show", "HEAD"});
    REQUIRE(again.exit_code == 0);
    CHECK(again.out == page);
    CHECK(slurp(path) == entry);
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
