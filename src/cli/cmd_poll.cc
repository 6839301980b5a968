// feeddiff poll [NAME...]: the cron entry point.

#include <unistd.h>

#include <fmt/format.h>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cli/command.h"
#include "feeddiff/notify.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"
#include "feeddiff/sync.h"

namespace feeddiff::cli {

namespace {

struct PollFlags {
  std::vector<std::string> names;
  bool force = false;
  bool wait = false;
  bool quiet = false;
  bool verbose = false;
  bool no_progress = false;
  bool digest = false;
  int jobs = 16;
  int per_host = 2;
  std::string timeout = "2m";
  std::string connect_timeout = "15s";
  std::string max_body = "50MiB";
  std::string shard;
  bool sync = false;
  std::string remote = "origin";
};

// "polling: 120/500 done, 3 changed, 1 failed" on stderr, redrawn in place, for a person
// watching a long poll. Only when stderr is a terminal, so cron mail and pipes never carry
// it; only once the poll has run for a moment, so quick polls do not flicker; erased before
// the poll's own lines are printed.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ~ProgressLine() { erase(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const SourceOutcome& outcome, std::size_t settled, std::size_t to_fetch) {
    if (!enabled_) return;
    if (outcome.outcome == Outcome::added || outcome.outcome == Outcome::changed) ++changed_;
    if (is_failure(outcome.outcome)) ++failed_;
    const auto now = Clock::now();
    if (!shown_ && now - start_ < kQuiet) return;
    if (shown_ && now - drawn_ < kRedraw && settled < to_fetch) return;
    std::string line = fmt::format("\r\x1b[Kpolling: {}/{} done", settled, to_fetch);
    if (changed_) line += fmt::format(", {} changed", changed_);
    if (failed_) line += fmt::format(", {} failed", failed_);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    shown_ = true;
    drawn_ = now;
  }

  void erase() {
    if (!shown_) return;
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr auto kQuiet = std::chrono::milliseconds(300);
  static constexpr auto kRedraw = std::chrono::milliseconds(100);
  bool enabled_;
  bool shown_ = false;
  std::size_t changed_ = 0;
  std::size_t failed_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point drawn_;
};

bool progress_wanted(const PollFlags& flags) {
  if (flags.quiet || flags.no_progress || ::isatty(STDERR_FILENO) != 1) return false;
  const char* term = std::getenv("TERM");
  return !(term && std::string_view(term) == "dumb");
}

bool printed_by_default(Outcome o) {
  return o == Outcome::added || o == Outcome::changed || o == Outcome::failed ||
         o == Outcome::gone || o == Outcome::not_a_feed || o == Outcome::restored;
}

void print_outcome(const SourceOutcome& o, const PollFlags& flags, TimeMs now) {
  const bool failure = is_failure(o.outcome);
  if (!failure && flags.quiet) return;
  if (!printed_by_default(o.outcome) && !flags.verbose && o.redirect_note.empty() &&
      o.credentials_note.empty())
    return;
  std::fputs((outcome_line(o, now) + "\n").c_str(), failure ? stderr : stdout);
}

// The poll's options from its flags and FEEDDIFF_PACK_LIMIT.
Result<PollOptions> poll_options(const PollFlags& flags, TimeMs now) {
  PollOptions options;
  options.names = flags.names;
  options.force = flags.force;
  options.wait_for_lock = flags.wait;
  options.now = now;
  if (!flags.shard.empty()) {
    auto shard = parse_shard(flags.shard);
    if (!shard) return shard.error();
    options.shard = *shard;
  }
  if (flags.jobs < 1 || flags.per_host < 1)
    return Error{Errc::usage, "--jobs and --per-host must be at least 1"};
  options.fetch.jobs = flags.jobs;
  options.fetch.per_host = flags.per_host;
  auto total = parse_duration(flags.timeout);
  if (!total) return total.error();
  auto connect = parse_duration(flags.connect_timeout);
  if (!connect) return connect.error();
  auto max_body = parse_size(flags.max_body);
  if (!max_body) return max_body.error();
  options.limits.total_timeout_ms = static_cast<long>(*total);
  options.limits.connect_timeout_ms = static_cast<long>(*connect);
  options.limits.max_body_bytes = *max_body;
  if (const char* limit = std::getenv("FEEDDIFF_PACK_LIMIT"); limit && *limit) {
    const std::string_view text(limit);
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), options.pack_limit);
    if (ec != std::errc() || end != text.data() + text.size())
      return Error{Errc::usage, fmt::format("bad FEEDDIFF_PACK_LIMIT '{}' (a number of packs, 0 "
                                            "for no consolidation)",
                                            text)};
  }
  return options;
}

// The poll, with its progress line; under `lock` when --sync took it.
Result<PollReport> poll_with_progress(Archive& archive, PollOptions& options,
                                      const PollFlags& flags,
                                      const std::optional<ArchiveLock>& lock) {
  ProgressLine progress(progress_wanted(flags));
  options.on_outcome = [&progress](const SourceOutcome& o, std::size_t settled,
                                   std::size_t to_fetch) { progress.update(o, settled, to_fetch); };
  auto report = lock ? poll(archive, options, *lock) : poll(archive, options);
  progress.erase();
  return report;
}

// --sync: publishes the poll's commits, then gives the report the ids the branch has now,
// even when the sync stopped on an error after replaying (the hooks get those ids).
SyncReport sync_after_poll(Archive& archive, const SyncOptions& options, ArchiveLock& lock,
                           PollReport& report) {
  SyncReport synced = sync_archive(archive, options, lock);
  for (auto& o : report.sources)
    if (auto it = synced.renamed.find(o.commit); it != synced.renamed.end()) o.commit = it->second;
  for (auto& a : report.articles)
    if (auto it = synced.renamed.find(a.commit); it != synced.renamed.end()) a.commit = it->second;
  return synced;
}

// One line for each article page the poll recorded, noted, or could not fetch (unchanged
// ones with --verbose). On stdout: an article is never a failure of the poll.
void print_articles(const PollReport& report, const PollFlags& flags) {
  if (flags.quiet) return;
  for (const ArticleOutcome& a : report.articles) {
    const bool quiet = a.result == "unchanged" || a.result == "not-modified";
    if (quiet && !flags.verbose) continue;
    write_out(article_line(a) + "\n");
  }
  if (!report.articles_error.empty()) write_out(articles_error_line(report) + "\n");
}

// One line for each source that the flags ask to see, or why there was none.
void print_outcomes(const PollReport& report, const PollOptions& options, const PollFlags& flags) {
  for (const auto& outcome : report.sources) print_outcome(outcome, flags, options.now);
  print_articles(report, flags);
  if (report.sources.empty() && !flags.quiet) {
    if (options.shard)
      write_out(
          fmt::format("No sources in shard {}/{}.\n", options.shard->index, options.shard->count));
    else
      std::fputs("No sources yet: add one with `feeddiff add NAME URL`.\n", stdout);
  }
  std::fflush(stdout);
}

// The [notify] hooks for the poll's commits (src/notify): what they say is printed as it
// happens, held changes on stdout unless --quiet, failures on stderr. The number of failures.
std::size_t run_hooks(Archive& archive, const PollReport& report, const PollOptions& options,
                      const PollFlags& flags) {
  NotifyOptions notify;
  notify.connect_timeout = options.limits.connect_timeout_ms;
  auto now = current_time();  // the time a held change found gone is recorded as reverted
  notify.now = now ? *now : now_ms();
  NotifySinks sinks;
  if (!flags.quiet)
    sinks.note = [](std::string_view line) { write_out(escape_terminal(line) + "\n"); };
  sinks.problem = [](std::string_view line) {
    std::fputs((escape_terminal(line) + "\n").c_str(), stderr);
  };
  auto notified = notify_changes(archive, report, notify, sinks);
  if (notified) return notified->failures;
  sinks.problem("notify: " + notified.error().message);
  return 1;
}

// The packs' lines: a consolidation that failed (a failure), one that ran (--verbose).
std::size_t print_packs(const PollReport& report, const PollFlags& flags) {
  const std::string failed = packs_error_line(report);
  if (!failed.empty()) std::fputs((failed + "\n").c_str(), stderr);
  if (const std::string line = packs_rolled_line(report); flags.verbose && !line.empty())
    write_out(line + "\n");
  return failed.empty() ? 0 : 1;
}

Result<int> run_poll(const Globals& globals, const PollFlags& flags) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto now = current_time();
  if (!now) return now.error();
  auto options = poll_options(flags, *now);
  if (!options) return options.error();
  SyncOptions sync_options;
  sync_options.remote = flags.remote;
  if (auto ok = backoff_from_env(sync_options); !ok) return ok.error();
  // --sync: the lock is taken here and held from the poll through the push, so no other
  // writer comes between the commits and their publication.
  std::optional<ArchiveLock> lock;
  if (flags.sync) {
    auto l = ArchiveLock::acquire(*archive, flags.wait);
    if (!l) return l.error();
    lock.emplace(std::move(*l));
  }
  auto report = poll_with_progress(*archive, *options, flags, lock);
  if (!report) return report.error();
  std::optional<SyncReport> synced;
  if (lock) {
    synced.emplace(sync_after_poll(*archive, sync_options, *lock, *report));
    lock.reset();  // the hooks take it for themselves
  }
  print_outcomes(*report, *options, flags);
  // The commits are durable once poll returns; hooks only read them, and a hook that fails
  // is retried by the next poll, never undoes one.
  std::size_t after_poll_failures = run_hooks(*archive, *report, *options, flags);
  if (flags.digest) write_out(poll_digest(*archive, *report));
  after_poll_failures += print_packs(*report, flags);
  int code = report->failures() || after_poll_failures ? 1 : 0;
  if (!synced) return code;
  std::fflush(stdout);
  if (synced->error) return *synced->error;  // the poll's commits are kept: exit 2 all the same
  if (!synced->failure.empty()) {
    std::fputs(escape_terminal("sync: " + synced->failure).append("\n").c_str(), stderr);
    return 1;
  }
  if (!flags.quiet) write_out(escape_terminal(sync_summary(*synced)) + "\n");
  return code;
}

constexpr const char* kPollFooter =
    R"(Each changed response becomes one commit: raw/NAME/response.xml (or .json) byte for
byte, with the status, final URL and every response header as trailers in the message, and
its class (Change-Class: first, items, minor, cosmetic, not-a-feed, restored) and item summary
(Item-Summary). A 304, or a body identical to the stored one, makes no commit. A 200 whose
body is not a feed (an HTML, login or challenge page, an empty or truncated body) is archived
byte for byte at raw/NAME/not-a-feed, titled `NAME: not a feed (...)`, never item-diffed or
notified, and counts as a failure (exit code 1, backoff); the next feed version is compared
with the last feed version. A failed source makes no commit, is
retried later with exponential backoff, and makes the exit code 1; the others go on.

Politeness: ETag and Last-Modified are sent back; a source is not fetched before it is due
(its interval, or later when Cache-Control max-age, Expires, <ttl> or Retry-After say so).

Hooks: after the changes are committed, the [notify] hooks of feeddiff.toml run for each
one that is not cosmetic only: `exec` (a /bin/sh command, the change's JSON as `show --format
json` prints it on stdin, FEEDDIFF_COMMIT, FEEDDIFF_SOURCE and FEEDDIFF_URL in its
environment) and `webhook` (a POST of that JSON). A hook that fails or passes its timeout is
reported on stderr, recorded in the state and run again by the next poll; the exit code is 1.
The commit stays. A hook runs only once this machine trusts its value (`feeddiff trust`): one
that came with a clone, a sync or a pull, or was edited by hand, is reported and waits, its
notifications kept. Credentials go only to the scheme, host and port they were given for.
See docs/notify.md.

Packs: each poll that records changes writes one pack. Once .git/objects/pack holds more
than 50 packs (FEEDDIFF_PACK_LIMIT=N sets another limit, 0 none), the poll rolls the smallest
up into one, as `git repack --geometric=2 -d` does, so that each pack left holds at least
twice the objects of the one before: about log2(changes) packs however long the archive
lives, for a few milliseconds per poll on average. `feeddiff gc` still repacks everything
with deltas. Packs marked .keep are never touched.

Fleets: several pollers can share the sources, each running `poll --shard K/N` with its own
K (0 to N-1) in its own clone. A source belongs to the shard its URL's host hashes to
(FNV-1a, the same on every machine), so one machine polls each host and per-host limits,
Retry-After and backoff hold across the fleet; `shard = K` in a source's table pins it.
`feeddiff status --shard K/N` shows each source's shard. With --sync, each poll then
publishes its commits to the shared branch of the git remote (`feeddiff sync --help`), in
the same locked step: one push per poll round, which suits hosts that limit pushes. The exit
code is the worse of the poll's and the sync's. Each git command is stopped after
FEEDDIFF_GIT_TIMEOUT (default 10m), so a stalled remote never keeps the lock. See
docs/fleet.md.

Cron:
  */10 * * * * feeddiff -C ~/feeds poll --quiet
  */10 * * * * feeddiff -C ~/feeds poll --quiet --digest     cron's mail lists the changes

Examples:
  feeddiff poll                 everything that is due
  feeddiff poll pytorch --force one source, now
  feeddiff poll --shard 2/4     the third of four pollers' sources)";

}  // namespace

Command poll_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "poll", "Fetch the sources that are due and commit every response that changed");
  auto flags = std::make_shared<PollFlags>();
  app->add_option("NAME", flags->names, "Only these sources (default: all)");
  app->add_flag("--force", flags->force, "Fetch even the sources that are not due yet");
  app->add_flag("--wait", flags->wait, "Wait for another running poll instead of failing at once");
  app->add_flag("-q,--quiet", flags->quiet, "Print failures only");
  app->add_flag("-v,--verbose", flags->verbose,
                "Also print sources that did not change or were not due");
  app->add_flag("--no-progress", flags->no_progress,
                "No progress line (it is shown only when stderr is a terminal)");
  app->add_flag("--digest", flags->digest,
                "After the poll, a summary of what changed on stdout (per source: items added, "
                "changed with their fields, removed)");
  app->add_option("--shard", flags->shard,
                  "Poll only shard K of N (K from 0): the sources whose URL's host hashes to K, "
                  "or that say `shard = K` in feeddiff.toml")
      ->type_name("K/N");
  app->add_flag("--sync", flags->sync,
                "Then publish the new commits as `feeddiff sync` does, without releasing the "
                "archive's lock in between");
  app->add_option("--remote", flags->remote, "The git remote --sync publishes to (default origin)");
  app->add_option("-j,--jobs", flags->jobs, "Transfers at once (default 16)");
  app->add_option("--per-host", flags->per_host, "Connections to one host at once (default 2)");
  app->add_option("--timeout", flags->timeout, "Time limit of one transfer (default 2m)")
      ->type_name("DURATION");
  app->add_option("--connect-timeout", flags->connect_timeout,
                  "Time limit to connect (default 15s)")
      ->type_name("DURATION");
  app->add_option("--max-body", flags->max_body, "Largest body accepted, decoded (default 50MiB)")
      ->type_name("SIZE");
  app->footer(kPollFooter);
  return {app, [flags, &globals] { return run_poll(globals, *flags); }};
}

}  // namespace feeddiff::cli
