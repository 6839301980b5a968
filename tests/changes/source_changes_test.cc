// A source's changes as `log NAME` lists them (source_changes and its record cache), and what
// differs between two commits (sources_between, difference_summary), called as a library.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "feeddiff/changes.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

std::string feed_of(const std::vector<std::string>& ids) {
  std::string out = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>\n";
  for (const auto& id : ids)
    out += "<item><guid>" + id + "</guid><title>" + id + "</title></item>\n";
  return out + "</channel></rss>\n";
}

}  // namespace

TEST_CASE("source_changes lists what source_log lists, then reads its records from the cache",
          "[changes]") {
  RecordedArchive recorded("changes-source-log", {"blog", "other"});
  recorded.record("blog", feed_of({"a"}));
  recorded.record("other", feed_of({"x"}));
  recorded.record("blog", feed_of({"a", "b"}), "Change-Class: items\nItem-Summary: 1 added\n");
  const Archive archive = recorded.open();

  auto walked = archive.source_log("blog", 0);
  REQUIRE(walked);
  auto listed = source_changes(archive, "blog");
  REQUIRE(listed);
  REQUIRE(listed->size() == 2);
  REQUIRE(listed->size() == walked->size());
  for (std::size_t i = 0; i < listed->size(); ++i) {
    const CommitInfo& a = (*listed)[i];
    const CommitInfo& b = (*walked)[i];
    CHECK(a.id == b.id);
    CHECK(a.title == b.title);
    CHECK(a.author_time == b.author_time);
    CHECK(a.commit_time == b.commit_time);
    CHECK(a.short_id() == b.id.substr(0, 7));
    for (const char* key : {"Source", "Observed-At", "Status", "Change-Class", "Item-Summary"}) {
      const std::string* want = b.trailer(key);
      const std::string* got = a.trailer(key);
      CHECK((want == nullptr) == (got == nullptr));
      if (want && got) CHECK(*want == *got);
    }
  }

  // The records were kept: a second call reads them, not the commits (a record edited in
  // place, naming the same commit, is what it returns).
  const std::string cache = source_cache_name("log", "blog");
  auto text = archive.cache_read(cache);
  REQUIRE(text);
  const std::size_t at = text->find("blog: changed");
  REQUIRE(at != std::string::npos);
  text->replace(at, 13, "blog: CACHED!");
  archive.cache_write(cache, *text);
  auto again = source_changes(archive, "blog");
  REQUIRE(again);
  REQUIRE(again->size() == 2);
  CHECK(again->back().title.starts_with("blog: CACHED!"));
  CHECK(again->front().id == listed->front().id);

  // A version recorded since is read from git and added to the records.
  recorded.record("blog", feed_of({"a", "b", "c"}));
  const Archive later = recorded.open();
  auto third = source_changes(later, "blog");
  REQUIRE(third);
  REQUIRE(third->size() == 3);
  CHECK(third->front().title.starts_with("blog: changed"));
  CHECK(third->back().title.starts_with("blog: CACHED!"));
}

TEST_CASE("source_changes of a source never recorded is empty", "[changes]") {
  RecordedArchive recorded("changes-source-empty", {"blog"});
  auto listed = source_changes(recorded.open(), "blog");
  REQUIRE(listed);
  CHECK(listed->empty());
}

TEST_CASE("sources_between names the sources that differ, difference_summary their items",
          "[changes]") {
  RecordedArchive recorded("changes-between", {"blog", "other", "late"});
  const std::string first = recorded.record("blog", feed_of({"a"}));
  recorded.record("other", feed_of({"x"}));
  recorded.record("blog", feed_of({"a", "b"}));
  const std::string last = recorded.record("late", feed_of({"z"}));
  const Archive archive = recorded.open();
  auto a = archive.resolve(first);
  auto b = archive.resolve(last);
  REQUIRE(a);
  REQUIRE(b);

  auto differing = sources_between(archive, *a, *b);
  REQUIRE(differing);
  REQUIRE(differing->size() == 3);
  CHECK((*differing)[0].name == "blog");
  CHECK((*differing)[1].name == "late");
  CHECK((*differing)[1].old_blob.empty());
  CHECK((*differing)[2].name == "other");
  CHECK(difference_summary(archive, *b, (*differing)[0]) == "1 added");
  CHECK(difference_summary(archive, *b, (*differing)[1]) == "not in the first commit");
  auto reversed = sources_between(archive, *b, *a);
  REQUIRE(reversed);
  CHECK(difference_summary(archive, *a, (*reversed)[1]) == "not in the second commit");
  // Asked again, the summary comes from the cache the first call wrote.
  CHECK(difference_summary(archive, *b, (*differing)[0]) == "1 added");

  auto same = sources_between(archive, *b, *b);
  REQUIRE(same);
  CHECK(same->empty());
}
