// The credentials file: 0600 from the first byte written, whatever the umask, and a write
// that cannot be made is an error.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "feeddiff/poll.h"
#include "feeddiff/store.h"
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

  REQUIRE(save_credentials(*archive, "private", "reader:s3cret"));
  CHECK(mode_of(path) == 0600);
  char buf[256];
  const ssize_t seen = ::read(reader, buf, sizeof buf);
  ::close(reader);
  CHECK(seen == 0);
  CHECK_FALSE(std::filesystem::exists(tmp));
  CHECK(slurp(path).find("private\treader:s3cret\n") != std::string::npos);

  // Rewritten (another source added), still 0600 and still every entry.
  REQUIRE(save_credentials(*archive, "other", "me:pw"));
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
  REQUIRE(save_credentials(*archive, "private", "reader:s3cret"));
  const std::string path = archive->private_dir() + "/credentials";
  // The temporary's name taken by a directory that is not empty: nothing can be created there.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::filesystem::create_directories(tmp + "/busy");

  auto saved = save_credentials(*archive, "other", "me:pw");
  REQUIRE_FALSE(saved);
  CHECK(saved.error().code == Errc::io);
  CHECK(saved.error().message.find(tmp) != std::string::npos);
  CHECK(slurp(path) ==
        "# source<TAB>user:password, kept out of the archive's commits\nprivate\treader:s3cret\n");
  CHECK(mode_of(path) == 0600);
}
