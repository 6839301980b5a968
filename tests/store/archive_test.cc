#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "feeddiff/store.h"
#include "store/store_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;
using feeddiff::test::slurp;

namespace {

CommitRequest change(std::string path, std::optional<std::string> content, std::string title) {
  CommitRequest r;
  r.message = title + "\n\nSource: s\nObserved-At: 2026-10-01T05:54:04.027Z\nStatus: 200\n";
  r.author_time = 1'790'830'982'000;
  r.commit_time = 1'790'834'044'027;
  r.files.push_back({std::move(path), std::move(content)});
  return r;
}

}  // namespace

TEST_CASE("a new archive is a git repository with feeddiff.toml committed", "[store]") {
  const std::string dir = make_temp_dir("store-init");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  CHECK(std::filesystem::exists(dir + "/feeddiff.toml"));
  auto git = run({"git", "-C", dir, "log", "--format=%s"});
  CHECK(git.exit_code == 0);
  CHECK(git.out == "feeddiff: archive created\n");
  auto again = Archive::init(dir, now_ms());
  REQUIRE_FALSE(again);
  CHECK(again.error().code == Errc::exists);
}

TEST_CASE("a directory without an archive is refused", "[store]") {
  const std::string dir = make_temp_dir("store-none");
  auto a = Archive::open(dir);
  REQUIRE_FALSE(a);
  CHECK(a.error().code == Errc::not_an_archive);
  REQUIRE(run({"git", "init", "-q", dir}).exit_code == 0);
  auto b = Archive::open(dir);
  REQUIRE_FALSE(b);
  CHECK(b.error().code == Errc::not_an_archive);
  CHECK(b.error().message.find("feeddiff.toml") != std::string::npos);
}

TEST_CASE("a commit stores bytes exactly, sets both timestamps and keeps git status clean",
          "[store]") {
  const std::string dir = make_temp_dir("store-commit");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  // CR LF, a control character, a NUL and bytes that are no UTF-8: all kept as they are.
  static constexpr char kBytes[] = "<rss>\r\n\x01\0\xff\xfe</rss>";
  const std::string body(kBytes, sizeof kBytes - 1);
  REQUIRE(body.size() == 17);
  auto id = archive->commit(change("raw/s/response.xml", body, "s: added (17 bytes, HTTP 200)"));
  REQUIRE(id);
  REQUIRE(*id);
  CHECK(slurp(dir + "/raw/s/response.xml") == body);
  auto git_cat = run({"git", "-C", dir, "cat-file", "blob", "HEAD:raw/s/response.xml"});
  CHECK(git_cat.out == body);
  CHECK(run({"git", "-C", dir, "status", "--porcelain"}).out.empty());
  CHECK(run({"git", "-C", dir, "fsck", "--strict"}).exit_code == 0);
  auto times = run({"git", "-C", dir, "log", "-1", "--format=%at %ct"});
  CHECK(times.out == "1790830982 1790834044\n");

  auto info = archive->resolve("HEAD");
  REQUIRE(info);
  CHECK(info->id == **id);
  CHECK(info->title == "s: added (17 bytes, HTTP 200)");
  REQUIRE(info->trailer("status"));
  CHECK(*info->trailer("Status") == "200");
  CHECK(info->parents.size() == 1);
  auto trailers = run({"git", "-C", dir, "log", "-1", "--format=%(trailers:key=Status,valueonly)"});
  CHECK(trailers.out.starts_with("200"));
}

TEST_CASE("identical bytes make no commit", "[store]") {
  const std::string dir = make_temp_dir("store-same");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  REQUIRE(archive->commit(change("raw/s/response.xml", "v1", "first")));
  auto again = archive->commit(change("raw/s/response.xml", "v1", "second"));
  REQUIRE(again);
  CHECK_FALSE(*again);
  CHECK(run({"git", "-C", dir, "rev-list", "--count", "HEAD"}).out == "2\n");
}

TEST_CASE("history reads back: files at commits, changed paths, log by source", "[store]") {
  const std::string dir = make_temp_dir("store-history");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  auto a1 = archive->commit(change("raw/a/response.xml", "a1", "a: added"));
  auto b1 = archive->commit(change("raw/b/response.xml", "b1", "b: added"));
  auto a2 = archive->commit(change("raw/a/response.xml", "a2", "a: changed"));
  REQUIRE((a1 && b1 && a2));
  CHECK(archive->read(**a1, "raw/a/response.xml")->value() == "a1");
  CHECK(archive->read(**a2, "raw/a/response.xml")->value() == "a2");
  CHECK_FALSE(archive->read(**a1, "raw/b/response.xml")->has_value());
  CHECK(archive->read_head("raw/b/response.xml")->value() == "b1");

  auto changes = archive->changes(**a2);
  REQUIRE(changes);
  REQUIRE(changes->size() == 1);
  CHECK(changes->front().path == "raw/a/response.xml");
  CHECK(changes->front().kind == ChangeKind::modified);
  CHECK(archive->changes(**b1)->front().kind == ChangeKind::added);

  auto log_a = archive->log("raw/a", 0);
  REQUIRE(log_a);
  REQUIRE(log_a->size() == 2);
  CHECK(log_a->at(0).title == "a: changed");
  CHECK(log_a->at(1).title == "a: added");
  CHECK(archive->log("", 2)->size() == 2);
  CHECK(archive->log("", 0)->size() == 4);

  auto removed = archive->commit(change("raw/a/response.xml", std::nullopt, "a: removed"));
  REQUIRE(removed);
  CHECK(archive->changes(**removed)->front().kind == ChangeKind::deleted);
  CHECK_FALSE(std::filesystem::exists(dir + "/raw/a/response.xml"));
  CHECK(run({"git", "-C", dir, "status", "--porcelain"}).out.empty());

  auto unknown = archive->resolve("deadbeef");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == Errc::not_found);
}

TEST_CASE("changes under a directory are that directory's alone, with their full paths",
          "[store]") {
  const std::string dir = make_temp_dir("store-changes-under");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  auto a1 = archive->commit(change("raw/a/response.xml", "a1", "a: added"));
  CommitRequest both = change("raw/a/response.xml", "a2", "a and b");
  both.files.push_back({"raw/b/response.xml", "b1"});
  auto ab = archive->commit(both);
  auto a3 = archive->commit(change("raw/a/response.json", "{}", "a: json"));
  REQUIRE((a1 && ab && a3));

  auto under_a = archive->changes(**ab, "raw/a/");
  REQUIRE(under_a);
  REQUIRE(under_a->size() == 1);
  CHECK(under_a->front().path == "raw/a/response.xml");
  CHECK(under_a->front().kind == ChangeKind::modified);
  // The same ids as the whole comparison gives, and the blob id of the file at the commit.
  auto whole = archive->changes(**ab);
  REQUIRE(whole);
  REQUIRE(whole->size() == 2);
  CHECK(whole->front().path == "raw/a/response.xml");
  CHECK(whole->front().old_blob == under_a->front().old_blob);
  CHECK(whole->front().new_blob == under_a->front().new_blob);
  CHECK(archive->blob_id(**ab, "raw/a/response.xml")->value() == under_a->front().new_blob);
  CHECK(archive->blob_id(**a1, "raw/a/response.xml")->value() == under_a->front().old_blob);
  CHECK_FALSE(archive->blob_id(**a1, "raw/b/response.xml")->has_value());
  CHECK_FALSE(archive->blob_id(**a1, "raw/a")->has_value());  // a tree, not a file

  // Without the trailing slash too; a directory the commit added; one it did not touch; one
  // that does not exist; a root commit's.
  auto under_b = archive->changes(**ab, "raw/b");
  REQUIRE(under_b);
  REQUIRE(under_b->size() == 1);
  CHECK(under_b->front().path == "raw/b/response.xml");
  CHECK(under_b->front().kind == ChangeKind::added);
  CHECK(archive->changes(**a3, "raw/b/")->empty());
  CHECK(archive->changes(**a3, "raw/zz/")->empty());
  auto root = archive->resolve("HEAD~3");
  REQUIRE(root);
  auto root_changes = archive->changes(root->id, "raw/a/");
  REQUIRE(root_changes);
  CHECK(root_changes->empty());
  auto json = archive->changes(**a3, "raw/a/");
  REQUIRE(json);
  REQUIRE(json->size() == 1);
  CHECK(json->front().path == "raw/a/response.json");
  CHECK(json->front().kind == ChangeKind::added);
}

TEST_CASE("a second writer is refused while the lock is held, and let in after", "[store]") {
  const std::string dir = make_temp_dir("store-lock");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  auto first = ArchiveLock::acquire(*archive, false);
  REQUIRE(first);
  // flock locks belong to open file descriptions, so a child process competes for real.
  pid_t pid = ::fork();
  if (pid == 0) {
    auto other = Archive::open(dir);
    auto second = ArchiveLock::acquire(*other, false);
    ::_exit(!second && second.error().code == Errc::locked ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WEXITSTATUS(status) == 0);
  { auto released = std::move(*first); }
  pid = ::fork();
  if (pid == 0) {
    auto other = Archive::open(dir);
    ::_exit(ArchiveLock::acquire(*other, false) ? 0 : 1);
  }
  ::waitpid(pid, &status, 0);
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("a blob reads back by the id the commit's changes give, from several threads",
          "[store]") {
  const std::string dir = make_temp_dir("store-blob");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  const std::string v1(200'000, 'a'), v2 = "<rss>" + std::string(100'000, 'b') + "</rss>";
  REQUIRE(archive->commit(change("raw/s/response.xml", v1, "s: added")));
  auto second = archive->commit(change("raw/s/response.xml", v2, "s: changed"));
  REQUIRE(second);
  REQUIRE(*second);
  auto changes = archive->changes(**second);
  REQUIRE(changes);
  REQUIRE(changes->size() == 1);
  const PathChange& c = changes->front();
  CHECK(c.kind == ChangeKind::modified);
  // The ids are git's own.
  CHECK(c.old_blob ==
        run({"git", "-C", dir, "rev-parse", **second + "~1:raw/s/response.xml"}).out.substr(0, 40));
  CHECK(c.new_blob ==
        run({"git", "-C", dir, "rev-parse", **second + ":raw/s/response.xml"}).out.substr(0, 40));

  Result<Blob> old_body = Error{Errc::internal, ""}, new_body = Error{Errc::internal, ""};
  std::thread a([&] { old_body = archive->read_blob(c.old_blob); });
  std::thread b([&] { new_body = archive->read_blob(c.new_blob); });
  a.join();
  b.join();
  REQUIRE(old_body);
  REQUIRE(new_body);
  CHECK(old_body->view() == v1);
  CHECK(new_body->view() == v2);

  auto missing = archive->read_blob(std::string(40, '0'));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::not_found);
  CHECK_FALSE(archive->read_blob("not-an-id"));
}

TEST_CASE("the cache keeps values under safe names only, inside .git/feeddiff/cache", "[store]") {
  const std::string dir = make_temp_dir("store-cache");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  CHECK_FALSE(archive->cache_read("items/x"));
  archive->cache_write("items/x-1", "value\n");
  CHECK(archive->cache_read("items/x-1") == std::optional<std::string>("value\n"));
  // An entry per change is a row of one file, not a file of its own.
  CHECK(std::filesystem::exists(dir + "/.git/feeddiff/cache/entries.sqlite"));
  CHECK_FALSE(std::filesystem::exists(dir + "/.git/feeddiff/cache/items"));
  archive->cache_write("items/x-1", "newer");
  CHECK(archive->cache_read("items/x-1") == std::optional<std::string>("newer"));
  archive->cache_write("rules/x", "per source");
  CHECK(std::filesystem::exists(dir + "/.git/feeddiff/cache/rules/x"));
  for (const char* bad : {"../escape", "items/../../escape", "/abs", ".hidden", "a/b/c", "Upper",
                          "items/", "", "sp ace"}) {
    archive->cache_write(bad, "x");
    CHECK_FALSE(archive->cache_read(bad));
  }
  CHECK_FALSE(std::filesystem::exists(dir + "/.git/escape"));
  CHECK_FALSE(std::filesystem::exists(dir + "/escape"));
  // The cache is not part of the archive: git does not see it.
  CHECK(run({"git", "-C", dir, "status", "--porcelain"}).out.empty());
}

TEST_CASE("a blob's bytes outlive the archive that read them, and copies share them", "[store]") {
  const std::string dir = make_temp_dir("store-blob-owner");
  const std::string body = "<rss>" + std::string(300'000, 'x') + "</rss>";
  Blob blob;
  CHECK(blob.empty());
  {
    auto archive = Archive::init(dir, now_ms());
    REQUIRE(archive);
    auto id = archive->commit(change("raw/s/response.xml", body, "s: added"));
    REQUIRE(id);
    REQUIRE(*id);
    auto changes = archive->changes(**id);
    REQUIRE(changes);
    REQUIRE(changes->size() == 1);
    auto read = archive->read_blob(changes->front().new_blob);
    REQUIRE(read);
    blob = std::move(*read);
    CHECK(read->empty());  // a moved-from Blob holds nothing
  }
  // The archive (and its object database) is gone; the bytes are still there.
  CHECK(blob.size() == body.size());
  CHECK(blob.view() == body);
  const Blob copy = blob;
  blob = Blob();
  CHECK(blob.empty());
  CHECK(std::string_view(copy) == body);

  // A string moved in is not copied: the view is of the same bytes.
  std::string text(100'000, 'y');
  const char* data = text.data();
  const Blob owned(std::move(text));
  CHECK(owned.view().data() == data);
  CHECK(owned.size() == 100'000);
}

namespace {

// git diff-tree's raw lines for raw/NAME/ between a commit's parent and it, as PathChanges.
std::vector<PathChange> git_source_changes(const std::string& dir, const std::string& commit,
                                           const std::string& name) {
  auto r = run({"git", "-C", dir, "diff-tree", "-r", "--no-renames", "--raw", "--abbrev=40",
                commit + "~1", commit, "--", "raw/" + name + "/"});
  REQUIRE(r.exit_code == 0);
  std::vector<PathChange> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    // :100644 100755 OLD NEW M\tpath
    std::istringstream fields(line.substr(0, line.find('\t')));
    std::string old_mode, new_mode, old_id, new_id, status;
    fields >> old_mode >> new_mode >> old_id >> new_id >> status;
    const std::string zero(40, '0');
    PathChange c;
    c.path = line.substr(line.find('\t') + 1);
    c.kind = status == "A"   ? ChangeKind::added
             : status == "D" ? ChangeKind::deleted
                             : ChangeKind::modified;
    if (old_id != zero) c.old_blob = old_id;
    if (new_id != zero) c.new_blob = new_id;
    out.push_back(c);
  }
  return out;
}

std::string changes_text(const std::vector<PathChange>& changes) {
  std::string out;
  for (const auto& c : changes)
    out += c.path + " " + std::to_string(static_cast<int>(c.kind)) + " " + c.old_blob + " " +
           c.new_blob + "\n";
  return out;
}

}  // namespace

TEST_CASE(
    "a source's changes are git diff-tree's: files added, removed, changed, a mode changed, a "
    "directory",
    "[store]") {
  const std::string dir = make_temp_dir("store-source-diff");
  {
    auto archive = Archive::init(dir, now_ms());
    REQUIRE(archive);
  }
  const auto git = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"-c", "user.name=t", "-c", "user.email=t@t"});
    feeddiff::test::git_out(dir, std::move(args));
  };
  const auto write = [&](const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(dir + "/" + path).parent_path());
    std::ofstream(dir + "/" + path) << text;
  };
  write("raw/s/a.txt", "a1");
  write("raw/s/b.txt", "b1");
  git({"add", "-A"});
  git({"commit", "-q", "-m", "s: added"});
  write("raw/s/a.txt", "a2");
  std::filesystem::remove(dir + "/raw/s/b.txt");
  write("raw/s/c.txt", "c1");
  write("raw/t/response.xml", "t1");
  git({"add", "-A"});
  git({"commit", "-q", "-m", "s: changed"});
  git({"update-index", "--chmod=+x", "raw/s/c.txt"});
  git({"commit", "-q", "-m", "s: mode"});
  write("raw/s/d/e.txt", "e1");
  write("raw/s/a.txt", "a3");
  git({"add", "-A"});
  git({"commit", "-q", "-m", "s: a directory"});
  std::filesystem::remove_all(dir + "/raw/s/d");
  git({"add", "-A"});
  git({"commit", "-q", "-m", "s: no directory"});

  auto archive = Archive::open(dir);
  REQUIRE(archive);
  for (int back = 3; back >= 0; --back) {
    auto commit = archive->resolve("HEAD~" + std::to_string(back));
    REQUIRE(commit);
    INFO(commit->title);
    auto ours = archive->source_changes(commit->id, "s");
    REQUIRE(ours);
    const auto theirs = git_source_changes(dir, commit->id, "s");
    CHECK_FALSE(theirs.empty());
    CHECK(changes_text(*ours) == changes_text(theirs));
  }
}

TEST_CASE("directories read ahead answer as read on demand, for their own source only", "[store]") {
  const std::string dir = make_temp_dir("store-read-ahead");
  std::vector<std::pair<std::string, std::string>> made;  // commit and source
  {
    auto archive = Archive::init(dir, now_ms());
    REQUIRE(archive);
    for (int i = 0; i < 6; ++i) {
      const std::string source = i % 2 ? "b" : "a";
      CommitRequest r;
      r.message = source + ": changed\n\nSource: " + source + "\n";
      r.author_time = r.commit_time = 1'790'834'044'027 + i;
      r.files.push_back({"raw/" + source + "/response.xml", "v" + std::to_string(i)});
      auto id = archive->commit(r);
      REQUIRE((id && *id));
      made.emplace_back(**id, source);
    }
  }
  auto plain = Archive::open(dir);
  auto ahead = Archive::open(dir);
  auto kept = Archive::open(dir);
  REQUIRE((plain && ahead && kept));
  REQUIRE(ahead->read_source_dirs_ahead({made.begin(), made.begin() + 3}));
  REQUIRE(ahead->read_source_dirs_ahead({made.begin() + 3, made.end()}));
  // Read twice, kept once.
  REQUIRE(ahead->read_source_dirs_ahead({made.begin(), made.begin() + 2}));
  CHECK(ahead->source_dirs_kept() == made.size());
  kept->keep_source_dirs_of(*ahead);
  CHECK(kept->source_dirs_kept() == made.size());
  for (std::size_t i = 0; i < made.size(); ++i)
    for (const std::string source : {"a", "b"}) {
      INFO(i << " " << source);
      const std::string previous = i >= 2 ? made[i - 2].first : std::string();
      auto want = plain->source_changes(made[i].first, source);
      REQUIRE(want);
      CHECK(want->empty() == (source != made[i].second));
      for (const Archive* archive : {&*ahead, &*kept}) {
        auto got = archive->source_changes(made[i].first, source);
        REQUIRE(got);
        CHECK(changes_text(*got) == changes_text(*want));
        if (source == made[i].second) {
          auto from_previous = archive->source_changes(made[i].first, source, previous);
          REQUIRE(from_previous);
          CHECK(changes_text(*from_previous) == changes_text(*want));
        }
      }
    }
  ahead->forget_source_dirs();
  CHECK(ahead->source_dirs_kept() == 0);
  auto after = ahead->source_changes(made[5].first, "b");
  REQUIRE(after);
  CHECK(after->size() == 1);
}

TEST_CASE(
    "cache values written behind read back at once, keep their order, and are on disk once "
    "the thread stops",
    "[store]") {
  const std::string dir = make_temp_dir("store-cache-behind");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  archive->cache_write("versions/before", "written before");  // on disk before the thread
  archive->write_cache_behind(true);
  archive->write_cache_behind(true);  // on twice is on once
  // A value on disk before its directory was first read, another process's after it.
  CHECK(archive->cache_read("versions/before") == "written before");
  {
    auto other = Archive::open(dir);
    REQUIRE(other);
    other->cache_write("versions/other", "another process's");
    other->cache_write("history/other", "in a directory not read yet");
    other->cache_write("items/other", "another process's row");
  }
  CHECK_FALSE(archive->cache_read("versions/other"));  // a miss: the caller recomputes it
  // The entries file has no listing to be out of date.
  CHECK(archive->cache_read("items/other") == "another process's row");
  CHECK(archive->cache_read("history/other") == "in a directory not read yet");
  CHECK_FALSE(archive->cache_read("rules/none"));  // a directory that is not there
  for (int i = 0; i < 3 * 4096 + 7; ++i)
    archive->cache_write("items/e" + std::to_string(i % 50), "v" + std::to_string(i));
  // The newest value of each, whether still queued or written.
  for (int k = 0; k < 50; ++k) {
    const int last = (3 * 4096 + 6) - ((3 * 4096 + 6 - k) % 50);
    CHECK(archive->cache_read("items/e" + std::to_string(k)) == "v" + std::to_string(last));
  }
  archive->cache_write("versions/s", "header\n");
  archive->cache_append("versions/s", "line 1\n");  // after the write queued before it
  archive->cache_write("items/bad name", "x");      // refused, as when written at once
  CHECK_FALSE(archive->cache_read("items/bad name"));
  archive->write_cache_behind(false);
  CHECK(slurp(archive->cache_dir() + "/versions/s") == "header\nline 1\n");
  {
    auto other = Archive::open(dir);  // another connection: what is committed
    REQUIRE(other);
    CHECK(other->cache_read("items/e49") == "v12249");
  }
  // No file left beside an entry.
  for (const auto& entry : std::filesystem::directory_iterator(archive->cache_dir() + "/versions"))
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  // Off, every read looks on disk, and a write is there when cache_write returns.
  CHECK(archive->cache_read("versions/other") == "another process's");
  archive->cache_write("items/now", "at once");
  archive->cache_write("versions/now", "at once");
  CHECK(slurp(archive->cache_dir() + "/versions/now") == "at once");
  auto other = Archive::open(dir);
  REQUIRE(other);
  CHECK(other->cache_read("items/now") == "at once");
}
