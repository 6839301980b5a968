// The changes module called as a library, no feeddiff process: a change loaded from a small
// archive the test records (its fields, its diff, its item summary, what a request without
// comparing leaves out), a source's versions (reappeared items, a version that reverts to an
// earlier one), the life of a source's items, and the class of a change from its trailers.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/core.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

// One source, "blog", and the bodies recorded as its versions.
class SmallArchive : public RecordedArchive {
 public:
  explicit SmallArchive(const std::string& hint) : RecordedArchive(hint, {"blog"}) {}

  // Commits body as the source's next version; its commit id.
  std::string record(const std::string& body) {
    std::string id = RecordedArchive::record("blog", body);
    REQUIRE_FALSE(id.empty());
    return id;
  }
};

// An RSS feed of these items: {id, title}.
std::string rss(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>\n";
  for (const auto& [id, title] : items)
    out += "<item><guid>" + id + "</guid><title>" + title + "</title></item>\n";
  return out + "</channel></rss>\n";
}

std::size_t count_kind(const ItemDiff& diff, ItemChange::Kind kind) {
  return static_cast<std::size_t>(std::count_if(
      diff.items.begin(), diff.items.end(), [&](const ItemChange& c) { return c.kind == kind; }));
}

}  // namespace

TEST_CASE("load_change gathers a recorded change: its fields, line diff and item summary",
          "[changes]") {
  SmallArchive recorded("changes-load");
  const std::string first = recorded.record(rss({{"a", "Alpha"}}));
  const std::string second = recorded.record(rss({{"a", "Alpha"}, {"b", "Beta"}}));
  const Archive archive = recorded.open();

  auto loaded = load_change(archive, {.revision = second, .source = "blog"});
  REQUIRE(loaded);
  const ChangeView& view = (*loaded)->view;
  CHECK(view.commit_id == second);
  CHECK(view.source == "blog");
  CHECK(view.path == "raw/blog/response.xml");
  CHECK(view.path_status == "modified");
  CHECK(view.diff_label == "raw");
  CHECK_FALSE(view.diff.empty());
  CHECK((*loaded)->old_body.size() > 0);
  REQUIRE(view.items);
  CHECK(count_kind(*view.items, ItemChange::Kind::added) == 1);
  CHECK(view.items->items.front().id == "b");

  // The first version is an addition of the file: every item is new.
  auto added = load_change(archive, {.revision = first});
  REQUIRE(added);
  CHECK((*added)->view.path_status == "added");
  CHECK((*added)->view.source == "blog");

  // Without comparing, the commit's fields only: no body read, no diff, no summary.
  auto bare = load_change(archive, {.revision = second, .source = "blog", .compare = false});
  REQUIRE(bare);
  CHECK((*bare)->view.commit_id == second);
  CHECK((*bare)->view.diff.empty());
  CHECK_FALSE((*bare)->view.items);
  CHECK((*bare)->new_body.size() == 0);

  // A source the commit did not change is an error naming it.
  auto other = load_change(archive, {.revision = second, .source = "elsewhere"});
  REQUIRE_FALSE(other);
  CHECK(other.error().code == Errc::not_found);
  CHECK(other.error().message.find("did not change source 'elsewhere'") != std::string::npos);
}

TEST_CASE("a source's versions mark a returning item reappeared and a revert to an older body",
          "[changes]") {
  SmallArchive recorded("changes-versions");
  const std::string both = rss({{"a", "Alpha"}, {"b", "Beta"}});
  const std::string v1 = recorded.record(both);
  const std::string v2 = recorded.record(rss({{"b", "Beta"}}));
  const std::string v3 = recorded.record(both);
  const Archive archive = recorded.open();

  auto versions = SourceVersions::load(archive, "blog");
  REQUIRE(versions);
  CHECK(versions->source() == "blog");
  CHECK(versions->ordinal(v1) == 0u);
  CHECK(versions->ordinal(v3) == 2u);
  CHECK_FALSE(versions->ordinal("0000000000000000000000000000000000000000"));
  versions->learn(3);
  CHECK(versions->seen_before("a", 2));
  CHECK_FALSE(versions->seen_before("c", 2));

  // Through load_change, with the versions handed over and without.
  for (SourceVersions* known : {&*versions, static_cast<SourceVersions*>(nullptr)}) {
    auto loaded = load_change(archive, {.revision = v3, .source = "blog", .known_versions = known});
    REQUIRE(loaded);
    const ChangeView& view = (*loaded)->view;
    REQUIRE(view.items);
    CHECK(count_kind(*view.items, ItemChange::Kind::reappeared) == 1);
    CHECK(count_kind(*view.items, ItemChange::Kind::added) == 0);
    // v3 is byte for byte v1, not its parent v2: it reverted to v1.
    CHECK(view.reverted_to == v1);
  }
  auto middle = load_change(archive, {.revision = v2, .source = "blog"});
  REQUIRE(middle);
  CHECK_FALSE((*middle)->view.reverted_to);
}

TEST_CASE("a revert is found alike by a first question's look back and by the index of blobs",
          "[changes]") {
  SmallArchive recorded("changes-reverts");
  const std::vector<std::string> bodies = {rss({{"x", "X"}}), rss({{"y", "Y"}}), rss({{"z", "Z"}})};
  // Which body each version has: some return to the one before their parent, some further.
  const std::vector<int> sequence = {0, 1, 0, 2, 0, 1, 2, 1, 0};
  std::vector<std::string> commits;
  for (int b : sequence) commits.push_back(recorded.record(bodies[static_cast<std::size_t>(b)]));
  const Archive archive = recorded.open();
  const auto blob_of = [&](const std::string& commit) {
    auto changes = archive.source_changes(commit, "blog");
    REQUIRE(changes);
    REQUIRE(changes->size() == 1);
    return changes->front().new_blob;
  };
  // By hand: the newest version before the parent with the same body.
  const auto expected = [&](std::size_t k) -> std::optional<std::string> {
    for (std::size_t j = k < 2 ? 0 : k - 1; j-- > 0;)
      if (sequence[j] == sequence[k]) return commits[j];
    return std::nullopt;
  };
  auto shared = SourceVersions::load(archive, "blog");
  REQUIRE(shared);
  shared->learn(commits.size());
  for (std::size_t k = 0; k < commits.size(); ++k) {
    INFO("version " << k);
    const std::string blob = blob_of(commits[k]);
    auto fresh = SourceVersions::load(archive, "blog");  // its first question: the look back
    REQUIRE(fresh);
    fresh->learn(k);
    CHECK(fresh->reverted_to(blob, k) == expected(k));
    CHECK(shared->reverted_to(blob, k) == expected(k));  // the index, from the second on
  }
  CHECK(expected(4) == commits[2]);  // the sequence has reverts: the test can fail
  CHECK(expected(8) == commits[4]);
  CHECK_FALSE(shared->reverted_to(std::string(40, '0'), 8));
}

TEST_CASE("a versions cache is believed up to its first line not as written, then rewritten",
          "[changes]") {
  SmallArchive recorded("changes-versions-damaged");
  const std::vector<std::string> commits = {
      recorded.record(rss({{"a", "A"}})), recorded.record(rss({{"a", "A"}, {"b", "B"}})),
      recorded.record(rss({{"b", "B"}})), recorded.record(rss({{"a", "A"}, {"b", "B"}}))};
  const Archive archive = recorded.open();
  const std::string path = recorded.dir() + "/.git/feeddiff/cache/versions/" + hex_encode("blog");
  const auto v3_blob = [&] {
    auto changes = archive.source_changes(commits[3], "blog");
    REQUIRE(changes);
    return changes->front().new_blob;
  }();
  {
    auto versions = SourceVersions::load(archive, "blog");
    REQUIRE(versions);
    versions->learn(commits.size());
    CHECK(versions->parsed() == 4);
  }
  const std::string written = slurp(path);
  const std::vector<std::string> rows = lines_of(written);
  REQUIRE(rows.size() == 5);  // the header and a line per version
  const auto with_row = [&](std::size_t row, const std::string& line) {
    std::string text;
    for (std::size_t i = 0; i < rows.size(); ++i) text += (i == row ? line : rows[i]) + "\n";
    return text;
  };
  std::string upper = rows[2];
  upper.back() = static_cast<char>(std::toupper(static_cast<unsigned char>(upper.back())));
  REQUIRE(upper != rows[2]);  // the key's last digit is a letter: upper case is not written
  std::string other = rows[2];
  other.replace(2, 40, commits[3]);
  // Each damage, and how many versions it leaves believed (the rest are read from git).
  const std::vector<std::pair<std::string, std::size_t>> damaged = {
      {written, 4},
      {written.substr(0, written.size() - 5), 3},                    // the last line cut short
      {with_row(2, upper), 1},                                       // a key in upper case
      {with_row(2, other), 1},                                       // another version's commit
      {with_row(2, rows[2] + "\t"), 1},                              // a field left empty
      {with_row(2, rows[2].substr(0, 42)), 1},                       // no blob field
      {with_row(3, rows[3].substr(0, 60) + rows[3].substr(61)), 2},  // a blob one digit short
      {written + "v\tnot an id\n", 4},                               // a line past the history
      {"feeddiff versions 2\n" + written.substr(written.find('\n') + 1), 0},
  };
  for (const auto& [text, believed] : damaged) {
    INFO(text);
    spit(path, text);
    auto versions = SourceVersions::load(archive, "blog");
    REQUIRE(versions);
    versions->learn(commits.size());
    CHECK(versions->parsed() == commits.size() - believed);
    CHECK(versions->seen_before("a", 3));
    CHECK_FALSE(versions->seen_before("a", 0));
    CHECK(versions->seen_before("b", 2));
    CHECK_FALSE(versions->seen_before("b", 1));
    CHECK(versions->reverted_to(v3_blob, 3) == commits[1]);
    versions->save();
    if (believed < 4 || text != written) CHECK(slurp(path) == written);
  }
}

TEST_CASE("a source's history follows each item through its versions", "[changes]") {
  SmallArchive recorded("changes-history");
  recorded.record(rss({{"a", "Alpha"}}));
  recorded.record(rss({{"a", "Alpha, revised"}, {"b", "Beta"}}));
  recorded.record(rss({{"b", "Beta"}}));
  const Archive archive = recorded.open();

  auto history = read_source_history(archive, "blog");
  REQUIRE(history);
  REQUIRE(history->versions.size() == 3);
  REQUIRE(history->blobs.size() == 3);
  const ItemLife* a = history->items.find("a");
  REQUIRE(a != nullptr);
  REQUIRE(a->events.size() == 3);
  CHECK(a->events[0].kind == ItemEvent::Kind::first_seen);
  CHECK(a->events[1].kind == ItemEvent::Kind::changed);
  CHECK(a->events[2].kind == ItemEvent::Kind::removed);
  CHECK_FALSE(a->present());
  CHECK(a->titles == std::vector<std::string>{"Alpha", "Alpha, revised"});
  const ItemLife* b = history->items.find("b");
  REQUIRE(b != nullptr);
  CHECK(b->first_seen == 1);
  CHECK(b->present());

  // A second read comes from the history cache and agrees.
  auto again = read_source_history(archive, "blog");
  REQUIRE(again);
  CHECK(again->parsed == 0);
  CHECK(again->versions.size() == 3);
  CHECK(again->items.lives().size() == history->items.lives().size());

  auto none = read_source_history(archive, "nosuch");
  REQUIRE(none);
  CHECK(none->versions.empty());
}

TEST_CASE("a change's class comes from its Change-Class, Item-Summary and Not-A-Feed trailers",
          "[changes]") {
  CommitInfo commit;
  CHECK_FALSE(class_from_trailers(commit));

  commit.trailers = {{"Source", "blog"}, {"Change-Class", "items"}, {"Item-Summary", "1 added"}};
  auto items = class_from_trailers(commit);
  REQUIRE(items);
  CHECK(items->name == "items");
  CHECK(items->summary == "1 added");

  commit.trailers = {
      {"Change-Class", "not-a-feed"}, {"Not-A-Feed", "an HTML page"}, {"Item-Summary", "ignored"}};
  auto not_feed = class_from_trailers(commit);
  REQUIRE(not_feed);
  CHECK(not_feed->name == "not-a-feed");
  CHECK(not_feed->summary == "an HTML page");
  CHECK(site_items_label(commit, std::nullopt) == "not a feed: an HTML page");

  commit.trailers = {{"Change-Class", "restored"}};
  CHECK(site_items_label(commit, std::nullopt) == "restored (the feed as it was before)");

  commit.trailers = {{"Change-Class", ""}};
  CHECK_FALSE(class_from_trailers(commit));
}

TEST_CASE("an object id is read from 40 lowercase hex digits and nothing else", "[changes]") {
  const std::string hex = "0123456789abcdef0123456789abcdeffedcba98";
  const auto id = parse_oid(hex);
  REQUIRE(id);
  CHECK(to_hex(*id) == hex);
  CHECK((*id)[0] == 0x01);
  CHECK((*id)[19] == 0x98);
  CHECK_FALSE(parse_oid(hex.substr(1)));
  CHECK_FALSE(parse_oid(hex + "0"));
  for (const char bad : {'A', 'F', 'g', ' ', '/', ':', '`', '\0', '\xff'}) {
    std::string s = hex;
    s[17] = bad;
    CHECK_FALSE(parse_oid(s));
  }
}
