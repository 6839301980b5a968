// Runs git as a child process and collects its output.

#include "cli/git_cli.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

#include "feeddiff/core.h"

extern char** environ;

namespace feeddiff::cli {

namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

}  // namespace

std::string mask_url_credentials(std::string_view text) {
  // Every authority after a "://" runs to the next '/', quote or whitespace; whatever is
  // before its last '@' is the userinfo.
  const auto ends_authority = [](char c) {
    return c == '/' || c == '\'' || c == '"' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
  };
  std::string out;
  std::size_t i = 0;
  for (std::size_t scheme; (scheme = text.find("://", i)) != std::string_view::npos;) {
    const std::size_t start = scheme + 3;
    std::size_t end = start;
    while (end < text.size() && !ends_authority(text[end])) ++end;
    const std::size_t at = text.substr(start, end - start).rfind('@');
    out.append(text.substr(i, start - i));
    if (at != std::string_view::npos) out.append("***");
    i = at == std::string_view::npos ? start : start + at;
  }
  out.append(text.substr(i));
  return out;
}

std::string GitRun::last_error_line() const {
  std::string_view text = errors;
  while (!text.empty()) {
    const std::size_t nl = text.rfind('\n', text.size() - 1);
    std::string_view line = nl == std::string_view::npos ? text : text.substr(nl + 1);
    line = trim(line);
    if (!line.empty()) return mask_url_credentials(line);
    if (nl == std::string_view::npos) break;
    text = text.substr(0, nl);
  }
  return fmt::format("git exited with status {}", exit_code);
}

Result<GitRun> run_git(const std::vector<std::string>& args, const std::string& dir) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Error{Errc::io, "cannot run git: no pipe"};
  Fd out_read{out_pipe[0]}, out_write{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return Error{Errc::io, "cannot run git: no pipe"};
  Fd err_read{err_pipe[0]}, err_write{err_pipe[1]};

  std::vector<std::string> argv_text = {"git"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "GIT_TERMINAL_PROMPT=", 20) != 0) env_text.emplace_back(*e);
  env_text.emplace_back("GIT_TERMINAL_PROMPT=0");
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.fd, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return Error{Errc::io,
                 fmt::format("cannot run git: {} (is git installed?)", std::strerror(rc))};
  out_write.reset();
  err_write.reset();

  GitRun run;
  pollfd fds[2] = {{out_read.fd, POLLIN, 0}, {err_read.fd, POLLIN, 0}};
  std::string* sinks[2] = {&run.output, &run.errors};
  int open_fds = 2;
  char buf[8192];
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

}  // namespace feeddiff::cli
