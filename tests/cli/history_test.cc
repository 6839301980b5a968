// `feeddiff history NAME [ITEM]`: a corpus history replayed into an archive agrees with a walk
// the test makes itself (each version's items parsed here, compared field by field) on when
// each item was first seen, edited, removed and seen again; a crafted feed whose item leaves
// and returns; ITEM by id, link and title; the errors; hostile titles stay escaped; the
// per-source cache of versions is appended to and read as git would answer.

#include <fmt/format.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "cli/render_helpers.h"
#include "feeddiff/normalize.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;
using Json = nlohmann::json;

namespace {

constexpr const char* kHistory = "history-olshansk-openai-research";

// A recorded archive that runs feeddiff in itself.
class ReplayArchive : public RecordedArchive {
 public:
  using RecordedArchive::RecordedArchive;

  RunResult operator()(std::vector<std::string> args) const {
    args.insert(args.begin(), {"-C", dir()});
    return run_feeddiff(args, {{"NO_COLOR", "1"}});
  }
};

// An item as the test compares versions: every field of the model.
std::vector<std::string> fields_of(const Item& item) {
  std::vector<std::string> out = {item.title,   item.link,    item.published,
                                  item.updated, item.summary, item.content};
  for (const auto& a : item.authors) out.push_back("author " + a);
  for (const auto& c : item.categories) out.push_back("category " + c);
  for (const auto& e : item.enclosures)
    out.push_back("enclosure " + e.url + " " + e.type + " " + e.length);
  for (const auto& f : item.extra) out.push_back("extra " + f.name + " " + f.value);
  return out;
}

// What the test expects of one item: the kind and version index of each event but moves.
using Events = std::vector<std::pair<std::string, std::size_t>>;

// The test's own walk: each version's items by id (ids repeated within a version are left
// out of the comparison), and the events that follow from them.
struct Walk {
  std::map<std::string, Events> events;
  std::map<std::string, bool> present;
  std::set<std::string> repeated;

  void run(const std::vector<std::string>& bodies) {
    std::map<std::string, std::vector<std::string>> before;
    for (std::size_t v = 0; v < bodies.size(); ++v) {
      auto doc = normalize(bodies[v]);
      REQUIRE(doc);
      std::map<std::string, std::vector<std::string>> now;
      for (const Item& item : doc->feed.items)
        if (!now.emplace(item.id, fields_of(item)).second) repeated.insert(item.id);
      for (const auto& [id, fields] : now) {
        auto old = before.find(id);
        Events& e = events[id];
        if (old == before.end())
          e.emplace_back(e.empty() ? "first_seen" : "reappeared", v);
        else if (old->second != fields)
          e.emplace_back("changed", v);
      }
      for (const auto& [id, fields] : before)
        if (!now.count(id)) events[id].emplace_back("removed", v);
      before = std::move(now);
    }
    for (const auto& [id, e] : events) present[id] = before.count(id) > 0;
  }
};

// The events of a history --format json item, moves left out, as (kind, version index).
Events events_of(const Json& item, const std::vector<std::string>& commits) {
  Events out;
  for (const auto& e : item["events"]) {
    if (e["kind"] == "moved") continue;
    const auto at = std::find(commits.begin(), commits.end(), e["commit"].get<std::string>());
    out.emplace_back(e["kind"].get<std::string>(), static_cast<std::size_t>(at - commits.begin()));
  }
  return out;
}

std::string rss(const std::vector<std::array<std::string, 3>>& items) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel><title>Crafted"
      "</title><link>https://example.com/</link><description>d</description>\n";
  for (const auto& [guid, title, description] : items)
    out += "<item><guid isPermaLink=\"false\">" + guid + "</guid><title>" + title +
           "</title><link>https://example.com/" + guid + "</link><description>" + description +
           "</description></item>\n";
  return out + "</channel></rss>\n";
}

void require_valid(const SchemaValidator& validator, const Json& document) {
  const auto errors = validator.validate(document);
  std::string all;
  for (const auto& e : errors) all += e + "\n";
  INFO(all);
  REQUIRE(errors.empty());
}

Json parse_ok(const RunResult& r) {
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return Json::parse(r.out);
}

}  // namespace

TEST_CASE(
    "history agrees with a walk of a replayed corpus history on first seen, edits and "
    "removals",
    "[history]") {
  ReplayArchive archive("history-corpus", {"openai"});
  std::vector<std::string> bodies, commits;
  for (int n = 1; n <= 30; ++n) {
    char name[16];
    std::snprintf(name, sizeof name, "/%04d.xml", n);
    const std::string body = slurp(corpus_path(std::string(kHistory) + name));
    const std::string id = archive.record("openai", body);
    if (id.empty()) continue;
    bodies.push_back(body);
    commits.push_back(id);
  }
  Walk walk;
  walk.run(bodies);
  REQUIRE(walk.events.size() > 100);

  // The table: every item, with its first version, last edit, count of edits, presence.
  const Json table = parse_ok(archive({"history", "openai", "--format", "json"}));
  require_valid(schema_validator("history.schema.json"), table);
  CHECK(table["versions"] == commits.size());
  CHECK(table["item"].is_null());
  REQUIRE(table["items"].size() == walk.events.size());
  std::size_t removed = 0, reappeared = 0, edited = 0;
  for (const auto& row : table["items"]) {
    const std::string id = row["id"];
    INFO(id);
    REQUIRE(walk.events.count(id));
    if (walk.repeated.count(id)) continue;
    const Events& expected = walk.events.at(id);
    CHECK(row["first_seen"]["commit"] == commits[expected.front().second]);
    std::size_t edits = 0;
    std::optional<std::size_t> last;
    for (const auto& [kind, v] : expected) {
      if (kind == "changed") ++edits, last = v;
      removed += kind == "removed";
      reappeared += kind == "reappeared";
    }
    edited += edits > 0;
    CHECK(row["edits"] == edits);
    if (last)
      CHECK(row["last_changed"]["commit"] == commits[*last]);
    else
      CHECK(row["last_changed"].is_null());
    CHECK(row["present"] == walk.present.at(id));
  }
  // The corpus has versions with no item (a scraper's glitch): items leave and come back.
  CHECK(removed > 100);
  CHECK(reappeared > 100);
  CHECK(edited > 0);

  // One item at a time: the events agree, in order.
  std::vector<std::string> sample;
  for (const auto& [id, e] : walk.events)
    if (!walk.repeated.count(id) && (sample.empty() || e.size() > walk.events.at(sample[0]).size()))
      sample.insert(sample.begin(), id);
  for (const auto& [id, e] : walk.events)
    if (!walk.repeated.count(id) &&
        std::any_of(e.begin(), e.end(), [](const auto& k) { return k.first == "changed"; }))
      sample.push_back(id);
  sample.resize(std::min<std::size_t>(sample.size(), 4));
  for (const std::string& id : sample) {
    INFO(id);
    const Json doc = parse_ok(archive({"history", "openai", id, "--format", "json"}));
    require_valid(schema_validator("history.schema.json"), doc);
    CHECK(doc["item"]["id"] == id);
    CHECK(events_of(doc["item"], commits) == walk.events.at(id));
    for (const auto& e : doc["item"]["events"])
      if (e["kind"] == "changed") CHECK_FALSE(e["field_changes"].empty());
  }
}

TEST_CASE("an item that leaves the feed and returns is reported removed, then reappeared",
          "[history]") {
  ReplayArchive archive("history-crafted", {"crafted"});
  const std::vector<std::string> commits = {
      archive.record("crafted", rss({{{"a", "Alpha launch", "first"}, {"b", "Beta notes", "x"}}})),
      archive.record("crafted", rss({{{"b", "Beta notes, revised", "x"}}})),
      archive.record("crafted",
                     rss({{{"b", "Beta notes, revised", "x"}, {"a", "Alpha launch", "first"}}})),
  };
  const Json doc = parse_ok(archive({"history", "crafted", "a", "--format", "json"}));
  require_valid(schema_validator("history.schema.json"), doc);
  const Json& events = doc["item"]["events"];
  REQUIRE(events.size() == 3);
  CHECK(events[0]["kind"] == "first_seen");
  CHECK(events[0]["commit"] == commits[0]);
  CHECK(events[1]["kind"] == "removed");
  CHECK(events[1]["commit"] == commits[1]);
  CHECK(events[2]["kind"] == "reappeared");
  CHECK(events[2]["commit"] == commits[2]);
  CHECK(doc["item"]["present"] == true);
  CHECK(doc["item"]["edits"] == 0);

  // b's edit carries the title before and after, as show writes a field change.
  const Json b = parse_ok(archive({"history", "crafted", "b", "--format", "json"}))["item"];
  REQUIRE(b["events"].size() == 2);
  CHECK(b["events"][1]["kind"] == "changed");
  CHECK(b["events"][1]["fields"] == Json::array({"title"}));
  CHECK(b["events"][1]["field_changes"][0]["old"] == "Beta notes");
  CHECK(b["events"][1]["field_changes"][0]["new"] == "Beta notes, revised");
  CHECK(b["titles"] == Json::array({"Beta notes", "Beta notes, revised"}));

  const auto text = archive({"history", "crafted", "a"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("first seen") != std::string::npos);
  CHECK(text.out.find("reappeared") != std::string::npos);
  const auto edit = archive({"history", "crafted", "b"});
  CHECK(edit.out.find("title: Beta notes -> Beta notes, revised") != std::string::npos);

  // The table: both items, present now, b edited once.
  const auto table = archive({"history", "crafted"});
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("2 items (2 present now) across 3 versions") != std::string::npos);
}

TEST_CASE(
    "ITEM names an item by id, link or title piece; an ambiguous piece or an unknown "
    "source is an error",
    "[history]") {
  ReplayArchive archive("history-match", {"crafted"});
  archive.record("crafted", rss({{{"one", "Release notes 1.0", "a"},
                                  {"two", "Release notes 2.0", "b"},
                                  {"three", "Roadmap", "c"}}}));
  auto id_of = [&](const std::string& item) {
    const auto r = archive({"history", "crafted", item, "--format", "json"});
    INFO(r.err);
    return r.exit_code == 0 ? Json::parse(r.out)["item"]["id"].get<std::string>() : "";
  };
  CHECK(id_of("two") == "two");
  CHECK(id_of("https://example.com/three") == "three");
  CHECK(id_of("roadMAP") == "three");
  CHECK(id_of("notes 1.0") == "one");
  archive.record("crafted", rss({{{"one", "Release notes 1.0", "a"},
                                  {"two", "Release notes 2.0", "b"},
                                  {"three", "Roadmap", "c"},
                                  {"four", "Roadmap 2027", "d"}}}));
  CHECK(id_of("ROADMAP") == "three");  // a whole title wins over the piece of another

  const auto ambiguous = archive({"history", "crafted", "release"});
  CHECK(ambiguous.exit_code == 2);
  CHECK(ambiguous.err ==
        "feeddiff: error: 'release' is in the titles of 2 items of 'crafted'; give one's id "
        "(`feeddiff history crafted` lists them)\n");
  const auto none = archive({"history", "crafted", "nothing like it"});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("no item of 'crafted'") != std::string::npos);

  const auto unknown = archive({"history", "nosuch"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "feeddiff: error: no source 'nosuch' and no recorded change of it\n");
  CHECK(archive({"history", "../etc"}).exit_code == 2);
}

TEST_CASE("history keeps hostile titles escaped in text, markdown and html", "[history]") {
  ReplayArchive archive("history-hostile", {"crafted"});
  // U+202E reverses what follows on a terminal; U+0085 is a C1 control; the markup is text.
  const std::string title =
      "Evil \xE2\x80\xAE txt.exe \xC2\x85 &lt;script&gt;alert(1)&lt;/script&gt;";
  archive.record("crafted", rss({{{"x", title, "a"}}}));
  archive.record("crafted", rss({{{"x", title + " v2", "a"}}}));
  for (const std::string query : {"x", ""}) {
    std::vector<std::string> args = {"history", "crafted"};
    if (!query.empty()) args.push_back(query);
    const auto text = archive(args);
    REQUIRE(text.exit_code == 0);
    CHECK(text.out.find("\xE2\x80\xAE") == std::string::npos);
    CHECK(text.out.find("\xC2\x85") == std::string::npos);
    CHECK(text.out.find("\\u202e") != std::string::npos);
    CHECK(text.out.find("\\u0085") != std::string::npos);

    args.insert(args.end(), {"--format", "html"});
    const auto html = archive(args);
    REQUIRE(html.exit_code == 0);
    CHECK(html.out.find("<script") == std::string::npos);
    CHECK(html.out.find("&lt;script&gt;alert(1)") != std::string::npos);
    CHECK(html.out.find("\xE2\x80\xAE") == std::string::npos);

    args.back() = "markdown";
    const auto markdown = archive(args);
    REQUIRE(markdown.exit_code == 0);
    // Markdown escapes the brackets, so no renderer turns them into a tag.
    const auto tag = markdown.out.find("<script");
    REQUIRE(tag != std::string::npos);
    CHECK(markdown.out.substr(tag - 1, 8) == "\\<script");
    CHECK(markdown.out.find("\xE2\x80\xAE") == std::string::npos);
  }
}

namespace {

// The cache file of a source's history: its name as hex.
std::string history_cache(const std::string& archive, const std::string& source) {
  std::string hex;
  for (unsigned char c : source) hex += fmt::format("{:02x}", c);
  return archive + "/.git/feeddiff/cache/history/" + hex;
}

std::size_t lines_in(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE(
    "history keeps each version in a cache it appends to, and after a reset, a cut or a "
    "garbled line answers as git does",
    "[history]") {
  ReplayArchive archive("history-cache", {"crafted"});
  auto version = [&](int v) {
    return archive.record("crafted", rss({{{"a", "Alpha " + std::to_string(v), "x"},
                                           {"b", "Beta", v % 2 ? "odd" : "even"},
                                           {"c" + std::to_string(v / 3), "Gamma", "y"}}}));
  };
  for (int v = 0; v < 4; ++v) version(v);
  const std::string cache = history_cache(archive.dir(), "crafted");
  auto cached = [&] { return parse_ok(archive({"history", "crafted", "a", "--format", "json"})); };
  auto from_git = [&] {
    std::filesystem::remove(cache);
    return cached();
  };

  const Json first = cached();
  REQUIRE(std::filesystem::exists(cache));
  const std::string text = slurp(cache);
  CHECK(lines_in(text) == 1 + 4);  // a header and a record per version
  CHECK(first["item"]["edits"] == 3);

  // A second run reads the cache: a time changed in it shows.
  const std::string observed = first["item"]["first_seen"]["observed_at"];
  std::string tampered = text;
  tampered.replace(tampered.find(observed), observed.size(), "2001-02-03T04:05:06.000Z");
  spit(cache, tampered);
  CHECK(cached()["item"]["first_seen"]["observed_at"] == "2001-02-03T04:05:06.000Z");
  spit(cache, text);
  CHECK(cached() == first);

  // A new version is appended; the records before it stay as they were.
  version(4);
  const Json appended = cached();
  CHECK(appended["item"]["edits"] == 4);
  CHECK(slurp(cache).starts_with(text));
  CHECK(lines_in(slurp(cache)) == 1 + 5);
  CHECK(from_git() == appended);

  // The user resets two versions away and a different one is recorded.
  REQUIRE(run({"git", "-C", archive.dir(), "reset", "-q", "--hard", "HEAD~2"}).exit_code == 0);
  archive.record("crafted", rss({{{"a", "Alpha after the reset", "x"}}}));
  const Json after_reset = cached();
  CHECK(after_reset["item"]["titles"].back() == "Alpha after the reset");
  CHECK(after_reset == from_git());

  // A cache cut in the middle of a line, and one with a line garbled, are read up to there.
  const std::string whole = slurp(cache);
  spit(cache, whole.substr(0, whole.size() - 20));
  CHECK(cached() == after_reset);
  CHECK(slurp(cache) == whole);  // written anew, whole
  std::string garbled = whole;
  garbled[garbled.find("\nv\t") + 8] ^= 1;  // the first record's commit id
  spit(cache, garbled);
  CHECK(cached() == after_reset);
  CHECK(slurp(cache) == whole);
}
