// `feeddiff site DIR` against what surrounds it: a second run on the same DIR while one is at
// work (the lock), and secrets in source URLs and poll errors (shown redacted, as commit
// trailers show them).

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;
namespace fs = std::filesystem;

namespace {

std::string rss(const std::string& tag) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
         "<title>Feed</title><link>http://example.com/</link><description>d</description>"
         "<item><title>" +
         tag + "</title><guid>" + tag + "</guid></item></channel></rss>\n";
}

// An archive with one source that recorded one change.
struct OneChange {
  HttpServer server{[](const RecordedRequest&) { return Reply{.body = rss("one")}; }};
  CliArchive archive{"site-safety"};

  OneChange() {
    REQUIRE(archive({"add", "feed", server.url("/feed.xml")}).exit_code == 0);
    REQUIRE(archive({"poll", "--quiet"}).exit_code == 0);
  }
};

}  // namespace

TEST_CASE("a site run on a directory another feeddiff is building stops at once and says who",
          "[cli][site]") {
  OneChange one;
  const std::string site = make_temp_dir("site-locked") + "/public";
  REQUIRE(run_feeddiff({"-C", one.archive.dir(), "site", site}).exit_code == 0);

  // This test's process plays the run still at work: it holds the lock, as feeddiff does
  // (flock on DIR/.feeddiff-site.lock, its pid inside), while a second process runs site.
  const std::string lock_path = site + "/.feeddiff-site.lock";
  REQUIRE(fs::exists(lock_path));
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const std::string pid = std::to_string(::getpid());
  REQUIRE(::ftruncate(fd, 0) == 0);
  REQUIRE(::pwrite(fd, (pid + "\n").data(), pid.size() + 1, 0) ==
          static_cast<ssize_t>(pid.size() + 1));
  // A change for the second run to render, were it to run.
  fs::remove(site + "/index.html");

  auto blocked = run_feeddiff({"-C", one.archive.dir(), "site", site});
  CHECK(blocked.exit_code == 2);
  CHECK(blocked.out.empty());
  CHECK(blocked.err == "feeddiff: error: site " + site +
                           " is being built by another feeddiff (pid " + pid +
                           "); run it again when that one has finished\n");
  // It touched nothing: no working directory made, the missing page not written.
  CHECK_FALSE(fs::exists(site + "/.feeddiff-site.work"));
  CHECK_FALSE(fs::exists(site + "/index.html"));

  ::close(fd);  // the first run ends
  auto after = run_feeddiff({"-C", one.archive.dir(), "site", site});
  INFO(after.err);
  CHECK(after.exit_code == 0);
  CHECK(fs::exists(site + "/index.html"));
  CHECK(slurp(lock_path) != pid + "\n");
}

TEST_CASE("the site shows source URLs and poll errors with their secret parameters redacted",
          "[cli][site]") {
  auto failing = std::make_shared<std::atomic<bool>>(false);
  HttpServer server([failing](const RecordedRequest&) {
    return *failing ? Reply{.status = 500, .body = "down"} : Reply{.body = rss("one")};
  });
  CliArchive archive("site-redacted");
  const std::string url = server.url("/feed.xml?token=sekrit&page=2");
  REQUIRE(archive({"add", "feed", url}).exit_code == 0);
  REQUIRE(archive({"poll", "--quiet"}).exit_code == 0);
  *failing = true;
  auto failed = archive({"poll", "--force", "--quiet"});
  INFO(failed.out << failed.err);
  REQUIRE(failed.exit_code == 1);
  // The poll's own error keeps what it keeps; the site shows the trailers' redaction.
  const std::string site = make_temp_dir("site-redacted-out") + "/public";
  auto r = run_feeddiff({"-C", archive.dir(), "site", site});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string shown = server.url("/feed.xml?token=***&amp;page=2");
  const std::string source_page = slurp(site + "/sources/feed.html");
  CHECK(source_page.find("<code><a href=\"" + shown + "\">" + shown + "</a></code>") !=
        std::string::npos);
  CHECK(source_page.find("failing (1 in a row): " + shown + ": HTTP 500") != std::string::npos);
  CHECK(slurp(site + "/index.html").find("failing (1 in a row): " + shown) != std::string::npos);
  for (const auto& entry : fs::recursive_directory_iterator(site)) {
    if (!entry.is_regular_file()) continue;
    INFO(entry.path());
    CHECK(slurp(entry.path().string()).find("sekrit") == std::string::npos);
  }
}
