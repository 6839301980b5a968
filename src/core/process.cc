// The one child-process runner: posix_spawn in a group of its own, pipes served with poll(2),
// a deadline that kills the group.

#include "feeddiff/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

extern char** environ;

namespace feeddiff {

namespace {

using Clock = std::chrono::steady_clock;

// How often a child is looked at when the kernel cannot say when it exits (no pidfd).
constexpr int kTickMs = 20;
// How often a child sent SIGTERM is looked at during its grace.
constexpr int kGraceTickMs = 10;

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// Writes to a pipe whose reader is gone raise SIGPIPE, which would end feeddiff. Blocked on
// this thread while a child is fed; a SIGPIPE raised meanwhile is taken off the pending set
// before the mask is restored, so it is never delivered.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) == 1 && sigismember(&old_, SIGPIPE) != 1) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
};

// The environment a child sees: feeddiff's, with `extra` set (replacing any of those names).
std::vector<std::string> child_environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(extra.begin(), extra.end(), [&](const auto& kv) {
      return entry.size() > kv.first.size() && entry.starts_with(kv.first) &&
             entry[kv.first.size()] == '=';
    });
    if (!replaced) out.emplace_back(entry);
  }
  for (const auto& [name, value] : extra) out.push_back(name + "=" + value);
  return out;
}

// Whether the child has exited, without reaping it: until it is reaped its id (the group's)
// cannot be reused, so a kill of the group never reaches a stranger.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// A descriptor that becomes readable when the child exits; -1 where the kernel has none
// (before Linux 5.3), and the loop then looks every kTickMs.
int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) {
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    return static_cast<int>(fd);
  }
#else
  (void)pid;
#endif
  return -1;
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// Stops the group: SIGTERM and up to `grace` for the child to exit, then SIGKILL to whatever
// is left of it.
void kill_group(pid_t pid, TimeMs grace) {
  if (grace > 0) {
    ::kill(-pid, SIGTERM);
    const auto until = Clock::now() + std::chrono::milliseconds(grace);
    while (!has_exited(pid) && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(kGraceTickMs));
  }
  ::kill(-pid, SIGKILL);
}

}  // namespace

Result<ChildRun> run_child(const ChildRequest& request) {
  const auto no_pipe = [] {
    return Error{Errc::io, fmt::format("cannot make a pipe: {}", std::strerror(errno))};
  };
  int ends[2];
  Fd in_read, in_write, out_read, out_write, err_read, err_write;
  if (request.input) {
    if (::pipe2(ends, O_CLOEXEC) != 0) return no_pipe();
    in_read.fd = ends[0];
    in_write.fd = ends[1];
  }
  if (request.out == ChildStream::capture) {
    if (::pipe2(ends, O_CLOEXEC) != 0) return no_pipe();
    out_read.fd = ends[0];
    out_write.fd = ends[1];
  }
  if (request.err == ChildStream::capture) {
    if (::pipe2(ends, O_CLOEXEC) != 0) return no_pipe();
    err_read.fd = ends[0];
    err_write.fd = ends[1];
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (request.input)
    posix_spawn_file_actions_adddup2(&actions, in_read.fd, STDIN_FILENO);
  else
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // stdout before stderr: "to_stderr" means feeddiff's stderr, even when the child's is
  // captured.
  if (request.out == ChildStream::capture)
    posix_spawn_file_actions_adddup2(&actions, out_write.fd, STDOUT_FILENO);
  else if (request.out == ChildStream::to_stderr)
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  if (request.err == ChildStream::capture)
    posix_spawn_file_actions_adddup2(&actions, err_write.fd, STDERR_FILENO);
  if (!request.dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, request.dir.c_str());
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A group of its own, so that a deadline stops the child and whatever it started at once;
  // an empty mask and default SIGPIPE, whatever feeddiff's are.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv_text = request.argv;
  if (argv_text.empty()) argv_text.push_back(request.program);
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text = child_environment(request.env);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int spawned =
      ::posix_spawn(&pid, request.program.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  in_read.reset();
  out_write.reset();
  err_write.reset();
  if (spawned != 0)
    return Error{Errc::io,
                 fmt::format("cannot run {}: {}", request.program, std::strerror(spawned))};
  Fd pidfd{open_pidfd(pid)};
  for (const Fd* fd : {&in_write, &out_read, &err_read})
    if (fd->fd >= 0) set_nonblocking(fd->fd);

  std::optional<SigpipeBlocked> blocked;
  const std::string_view input = request.input.value_or(std::string_view{});
  if (input.empty())
    in_write.reset();
  else
    blocked.emplace();
  std::size_t written = 0;
  ChildRun run;
  const auto deadline = Clock::now() + std::chrono::milliseconds(request.timeout_ms);
  bool exited = false;
  std::string watch_error;
  char buf[16384];
  for (;;) {
    if (!exited && has_exited(pid)) {
      exited = true;
      pidfd.reset();
      // What the child did not read is not for anyone else.
      in_write.reset();
    }
    if (exited && out_read.fd < 0 && err_read.fd < 0) break;
    const auto now = Clock::now();
    if (now >= deadline) {
      run.timed_out = true;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const bool tick = !exited && pidfd.fd < 0;
    const int wait_ms = static_cast<int>(std::clamp<long long>(left, 1, tick ? kTickMs : 60'000));
    // poll skips negative descriptors.
    pollfd fds[4] = {{in_write.fd, POLLOUT, 0},
                     {out_read.fd, POLLIN, 0},
                     {err_read.fd, POLLIN, 0},
                     {pidfd.fd, POLLIN, 0}};
    if (::poll(fds, 4, wait_ms) < 0) {
      if (errno == EINTR) continue;
      watch_error = fmt::format("cannot watch {}: {}", request.program, std::strerror(errno));
      break;
    }
    if (in_write.fd >= 0 && fds[0].revents != 0) {
      const ssize_t n = ::write(in_write.fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      // A child that closed its stdin (or never reads it) is not fed more.
      const bool gave_up = n < 0 && errno != EAGAIN && errno != EINTR;
      if (gave_up || written == input.size()) in_write.reset();
    }
    Fd* reads[2] = {&out_read, &err_read};
    std::string* sinks[2] = {&run.output, &run.errors};
    for (int i = 0; i < 2; ++i) {
      if (reads[i]->fd < 0 || !(fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(reads[i]->fd, buf, sizeof buf);
      if (n > 0)
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        reads[i]->reset();
    }
  }
  if (run.timed_out || !watch_error.empty()) kill_group(pid, request.term_grace_ms);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!watch_error.empty()) return Error{Errc::io, watch_error};
  if (WIFEXITED(status)) run.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  if (run.timed_out)
    run.why = fmt::format("timed out after {}, killed", format_duration(request.timeout_ms));
  else if (run.exit_status > 0)
    run.why = fmt::format("exit status {}", run.exit_status);
  else if (run.signal != 0)
    run.why = fmt::format("killed by signal {}", run.signal);
  else if (run.exit_status < 0)
    run.why = "ended abnormally";
  return run;
}

bool may_fork_helper() {
  cpu_set_t cpus;
  if (::sched_getaffinity(0, sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) < 2) return false;
  std::error_code ec;
  std::size_t threads = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++threads;
  return !ec && threads == 1;
}

void die_with_parent(int parent_pid) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent_pid) ::_exit(1);
}

bool write_whole(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<std::string> read_whole(int fd) {
  std::string out;
  char buffer[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
}

}  // namespace feeddiff
