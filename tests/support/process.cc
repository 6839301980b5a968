#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

extern char** environ;

namespace feeddiff::test {

namespace {

// A child's argv and environment (this process's, with env's names set), made before the
// fork: between fork and exec, the child of a process with threads may call only
// async-signal-safe functions. setenv and a vector's allocation there take malloc's lock,
// which another thread may have held at the fork and never releases in the child: one of
// "eight pollers racing to push" never ran, and the test hung until ctest's timeout.
struct Exec {
  Exec(const std::vector<std::string>& argv, const Env& env) : args_(argv) {
    for (char** e = environ; *e; ++e) {
      const std::string_view entry(*e);
      const std::string_view name = entry.substr(0, entry.find('='));
      const bool replaced =
          std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
      if (!replaced) env_.emplace_back(entry);
    }
    for (const auto& [name, value] : env) env_.push_back(name + "=" + value);
    for (auto& a : args_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    for (auto& e : env_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
  }
  char* const* argv() { return argv_.data(); }
  char* const* envp() { return envp_.data(); }

 private:
  std::vector<std::string> args_, env_;
  std::vector<char*> argv_, envp_;
};

void close_pipe(int fds[2]) {
  for (int i = 0; i < 2; ++i)
    if (fds[i] >= 0) ::close(fds[i]);
}

}  // namespace

RunResult run(const std::vector<std::string>& argv, const Env& env, std::string_view stdin_data) {
  int in[2], out[2], err[2];
  REQUIRE(::pipe(in) == 0);
  REQUIRE(::pipe(out) == 0);
  REQUIRE(::pipe(err) == 0);
  Exec exec(argv, env);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    close_pipe(in);
    close_pipe(out);
    close_pipe(err);
    ::execvpe(exec.argv()[0], exec.argv(), exec.envp());
    static const char kFailed[] = "exec failed\n";
    (void)!::write(2, kFailed, sizeof kFailed - 1);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  // Feed stdin and drain both outputs together so no pipe fills and blocks the child.
  std::size_t written = 0;
  if (stdin_data.empty()) {
    ::close(in[1]);
    in[1] = -1;
  }
  ::signal(SIGPIPE, SIG_IGN);
  RunResult result;
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    pollfd fds[3];
    int n = 0;
    if (out_open) fds[n++] = {out[0], POLLIN, 0};
    if (err_open) fds[n++] = {err[0], POLLIN, 0};
    if (in[1] >= 0) fds[n++] = {in[1], POLLOUT, 0};
    if (::poll(fds, static_cast<nfds_t>(n), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in[1]) {
        ssize_t w = ::write(in[1], stdin_data.data() + written, stdin_data.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 || written == stdin_data.size()) {
          ::close(in[1]);
          in[1] = -1;
        }
        continue;
      }
      char buf[65536];
      ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r <= 0) {
        if (fds[i].fd == out[0])
          out_open = false;
        else
          err_open = false;
        continue;
      }
      (fds[i].fd == out[0] ? result.out : result.err).append(buf, static_cast<std::size_t>(r));
    }
  }
  if (in[1] >= 0) ::close(in[1]);
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

int start_feeddiff(const std::vector<std::string>& args, const Env& env) {
  std::vector<std::string> argv{FEEDDIFF_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  Exec exec(argv, env);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execve(exec.argv()[0], exec.argv(), exec.envp());
    ::_exit(127);
  }
  return pid;
}

RunResult run_feeddiff(const std::vector<std::string>& args, const Env& env) {
  std::vector<std::string> argv{FEEDDIFF_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, env);
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    out.emplace_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

namespace {

std::mutex temp_dirs_mutex;
std::vector<std::filesystem::path> temp_dirs;  // made by this process, for remove_temp_dirs

}  // namespace

std::string make_temp_dir(std::string_view hint) {
  static std::atomic<int> counter{0};
  std::filesystem::path base(FEEDDIFF_TEST_TMP);
  std::filesystem::create_directories(base);
  for (;;) {
    auto dir = base / (std::string(hint) + "-" + std::to_string(::getpid()) + "-" +
                       std::to_string(counter++));
    std::error_code ec;
    if (std::filesystem::exists(dir)) std::filesystem::remove_all(dir, ec);
    if (std::filesystem::create_directory(dir, ec)) {
      std::lock_guard lock(temp_dirs_mutex);
      temp_dirs.push_back(dir);
      return dir.string();
    }
  }
}

void remove_temp_dirs() {
  std::lock_guard lock(temp_dirs_mutex);
  for (const auto& dir : temp_dirs) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  temp_dirs.clear();
}

std::string fixture_path(std::string_view relative) {
  return std::string(FEEDDIFF_SOURCE_DIR) + "/fixtures/" + std::string(relative);
}

std::string corpus_path(std::string_view relative) {
  auto path = std::string(FEEDDIFF_CORPUS_DIR) + "/" + std::string(relative);
  INFO("the shared corpus must be beside the checkout: " << path);
  REQUIRE(std::filesystem::exists(path));
  return path;
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  INFO("writing " << path);
  REQUIRE(out.good());
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  REQUIRE(out.good());
}

}  // namespace feeddiff::test
