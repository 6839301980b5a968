// feeddiff clone's engine: git clone without a checkout, the archive's branch found and
// checked out, the poll state rebuilt from history. A clone that fails leaves nothing.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "feeddiff/config.h"
#include "feeddiff/poll.h"
#include "feeddiff/sync.h"

namespace feeddiff {

namespace {

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

// The branches of origin that a fresh clone has as remote-tracking refs (HEAD left out).
Result<std::vector<std::string>> remote_branches(const std::string& path, long timeout) {
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
  return branches;
}

// The branch origin's HEAD names, if it names one.
std::optional<std::string> remote_head(const std::string& path, long timeout) {
  auto head = run_git({"symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"}, path, timeout);
  if (!head || !*head) return std::nullopt;
  std::string target = head->output;
  while (!target.empty() && (target.back() == '\n' || target.back() == '\r')) target.pop_back();
  const std::string prefix = "refs/remotes/origin/";
  if (!target.starts_with(prefix)) return std::nullopt;
  return target.substr(prefix.size());
}

// Why no branch of the remote can be chosen: none holds an archive, or several do.
Error no_archive_branch(const std::vector<std::string>& branches,
                        const std::vector<std::string>& archives, const std::string& shown_url) {
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

// The branch of a fresh clone (made with --no-checkout) that holds the archive: main, which
// feeddiff pushes, when it holds feeddiff.toml; else the remote's HEAD branch when it does;
// else the one branch that does. A bare repository made with plain `git init --bare` has
// HEAD at master (git's default) even when only main was pushed, so the remote's HEAD alone
// is not to be trusted.
Result<std::string> archive_branch(const std::string& path, const std::string& shown_url,
                                   long timeout) {
  auto branches = remote_branches(path, timeout);
  if (!branches) return branches.error();
  if (branches->empty())
    return Error{Errc::not_an_archive,
                 fmt::format("{} has no branch yet (an empty repository): push an archive to it "
                             "first, e.g. `git -C ARCHIVE push {} HEAD:refs/heads/main`",
                             shown_url, shown_url)};
  std::vector<std::string> archives;
  for (const std::string& b : *branches) {
    auto has =
        run_git({"cat-file", "-e", "refs/remotes/origin/" + b + ":feeddiff.toml"}, path, timeout);
    if (!has) return has.error();
    if (*has) archives.push_back(b);
  }
  const auto holds = [&](const std::string& b) {
    return std::find(archives.begin(), archives.end(), b) != archives.end();
  };
  if (holds("main")) return std::string("main");
  if (auto head = remote_head(path, timeout); head && holds(*head)) return *head;
  if (archives.size() == 1) return archives.front();
  return no_archive_branch(*branches, archives, shown_url);
}

// Clones without a checkout, then checks out the archive's branch; the branch.
Result<std::string> clone_branch(const CloneRequest& request, const std::string& path,
                                 const std::string& shown_url, long timeout) {
  // Without a checkout: the remote's HEAD may name a branch that does not exist (git's
  // "remote HEAD refers to nonexistent ref") or one that is not the archive's.
  auto cloned = run_git({"clone", "--quiet", "--no-checkout", "--", request.url, request.dir},
                        request.parent, timeout);
  if (!cloned) return cloned.error();
  if (!*cloned)
    return Error{Errc::io,
                 fmt::format("git clone {} failed: {}", shown_url, cloned->last_error_line())};
  auto branch = archive_branch(path, shown_url, timeout);
  if (!branch) return branch.error();
  auto checkout = run_git({"checkout", "--quiet", "-B", *branch, "--track", "origin/" + *branch},
                          path, timeout);
  if (!checkout) return checkout.error();
  if (!*checkout)
    return Error{Errc::io, fmt::format("checking out {} of {} failed: {}", *branch, shown_url,
                                       checkout->last_error_line())};
  return branch;
}

// Rebuilds the clone's state.json from history and counts what it knows of the sources.
Status rebuild_poll_state(const Archive& archive, const std::string& shown_url,
                          CloneReport& report) {
  auto config = load_config(archive);
  if (!config)
    return Error{config.error().code, fmt::format("the feeddiff.toml of {} is wrong: {}", shown_url,
                                                  config.error().message)};
  auto state = rebuild_state(archive, *config);
  if (!state) return state.error();
  report.sources = config->sources.size();
  for (const auto& [name, st] : state->sources) {
    report.recorded += !st.last_result.empty();
    report.conditional += !st.etag.empty() || !st.last_modified.empty();
  }
  return save_state(archive, *state);
}

}  // namespace

std::string clone_default_dir(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  if (url.ends_with("/.git")) url.remove_suffix(5);
  const std::size_t cut = url.find_last_of("/:");
  std::string_view name = cut == std::string_view::npos ? url : url.substr(cut + 1);
  if (name.ends_with(".git")) name.remove_suffix(4);
  return std::string(name);
}

Result<CloneReport> clone_archive(CloneRequest request) {
  if (request.dir.empty()) request.dir = clone_default_dir(request.url);
  if (request.dir.empty() || request.dir == "." || request.dir == "..")
    return Error{Errc::usage, "cannot tell a directory from that URL: name one (clone URL DIR)"};
  CloneReport report;
  report.dir = request.dir;
  report.shown_url = mask_url_credentials(request.url);
  if (!request.git_timeout_ms) {
    auto timeout = git_timeout_from_env();
    if (!timeout) return timeout.error();
    request.git_timeout_ms = *timeout;
  }
  const std::string path = (std::filesystem::path(request.parent) / request.dir).string();
  CloneCleanup cleanup(path);
  auto branch = clone_branch(request, path, report.shown_url, *request.git_timeout_ms);
  if (!branch) return branch.error();
  report.branch = std::move(*branch);
  auto archive = Archive::open(path);
  if (!archive)
    return Error{archive.error().code, fmt::format("{} is not a feeddiff archive: {}",
                                                   report.shown_url, archive.error().message)};
  if (auto ok = rebuild_poll_state(*archive, report.shown_url, report); !ok) return ok.error();
  cleanup.keep();
  return report;
}

}  // namespace feeddiff
