// The work tree a poll leaves: every file HEAD's, byte for byte, its index entry matching,
// nothing else, whether the store wrote the files itself or through libgit2's checkout (when
// a .gitattributes might ask for a conversion).

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// Serves (*bodies)[path] for each path, with an ETag of its own, 304 to that ETag.
HttpServer serve_paths(const std::map<std::string, std::string>* bodies) {
  return HttpServer([bodies](const RecordedRequest& request) {
    auto it = bodies->find(request.target);
    if (it == bodies->end()) return Reply{.status = 404};
    const std::string etag = "\"" + std::to_string(std::hash<std::string>{}(it->second)) + "\"";
    if (request.header("If-None-Match") == etag)
      return Reply{.status = 304, .headers = {{"ETag", etag}}};
    return Reply{.headers = {{"ETag", etag}}, .body = it->second};
  });
}

// git status, git diff and git diff --cached all empty: work tree, index and HEAD agree.
void check_matches_head(const CliArchive& archive) {
  CHECK(archive.git({"status", "--porcelain", "--untracked-files=all"}).out.empty());
  CHECK(archive.git({"diff", "--stat"}).out.empty());
  CHECK(archive.git({"diff", "--cached", "--stat"}).out.empty());
  // And the objects the commits wrote (spliced trees among them) are what git accepts.
  CHECK(archive.git({"fsck", "--strict", "--no-dangling"}).exit_code == 0);
  // The index's entries are HEAD's, one for one.
  CHECK(archive.git({"ls-files", "--stage"}).out ==
        archive.git({"ls-tree", "-r", "--format=%(objectmode) %(objectname) 0\t%(path)", "HEAD"})
            .out);
}

void commit_file(const CliArchive& archive, const std::string& path, const std::string& text) {
  spit(archive.dir() + "/" + path, text);
  REQUIRE(archive.git({"add", path}).exit_code == 0);
  REQUIRE(archive.git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", path})
              .exit_code == 0);
}

// A body as the work tree holds it: its line ends made CRLF when converted.
std::string as_checked_out(std::string body, bool converted) {
  if (!converted) return body;
  std::string out;
  for (char c : body) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

// Two sources added, polled, one changed, the other removed: after each step the work tree
// is HEAD's.
void poll_through_changes(const CliArchive& archive, bool converted) {
  auto file = [&](const std::string& name) {
    return slurp(archive.dir() + "/raw/" + name + "/response.xml");
  };
  std::map<std::string, std::string> bodies = {{"/a", rss("a1")}, {"/b", rss("b1")}};
  HttpServer server = serve_paths(&bodies);
  REQUIRE(archive({"add", "alpha", server.url("/a")}).exit_code == 0);
  REQUIRE(archive({"add", "beta", server.url("/b")}).exit_code == 0);

  auto first = poll_ok(archive);
  CHECK(first.out.find("alpha: added") != std::string::npos);
  CHECK(file("alpha") == as_checked_out(bodies["/a"], converted));
  CHECK(file("beta") == as_checked_out(bodies["/b"], converted));
  check_matches_head(archive);

  // A hand edit and an executable bit on a source's file: the next version replaces both.
  spit(archive.dir() + "/raw/alpha/response.xml", "edited by hand\n");
  ::chmod((archive.dir() + "/raw/alpha/response.xml").c_str(), 0755);
  bodies["/a"] = rss("a2");
  auto second = poll_ok(archive);
  CHECK(second.out.find("alpha: changed") != std::string::npos);
  CHECK(file("alpha") == as_checked_out(bodies["/a"], converted));
  check_matches_head(archive);

  REQUIRE(archive({"remove", "beta"}).exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(archive.dir() + "/raw/beta"));
  CHECK_FALSE(in_head(archive, "raw/beta/response.xml"));
  check_matches_head(archive);

  bodies["/a"] = rss("a3");
  poll_ok(archive);
  CHECK(file("alpha") == as_checked_out(bodies["/a"], converted));
  check_matches_head(archive);
}

}  // namespace

TEST_CASE("the work tree after a poll matches HEAD through a first version, a change and a removal",
          "[poll]") {
  CliArchive archive("work-tree-plain");
  poll_through_changes(archive, false);
}

TEST_CASE("the work tree matches HEAD when a .gitattributes leaves the files to libgit2",
          "[poll]") {
  CliArchive archive("work-tree-attributes");
  // A conversion only a checkout applies: line ends in the work tree differ from the blob's.
  commit_file(archive, ".gitattributes", "*.xml text eol=crlf\n");
  poll_through_changes(archive, true);
}

TEST_CASE("removing a source never deletes through a link that replaced its directory", "[poll]") {
  CliArchive archive("work-tree-link");
  std::map<std::string, std::string> bodies = {{"/b", rss("b1")}};
  HttpServer server = serve_paths(&bodies);
  REQUIRE(archive({"add", "beta", server.url("/b")}).exit_code == 0);
  poll_ok(archive);
  // Someone's link where the source's directory was, to a directory outside the archive
  // holding a file of the same name.
  const std::string outside = archive.dir() + "-outside";
  std::filesystem::create_directories(outside);
  spit(outside + "/response.xml", "not the archive's\n");
  std::filesystem::remove_all(archive.dir() + "/raw/beta");
  std::filesystem::create_directory_symlink(outside, archive.dir() + "/raw/beta");

  archive({"remove", "beta"});
  CHECK(slurp(outside + "/response.xml") == "not the archive's\n");
  CHECK_FALSE(in_head(archive, "raw/beta/response.xml"));
  std::filesystem::remove_all(outside);
}
