// The directories a site reads ahead: the newest in memory, all of them in an unnamed file,
// read back a source at a time.

#include "store/ahead_dirs.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

#include "support/process.h"

using feeddiff::AheadDirs;
using feeddiff::Layout;
using feeddiff::test::make_temp_dir;
using feeddiff::test::spit;

namespace {

git_oid random_oid(std::mt19937& rng) {
  git_oid id{};
  for (auto& b : id.id) b = static_cast<unsigned char>(rng());
  return id;
}

// kInMemory for one test: small, so that most answers come from the file.
struct InMemory {
  std::size_t saved = AheadDirs::kInMemory;
  explicit InMemory(std::size_t n) { AheadDirs::kInMemory = n; }
  ~InMemory() { AheadDirs::kInMemory = saved; }
};

struct History {
  std::vector<AheadDirs::Read> reads;  // oldest first, three sources taking turns
  explicit History(std::size_t n) {
    std::mt19937 rng(7);
    for (std::size_t i = 0; i < n; ++i) {
      AheadDirs::Read r;
      r.commit = random_oid(rng);
      r.name = std::string("source-") + static_cast<char>('a' + i % 3);
      r.dir.id = random_oid(rng);
      r.dir.layout = i % 4 == 0 ? Layout::fanout : Layout::flat;
      reads.push_back(r);
    }
  }
  // Adds them in batches of size, as a site's rounds do.
  void add_to(AheadDirs& dirs, std::size_t size) const {
    for (std::size_t at = 0; at < reads.size(); at += size)
      dirs.add({reads.begin() + static_cast<std::ptrdiff_t>(at),
                reads.begin() + static_cast<std::ptrdiff_t>(std::min(at + size, reads.size()))});
  }
};

// Every commit answers with its own source's directory, and for no other source.
void check_answers(AheadDirs& dirs, const History& h) {
  for (const auto& r : h.reads) {
    AheadDirs::Dir got;
    REQUIRE(dirs.find(r.commit, r.name, got));
    CHECK(git_oid_equal(&got.id, &r.dir.id) == 1);
    CHECK(got.layout == r.dir.layout);
    CHECK_FALSE(dirs.find(r.commit, r.name == "source-a" ? "source-b" : "source-a", got));
  }
}

}  // namespace

TEST_CASE("directories beyond the memory's share are read back from the file, a source at a time",
          "[store]") {
  InMemory small(8);
  const std::string dir = make_temp_dir("ahead-dirs");
  AheadDirs dirs(dir);
  History h(100);
  h.add_to(dirs, 5);
  CHECK(dirs.size() == 100);
  // Only the newest batches stay in memory.
  std::size_t in_memory = 0;
  for (const auto& r : h.reads) in_memory += dirs.in_memory(r.commit, r.name) ? 1 : 0;
  CHECK(in_memory <= 8 + 5);
  CHECK(dirs.in_memory(h.reads.back().commit, h.reads.back().name));
  CHECK_FALSE(dirs.in_memory(h.reads.front().commit, h.reads.front().name));
  check_answers(dirs, h);
  // The file has no name: nothing is left behind in the directory.
  CHECK(std::filesystem::is_empty(dir));

  // A copy (a forked child's archive) answers alike, through a descriptor of its own.
  AheadDirs copy(dir);
  copy.copy_from(dirs);
  dirs.clear();
  CHECK(dirs.size() == 0);
  AheadDirs::Dir unused;
  CHECK_FALSE(dirs.find(h.reads[0].commit, h.reads[0].name, unused));
  check_answers(copy, h);
}

TEST_CASE("directories that cannot be written to a file all stay in memory and still answer",
          "[store]") {
  InMemory small(8);
  const std::string base = make_temp_dir("ahead-dirs-nofile");
  spit(base + "/file", "not a directory");
  AheadDirs dirs(base + "/file/sub");
  History h(40);
  h.add_to(dirs, 5);
  for (const auto& r : h.reads) CHECK(dirs.in_memory(r.commit, r.name));
  check_answers(dirs, h);
}
