// Runs git as a child process (core's run_child) and collects its output.

#include "feeddiff/sync.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cstdlib>
#include <map>
#include <utility>

#include "feeddiff/core.h"
#include "feeddiff/process.h"

namespace feeddiff {

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

using Env = std::vector<std::pair<std::string, std::string>>;

Result<GitRun> spawn_git(const std::vector<std::string>& args, const std::string& dir,
                         long timeout_ms, const Env& extra_env) {
  const GitBinary& git = git_binary();
  if (git.path.empty())
    return Error{Errc::io,
                 "cannot run git: no git in the absolute directories of PATH (is git installed?)"};
  ChildRequest request;
  request.program = git.path;
  request.argv = {"git"};
  request.argv.insert(request.argv.end(), args.begin(), args.end());
  request.dir = dir;
  request.env = extra_env;
  request.env.emplace_back("GIT_TERMINAL_PROMPT", "0");
  request.env.emplace_back("PATH", git.search_path);
  request.timeout_ms = timeout_ms;
  // SIGTERM lets git remove its lock files; 2 s later the group is killed, whatever is left
  // of it (ssh, git-remote-https, upload-pack of a local remote).
  request.term_grace_ms = 2000;
  auto child = run_child(request);
  if (!child) return child.error();
  GitRun run;
  run.output = std::move(child->output);
  run.errors = std::move(child->errors);
  run.timed_out = child->timed_out;
  if (run.timed_out)
    run.errors += fmt::format(
        "\ngit {} ran past its deadline of {} (FEEDDIFF_GIT_TIMEOUT) and "
        "was stopped\n",
        subcommand(args), format_duration(timeout_ms));
  run.exit_code = child->exit_status >= 0 ? child->exit_status : 128 + child->signal;
  if (run.timed_out && run.exit_code == 0) run.exit_code = 128 + SIGTERM;
  return run;
}

// The environment that keeps git from waiting on a person or a stalled server, for what the
// user has not configured: ssh in batch mode (no host-key or passphrase prompt on /dev/tty)
// and http's low-speed limit (git's default is none). Read once per directory.
Result<Env> unattended_env(const std::string& dir, long timeout_ms) {
  static std::map<std::string, Env> known;
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
  Env env;
  if (!env_set("GIT_SSH_COMMAND") && !env_set("GIT_SSH") && !has("core.sshcommand"))
    env.emplace_back("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
  if (!env_set("GIT_HTTP_LOW_SPEED_LIMIT") && !has("http.lowspeedlimit"))
    env.emplace_back("GIT_HTTP_LOW_SPEED_LIMIT", "1000");
  if (!env_set("GIT_HTTP_LOW_SPEED_TIME") && !has("http.lowspeedtime"))
    env.emplace_back("GIT_HTTP_LOW_SPEED_TIME", "60");
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

}  // namespace feeddiff
