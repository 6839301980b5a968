#include "site/site_fork.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <utility>

#include "feeddiff/process.h"

namespace feeddiff::site {

std::optional<ForkedPart> ForkedPart::start(
    const std::function<std::optional<std::string>()>& work) {
  if (!may_fork_helper()) return std::nullopt;
  const int fd = ::memfd_create("feeddiff-site-part", MFD_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    die_with_parent(parent);
    int code = 1;
    try {
      if (auto answer = work(); answer && !fork_child_fails && write_whole(fd, *answer)) code = 0;
    } catch (...) {
    }
    // No destructors, no atexit handlers, no stdio flush: those are the parent's.
    ::_exit(code);
  }
  if (pid < 0) {
    ::close(fd);
    return std::nullopt;
  }
  return ForkedPart(pid, fd);
}

ForkedPart::ForkedPart(ForkedPart&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), fd_(std::exchange(other.fd_, -1)) {}

ForkedPart::~ForkedPart() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> ForkedPart::finish() {
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  pid_t waited;
  while ((waited = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (waited < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  auto answer = read_whole(fd_);
  if (answer) ++fork_answers;
  return answer;
}

}  // namespace feeddiff::site
