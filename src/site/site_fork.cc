#include "site/site_fork.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <string_view>
#include <utility>

namespace feeddiff::site {

namespace {

bool may_fork_now() {
  cpu_set_t cpus;
  if (::sched_getaffinity(0, sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) < 2) return false;
  std::error_code ec;
  std::size_t threads = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++threads;
  return !ec && threads == 1;
}

bool put_whole(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<std::string> get_whole(int fd) {
  std::string out;
  char buffer[1 << 14];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
}

}  // namespace

std::optional<ForkedPart> ForkedPart::start(
    const std::function<std::optional<std::string>()>& work) {
  if (!may_fork_now()) return std::nullopt;
  const int fd = ::memfd_create("feeddiff-site-part", MFD_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    int code = 1;
    try {
      if (auto answer = work(); answer && put_whole(fd, *answer)) code = 0;
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
  auto answer = get_whole(fd_);
  if (answer) ++fork_answers;
  return answer;
}

}  // namespace feeddiff::site
