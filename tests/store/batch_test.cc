// Batches: commits written to memory, packed into one pack that git itself must accept
// byte for byte, and the branch moved once.

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

#include "feeddiff/store.h"
#include "store/store_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::corpus_path;
using feeddiff::test::git_out;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;
using feeddiff::test::slurp;
using feeddiff::test::source_change;
using feeddiff::test::spit;

namespace {

std::vector<std::string> packs_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/.git/objects/pack"))
    if (e.path().extension() == ".pack") out.push_back(e.path().string());
  return out;
}

// Bodies that exercise every path of the encoder: empty, tiny, incompressible, highly
// repetitive, match lengths and distances at their limits, every byte value, a real feed.
std::vector<std::string> awkward_bodies() {
  std::mt19937 rng(42);
  std::string random(100'000, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  std::string all_bytes;
  for (int i = 0; i < 256 * 3; ++i) all_bytes.push_back(static_cast<char>(i));
  std::string far;  // a repeat just inside and just outside the 32 KiB window
  std::string block(40, '\0');
  for (char& c : block) c = static_cast<char>('a' + rng() % 26);
  far = block + std::string(32768 - 40, 'z') + block + random.substr(0, 40000) + block;
  std::string runs;
  for (std::size_t len : {3, 4, 5, 257, 258, 259, 260, 515, 1000})
    runs += std::string(len, static_cast<char>('A' + len % 26)) + "|";
  return {"",
          "x",
          "ab",
          random,
          std::string(1 << 20, 'q'),
          all_bytes,
          far,
          runs,
          random.substr(0, 70000) + random.substr(0, 70000),
          slurp(corpus_path("history-olshansk-openai-research/0001.xml"))};
}

// The archive passes git fsck --strict, its work tree is clean, and raw/s<i>/response.xml
// holds bodies[i] at HEAD and in the work tree.
void check_sound_with(const std::string& dir, const std::vector<std::string>& bodies) {
  auto fsck = run({"git", "-C", dir, "fsck", "--strict", "--no-dangling"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK(git_out(dir, {"status", "--porcelain"}).empty());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const std::string path = "raw/s" + std::to_string(i) + "/response.xml";
    INFO(path);
    CHECK(run({"git", "-C", dir, "cat-file", "blob", "HEAD:" + path}).out == bodies[i]);
    CHECK(slurp(dir + "/" + path) == bodies[i]);
  }
}

}  // namespace

TEST_CASE("a batch moves the branch once, as one pack git verifies byte for byte", "[store]") {
  const std::string dir = make_temp_dir("store-batch");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  const std::string before = git_out(dir, {"rev-parse", "HEAD"});
  const auto bodies = awkward_bodies();

  REQUIRE(archive->begin_batch());
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    auto id = archive->commit(source_change("s" + std::to_string(i), bodies[i]));
    REQUIRE(id);
    REQUIRE(*id);
    ids.push_back(**id);
    // The batch sees its own commits; the branch does not move yet.
    auto read = archive->read_head("raw/s" + std::to_string(i) + "/response.xml");
    REQUIRE(read);
    CHECK(**read == bodies[i]);
  }
  CHECK(archive->pending_commits() == bodies.size());
  CHECK(archive->pending_bytes() > (1u << 20));
  CHECK(git_out(dir, {"rev-parse", "HEAD"}) == before);
  CHECK(packs_in(dir).empty());

  REQUIRE(archive->end_batch());
  CHECK(archive->pending_commits() == 0);
  CHECK(git_out(dir, {"rev-parse", "HEAD"}) == ids.back() + "\n");
  REQUIRE(packs_in(dir).size() == 1);
  auto verify = run({"git", "verify-pack", "-v", packs_in(dir)[0]});
  INFO(verify.err);
  CHECK(verify.exit_code == 0);
  auto fsck = run({"git", "-C", dir, "fsck", "--strict", "--no-dangling"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK(fsck.err.empty());
  CHECK(git_out(dir, {"status", "--porcelain"}).empty());
  CHECK(git_out(dir, {"rev-list", "--count", "HEAD"}) == std::to_string(bodies.size() + 1) + "\n");

  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const std::string path = "raw/s" + std::to_string(i) + "/response.xml";
    INFO(path);
    CHECK(run({"git", "-C", dir, "cat-file", "blob", "HEAD:" + path}).out == bodies[i]);
    CHECK(slurp(dir + "/" + path) == bodies[i]);
  }
  // A fresh process reads the pack too.
  auto reopened = Archive::open(dir);
  REQUIRE(reopened);
  auto last = reopened->read_head("raw/s9/response.xml");
  REQUIRE(last);
  CHECK(**last == bodies[9]);
}

TEST_CASE(
    "successive versions in one batch are stored as deltas, the newest whole, and read back "
    "exactly",
    "[store]") {
  const std::string dir = make_temp_dir("store-batch-deltas");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  REQUIRE(archive->begin_batch());
  // 120 sources, then 60 more versions of one of them: raw/ trees chain past the depth limit.
  for (int i = 0; i < 120; ++i)
    REQUIRE(archive->commit(
        source_change("src" + std::to_string(i), "<rss>" + std::to_string(i) + "</rss>")));
  std::string body = slurp(corpus_path("history-olshansk-openai-research/0002.xml"));
  for (int v = 0; v < 60; ++v) {
    body.insert(body.size() / 2, "<item>" + std::to_string(v) + "</item>\n");
    REQUIRE(archive->commit(source_change("src7", body)));
  }
  REQUIRE(archive->end_batch());
  REQUIRE(packs_in(dir).size() == 1);
  auto verify = run({"git", "verify-pack", "-v", packs_in(dir)[0]});
  INFO(verify.err);
  REQUIRE(verify.exit_code == 0);
  CHECK(verify.out.find("chain length = 50:") != std::string::npos);
  CHECK(verify.out.find("chain length = 51:") == std::string::npos);
  // 60 versions of a 50 KB feed take far less than 60 copies would.
  CHECK(std::filesystem::file_size(packs_in(dir)[0]) < 10 * body.size());
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
  CHECK(slurp(dir + "/raw/src7/response.xml") == body);
  CHECK(run({"git", "-C", dir, "cat-file", "blob", "HEAD~30:raw/src7/response.xml"}).exit_code ==
        0);
  CHECK(git_out(dir, {"status", "--porcelain"}).empty());
  // Newest first: what every reader of the branch head reads is stored whole, and the
  // versions before it are deltas against the ones after them.
  const auto delta_base = [&](const std::string& object) {
    return run({"git", "-C", dir, "cat-file", "--batch-check=%(deltabase)"}, {},
               git_out(dir, {"rev-parse", object}))
        .out;
  };
  const std::string whole = std::string(40, '0') + "\n";
  CHECK(delta_base("HEAD:raw") == whole);
  CHECK(delta_base("HEAD:raw/src7/response.xml") == whole);
  CHECK(delta_base("HEAD~1:raw") == git_out(dir, {"rev-parse", "HEAD:raw"}));
  CHECK(delta_base("HEAD~1:raw/src7/response.xml") ==
        git_out(dir, {"rev-parse", "HEAD:raw/src7/response.xml"}));
}

TEST_CASE("a batch dropped without flush leaves the archive as it was", "[store]") {
  const std::string dir = make_temp_dir("store-batch-drop");
  {
    auto archive = Archive::init(dir, now_ms());
    REQUIRE(archive);
  }
  const std::string before = git_out(dir, {"rev-parse", "HEAD"});
  {
    auto archive = Archive::open(dir);
    REQUIRE(archive);
    REQUIRE(archive->begin_batch());
    REQUIRE(archive->commit(source_change("lost", std::string("<rss/>"))));
  }
  CHECK(git_out(dir, {"rev-parse", "HEAD"}) == before);
  CHECK(packs_in(dir).empty());
  CHECK(git_out(dir, {"status", "--porcelain", "--untracked-files=all"}).empty());
  auto archive = Archive::open(dir);
  REQUIRE(archive);
  REQUIRE(archive->commit(source_change("kept", std::string("<rss/>"))));
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
}

TEST_CASE("a flush refuses to move a branch that someone else moved", "[store]") {
  const std::string dir = make_temp_dir("store-batch-race");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  REQUIRE(archive->begin_batch());
  REQUIRE(archive->commit(source_change("mine", std::string("<rss>mine</rss>"))));
  // Another writer commits behind our back.
  auto other = Archive::open(dir);
  REQUIRE(other);
  REQUIRE(other->commit(source_change("theirs", std::string("<rss>theirs</rss>"))));
  const std::string theirs = git_out(dir, {"rev-parse", "HEAD"});
  auto flushed = archive->flush();
  REQUIRE_FALSE(flushed);
  CHECK(flushed.error().code == Errc::git);
  CHECK(git_out(dir, {"rev-parse", "HEAD"}) == theirs);
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
}

TEST_CASE("taking the lock finishes a work-tree update a killed writer left half done", "[store]") {
  const std::string dir = make_temp_dir("store-checkout");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  REQUIRE(archive->commit(source_change("s", std::string("<rss>v1</rss>"))));
  REQUIRE(archive->commit(source_change("s", std::string("<rss>v2</rss>"))));
  // What a writer killed right after moving the branch leaves: index and work tree at the
  // old version, and its list of paths.
  spit(dir + "/raw/s/response.xml", "<rss>v1</rss>");
  REQUIRE(run({"git", "-C", dir, "update-index", "raw/s/response.xml"}).exit_code == 0);
  spit(dir + "/.git/feeddiff/checkout-pending", "raw/s/response.xml\nraw/gone/response.xml\n");
  REQUIRE_FALSE(git_out(dir, {"status", "--porcelain"}).empty());

  auto lock = ArchiveLock::acquire(*archive, false);
  REQUIRE(lock);
  CHECK(git_out(dir, {"status", "--porcelain"}).empty());
  CHECK(slurp(dir + "/raw/s/response.xml") == "<rss>v2</rss>");
  CHECK_FALSE(std::filesystem::exists(dir + "/.git/feeddiff/checkout-pending"));
}

TEST_CASE("a blob hashed ahead is stored under the id git gives it and packed like any other",
          "[store]") {
  const std::string dir = make_temp_dir("store-batch-ahead");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  const auto bodies = awkward_bodies();
  REQUIRE(archive->begin_batch());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const std::string id = blob_id(bodies[i]);
    const std::string file = dir + "/body" + std::to_string(i);
    spit(file, bodies[i]);
    CHECK(id + "\n" == run({"git", "hash-object", file}).out);
    std::filesystem::remove(file);
    CommitRequest request = source_change("s" + std::to_string(i), bodies[i]);
    request.files[0].content_id = id;
    auto made = archive->commit(request);
    REQUIRE(made);
    REQUIRE(*made);
  }
  // The same body twice in one batch is one object.
  CommitRequest again = source_change("twin", bodies[3]);
  again.files[0].content_id = blob_id(bodies[3]);
  REQUIRE(archive->commit(again));
  REQUIRE(archive->end_batch());
  check_sound_with(dir, bodies);
  CHECK(git_out(dir, {"rev-parse", "HEAD:raw/twin/response.xml"}) ==
        git_out(dir, {"rev-parse", "HEAD:raw/s3/response.xml"}));
}

#ifndef NDEBUG
TEST_CASE("in a test build a content id that is not its bytes' id is refused", "[store]") {
  const std::string dir = make_temp_dir("store-batch-wrong-id");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  REQUIRE(archive->begin_batch());
  CommitRequest request = source_change("s", "<rss/>");
  request.files[0].content_id = blob_id("<rss />");
  auto made = archive->commit(request);
  REQUIRE_FALSE(made);
  CHECK(made.error().message.find("content_id") != std::string::npos);
  REQUIRE(archive->end_batch());
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
}
#endif

TEST_CASE(
    "bytes handed over shared are stored as they are, in a batch and outside one, and let go after "
    "the flush",
    "[store]") {
  const std::string dir = make_temp_dir("store-batch-shared");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  const auto bodies = awkward_bodies();
  auto shared_change = [](const std::string& source, std::shared_ptr<const std::string> bytes,
                          std::string id = {}) {
    CommitRequest r = source_change(source, std::nullopt);
    r.files[0].shared = std::move(bytes);
    r.files[0].content_id = std::move(id);
    return r;
  };

  REQUIRE(archive->begin_batch());
  std::vector<std::shared_ptr<const std::string>> held;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    held.push_back(std::make_shared<const std::string>(bodies[i]));
    // Half with an id hashed ahead (as the poll hands them), half hashed by the store.
    auto id = archive->commit(shared_change("s" + std::to_string(i), held.back(),
                                            i % 2 ? blob_id(bodies[i]) : std::string()));
    REQUIRE(id);
    REQUIRE(*id);
    auto read = archive->read_head("raw/s" + std::to_string(i) + "/response.xml");
    REQUIRE(read);
    CHECK(**read == bodies[i]);
  }
  // The same bytes under a second name are one object, stored once.
  REQUIRE(archive->commit(shared_change("again", held[3])));
  REQUIRE(archive->end_batch());
  // The store keeps no reference once the batch is packed.
  for (const auto& h : held) CHECK(h.use_count() == 1);

  // Outside a batch, the same way in.
  auto later = std::make_shared<const std::string>("<rss>later</rss>");
  REQUIRE(archive->commit(shared_change("later", later)));
  CHECK(later.use_count() == 1);

  check_sound_with(dir, bodies);
  CHECK(slurp(dir + "/raw/again/response.xml") == bodies[3]);
  CHECK(git_out(dir, {"rev-parse", "HEAD:raw/again/response.xml"}) ==
        git_out(dir, {"rev-parse", "HEAD:raw/s3/response.xml"}));
  CHECK(slurp(dir + "/raw/later/response.xml") == "<rss>later</rss>");
}
