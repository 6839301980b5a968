// Runs git as a child process and collects its output.

#include "cli/git_cli.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "feeddiff/core.h"
#include "feeddiff/render.h"

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

Result<long> git_timeout_from_env() {
  const char* text = std::getenv("FEEDDIFF_GIT_TIMEOUT");
  if (!text || !*text) return kGitTimeoutMs;
  auto ms = parse_duration(text);
  if (!ms || *ms <= 0)
    return Error{Errc::usage, fmt::format("bad FEEDDIFF_GIT_TIMEOUT '{}' (a duration, e.g. 10m)",
                                          escape_terminal(text))};
  return static_cast<long>(*ms);
}

namespace {

// git's absolute path, from the absolute directories of PATH (confstr's default when PATH is
// unset), found once before any chdir; "" when there is none. A relative or empty entry
// would name the work tree once git runs there, and a committed `git` file would run.
struct GitBinary {
  std::string path;
  std::string search_path;  // PATH for the child: the absolute entries only
};

const GitBinary& git_binary() {
  static const GitBinary binary = [] {
    GitBinary b;
    std::string path_env;
    if (const char* p = std::getenv("PATH")) {
      path_env = p;
    } else {
      const std::size_t n = ::confstr(_CS_PATH, nullptr, 0);
      path_env.resize(n);
      if (n > 0) ::confstr(_CS_PATH, path_env.data(), n);
      path_env.resize(path_env.empty() ? 0 : n - 1);
    }
    std::string_view rest = path_env;
    while (true) {
      const std::size_t colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      if (!dir.empty() && dir.front() == '/') {
        if (!b.search_path.empty()) b.search_path += ':';
        b.search_path += dir;
        if (b.path.empty()) {
          std::string candidate = std::string(dir) + "/git";
          struct stat st {};
          if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
              ::access(candidate.c_str(), X_OK) == 0)
            b.path = std::move(candidate);
        }
      }
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
    return b;
  }();
  return binary;
}

// git's first argument that is not an option: the subcommand, for messages.
std::string subcommand(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-c" || args[i] == "-C") {
      ++i;
      continue;
    }
    if (!args[i].starts_with("-")) return args[i];
  }
  return "";
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

Result<GitRun> spawn_git(const std::vector<std::string>& args, const std::string& dir,
                         long timeout_ms, const std::vector<std::string>& extra_env) {
  const GitBinary& git = git_binary();
  if (git.path.empty())
    return Error{Errc::io,
                 "cannot run git: no git in the absolute directories of PATH (is git installed?)"};
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
  std::vector<std::string> env_text = extra_env;
  env_text.emplace_back("GIT_TERMINAL_PROMPT=0");
  env_text.emplace_back("PATH=" + git.search_path);
  const std::size_t ours = env_text.size();
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (std::size_t i = 0; i < ours && !replaced; ++i) replaced = env_text[i].starts_with(name);
    if (!replaced) env_text.emplace_back(entry);
  }
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.fd, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  // A group of its own, so that a deadline stops git and whatever it started (ssh,
  // git-remote-https, upload-pack of a local remote) at once.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = 0;
  const int rc =
      ::posix_spawn(&pid, git.path.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return Error{Errc::io, fmt::format("cannot run {}: {}", git.path, std::strerror(rc))};
  out_write.reset();
  err_write.reset();

  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  GitRun run;
  pollfd fds[2] = {{out_read.fd, POLLIN, 0}, {err_read.fd, POLLIN, 0}};
  std::string* sinks[2] = {&run.output, &run.errors};
  int open_fds = 2;
  char buf[8192];
  while (open_fds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      run.timed_out = true;
      break;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 60'000)));
    if (ready < 0) {
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
  if (!run.timed_out) {
    // The pipes closed: git is exiting; a child it left with them open would have kept them.
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  } else {
    // SIGTERM lets git remove its lock files; 2 s later the group is killed, whatever is
    // left of it. git is reaped only after that, so its id (the group's) cannot have been
    // reused by then.
    ::kill(-pid, SIGTERM);
    for (int i = 0; i < 200; ++i) {
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid == pid)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string what = subcommand(args);
    run.errors += fmt::format(
        "\ngit {} ran past its deadline of {} (FEEDDIFF_GIT_TIMEOUT) and "
        "was stopped\n",
        what, format_duration(timeout_ms));
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (run.timed_out && run.exit_code == 0) run.exit_code = 128 + SIGTERM;
  return run;
}

// The environment that keeps git from waiting on a person or a stalled server, for what the
// user has not configured: ssh in batch mode (no host-key or passphrase prompt on /dev/tty)
// and http's low-speed limit (git's default is none). Read once per directory.
Result<std::vector<std::string>> unattended_env(const std::string& dir, long timeout_ms) {
  static std::map<std::string, std::vector<std::string>> known;
  if (auto it = known.find(dir); it != known.end()) return it->second;
  auto configured = spawn_git(
      {"config", "--get-regexp", R"(^(core\.sshcommand|http\.lowspeedlimit|http\.lowspeedtime)$)"},
      dir, timeout_ms, {});
  if (!configured) return configured.error();
  const std::string& keys = configured->output;  // "key value" lines; none: exit 1
  const auto has = [&keys](std::string_view key) {
    for (std::size_t at = keys.find(key); at != std::string::npos; at = keys.find(key, at + 1))
      if ((at == 0 || keys[at - 1] == '\n') && at + key.size() <= keys.size() &&
          (at + key.size() == keys.size() || keys[at + key.size()] == ' ' ||
           keys[at + key.size()] == '\n'))
        return true;
    return false;
  };
  std::vector<std::string> env;
  if (!env_set("GIT_SSH_COMMAND") && !env_set("GIT_SSH") && !has("core.sshcommand"))
    env.emplace_back("GIT_SSH_COMMAND=ssh -o BatchMode=yes");
  if (!env_set("GIT_HTTP_LOW_SPEED_LIMIT") && !has("http.lowspeedlimit"))
    env.emplace_back("GIT_HTTP_LOW_SPEED_LIMIT=1000");
  if (!env_set("GIT_HTTP_LOW_SPEED_TIME") && !has("http.lowspeedtime"))
    env.emplace_back("GIT_HTTP_LOW_SPEED_TIME=60");
  known.emplace(dir, env);
  return env;
}

}  // namespace

Result<GitRun> run_git(const std::vector<std::string>& args, const std::string& dir,
                       long timeout_ms) {
  auto env = unattended_env(dir, timeout_ms);
  if (!env) return env.error();
  return spawn_git(args, dir, timeout_ms, *env);
}

}  // namespace feeddiff::cli
