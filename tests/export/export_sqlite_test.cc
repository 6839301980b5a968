// `feeddiff export-sqlite` over a replayed corpus history: successive versions of a real feed
// served on loopback and polled into an archive. What the database holds is checked against a
// walk the test makes itself (git log with the git CLI, each version normalized here), read
// back with Debian's sqlite3 CLI; the hashes are checked against git-history's own recipe in
// Python.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_helpers.h"
#include "feeddiff/core.h"
#include "feeddiff/normalize.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

constexpr const char* kHistory = "history-olshansk-openai-research";

std::string version_body(int n) {
  char name[16];
  std::snprintf(name, sizeof name, "%04d.xml", n);
  return slurp(corpus_path(std::string(kHistory) + "/" + name));
}

// Serves version `version` of the history.
struct HistoryServer {
  std::atomic<int> version{1};
  HttpServer server{[this](const RecordedRequest&) {
    return Reply{.status = 200,
                 .headers = {{"Content-Type", "application/rss+xml"}},
                 .body = version_body(version.load())};
  }};
};

// An item as the test compares versions: every field, `extra` as a multimap (the export keeps
// the values of a name in order, not the order of different names).
struct Fields {
  std::map<std::string, std::string> scalars;
  std::map<std::string, std::vector<std::string>> extra;
  bool operator==(const Fields&) const = default;
};

Fields fields_of(const Item& item) {
  Fields f;
  auto join = [](const std::vector<std::string>& values) {
    std::string out;
    for (const auto& v : values) out += v + '\x1f';
    return out;
  };
  f.scalars = {{"id", item.id},
               {"title", item.title},
               {"link", item.link},
               {"published", item.published},
               {"updated", item.updated},
               {"authors", join(item.authors)},
               {"categories", join(item.categories)},
               {"summary", item.summary},
               {"content", item.content}};
  std::string enclosures;
  for (const auto& e : item.enclosures) enclosures += e.url + '\x1f' + e.type + '\x1f' + e.length;
  f.scalars["enclosures"] = enclosures;
  for (const auto& field : item.extra) f.extra[field.name].push_back(field.value);
  return f;
}

// The columns of an item version that a version records: every non-empty one for a new item,
// else those that differ from the previous version.
std::set<std::string> changed_columns(const Fields* before, const Fields& after) {
  std::set<std::string> out;
  if (!before) out.insert("source");
  for (const auto& [name, value] : after.scalars)
    if (before ? before->scalars.at(name) != value : !value.empty()) out.insert(name);
  if (before ? before->extra != after.extra : !after.extra.empty()) out.insert("extra");
  return out;
}

// What the test's own walk of the archive finds.
struct Walk {
  std::size_t commits = 0;
  std::size_t items = 0;
  std::size_t versions = 0;
  std::size_t changed = 0;                                   // item_changed rows
  std::size_t unreadable = 0;                                // versions normalize refused
  std::map<std::string, std::size_t> versions_by_commit;     // commit -> versions it made
  std::map<std::string, std::set<std::string>> last_change;  // item id -> columns, last change
};

Walk walk(const CliArchive& archive, const std::string& source) {
  Walk w;
  std::map<std::string, Fields> current;
  const std::string path = "raw/" + source + "/response.xml";
  std::istringstream ids(archive.git({"log", "--reverse", "--format=%H", "--", path}).out);
  for (std::string commit; std::getline(ids, commit);) {
    ++w.commits;
    auto shown = archive.git({"show", commit + ":" + path});
    REQUIRE(shown.exit_code == 0);
    auto doc = normalize(shown.out);
    if (!doc) {
      ++w.unreadable;
      continue;
    }
    std::set<std::string> seen;
    for (const Item& item : doc->feed.items) {
      if (!seen.insert(item.id).second) continue;
      const Fields now = fields_of(item);
      auto it = current.find(item.id);
      if (it != current.end() && it->second == now) continue;
      const auto columns = changed_columns(it == current.end() ? nullptr : &it->second, now);
      if (it == current.end()) ++w.items;
      ++w.versions;
      ++w.versions_by_commit[commit];
      w.changed += columns.size();
      w.last_change[item.id] = columns;
      current[item.id] = now;
    }
  }
  return w;
}

// Runs SQL with Debian's sqlite3 CLI; its output, one row a line, columns split by '|'.
std::string sql(const std::string& db, const std::string& query) {
  auto r = run({"sqlite3", "-bail", db, query});
  INFO(query << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

std::size_t count(const std::string& db, const std::string& table, const std::string& where = "") {
  const std::string out =
      sql(db, "select count(*) from " + table + (where.empty() ? "" : " where " + where));
  return static_cast<std::size_t>(std::stoul(out));
}

std::set<std::string> json_names(const std::string& array) {
  std::set<std::string> out;
  const std::regex name("\"([^\"]*)\"");
  for (std::sregex_iterator it(array.begin(), array.end(), name), end; it != end; ++it)
    out.insert((*it)[1]);
  return out;
}

// Polls version `version`, an hour after the previous one.
void poll_version(CliArchive& archive, HistoryServer& feed, int version) {
  feed.version = version;
  archive.set_now(
      format_iso8601_ms(*parse_iso8601("2026-10-01T00:00:00Z") + version * 3'600'000LL));
  auto r = archive({"poll", "--force", "--quiet"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

std::string export_sqlite(const CliArchive& archive, const std::string& db) {
  auto r = archive({"export-sqlite", "openai", "--db", db});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("export-sqlite writes a polled history's items and versions, then only new ones",
          "[export]") {
  HistoryServer feed;
  CliArchive archive("export-sqlite");
  REQUIRE(archive({"add", "openai", feed.server.url("/feed.xml")}).exit_code == 0);
  constexpr int kVersions = 36;
  for (int v = 1; v <= kVersions; ++v) poll_version(archive, feed, v);
  const std::string db = make_temp_dir("export-sqlite-db") + "/feeds.db";

  const std::string first_out = export_sqlite(archive, db);
  const Walk first = walk(archive, "openai");
  INFO(first_out);
  REQUIRE(first.commits > 20);
  // The history has items that change, not only new ones.
  REQUIRE(first.versions > first.items);
  REQUIRE(first.unreadable == 0);
  CHECK(count(db, "commits") == first.commits);
  CHECK(count(db, "item") == first.items);
  CHECK(count(db, "item_version") == first.versions);
  CHECK(count(db, "item_changed") == first.changed);
  CHECK(count(db, "namespaces") == 1);
  CHECK(first_out == fmt::format("openai: {} new commits, {} item versions ({} new items)\n",
                                 first.commits, first.versions, first.items));
  // The view answers: the versions each commit made, and the columns the newest version of
  // each item changed.
  for (const auto& [commit, versions] : first.versions_by_commit) {
    INFO(commit);
    CHECK(count(db, "item_version_detail", "_commit_hash = '" + commit + "'") == versions);
  }
  for (const auto& [id, columns] : first.last_change) {
    INFO(id);
    const std::string changed =
        sql(db,
            "select _changed_columns from item_version_detail where _item = (select _id "
            "from item where id = '" +
                id + "') order by _version desc limit 1");
    CHECK(json_names(changed) == columns);
  }
  // An unchanged column is NULL in a later version; the item row has the newest values.
  CHECK(count(db, "item_version", "_version > 1 and title is null") > 0);
  CHECK(count(db, "item", "source = 'openai' and title is not null") == first.items);

  // Nothing new: nothing added.
  const std::string before = sql(db, "select * from item_version_detail order by _id");
  CHECK(export_sqlite(archive, db) ==
        fmt::format("openai: up to date ({} commits)\n", first.commits));
  CHECK(sql(db, "select * from item_version_detail order by _id") == before);

  // One more poll: only its versions are added, after the rows already there.
  int next = kVersions + 1;
  std::string head = archive.head();
  for (; archive.head() == head; ++next) poll_version(archive, feed, next);
  const Walk second = walk(archive, "openai");
  REQUIRE(second.commits == first.commits + 1);
  const std::string second_out = export_sqlite(archive, db);
  CHECK(second_out == fmt::format("openai: 1 new commit, {} item versions ({} new items)\n",
                                  second.versions - first.versions, second.items - first.items));
  CHECK(count(db, "commits") == second.commits);
  CHECK(count(db, "item") == second.items);
  CHECK(count(db, "item_version") == second.versions);
  CHECK(count(db, "item_changed") == second.changed);
  const std::string after = sql(db, "select * from item_version_detail order by _id");
  CHECK(after.substr(0, before.size()) == before);
  const std::string new_head = archive.head().substr(0, 40);
  CHECK(count(db, "item_version_detail", "_commit_hash = '" + new_head + "'") ==
        second.versions - first.versions);
}

TEST_CASE("export-sqlite hashes items as git-history does", "[export]") {
  // Lists of several values, objects, repeated extra elements, non-ASCII text (one character
  // past U+FFFF, which Python escapes as a surrogate pair) and characters JSON escapes.
  const std::string feed_body = R"(<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"
     xmlns:media="http://search.yahoo.com/mrss/">
<channel><title>t</title>
<item><guid>urn:a</guid><title>DALL·E "3" \ tab&#9;here 🚀</title>
  <category>Research</category><category>Über</category>
  <dc:creator>Ann</dc:creator><dc:creator>Bo</dc:creator>
  <enclosure url="https://example.com/a.mp3" type="audio/mpeg" length="12"/>
  <media:thumbnail url="https://example.com/1.png"/><media:thumbnail url="https://example.com/2.png"/>
  <comments>https://example.com/c</comments>
  <description><![CDATA[<p>x</p>]]></description></item>
<item><guid>urn:b</guid><title>plain</title></item>
</channel></rss>
)";
  HttpServer server([&](const RecordedRequest&) { return Reply{.body = feed_body}; });
  CliArchive archive("export-sqlite-hash");
  REQUIRE(archive({"add", "crafted", server.url("/feed.xml")}).exit_code == 0);
  REQUIRE(archive({"poll", "--quiet"}).exit_code == 0);
  const std::string db = make_temp_dir("export-sqlite-hash-db") + "/feeds.db";
  REQUIRE(archive({"export-sqlite", "--db", db}).exit_code == 0);
  // The lists and objects are there to be checked.
  CHECK(count(db, "item",
              "json_array_length(categories) = 2 and json_array_length(authors) = 2 "
              "and json_array_length(extra, '$.\"media:thumbnail\"') = 2 and "
              "json_extract(enclosures, '$[0].type') = 'audio/mpeg'") == 1);
  // git-history's _hash and jsonify_if_needed (git_history/cli.py, utils.py), applied to the
  // item row read back: the record is the row's non-NULL data columns, lists and objects
  // parsed from their JSON text.
  const char* script = R"py(
import hashlib, json, sqlite3, sys
def _hash(record):
    return hashlib.sha1(json.dumps(record, separators=(",", ":"), sort_keys=True,
                                   default=repr).encode("utf8")).hexdigest()
db = sqlite3.connect(sys.argv[1])
db.row_factory = sqlite3.Row
checked = bad = 0
for row in db.execute("""select item.*, v._item_full_hash as full from item join item_version v
                         on v._item = item._id where v._version = (select max(_version)
                         from item_version where _item = item._id)"""):
    record = {}
    for key in row.keys():
        if key.startswith("_") or key == "full" or row[key] is None:
            continue
        value = row[key]
        if key in ("authors", "categories", "enclosures", "extra"):
            parsed = json.loads(value)
            if json.dumps(parsed, ensure_ascii=False, sort_keys=True) != value:
                bad += 1
            value = parsed
        record[key] = value
    checked += 1
    if _hash(record) != row["full"]:
        bad += 1
    if _hash({"id": record["id"], "source": record["source"]}) != row["_item_id"]:
        bad += 1
print(checked, bad)
)py";
  auto r = run({"python3", "-c", script, db});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream words(r.out);
  std::size_t checked = 0, bad = 1;
  words >> checked >> bad;
  CHECK(checked == count(db, "item"));
  CHECK(checked == 2);
  CHECK(bad == 0);
}

TEST_CASE("export-sqlite refuses a database whose item table is not its own", "[export]") {
  CliArchive archive("export-sqlite-foreign");
  const std::string db = make_temp_dir("export-sqlite-foreign-db") + "/other.db";
  sql(db, "create table item (_id integer primary key, _item_id text, IncidentID text)");
  const std::string schema = sql(db, ".schema");
  auto r = archive({"export-sqlite", "--db", db});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("its item table has no column 'source'") != std::string::npos);
  CHECK(sql(db, ".schema") == schema);
}

TEST_CASE("export-sqlite killed in the middle of its transaction leaves the database as it was",
          "[export]") {
  HistoryServer feed;
  CliArchive archive("export-sqlite-killed");
  REQUIRE(archive({"add", "openai", feed.server.url("/feed.xml")}).exit_code == 0);
  int version = 1;
  for (; version <= 4; ++version) poll_version(archive, feed, version);
  const std::string db = make_temp_dir("export-sqlite-killed-db") + "/feeds.db";
  export_sqlite(archive, db);
  const std::string before = sql(db, ".dump");
  REQUIRE(count(db, "item_version") > 0);
  // Enough new versions that the next run spends a while inside its transaction.
  for (; version <= 40; ++version) poll_version(archive, feed, version);
  const std::string saved = db + ".saved";
  std::filesystem::copy_file(db, saved);

  // SQLite's rollback journal exists from the transaction's first write to its commit: a
  // kill that leaves it behind was a kill in the middle. The kills come at ten points, 0 to 270 ms
  // after the journal appears (a run not yet done by then is killed); a run that ends first
  // is not counted. After each kill the database must read as it was.
  const std::string journal = db + "-journal";
  int killed_inside = 0;
  for (int attempt = 0; attempt < 10; ++attempt) {
    std::filesystem::copy_file(saved, db, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::remove(journal);
    const pid_t pid = start_feeddiff({"-C", archive.dir(), "export-sqlite", "openai", "--db", db});
    // The deadline only catches a hang.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    int status = 0;
    bool exited = false;
    while (!exited && std::chrono::steady_clock::now() < deadline &&
           !std::filesystem::exists(journal)) {
      exited = ::waitpid(pid, &status, WNOHANG) == pid;
      if (!exited) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    const auto kill_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(30 * attempt);
    while (!exited && std::chrono::steady_clock::now() < kill_at) {
      exited = ::waitpid(pid, &status, WNOHANG) == pid;
      if (!exited) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (!exited) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    // In the middle means the journal outlived the kill: a run killed after its commit (the
    // journal gone) but before it exited (an AddressSanitizer build's leak check at exit
    // takes a while) holds the new rows, as it should.
    if (!WIFSIGNALED(status) || !std::filesystem::exists(journal)) continue;
    ++killed_inside;
    INFO("killed " << 30 * attempt << " ms after the journal appeared");
    // What a reader sees (opening it rolls the journal back): the rows of the first run, all
    // of them, and nothing of the killed one.
    CHECK(sql(db, "pragma integrity_check") == "ok\n");
    CHECK(sql(db, ".dump") == before);
  }
  REQUIRE(killed_inside > 0);

  // The next run adds everything, as if the killed one had never started.
  export_sqlite(archive, db);
  const Walk all = walk(archive, "openai");
  CHECK(count(db, "commits") == all.commits);
  CHECK(count(db, "item") == all.items);
  CHECK(count(db, "item_version") == all.versions);
  CHECK(count(db, "item_changed") == all.changed);
}
