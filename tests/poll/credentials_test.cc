// The credentials file: 0600 from the first byte written, whatever the umask, and a write
// that cannot be made is an error. Credentials go to the origin they were given for only.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "feeddiff/poll.h"
#include "feeddiff/store.h"
#include "poll/poll_helpers.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::make_temp_dir;
using feeddiff::test::slurp;
using feeddiff::test::spit;

namespace {

// Sets the umask for a scope (it is process-wide; each test case runs in a process of its own).
struct Umask {
  explicit Umask(mode_t mask) : old(::umask(mask)) {}
  ~Umask() { ::umask(old); }
  mode_t old;
};

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("the credentials file is never readable by others, not even as its temporary", "[poll]") {
  const Umask no_mask(0);
  const std::string dir = make_temp_dir("poll-credentials");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  const std::string path = archive->private_dir() + "/credentials";
  // A temporary of the name the write will use, left readable (as a 0644 file under a umask of
  // 0 would be) and held open by someone else: what they can read through it must stay empty.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  spit(tmp, "");
  REQUIRE(::chmod(tmp.c_str(), 0644) == 0);
  const int reader = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(reader >= 0);

  REQUIRE(save_credentials(*archive, "private", "reader:s3cret", "https://example.com/feed"));
  CHECK(mode_of(path) == 0600);
  char buf[256];
  const ssize_t seen = ::read(reader, buf, sizeof buf);
  ::close(reader);
  CHECK(seen == 0);
  CHECK_FALSE(std::filesystem::exists(tmp));
  CHECK(slurp(path).find("private\treader:s3cret\thttps://example.com:443\n") != std::string::npos);

  // Rewritten (another source added), still 0600 and still every entry.
  REQUIRE(save_credentials(*archive, "other", "me:pw", "http://example.org:8080/x"));
  CHECK(mode_of(path) == 0600);
  auto all = load_credentials(*archive);
  REQUIRE(all);
  CHECK(all->size() == 2);
}

TEST_CASE("a credentials file that cannot be written is an error, and the old one stays",
          "[poll]") {
  const std::string dir = make_temp_dir("poll-credentials-fail");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  REQUIRE(save_credentials(*archive, "private", "reader:s3cret", "https://example.com/feed"));
  const std::string path = archive->private_dir() + "/credentials";
  // The temporary's name taken by a directory that is not empty: nothing can be created there.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::filesystem::create_directories(tmp + "/busy");

  auto saved = save_credentials(*archive, "other", "me:pw", "https://example.org/");
  REQUIRE_FALSE(saved);
  CHECK(saved.error().code == Errc::io);
  CHECK(saved.error().message.find(tmp) != std::string::npos);
  CHECK(slurp(path) ==
        "# source<TAB>user:password<TAB>the origin they are sent to, kept out of the archive's "
        "commits\nprivate\treader:s3cret\thttps://example.com:443\n");
  CHECK(mode_of(path) == 0600);
}

namespace {

using feeddiff::test::CliArchive;
using feeddiff::test::HttpServer;
using feeddiff::test::RecordedRequest;
using feeddiff::test::Reply;

// A server that answers every request with a small feed and keeps each Authorization header
// it was sent ("" for a request without one).
struct RecordingServer {
  std::vector<std::string> authorization;
  HttpServer server{[this](const RecordedRequest& request) {
    authorization.push_back(request.header("Authorization").value_or(""));
    return Reply{.body = feeddiff::test::rss("one")};
  }};
};

// Sets source `name`'s URL in feeddiff.toml and commits it, as a hand edit, a pull or a sync
// would.
void move_source(const CliArchive& archive, const std::string& from, const std::string& to) {
  std::string toml = slurp(archive.dir() + "/feeddiff.toml");
  const auto at = toml.find(from);
  REQUIRE(at != std::string::npos);
  toml.replace(at, from.size(), to);
  spit(archive.dir() + "/feeddiff.toml", toml);
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "moved",
                    "feeddiff.toml"})
              .exit_code == 0);
}

}  // namespace

TEST_CASE("credentials given for https are never sent over http, as after an adopted redirect",
          "[poll]") {
  RecordingServer plain;
  CliArchive archive("credentials-downgrade");
  const std::string host = "127.0.0.1:" + std::to_string(plain.server.port());
  REQUIRE(archive({"add", "private", "https://reader:s3cret@" + host + "/feed"}).exit_code == 0);
  // Where an adopted 301 from https://HOST/feed to http://HOST/feed leaves the source (the
  // scripted server speaks no TLS, so the https polls before the adoption are not run here).
  move_source(archive, "https://" + host, "http://" + host);

  auto r = poll_forced(archive);
  INFO(r.out << r.err);
  REQUIRE(plain.authorization.size() == 1);
  CHECK(plain.authorization[0].empty());
  CHECK_THAT(r.out, Catch::Contains("[credentials not sent: they were given for https://" + host +
                                    ", the URL is now http://" + host + ", not encrypted"));
  auto status = feeddiff::test::status_json(archive, "private");
  CHECK(status["credentials"]["origin"] == "https://" + host);
  CHECK(status["credentials"]["sent"] == false);
  CHECK_THAT(feeddiff::test::status_text(archive, "private"),
             Catch::Contains("credentials not sent: they were given for https://" + host));
  // Kept, not dropped: the URL put back, they are sent again (to https only).
  CHECK(slurp(archive.dir() + "/.git/feeddiff/credentials").find("reader:s3cret") !=
        std::string::npos);
}

TEST_CASE("credentials an older feeddiff stored are bound to the URL of their first use",
          "[poll]") {
  RecordingServer feed, other;
  CliArchive archive("credentials-legacy");
  const std::string url = feed.server.url("/feed");
  REQUIRE(archive({"add", "private", url}).exit_code == 0);
  // The file as feeddiff wrote it before credentials had an origin.
  const std::string path = archive.dir() + "/.git/feeddiff/credentials";
  spit(path,
       "# source<TAB>user:password, kept out of the archive's commits\nprivate\treader:s3cret\n");

  REQUIRE(poll_forced(archive).exit_code == 0);
  REQUIRE(feed.authorization.size() == 1);
  CHECK(feed.authorization[0] == "Basic cmVhZGVyOnMzY3JldA==");  // reader:s3cret
  CHECK_THAT(slurp(path), Catch::Contains("private\treader:s3cret\thttp://127.0.0.1:" +
                                          std::to_string(feed.server.port()) + "\n"));
  CHECK(mode_of(path) == 0600);

  // Then the URL moves to another server: it gets the request, not the secret.
  move_source(archive, url, other.server.url("/feed"));
  auto moved = poll_forced(archive);
  INFO(moved.out << moved.err);
  REQUIRE(other.authorization.size() == 1);
  CHECK(other.authorization[0].empty());
  CHECK(feed.authorization.size() == 1);
  CHECK_THAT(moved.out, Catch::Contains("credentials not sent"));
}

TEST_CASE("a credential's origin is its scheme, host and port, default ports filled in", "[poll]") {
  CHECK(url_origin("https://Example.COM/feed") == "https://example.com:443");
  CHECK(url_origin("https://example.com:443/other") == "https://example.com:443");
  CHECK(url_origin("HTTP://example.com/feed") == "http://example.com:80");
  CHECK(url_origin("http://u:p@example.com:8080/x?y") == "http://example.com:8080");
  CHECK(url_origin("http://[::1]:81/") == "http://[::1]:81");
  CHECK(url_origin("feed.xml").empty());
  const StoredCredentials https{"s", "u:p", "https://example.com:443"};
  CHECK(credentials_apply(https, "https://example.com/elsewhere"));
  CHECK_FALSE(credentials_apply(https, "http://example.com/feed"));
  CHECK_FALSE(credentials_apply(https, "https://example.com:8443/feed"));
  CHECK_FALSE(credentials_apply(https, "https://example.com.evil.test/feed"));
  CHECK_FALSE(credentials_apply({"s", "u:p", ""}, "https://example.com/feed"));
}
