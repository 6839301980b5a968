// The store's own pack reader (src/store/pack_reader.h) gives every object of real packs
// byte for byte and type as libgit2 reads it: a pack the poll writes, a `git fast-import`
// pack with deep delta chains, `git gc --aggressive`'s (offset deltas, depth 50) and a repack
// with base ids (ref deltas). What it does not handle it declines, and libgit2 answers
// behind it: a loose object, an index of version 1, a corrupted byte.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "feeddiff/store.h"
#include "store/git_handles.h"
#include "store/pack_reader.h"
#include "store/store_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::git_out;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;
using feeddiff::test::slurp;
using feeddiff::test::spit;
namespace fs = std::filesystem;

namespace {

struct Odb {
  explicit Odb(const std::string& git_dir) {
    git::ensure_initialized();  // a test run alone has opened no archive before
    REQUIRE(git_repository_open(&repo, git_dir.c_str()) == 0);
    REQUIRE(git_repository_odb(&odb, repo) == 0);
  }
  ~Odb() {
    git_odb_free(odb);
    git_repository_free(repo);
  }
  git_repository* repo = nullptr;
  git_odb* odb = nullptr;
};

// Every object id of the repository at git_dir, loose and packed, as git lists them.
std::vector<git_oid> all_ids(const std::string& dir) {
  std::vector<git_oid> out;
  std::istringstream in(
      git_out(dir, {"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"}));
  for (std::string line; std::getline(in, line);) {
    git_oid id{};
    REQUIRE(git_oid_fromstr(&id, line.c_str()) == 0);
    out.push_back(id);
  }
  return out;
}

// What libgit2 reads for id: type and bytes.
std::pair<git_object_t, std::string> libgit2_read(git_odb* odb, const git_oid& id) {
  git_odb_object* o = nullptr;
  REQUIRE(git_odb_read(&o, odb, &id) == 0);
  std::pair<git_object_t, std::string> out{
      git_odb_object_type(o),
      std::string(static_cast<const char*>(git_odb_object_data(o)), git_odb_object_size(o))};
  git_odb_object_free(o);
  return out;
}

struct Counts {
  std::size_t objects = 0;
  std::size_t answered = 0;
  std::size_t trees = 0;
};

// Reads every object of dir with a PackReader (its ids in the order git lists them, then
// again newest first, so bases come from the pack and from its cache) and checks each answer
// against libgit2's; how many it answered.
Counts read_all(const std::string& dir) {
  const std::string git_dir = dir + "/.git";
  Odb plain(git_dir);
  pack::PackReader reader(git_dir + "/objects");
  auto ids = all_ids(dir);
  Counts counts;
  for (int pass = 0; pass < 2; ++pass) {
    counts = {};
    for (const git_oid& id : ids) {
      ++counts.objects;
      const auto expected = libgit2_read(plain.odb, id);
      if (expected.first == GIT_OBJECT_TREE) ++counts.trees;
      auto got = reader.read(id);
      if (!got) continue;
      ++counts.answered;
      INFO("object " << git_oid_tostr_s(&id));
      CHECK(got->type == expected.first);
      CHECK(got->bytes() == expected.second);
    }
    std::reverse(ids.begin(), ids.end());
  }
  CHECK(reader.declined() == 0);
  return counts;
}

// Lines of `git verify-pack -v`: object id, type, size, size in pack, offset, [depth, base].
struct Listed {
  std::string id, type;
  std::size_t packed = 0, offset = 0, depth = 0;
};

std::vector<Listed> verify_pack(const std::string& dir) {
  std::vector<Listed> out;
  for (const auto& e : fs::directory_iterator(dir + "/.git/objects/pack")) {
    if (e.path().extension() != ".idx") continue;
    std::istringstream in(git_out(dir, {"verify-pack", "-v", e.path().string()}));
    for (std::string line; std::getline(in, line);) {
      std::istringstream fields(line);
      Listed l;
      std::size_t size = 0;
      if (!(fields >> l.id >> l.type >> size >> l.packed >> l.offset) || l.id.size() != 40)
        continue;
      fields >> l.depth;
      out.push_back(l);
    }
  }
  return out;
}

std::size_t max_depth(const std::string& dir) {
  std::size_t depth = 0;
  for (const auto& l : verify_pack(dir)) depth = std::max(depth, l.depth);
  return depth;
}

// A repository whose history git fast-import writes: `commits` commits, each changing one of
// 40 files of a tree and the file's text a little, so trees and blobs chain deltas deep.
std::string fast_import_repo(int commits) {
  const std::string dir = make_temp_dir("pack-fast-import");
  git_out(dir, {"init", "-q"});
  std::string stream;
  std::string text = "line\n";
  for (int i = 0; i < commits; ++i) {
    text += "entry " + std::to_string(i) + " of a feed that grows a little each time\n";
    const std::string message = "feed-" + std::to_string(i % 40) + ": changed\n";
    stream += "commit refs/heads/main\n";
    stream +=
        "committer feeddiff <feeddiff@localhost> " + std::to_string(1790000000 + i) + " +0000\n";
    stream += "data " + std::to_string(message.size()) + "\n" + message;
    stream += "M 100644 inline raw/feed-" + std::to_string(i % 40) + "/response.xml\n";
    stream += "data " + std::to_string(text.size()) + "\n" + text + "\n";
  }
  auto r = run({"git", "-C", dir, "fast-import", "--quiet", "--depth=50"}, {}, stream);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir;
}

// An archive poll's way: batches of version commits, each batch one pack the store writes.
std::string polled_archive() {
  const std::string dir = make_temp_dir("pack-polled");
  auto archive = Archive::init(dir, 1'790'830'000'000);
  REQUIRE(archive);
  for (int batch = 0; batch < 4; ++batch) {
    REQUIRE(archive->begin_batch());
    for (int i = 0; i < 30; ++i) {
      const std::string source = "feed-" + std::to_string(i % 7);
      auto c = archive->commit(test::source_change(
          source, "<rss>" + std::to_string(batch * 100 + i) + " of a body</rss>",
          1'790'834'044'027 + (batch * 100 + i) * 1000));
      REQUIRE(c);
    }
    REQUIRE(archive->end_batch());
  }
  return dir;
}

}  // namespace

TEST_CASE("the pack reader reads every object of the packs poll writes as libgit2 does",
          "[store][pack]") {
  const std::string dir = polled_archive();
  const auto counts = read_all(dir);
  CHECK(counts.objects > 300);
  // The batches' objects are in packs (init's may be loose: those it leaves to libgit2).
  std::set<std::string> packed;
  for (const auto& l : verify_pack(dir)) packed.insert(l.id);
  CHECK(packed.size() > 300);
  CHECK(counts.answered == packed.size());
}

TEST_CASE("the pack reader reads a fast-import pack with delta chains 50 deep as libgit2 does",
          "[store][pack]") {
  const std::string dir = fast_import_repo(400);
  CHECK(max_depth(dir) >= 40);
  const auto counts = read_all(dir);
  CHECK(counts.objects == 2000);  // per commit: a commit, a blob and three trees
  CHECK(counts.answered == counts.objects);
}

TEST_CASE("the pack reader reads what git gc --aggressive and a repack with ref deltas wrote",
          "[store][pack]") {
  const std::string dir = fast_import_repo(300);
  SECTION("offset deltas, depth 50") {
    git_out(dir, {"gc", "-q", "--aggressive", "--prune=now"});
    CHECK(max_depth(dir) >= 20);
  }
  SECTION("ref deltas") {
    git_out(dir, {"-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=50",
                  "--window=50"});
    // No OFS_DELTA: a delta names its base by id.
    CHECK(max_depth(dir) >= 20);
  }
  const auto counts = read_all(dir);
  CHECK(counts.objects == 1500);
  CHECK(counts.answered == counts.objects);
}

TEST_CASE("the ends a delta copied from its base are its base's ends, byte for byte",
          "[store][pack]") {
  const std::string dir = fast_import_repo(200);
  SECTION("fast-import's deltas, each on the version before") {}
  SECTION("git gc --aggressive's, newer objects the bases of older ones") {
    git_out(dir, {"gc", "-q", "--aggressive", "--prune=now"});
  }
  pack::PackReader reader(dir + "/.git/objects");
  std::map<std::uint64_t, pack::ReadObject> by_key;
  for (const git_oid& id : all_ids(dir)) {
    auto got = reader.read(id);
    REQUIRE(got);
    by_key[got->key] = *got;
  }
  std::size_t deltas = 0, both_ends = 0;
  for (const auto& [key, object] : by_key) {
    if (object.base_key == 0) {
      CHECK(object.same_head == 0);
      CHECK(object.same_tail == 0);
      continue;
    }
    ++deltas;
    REQUIRE(by_key.count(object.base_key) == 1);
    const pack::ReadObject& base = by_key[object.base_key];
    const auto [head, tail] = pack::shared_ends(object, base);
    CHECK(pack::shared_ends(base, object) == std::pair{head, tail});
    CHECK(head == object.same_head);
    REQUIRE(head <= std::min(object.size, base.size));
    REQUIRE(tail <= std::min(object.size, base.size));
    CHECK(object.bytes().substr(0, head) == base.bytes().substr(0, head));
    CHECK(object.bytes().substr(object.size - tail) == base.bytes().substr(base.size - tail));
    if (head > 0 && tail > 0) ++both_ends;
  }
  // Trees of 40 entries that change one a commit keep both ends (blobs grow at the end).
  CHECK(deltas > 300);
  CHECK(both_ends > 100);
  // Objects that are not each other's base share nothing known.
  const auto first = by_key.begin()->second;
  const auto last = by_key.rbegin()->second;
  if (first.base_key != last.key && last.base_key != first.key)
    CHECK(pack::shared_ends(first, last) == std::pair<std::size_t, std::size_t>{0, 0});
}

TEST_CASE("a loose object and an index of version 1 are left to libgit2, which answers them",
          "[store][pack]") {
  const std::string dir = fast_import_repo(60);
  const std::string git_dir = dir + "/.git";
  // A loose blob, in no pack.
  auto hashed = run({"git", "-C", dir, "hash-object", "-w", "--stdin"}, {}, "loose and alone\n");
  REQUIRE(hashed.exit_code == 0);
  git_oid loose{};
  REQUIRE(git_oid_fromstrn(&loose, hashed.out.data(), 40) == 0);
  SECTION("loose") {
    pack::PackReader reader(git_dir + "/objects");
    CHECK(reader.packs() == 1);
    CHECK_FALSE(reader.read(loose));
    CHECK(reader.declined() == 0);  // in none of its packs: nothing declined
  }
  SECTION("an index of version 1") {
    for (const auto& e : fs::directory_iterator(git_dir + "/objects/pack"))
      if (e.path().extension() == ".pack") {
        const std::string idx = fs::path(e.path()).replace_extension(".idx").string();
        fs::remove(idx);
        git_out(dir, {"index-pack", "--index-version=1", "-o", idx, e.path().string()});
      }
    pack::PackReader reader(git_dir + "/objects");
    CHECK(reader.packs() == 0);
  }
  // Through a repository that asks the reader first, every object reads as libgit2's.
  Odb plain(git_dir);
  auto fast = pack::open_with_reader(git_dir);
  REQUIRE(fast);
  git_odb* odb = nullptr;
  REQUIRE(git_repository_odb(&odb, fast->get()) == 0);
  REQUIRE(pack::reader_of(odb) != nullptr);
  for (const git_oid& id : all_ids(dir))
    CHECK(libgit2_read(odb, id) == libgit2_read(plain.odb, id));
  CHECK(libgit2_read(odb, loose).second == "loose and alone\n");
  git_odb_free(odb);
}

TEST_CASE("a corrupted byte in a pack object is declined, never read as other bytes",
          "[store][pack]") {
  const std::string dir = fast_import_repo(80);
  const std::string git_dir = dir + "/.git";
  const auto ids = all_ids(dir);
  std::map<std::string, std::pair<git_object_t, std::string>> before;
  {
    Odb plain(git_dir);
    for (const git_oid& id : ids) before[git_oid_tostr_s(&id)] = libgit2_read(plain.odb, id);
  }
  // The last byte of the compressed data of objects big enough to hold one: the deflate
  // stream's or its Adler-32's.
  std::string pack_path;
  for (const auto& e : fs::directory_iterator(git_dir + "/objects/pack"))
    if (e.path().extension() == ".pack") pack_path = e.path().string();
  std::string bytes = slurp(pack_path);
  std::set<std::string> broken;
  for (const auto& l : verify_pack(dir))
    if (l.packed > 12 && broken.size() < 25) {
      bytes[l.offset + l.packed - 1] ^= 0x5a;
      broken.insert(l.id);
    }
  REQUIRE(broken.size() == 25);
  fs::permissions(pack_path, fs::perms::owner_write, fs::perm_options::add);
  spit(pack_path, bytes);

  pack::PackReader reader(git_dir + "/objects");
  REQUIRE(reader.packs() == 1);
  std::size_t answered = 0;
  for (const git_oid& id : ids) {
    const std::string hex = git_oid_tostr_s(&id);
    INFO("object " << hex);
    auto got = reader.read(id);
    if (!got) continue;
    ++answered;
    CHECK(broken.count(hex) == 0);
    CHECK(got->type == before[hex].first);
    CHECK(got->bytes() == before[hex].second);
  }
  CHECK(reader.declined() >= broken.size());
  CHECK(answered > 0);
  // Behind it, libgit2 answers the same or fails: never other bytes.
  auto fast = pack::open_with_reader(git_dir);
  REQUIRE(fast);
  git_odb* odb = nullptr;
  REQUIRE(git_repository_odb(&odb, fast->get()) == 0);
  for (const git_oid& id : ids) {
    git_odb_object* o = nullptr;
    if (git_odb_read(&o, odb, &id) != 0) {
      git_error_clear();
      continue;
    }
    const std::string hex = git_oid_tostr_s(&id);
    INFO("object " << hex);
    CHECK(std::string(static_cast<const char*>(git_odb_object_data(o)), git_odb_object_size(o)) ==
          before[hex].second);
    git_odb_object_free(o);
  }
  git_odb_free(odb);
}

TEST_CASE(
    "a pack written after the reader opened and a pack its index does not name are not read "
    "by it",
    "[store][pack]") {
  const std::string dir = fast_import_repo(30);
  const std::string git_dir = dir + "/.git";
  pack::PackReader before(git_dir + "/objects");
  REQUIRE(before.packs() == 1);
  // A second pack, of one new blob.
  auto hashed = run({"git", "-C", dir, "hash-object", "-w", "--stdin"}, {}, "in a new pack\n");
  REQUIRE(hashed.exit_code == 0);
  git_oid added{};
  REQUIRE(git_oid_fromstrn(&added, hashed.out.data(), 40) == 0);
  auto packed =
      run({"git", "-C", dir, "pack-objects", "-q", git_dir + "/objects/pack/pack"}, {}, hashed.out);
  REQUIRE(packed.exit_code == 0);
  CHECK_FALSE(before.read(added));
  CHECK(before.declined() == 0);
  pack::PackReader after(git_dir + "/objects");
  REQUIRE(after.packs() == 2);
  auto got = after.read(added);
  REQUIRE(got);
  CHECK(got->type == GIT_OBJECT_BLOB);
  CHECK(got->bytes() == "in a new pack\n");
  // The new pack's trailing checksum changed: its index no longer names it.
  for (const auto& e : fs::directory_iterator(git_dir + "/objects/pack")) {
    if (e.path().extension() != ".pack" || fs::file_size(e.path()) > 1000) continue;
    std::string bytes = slurp(e.path().string());
    bytes.back() ^= 1;
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    spit(e.path().string(), bytes);
  }
  pack::PackReader mismatched(git_dir + "/objects");
  CHECK(mismatched.packs() == 1);
  CHECK_FALSE(mismatched.read(added));
}
