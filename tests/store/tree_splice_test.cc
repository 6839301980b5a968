// Trees spliced by hand (src/store/tree_splice.cc) must be the very trees libgit2's
// git_tree_create_updated writes: same entries, same order, same id, for names that sort
// around '/' and '.', and in both layouts.

#include <git2.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "store/git_handles.h"
#include "store/store_helpers.h"
#include "store/tree_splice.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::make_temp_dir;

namespace {

// A scratch repository, its object database and a blob of each text.
class Repo {
 public:
  Repo() {
    git::ensure_initialized();
    dir_ = make_temp_dir("tree-splice");
    REQUIRE(git_repository_init(&repo_, dir_.c_str(), 0) == 0);
    REQUIRE(git_repository_odb(&odb_, repo_) == 0);
  }
  ~Repo() {
    git_odb_free(odb_);
    git_repository_free(repo_);
  }
  Repo(const Repo&) = delete;
  Repo& operator=(const Repo&) = delete;

  git_oid blob(const std::string& text) {
    git_oid id{};
    REQUIRE(git_blob_create_from_buffer(&id, repo_, text.data(), text.size()) == 0);
    return id;
  }

  // The tree libgit2 makes of base with these changes.
  git_oid by_libgit2(const git_oid* base, const std::vector<tree_splice::Change>& changes) {
    git_tree* tree = nullptr;
    git_oid empty{};
    if (base) {
      REQUIRE(git_tree_lookup(&tree, repo_, base) == 0);
    } else {
      git_treebuilder* b = nullptr;
      REQUIRE(git_treebuilder_new(&b, repo_, nullptr) == 0);
      REQUIRE(git_treebuilder_write(&empty, b) == 0);
      git_treebuilder_free(b);
      REQUIRE(git_tree_lookup(&tree, repo_, &empty) == 0);
    }
    std::vector<git_tree_update> updates;
    for (const auto& c : changes) {
      git_tree_update u{};
      u.path = c.path.c_str();
      u.action = c.blob ? GIT_TREE_UPDATE_UPSERT : GIT_TREE_UPDATE_REMOVE;
      u.filemode = GIT_FILEMODE_BLOB;
      if (c.blob) u.id = *c.blob;
      updates.push_back(u);
    }
    git_oid out{};
    const int rc = git_tree_create_updated(&out, repo_, tree, updates.size(), updates.data());
    git_tree_free(tree);
    REQUIRE(rc == 0);
    return out;
  }

  // The spliced tree, which must exist and be libgit2's.
  git_oid spliced(const git_oid* base, const std::vector<tree_splice::Change>& changes) {
    auto made = tree_splice::apply(odb_, nullptr, base, changes);
    REQUIRE(made);
    REQUIRE(*made);
    const git_oid expected = by_libgit2(base, changes);
    char a[GIT_OID_HEXSZ + 1] = {}, b[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(a, sizeof a, &(*made)->root);
    git_oid_tostr(b, sizeof b, &expected);
    CHECK(std::string(a) == std::string(b));
    // Written, and readable as a tree.
    git_tree* tree = nullptr;
    CHECK(git_tree_lookup(&tree, repo_, &(*made)->root) == 0);
    git_tree_free(tree);
    return (*made)->root;
  }

  // A tree object of exactly these bytes, sound or not (a crafted or an old tool's tree).
  git_oid raw_tree(const std::string& bytes) {
    git_oid id{};
    REQUIRE(git_odb_write(&id, odb_, bytes.data(), bytes.size(), GIT_OBJECT_TREE) == 0);
    return id;
  }

  bool declined(const git_oid* base, const std::vector<tree_splice::Change>& changes) {
    auto made = tree_splice::apply(odb_, nullptr, base, changes);
    REQUIRE(made);
    return !*made;
  }

 private:
  std::string dir_;
  git_repository* repo_ = nullptr;
  git_odb* odb_ = nullptr;
};

// Names whose order differs between a plain byte comparison and git's, where a directory
// sorts as if its name ended in '/' ('.' and '-' sort before '/', '0' after it).
const std::vector<std::string> kAwkward = {"a", "a-b", "a.b", "a.xml", "a0", "ab", "a_b",
                                           "b", "B",   "0",   "a-",    "a.", "zz"};

}  // namespace

TEST_CASE("a spliced tree is byte-identical to libgit2's for names that sort around '/' and '.'",
          "[store]") {
  Repo repo;
  const git_oid body = repo.blob("body\n");
  // Directories (NAME/response.xml) and files (NAME) of the same awkward names, added one
  // by one onto what the last splice made, in an order that inserts everywhere.
  git_oid tree = repo.spliced(nullptr, {{"feeddiff.toml", repo.blob("# sources\n")}});
  for (const std::string& name : kAwkward) {
    tree = repo.spliced(&tree, {{"raw/" + name + "/response.xml", body}});
    tree = repo.spliced(&tree, {{"raw/" + name + ".d/x", body}});
    tree = repo.spliced(&tree, {{"top" + name, repo.blob(name)}});
  }
  // A new version replaces the entry in place; a second file joins a source's directory.
  tree = repo.spliced(&tree, {{"raw/a.b/response.xml", repo.blob("new\n")}});
  tree = repo.spliced(&tree, {{"raw/a/response.json", body}});
  // Several changes at once, a removal among them.
  tree = repo.spliced(&tree, {{"raw/a/response.xml", std::nullopt},
                              {"raw/a0/not-a-feed", repo.blob("<html>")},
                              {"raw/ab/response.xml", repo.blob("ab 2")}});
  // The fan-out layout: raw/hh/NAME/.
  tree = repo.spliced(&tree, {{"raw/3f/a.b/response.xml", body}});
  tree = repo.spliced(&tree, {{"raw/3f/a/response.xml", body}});
  repo.spliced(&tree, {{"raw/3f/a-b/response.xml", body}});
}

TEST_CASE("a splice declines what it cannot write as libgit2 would and leaves it to libgit2",
          "[store]") {
  Repo repo;
  const git_oid body = repo.blob("body\n");
  const git_oid tree = repo.spliced(nullptr, {{"raw/a/response.xml", body}, {"raw/f", body}});
  // Removing what is not there, a directory where a file is and the other way round.
  CHECK(repo.declined(&tree, {{"raw/b/response.xml", std::nullopt}}));
  CHECK(repo.declined(&tree, {{"raw/f/response.xml", body}}));
  CHECK(repo.declined(&tree, {{"raw/a", body}}));
  // A tree left empty (libgit2 drops it from its parent).
  CHECK(repo.declined(&tree, {{"raw/a/response.xml", std::nullopt}}));
  // Names git treats specially, or outside what feeddiff writes.
  CHECK(repo.declined(&tree, {{".git/x", body}}));
  CHECK(repo.declined(&tree, {{"raw/../x", body}}));
  CHECK(repo.declined(&tree, {{"raw/a b/response.xml", body}}));
  CHECK(repo.declined(&tree, {{"raw//x", body}}));
  // Two changes of one path.
  CHECK(repo.declined(&tree, {{"raw/c", body}, {"raw/c", body}}));
  // And nothing to do.
  CHECK(repo.declined(&tree, {}));
}

TEST_CASE("git's entry order puts a directory after names that continue with bytes below '/'",
          "[store]") {
  using tree_splice::compare_entries;
  CHECK(compare_entries("a", true, "a.b", false) > 0);   // "a/" > "a.b"
  CHECK(compare_entries("a", false, "a.b", false) < 0);  // "a" < "a.b"
  CHECK(compare_entries("a", true, "a0", false) < 0);    // "a/" < "a0"
  CHECK(compare_entries("a", true, "a", true) == 0);
  CHECK(compare_entries("a", false, "a", true) < 0);
}

TEST_CASE("a splice declines a tree not as git writes it, which libgit2 rewrites sound",
          "[store]") {
  Repo repo;
  const git_oid body = repo.blob("body\n");
  const std::string id(reinterpret_cast<const char*>(body.id), GIT_OID_RAWSZ);
  const auto entry = [&](const std::string& mode, const std::string& name) {
    return mode + " " + name + std::string(1, '\0') + id;
  };
  // Entries out of order, a name twice (as a file and as a directory), zero-padded and
  // group-writable modes: each would be kept by a splice into its bytes.
  for (const std::string& bytes :
       {entry("100644", "b") + entry("100644", "a"), entry("100644", "a") + entry("40000", "a"),
        entry("040000", "a") + entry("100644", "b"), entry("100664", "a") + entry("100644", "b")}) {
    const git_oid bad = repo.raw_tree(bytes);
    CHECK(repo.declined(&bad, {{"c", body}}));
  }
  // The same entries as git writes them are spliced.
  const git_oid sound = repo.raw_tree(entry("100644", "a") + entry("100755", "b"));
  repo.spliced(&sound, {{"c", body}});
}

TEST_CASE(
    "a splice declines a tree with a name beyond printable ASCII, which it would hash "
    "without collision detection",
    "[store]") {
  Repo repo;
  const git_oid body = repo.blob("body\n");
  const std::string id(reinterpret_cast<const char*>(body.id), GIT_OID_RAWSZ);
  const auto entry = [&](const std::string& name) {
    return "100644 " + name + std::string(1, '\0') + id;
  };
  // A user's UTF-8 file name, a control byte, a byte above 0x7e: libgit2 writes the tree.
  for (const std::string& name : {std::string("caf\xc3\xa9"), std::string("a\x01"),
                                  std::string("a\x7f"), std::string("\xff")}) {
    const git_oid odd = repo.raw_tree(entry(name));
    CHECK(repo.declined(&odd, {{"z", body}}));
  }
  // Printable names that feeddiff does not write itself stay, as libgit2 would keep them.
  const git_oid printable = repo.raw_tree(entry(".gitattributes") + entry("My notes~.txt"));
  repo.spliced(&printable, {{"z", body}});
}
