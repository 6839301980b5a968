// feeddiff clone URL [DIR]: join a fleet of pollers.

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cli/command.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"
#include "feeddiff/sync.h"

namespace feeddiff::cli {

namespace {

// The directory `git clone URL` would pick: the URL's last path component without a
// trailing ".git" (or "/").
std::string default_dir(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  if (url.ends_with("/.git")) url.remove_suffix(5);
  const std::size_t cut = url.find_last_of("/:");
  std::string_view name = cut == std::string_view::npos ? url : url.substr(cut + 1);
  if (name.ends_with(".git")) name.remove_suffix(4);
  return std::string(name);
}

// Takes away what a failed clone made, so that running it again (or elsewhere) starts clean:
// the directory when clone created it, its contents when it was an empty directory before.
// A directory that held anything is never touched (git refused to clone into it anyway).
class CloneCleanup {
 public:
  explicit CloneCleanup(std::filesystem::path path) : path_(std::move(path)) {
    std::error_code ec;
    existed_ = std::filesystem::exists(path_, ec);
    empty_before_ = existed_ && std::filesystem::is_directory(path_, ec) &&
                    std::filesystem::is_empty(path_, ec);
  }
  ~CloneCleanup() {
    if (keep_) return;
    std::error_code ec;
    if (!existed_) {
      std::filesystem::remove_all(path_, ec);
    } else if (empty_before_) {
      for (const auto& entry : std::filesystem::directory_iterator(path_, ec))
        std::filesystem::remove_all(entry.path(), ec);
    }
  }
  CloneCleanup(const CloneCleanup&) = delete;
  CloneCleanup& operator=(const CloneCleanup&) = delete;
  /// The clone succeeded: leave it.
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool existed_ = false;
  bool empty_before_ = false;
  bool keep_ = false;
};

// The branch of a fresh clone (made with --no-checkout) that holds the archive: main, which
// feeddiff pushes, when it holds feeddiff.toml; else the remote's HEAD branch when it does;
// else the one branch that does. A bare repository made with plain `git init --bare` has
// HEAD at master (git's default) even when only main was pushed, so the remote's HEAD alone
// is not to be trusted.
Result<std::string> archive_branch(const std::string& path, const std::string& shown_url,
                                   long timeout) {
  auto refs =
      run_git({"for-each-ref", "--format=%(refname)", "refs/remotes/origin/"}, path, timeout);
  if (!refs) return refs.error();
  std::vector<std::string> branches;
  std::istringstream lines(refs->output);
  for (std::string line; std::getline(lines, line);) {
    const std::string_view prefix = "refs/remotes/origin/";
    if (!line.starts_with(prefix) || line == "refs/remotes/origin/HEAD") continue;
    branches.push_back(line.substr(prefix.size()));
  }
  if (branches.empty())
    return Error{Errc::not_an_archive,
                 fmt::format("{} has no branch yet (an empty repository): push an archive to it "
                             "first, e.g. `git -C ARCHIVE push {} HEAD:refs/heads/main`",
                             shown_url, shown_url)};
  std::vector<std::string> archives;
  for (const std::string& b : branches) {
    auto has =
        run_git({"cat-file", "-e", "refs/remotes/origin/" + b + ":feeddiff.toml"}, path, timeout);
    if (!has) return has.error();
    if (*has) archives.push_back(b);
  }
  const auto holds = [&](const std::string& b) {
    return std::find(archives.begin(), archives.end(), b) != archives.end();
  };
  if (holds("main")) return std::string("main");
  auto head = run_git({"symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"}, path, timeout);
  if (head && *head) {
    std::string target = head->output;
    while (!target.empty() && (target.back() == '\n' || target.back() == '\r')) target.pop_back();
    const std::string prefix = "refs/remotes/origin/";
    if (target.starts_with(prefix) && holds(target.substr(prefix.size())))
      return target.substr(prefix.size());
  }
  if (archives.size() == 1) return archives.front();
  std::string names;
  for (const auto& b : (archives.empty() ? branches : archives))
    names += (names.empty() ? "" : ", ") + b;
  if (archives.empty())
    return Error{Errc::not_an_archive,
                 fmt::format("{} is a git repository, not a feeddiff archive: none of its "
                             "branches ({}) holds feeddiff.toml",
                             shown_url, names)};
  return Error{Errc::not_an_archive,
               fmt::format("{} holds archives on several branches ({}) and none is main or the "
                           "repository's HEAD: point its HEAD at one (`git symbolic-ref HEAD "
                           "refs/heads/BRANCH` in the bare repository), then clone again",
                           shown_url, names)};
}

Result<int> run_clone(const Globals& globals, const std::string& url, std::string dir) {
  if (dir.empty()) dir = default_dir(url);
  if (dir.empty() || dir == "." || dir == "..")
    return Error{Errc::usage, "cannot tell a directory from that URL: name one (clone URL DIR)"};
  const std::string shown_url = mask_url_credentials(url);
  auto timeout = git_timeout_from_env();
  if (!timeout) return timeout.error();
  const std::string path = (std::filesystem::path(globals.dir) / dir).string();
  CloneCleanup cleanup(path);
  // Without a checkout: the remote's HEAD may name a branch that does not exist (git's
  // "remote HEAD refers to nonexistent ref") or one that is not the archive's.
  auto cloned =
      run_git({"clone", "--quiet", "--no-checkout", "--", url, dir}, globals.dir, *timeout);
  if (!cloned) return cloned.error();
  if (!*cloned)
    return Error{Errc::io,
                 fmt::format("git clone {} failed: {}", shown_url, cloned->last_error_line())};
  auto branch = archive_branch(path, shown_url, *timeout);
  if (!branch) return branch.error();
  auto checkout = run_git({"checkout", "--quiet", "-B", *branch, "--track", "origin/" + *branch},
                          path, *timeout);
  if (!checkout) return checkout.error();
  if (!*checkout)
    return Error{Errc::io, fmt::format("checking out {} of {} failed: {}", *branch, shown_url,
                                       checkout->last_error_line())};
  auto archive = Archive::open(path);
  if (!archive)
    return Error{archive.error().code, fmt::format("{} is not a feeddiff archive: {}", shown_url,
                                                   archive.error().message)};
  auto config = load_config(*archive);
  if (!config)
    return Error{config.error().code, fmt::format("the feeddiff.toml of {} is wrong: {}", shown_url,
                                                  config.error().message)};
  auto state = rebuild_state(*archive, *config);
  if (!state) return state.error();
  std::size_t conditional = 0, recorded = 0;
  for (const auto& [name, st] : state->sources) {
    recorded += !st.last_result.empty();
    conditional += !st.etag.empty() || !st.last_modified.empty();
  }
  if (auto ok = save_state(*archive, *state); !ok) return ok.error();
  cleanup.keep();
  write_out(
      escape_terminal(fmt::format(
          "Cloned {} into {}{}: {} source{}, {} with a recorded version, {} of them polled "
          "conditionally from the start (ETag or Last-Modified from history).",
          shown_url, dir, *branch == "main" ? "" : " (branch " + *branch + ")",
          config->sources.size(), config->sources.size() == 1 ? "" : "s", recorded, conditional)) +
      "\n");
  return 0;
}

}  // namespace

Command clone_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "clone", "Clone an archive to poll it from this machine too, with its poll state rebuilt");
  auto url = std::make_shared<std::string>();
  auto dir = std::make_shared<std::string>();
  app->add_option("URL", *url, "The archive's git remote (any URL or path git clone takes)")
      ->required();
  app->add_option("DIR", *dir, "Where to put it (default: as git clone names it)");
  app->footer(
      R"(Runs `git clone` (so ssh keys, credential helpers and proxies work as you set them up
for git; it never prompts, and it is stopped after FEEDDIFF_GIT_TIMEOUT, default 10m), then
rebuilds .git/feeddiff/state.json, which is not in the repository, from history: each
source's ETag and Last-Modified from the Response-Header trailers of its last recorded
version, and its next poll from the recorded Cache-Control max-age, Expires or RSS <ttl>.
The new poller's first requests are therefore conditional: a fleet that gains a machine
does not refetch every feed in full.

It checks out the branch that holds the archive: main when it holds feeddiff.toml, else the
one the repository's HEAD names, else the one branch that does (a bare repository made with
plain `git init --bare` has HEAD at master even when only main was pushed). A clone that
fails leaves no directory behind. Create a shared repository with `git init --bare -b main`.

Credentials in URL are masked in feeddiff's output (git itself keeps the URL you give in
.git/config: prefer a credential helper).

Examples:
  feeddiff clone git@github.com:me/feeds.git
  feeddiff clone https://git.example.com/feeds.git ~/feeds
  feeddiff -C ~/feeds poll --shard 1/4     then poll this machine's part (docs/fleet.md))");
  return {app, [url, dir, &globals] { return run_clone(globals, *url, *dir); }};
}

}  // namespace feeddiff::cli
