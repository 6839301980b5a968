// feeddiff sync's engine: git fetch, replay (store), git push, retried with backoff.

#include "feeddiff/sync.h"

#include <fmt/format.h>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <random>
#include <sstream>
#include <thread>

#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/poll.h"

namespace feeddiff {

namespace {

constexpr const char* kConfigFile = "feeddiff.toml";

// .git/feeddiff/sync-seen: per remote branch, the tip this archive last fetched, one line
// "REMOTE BRANCH COMMIT". The remote-tracking ref is not enough: a user's `git fetch` moves
// it, and a rewrite would pass unseen.
std::string seen_path(const Archive& archive) {
  return archive.private_dir() + "/sync-seen";
}

std::map<std::pair<std::string, std::string>, std::string> load_seen(const Archive& archive) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  auto text = read_file(seen_path(archive));
  if (!text) return out;
  std::istringstream in(*text);
  std::string remote, branch, commit;
  while (in >> remote >> branch >> commit) out[{remote, branch}] = commit;
  return out;
}

Status save_seen(const Archive& archive, const std::string& remote, const std::string& branch,
                 const std::string& commit) {
  auto seen = load_seen(archive);
  seen[{remote, branch}] = commit;
  std::string text;
  for (const auto& [key, id] : seen) text += fmt::format("{} {} {}\n", key.first, key.second, id);
  return write_file_atomic(seen_path(archive), text);
}

Result<std::string> git_line(const std::vector<std::string>& args, const Archive& archive,
                             long timeout_ms) {
  auto r = run_git(args, archive.work_dir(), timeout_ms);
  if (!r) return r.error();
  if (!*r) return std::string();
  return std::string(trim(r->output));
}

// feeddiff.toml merged per source table; any other file both sides changed is refused.
Result<std::string> merge_file(const std::string& path, const std::optional<std::string>& base,
                               const std::optional<std::string>& upstream,
                               const std::optional<std::string>& local) {
  if (path != kConfigFile)
    return Error{Errc::conflict, fmt::format("{} was changed both here and on the remote; "
                                             "make that change on one machine only",
                                             path)};
  if (!base || !upstream || !local)
    return Error{Errc::conflict, "feeddiff.toml was created or deleted on one side"};
  return merge_config(*base, *upstream, *local);
}

// Pending notifications name commits by id: right after a replay, the replayed ones by their
// new ids, before anything else can fail (a later fetch, the push, a kill), or the hooks
// would be given ids that a prune later makes "gone".
void rename_pending(Archive& archive,
                    const std::vector<std::pair<std::string, std::string>>& renamed) {
  if (renamed.empty()) return;
  const std::map<std::string, std::string> to(renamed.begin(), renamed.end());
  auto state = load_state(archive);
  if (!state) return;
  bool dirty = false;
  for (auto& [name, st] : state->sources)
    for (auto& c : st.pending_notifications)
      if (auto it = to.find(c); it != to.end()) {
        c = it->second;
        dirty = true;
      }
  if (dirty) (void)save_state(archive, *state);
}

// A rejected push, from its porcelain ('!' lines) and stderr: whether it lost a race (the
// branch moved since the fetch, or another push held or moved the ref while this one
// wrote it), which a new fetch and replay cure, or was refused (a hook, a protected
// branch), which no retry cures; then the server's reason, on one line.
struct Rejection {
  bool rejected = false;
  bool lost_race = true;
  std::string reason;
};

Rejection read_rejection(const GitRun& pushed) {
  Rejection r;
  std::istringstream lines(pushed.output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("!")) continue;
    r.rejected = true;
    const std::string summary(trim(line.substr(line.rfind('\t') + 1)));
    const bool race = summary.find("(fetch first)") != std::string::npos ||
                      summary.find("(non-fast-forward)") != std::string::npos ||
                      summary.find("(failed to lock)") != std::string::npos ||
                      (summary.find("(failed to update ref)") != std::string::npos &&
                       pushed.errors.find("cannot lock ref") != std::string::npos);
    if (!race) {
      r.lost_race = false;
      if (r.reason.empty()) r.reason = summary;
    }
  }
  if (!r.rejected || r.lost_race) return r;
  // What the server said about it (`remote: ...` lines: a hook's own message), a few lines.
  std::istringstream errors(pushed.errors);
  std::size_t said = 0;
  for (std::string line; std::getline(errors, line) && said < 5;) {
    std::string_view text = trim(line);
    if (!text.starts_with("remote:")) continue;
    text = trim(text.substr(7));
    if (text.empty()) continue;
    r.reason +=
        fmt::format("{}{}", said++ == 0 ? ": " : " / ", mask_url_credentials(text.substr(0, 200)));
  }
  return r;
}

Status sync_rounds(Archive& archive, const SyncOptions& options, SyncReport& report) {
  const long timeout = options.git_timeout_ms;
  const std::string& remote = options.remote;
  if (remote.empty() || remote.starts_with("-") ||
      remote.find_first_of(" \t\n/:") != std::string::npos)
    return Error{Errc::usage, fmt::format("'{}' is no remote name (see `git remote -v`)",
                                          escape_terminal(remote))};
  auto url = git_line({"config", "--get", fmt::format("remote.{}.url", remote)}, archive, timeout);
  if (!url) return url.error();
  if (url->empty())
    return Error{Errc::usage, fmt::format("no git remote named '{}' (add one with `git remote add "
                                          "{} URL`, or `feeddiff clone` the archive)",
                                          remote, remote)};
  auto local_branch = git_line({"symbolic-ref", "--quiet", "--short", "HEAD"}, archive, timeout);
  if (!local_branch) return local_branch.error();
  if (local_branch->empty())
    return Error{Errc::usage, "HEAD is detached: check out the archive's branch to sync it"};
  auto merge_ref = git_line({"config", "--get", fmt::format("branch.{}.merge", *local_branch)},
                            archive, timeout);
  if (!merge_ref) return merge_ref.error();
  const std::string branch =
      merge_ref->starts_with("refs/heads/") ? merge_ref->substr(11) : *local_branch;
  const std::string tracking = fmt::format("refs/remotes/{}/{}", remote, branch);
  const std::string shown_url = mask_url_credentials(*url);

  report.upstream = remote + "/" + branch;
  // What this archive last saw of the remote branch: sync-seen, else (a fresh clone) the
  // remote-tracking ref as it stands before this fetch.
  std::string seen;
  if (auto s = load_seen(archive); s.count({remote, branch})) seen = s[{remote, branch}];
  if (seen.empty())
    if (auto t = archive.resolve(tracking)) seen = t->id;

  std::mt19937_64 random(std::random_device{}());
  const auto compose = [&](const std::vector<std::pair<std::string, std::string>>& renamed) {
    for (const auto& [before, after] : renamed) {
      for (auto& [first, now] : report.renamed)
        if (now == before) now = after;
      report.renamed.emplace(before, after);
    }
  };

  for (report.tries = 1;; ++report.tries) {
    // fetch.unpackLimit=1: what the other pollers pushed arrives as one pack, which poll's
    // consolidation rolls up, instead of a loose file per object (git's default below 100
    // objects), which nothing in a fleet would ever pack.
    auto fetched = run_git({"-c", "fetch.unpackLimit=1", "fetch", "--quiet", "--no-tags", "--",
                            remote, fmt::format("+refs/heads/{}:{}", branch, tracking)},
                           archive.work_dir(), timeout);
    if (!fetched) return fetched.error();
    bool remote_empty = false;
    if (!*fetched) {
      const std::string why = fetched->last_error_line();
      if (fetched->timed_out || why.find("couldn't find remote ref") == std::string::npos) {
        report.failure = fmt::format("cannot fetch from {} ({}): {}", remote, shown_url, why);
        return Ok{};
      }
      remote_empty = true;  // the first publication of this branch
    }
    std::size_t ahead = 0;
    if (!remote_empty) {
      auto tip = archive.resolve(tracking);
      if (!tip) return tip.error();
      if (!seen.empty() && seen != tip->id) {
        auto descends = archive.descends_from(tip->id, seen);
        if (!descends || !*descends)
          return Error{
              Errc::conflict,
              fmt::format("{} was rewritten: its tip {} does not descend from {}, which this "
                          "archive last saw there; nothing was changed (docs/fleet.md says how "
                          "to recover)",
                          report.upstream, tip->id.substr(0, 12), seen.substr(0, 12))};
      }
      if (seen != tip->id) {
        if (auto ok = save_seen(archive, remote, branch, tip->id); !ok) return ok.error();
        seen = tip->id;
      }
      auto replay = archive.replay_onto(tip->id, merge_file);
      if (!replay) return replay.error();
      rename_pending(archive, replay->renamed);
      report.fetched += replay->upstream;
      report.replayed = replay->replayed;
      compose(replay->renamed);
      ahead = replay->ahead;
      if (ahead == 0) return Ok{};  // nothing of ours to publish
    }
    auto pushed =
        run_git({"push", "--porcelain", "--", remote, fmt::format("HEAD:refs/heads/{}", branch)},
                archive.work_dir(), timeout);
    if (!pushed) return pushed.error();
    if (*pushed) {
      auto head = archive.resolve("HEAD");
      if (!head) return head.error();
      report.published = remote_empty ? 0 : ahead;
      if (remote_empty) {
        auto count = git_line({"rev-list", "--count", "HEAD"}, archive, timeout);
        if (count && !count->empty()) report.published = std::stoul(*count);
      }
      (void)archive.delete_ref(kUnsyncedRef);
      (void)save_seen(archive, remote, branch, head->id);
      // status counts against the remote-tracking ref, which a push moves only when
      // remote.NAME.fetch maps this branch.
      (void)run_git({"update-ref", tracking, head->id}, archive.work_dir(), timeout);
      if (merge_ref->empty()) {
        (void)run_git({"config", fmt::format("branch.{}.remote", *local_branch), remote},
                      archive.work_dir(), timeout);
        (void)run_git(
            {"config", fmt::format("branch.{}.merge", *local_branch), "refs/heads/" + branch},
            archive.work_dir(), timeout);
      }
      return Ok{};
    }
    const Rejection rejection = pushed->timed_out ? Rejection{} : read_rejection(*pushed);
    if (!rejection.rejected) {  // the remote was not reached, or git gave up
      report.failure =
          fmt::format("cannot push to {} ({}): {}", remote, shown_url, pushed->last_error_line());
      return Ok{};
    }
    if (!rejection.lost_race) {
      report.failure =
          fmt::format("{} ({}) refused the push: {}", remote, shown_url, rejection.reason);
      return Ok{};
    }
    if (report.tries >= options.tries) {
      report.failure = fmt::format(
          "{} rejected {} pushes in a row (other pollers kept publishing first; raise "
          "--tries)",
          report.upstream, report.tries);
      return Ok{};
    }
    // Full jitter: a random wait up to the doubled bound, so racing pollers spread out.
    const long bound =
        std::min(options.backoff_cap_ms, options.backoff_ms << std::min(report.tries - 1, 20));
    if (bound > 0)
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<long>(bound / 2, bound)(random)));
  }
}

}  // namespace

Status backoff_from_env(SyncOptions& options) {
  auto timeout = git_timeout_from_env();
  if (!timeout) return timeout.error();
  options.git_timeout_ms = *timeout;
  const char* text = std::getenv("FEEDDIFF_SYNC_BACKOFF");
  if (!text || !*text) return Ok{};
  const std::string_view t(text);
  const auto bad = Error{Errc::usage, fmt::format("bad FEEDDIFF_SYNC_BACKOFF '{}' (BASE_MS or "
                                                  "BASE_MS,CAP_MS, e.g. 50,2000)",
                                                  escape_terminal(t))};
  const char* end = t.data() + t.size();
  auto [p, ec] = std::from_chars(t.data(), end, options.backoff_ms);
  if (ec != std::errc() || options.backoff_ms < 0) return bad;
  if (p != end) {
    if (*p != ',') return bad;
    auto [q, ec2] = std::from_chars(p + 1, end, options.backoff_cap_ms);
    if (ec2 != std::errc() || q != end || options.backoff_cap_ms < options.backoff_ms) return bad;
  }
  return Ok{};
}

std::string sync_summary(const SyncReport& r) {
  return fmt::format("Synced with {}: fetched {}, replayed {}, pushed {} ({} {}).", r.upstream,
                     plural(r.fetched, "commit", "commits"), r.replayed, r.published, r.tries,
                     r.tries == 1 ? "try" : "tries");
}

SyncReport sync_archive(Archive& archive, const SyncOptions& options, const ArchiveLock& /*held*/) {
  SyncReport report;
  if (auto done = sync_rounds(archive, options, report); !done) report.error = done.error();
  if (!report.error && !report.failure.empty()) {
    auto unpublished = archive.unpublished();
    std::size_t waiting = 0;
    if (unpublished && *unpublished) waiting = (*unpublished)->second;
    if (waiting)
      report.failure += fmt::format("; {} stay here for the next sync",
                                    plural(waiting, "local commit", "local commits"));
  }
  return report;
}

}  // namespace feeddiff
