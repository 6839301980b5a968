// The sources service called as a library: sources added, removed, imported and moved to the
// fan-out layout in an archive made in the test, each one commit of feeddiff.toml. What the
// commands print is checked end to end in tests/cli and tests/poll.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "feeddiff/sources.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

constexpr TimeMs kNow = 1'790'834'044'027;

Result<TimeMs> fixed_clock() {
  return kNow;
}

std::string head_title(const std::string& dir) {
  auto archive = Archive::open(dir);
  REQUIRE(archive);
  auto head = archive->resolve("HEAD");
  REQUIRE(head);
  return head->title;
}

}  // namespace

TEST_CASE("add_source and remove_source each commit feeddiff.toml", "[sources]") {
  RecordedArchive recorded("sources-add", {"alpha"});
  {
    auto edit = open_for_edit(recorded.dir());
    REQUIRE(edit);
    auto added =
        add_source(*edit, "beta", "https://me:secret@example.com/b.xml", 3'600'000, fixed_clock);
    REQUIRE(added);
    CHECK(added->source.url == "https://example.com/b.xml");
    CHECK(added->credentials_stored);
    auto again = add_source(*edit, "alpha", "https://example.com/a2.xml", 3'600'000, fixed_clock);
    REQUIRE_FALSE(again);
    CHECK(again.error().code == Errc::exists);
  }
  CHECK(head_title(recorded.dir()) == "beta: source added");
  auto config = load_config(recorded.open());
  REQUIRE(config);
  REQUIRE(config->find("beta"));
  CHECK(config->find("beta")->url == "https://example.com/b.xml");

  {
    auto edit = open_for_edit(recorded.dir());
    REQUIRE(edit);
    REQUIRE(remove_source(*edit, "beta", fixed_clock));
    auto missing = remove_source(*edit, "gamma", fixed_clock);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == Errc::not_found);
  }
  CHECK(head_title(recorded.dir()) == "beta: removed");
}

TEST_CASE("plan_import sorts the feeds into added, present and skipped", "[sources]") {
  RecordedArchive recorded("sources-import", {"alpha"});
  auto edit = open_for_edit(recorded.dir());
  REQUIRE(edit);
  std::vector<OpmlFeed> feeds(5);
  feeds[0].title = "Ars Technica";
  feeds[0].url = "https://example.com/ars.xml";
  feeds[1].url = "https://example.com/alpha.xml";  // alpha's URL
  feeds[2].url = "ftp://example.com/x.xml";
  feeds[3].title = "Fast";
  feeds[3].url = "https://example.com/fast.xml";
  feeds[3].every = 1'000;
  feeds[4].title = "Again";
  feeds[4].url = "https://example.com/ars.xml";  // the first feed's, in the same list

  const ImportPlan plan = plan_import(edit->config, feeds, 3'600'000);
  REQUIRE(plan.entries.size() == 5);
  CHECK(plan.added == 1);
  CHECK(plan.present == 2);
  CHECK(plan.skipped == 2);
  CHECK(plan.entries[0].kind == ImportEntry::Kind::added);
  CHECK(plan.entries[0].name == "ars-technica");
  CHECK(plan.entries[1].kind == ImportEntry::Kind::present);
  CHECK(plan.entries[1].name == "alpha");
  CHECK(plan.entries[2].kind == ImportEntry::Kind::skipped);
  CHECK(plan.entries[3].reason == "interval 1s is under 1m");
  CHECK(plan.entries[4].name == "ars-technica");

  auto text = committed_config(edit->archive, "import");
  REQUIRE(text);
  REQUIRE(commit_import(*edit, *text, plan, fixed_clock));
  CHECK(head_title(recorded.dir()) == "import: 1 source from OPML");
}

TEST_CASE("migrate_layout moves the sources once, and a second run changes nothing", "[sources]") {
  RecordedArchive recorded("sources-migrate", {"alpha"});
  recorded.record("alpha", "<rss version=\"2.0\"/>\n");
  auto archive = recorded.open();
  auto lock = ArchiveLock::acquire(archive, false);
  REQUIRE(lock);

  auto moved = migrate_layout(archive, *lock, Layout::fanout, fixed_clock);
  REQUIRE(moved);
  CHECK(moved->changed);
  CHECK(moved->moved == 1);
  CHECK(moved->commit.size() == 40);
  CHECK(head_title(recorded.dir()) == "migrate: raw/ to the fan-out layout");

  auto again = migrate_layout(archive, *lock, Layout::fanout, fixed_clock);
  REQUIRE(again);
  CHECK_FALSE(again->changed);
  CHECK(again->moved == 0);
}
