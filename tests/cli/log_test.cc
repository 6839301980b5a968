// feeddiff log at scale: what it reads must not grow with the archive's age, and log NAME reads
// each commit once into a per-source cache that answers as git log would.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_helpers.h"
#include "feeddiff/core.h"

using namespace feeddiff::test;

TEST_CASE("log -n 2 reads only the newest commits, so history it does not print can be missing",
          "[cli]") {
  // A walk sorted over the whole history (what `log -n` did) must read the oldest commit; a
  // walk that stops after N never does. Deleting the root commit's object proves which one ran.
  CliArchive archive("log-lazy");
  for (int i = 0; i < 4; ++i)
    REQUIRE(archive({"add", "s" + std::to_string(i), "http://127.0.0.1:1/" + std::to_string(i)})
                .exit_code == 0);
  const std::string root = archive.git({"rev-list", "--max-parents=0", "HEAD"}).out.substr(0, 40);
  const std::string loose =
      archive.dir() + "/.git/objects/" + root.substr(0, 2) + "/" + root.substr(2);
  REQUIRE(std::filesystem::exists(loose));  // `add` writes loose objects, not a pack
  std::filesystem::remove(loose);
  REQUIRE(archive.git({"cat-file", "-e", root}).exit_code != 0);

  auto r = archive({"log", "-n", "2"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("s3: source added") != std::string::npos);
  CHECK(r.out.find("s2: source added") != std::string::npos);
  CHECK(r.out.find("s1: source added") == std::string::npos);
  // The whole log does need the root: it fails, and says so.
  CHECK(archive({"log"}).exit_code == 2);
}

TEST_CASE("log abbreviates an id past 7 characters when 7 are ambiguous", "[cli]") {
  CliArchive archive("log-abbrev");
  REQUIRE(archive({"add", "s", "http://127.0.0.1:1/s"}).exit_code == 0);
  const std::string head = archive.head().substr(0, 40);
  // A blob whose id shares the commit's first 7 characters makes those 7 ambiguous; finding
  // one by brute force takes ~2^28 hashes, so write a loose object under such a name instead:
  // git and libgit2 judge ambiguity by names in the object database.
  const std::string dir = archive.dir() + "/.git/objects/" + head.substr(0, 2);
  std::string twin = head.substr(2, 5) + (head[7] == '0' ? "1" : "0") + std::string(32, 'a');
  std::filesystem::create_directories(dir);
  spit(dir + "/" + twin, "not an object");
  auto r = archive({"log"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.substr(0, 8) == head.substr(0, 8));
  CHECK(r.out[8] == ' ');
  auto json = archive({"log", "--format", "json"});
  CHECK(json.out.find("\"short_id\": \"" + head.substr(0, 8) + "\"") != std::string::npos);
}

namespace {

// Writes path (under the work tree) and commits it with git, as a user would by hand.
void commit_file_by_hand(const CliArchive& archive, const std::string& path,
                         const std::string& content, const std::string& message) {
  const std::filesystem::path file = archive.dir() + "/" + path;
  std::filesystem::create_directories(file.parent_path());
  spit(file.string(), content);
  REQUIRE(archive.git({"add", path}).exit_code == 0);
  REQUIRE(archive
              .git({"-c", "user.name=u", "-c", "user.email=u@example.org", "commit", "-q", "-m",
                    message})
              .exit_code == 0);
}

// A change of source name made by hand.
void commit_by_hand(const CliArchive& archive, const std::string& name, const std::string& body) {
  commit_file_by_hand(archive, "raw/" + name + "/response.xml", body, name + " by hand: " + body);
}

// Content of a blob whose id starts with the first `shared` digits of id and differs at the
// next: with core.abbrev at 4, a few tens of thousands of hashes find one.
std::string blob_sharing(const std::string& id, std::size_t shared) {
  for (unsigned n = 0;; ++n) {
    const std::string content = "twin " + std::to_string(n) + "\n";
    const std::string blob_id = feeddiff::sha1_hex("blob " + std::to_string(content.size()) +
                                                   std::string(1, '\0') + content);
    if (blob_id.compare(0, shared, id, 0, shared) == 0 && blob_id[shared] != id[shared])
      return content;
  }
}

}  // namespace

TEST_CASE("log NAME keeps its short ids and checks them against the objects added since",
          "[cli][index]") {
  CliArchive archive("log-abbrev-cache");
  REQUIRE(archive.git({"config", "core.abbrev", "4"}).exit_code == 0);
  REQUIRE(archive({"add", "s", "http://127.0.0.1:1/s"}).exit_code == 0);
  // A change of s made by hand, which the source index learns from the tree.
  commit_by_hand(archive, "s", "<rss/>");
  const std::string id = archive.head().substr(0, 40);
  auto short_id = [&] {
    auto r = archive({"log", "s"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return r.out.substr(0, r.out.find(' '));
  };
  auto git_short = [&] {
    const std::string out = archive.git({"rev-parse", "--short=4", id}).out;
    return out.substr(0, out.find('\n'));
  };
  REQUIRE(short_id() == git_short());
  const std::string cache_dir = archive.dir() + "/.git/feeddiff/cache/abbrev";
  REQUIRE(std::filesystem::is_directory(cache_dir));
  const std::string entry = std::filesystem::directory_iterator(cache_dir)->path().string();
  const std::string kept = slurp(entry);
  REQUIRE(kept.find("covers\t1\t" + id + "\n") != std::string::npos);
  // The entry as if an earlier call had found id's short id 9 digits long.
  auto claim_nine = [&] {
    std::string text = slurp(entry);
    if (auto at = text.find("\n" + id + "\t"); at != std::string::npos)
      text.erase(at + 1, text.find('\n', at + 1) - at);
    spit(entry, text + id + "\t9\n");
  };

  SECTION("a kept short id is what a later call prints") {
    claim_nine();
    CHECK(short_id() == id.substr(0, 9));
  }
  SECTION("an object in a pack written since makes it longer") {
    // hash-object writes the twin loose; a tag makes it reachable, so that repack -d moves it
    // into a new pack beside the old.
    const std::string file = archive.dir() + "/../twin-" + id.substr(0, 8);
    spit(file, blob_sharing(id, 4));
    const auto twin = archive.git({"hash-object", "-w", file});
    REQUIRE(twin.exit_code == 0);
    REQUIRE(archive.git({"tag", "twin", twin.out.substr(0, 40)}).exit_code == 0);
    REQUIRE(archive.git({"repack", "-d", "-q"}).exit_code == 0);
    REQUIRE(!std::filesystem::exists(archive.dir() + "/.git/objects/" + twin.out.substr(0, 2) +
                                     "/" + twin.out.substr(2, 38)));
    CHECK(short_id() == id.substr(0, 5));
    CHECK(short_id() == git_short());

    SECTION("and so does a loose object written since") {
      const std::string dir = archive.dir() + "/.git/objects/" + id.substr(0, 2);
      std::filesystem::create_directories(dir);
      spit(dir + "/" + id.substr(2, 3) + (id[5] == '0' ? "1" : "0") + std::string(34, 'a'),
           "not an object");
      CHECK(short_id() == id.substr(0, 6));
    }
    SECTION("a pack that is gone makes every id looked up afresh") {
      claim_nine();
      // A commit more, so that the one pack repack -a writes is not the one it replaces.
      commit_file_by_hand(archive, "notes.txt", "a note", "a note by hand");
      REQUIRE(archive.git({"repack", "-a", "-d", "-q"}).exit_code == 0);
      REQUIRE(archive.git({"count-objects", "-v"}).out.find("packs: 1\n") != std::string::npos);
      CHECK(short_id() == id.substr(0, 5));
    }
  }
}

TEST_CASE("log NAME answers from the source index, so history it does not print can be missing",
          "[cli][index]") {
  // A walk (what `log NAME` did) diffs every commit down to the root; the index reads the
  // source's own records and the commits it prints. Deleting the root commit's object proves
  // which one ran.
  CliArchive archive("log-index");
  for (int i = 0; i < 3; ++i)
    REQUIRE(archive({"add", "s" + std::to_string(i), "http://127.0.0.1:1/" + std::to_string(i)})
                .exit_code == 0);
  // Changes made by hand, which the index learns by comparing raw/ with the parent's.
  std::vector<std::string> s1;
  for (int v = 0; v < 3; ++v)
    for (const std::string name : {"s0", "s1"}) {
      commit_by_hand(archive, name, "<rss>" + std::to_string(v) + "</rss>");
      if (name == "s1") s1.insert(s1.begin(), archive.head().substr(0, 40));
    }
  const std::string root = archive.git({"rev-list", "--max-parents=0", "HEAD"}).out.substr(0, 40);
  const std::string loose =
      archive.dir() + "/.git/objects/" + root.substr(0, 2) + "/" + root.substr(2);
  REQUIRE(std::filesystem::exists(loose));
  std::filesystem::remove(loose);

  auto r = archive({"log", "s1", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> ids;
  const auto doc = nlohmann::json::parse(r.out);  // the range below must not dangle
  for (const auto& change : doc["changes"]) ids.push_back(change["id"].get<std::string>());
  CHECK(ids == s1);
  auto two = archive({"log", "s1", "-n", "2"});
  CHECK(two.exit_code == 0);
  CHECK(two.out.find("s1 by hand: <rss>2</rss>") != std::string::npos);
  CHECK(two.out.find("s1 by hand: <rss>1</rss>") != std::string::npos);
  CHECK(two.out.find("s1 by hand: <rss>0</rss>") == std::string::npos);
  CHECK(archive({"log", "s2"}).out == "No recorded change of 's2' yet.\n");
  // With the index gone, the rebuild walks to the root: it fails, and says so.
  std::filesystem::remove_all(archive.dir() + "/.git/feeddiff/index");
  CHECK(archive({"log", "s1"}).exit_code == 2);
}

namespace {

// Ids of `log NAME --format json`, newest first.
std::vector<std::string> logged_ids(const CliArchive& archive, const std::string& name) {
  auto r = archive({"log", name, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> ids;
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& change : doc["changes"]) ids.push_back(change["id"].get<std::string>());
  return ids;
}

std::vector<std::string> git_ids(const CliArchive& archive, const std::string& name) {
  std::vector<std::string> ids;
  const std::string out = archive.git({"log", "--format=%H", "--", "raw/" + name + "/"}).out;
  for (std::size_t at = 0; at + 40 <= out.size(); at += 41) ids.push_back(out.substr(at, 40));
  return ids;
}

}  // namespace

TEST_CASE(
    "log NAME reads each commit once into a cache, and answers as git log after a reset, a "
    "user's commit and a damaged cache",
    "[cli][index]") {
  CliArchive archive("log-cache");
  REQUIRE(archive({"add", "s1", "http://127.0.0.1:1/s1"}).exit_code == 0);
  for (int v = 0; v < 4; ++v) {
    commit_by_hand(archive, "s1", "<rss>" + std::to_string(v) + "</rss>");
    commit_by_hand(archive, "s0", "<rss>" + std::to_string(v) + "</rss>");
  }
  const std::string cache = archive.dir() + "/.git/feeddiff/cache/log/7331";  // "s1" in hex
  const std::vector<std::string> first = logged_ids(archive, "s1");
  CHECK(first == git_ids(archive, "s1"));
  REQUIRE(first.size() == 4);
  const std::string text = slurp(cache);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1 + 4);  // a header, a record a commit

  // The next call prints from the cache: a title changed in it shows.
  std::string tampered = text;
  tampered.replace(tampered.find("s1 by hand: <rss>2</rss>"), 10, "CACHED TITL");
  spit(cache, tampered);
  CHECK(archive({"log", "s1"}).out.find("CACHED TITL") != std::string::npos);
  spit(cache, text);
  CHECK(archive({"log", "s1"}).out.find("CACHED TITL") == std::string::npos);

  // A reset, then a user's commit: what git says, and the cache holds the new history.
  REQUIRE(archive.git({"reset", "-q", "--hard", "HEAD~3"}).exit_code == 0);
  commit_by_hand(archive, "s1", "<rss>after the reset</rss>");
  const std::vector<std::string> after = logged_ids(archive, "s1");
  CHECK(after == git_ids(archive, "s1"));
  CHECK(after.size() == 4);
  CHECK(archive({"log", "s1"}).out.find("after the reset") != std::string::npos);
  const std::string rewritten = slurp(cache);
  CHECK(rewritten.find(after.front()) != std::string::npos);
  CHECK(rewritten.find(first.front()) == std::string::npos);

  // Cut mid-line, or garbled: read up to there, then written anew whole.
  spit(cache, rewritten.substr(0, rewritten.size() - 15));
  CHECK(logged_ids(archive, "s1") == after);
  CHECK(slurp(cache) == rewritten);
  std::string garbled = rewritten;
  garbled[garbled.find("\nc\t") + 10] ^= 1;
  spit(cache, garbled);
  CHECK(logged_ids(archive, "s1") == after);
  CHECK(slurp(cache) == rewritten);

  // Once cached, an old commit is not read again: its object can go, and log NAME still
  // lists it (as `log NAME -n 1` would not need it either).
  const std::string old = after.back();
  std::filesystem::remove(archive.dir() + "/.git/objects/" + old.substr(0, 2) + "/" +
                          old.substr(2));
  REQUIRE(archive.git({"cat-file", "-e", old}).exit_code != 0);
  CHECK(logged_ids(archive, "s1") == after);
}
