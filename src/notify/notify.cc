// [notify] hooks after a poll: which changes are due now, which `after` holds and which of
// those stayed or went, what is still pending from earlier polls, and their delivery.

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <set>

#include "feeddiff/notify.h"
#include "notify/internal.h"

namespace feeddiff {

namespace {

using notify_detail::Rendered;
using notify_detail::Still;

// One delivery: a commit of a source and the hooks it still has to run.
struct Delivery {
  std::string source;
  std::string commit;
};

// Whether a poll's outcome is a look at the source's feed (a held change is judged by it).
bool observed(Outcome outcome) {
  return outcome == Outcome::added || outcome == Outcome::changed ||
         outcome == Outcome::unchanged || outcome == Outcome::not_modified;
}

// What this poll decided about one held change.
struct HeldVerdict {
  enum class Kind { wait, release, drop } kind = Kind::wait;
  unsigned polls = 0;
};

// Commits by source name, oldest first.
using CommitsBySource = std::map<std::string, std::vector<std::string>>;

// One notify_changes: its steps, in the order they run, and what each hands to the next.
class Notifier {
 public:
  Notifier(Archive& archive, const Config& config, const NotifyOptions& options,
           const NotifySinks& sinks)
      : archive_(archive), config_(config), options_(options), sinks_(sinks) {}

  Result<NotifyReport> run(const PollReport& report);

 private:
  void note(const std::string& line) const {
    if (sinks_.note) sinks_.note(line);
  }
  void problem(const std::string& line) const {
    if (sinks_.problem) sinks_.problem(line);
  }
  void pick_new(const PollReport& report);
  void judge_held(const State& peek);
  void drop_flips();
  bool nothing_to_record(const State& peek) const;
  Status record_pending();
  bool settle_held(const std::string& name, SourceState& st);
  bool hold_new(State& state) const;
  bool queue_fresh(State& state) const;
  Status deliver_all();
  bool waits_for_trust(const Delivery& d, const NotifySettings& settings,
                       const std::vector<HookValue>& hooks);
  const Rendered* rendered_for(const Delivery& d, const NotifySettings& settings);
  void deliver(const Delivery& d, const std::vector<HookValue>& hooks);
  void report_waiting();
  Status clear_delivered();

  Archive& archive_;
  const Config& config_;
  const NotifyOptions& options_;
  const NotifySinks& sinks_;
  CommitsBySource fresh_;                     // due now
  CommitsBySource held_now_;                  // held by `after` at this poll
  std::map<std::string, Rendered> rendered_;  // commit -> its judged JSON, rendered once
  std::set<std::string> seen_;                // sources this poll fetched
  std::set<std::pair<std::string, std::string>> seen_articles_;  // (source, Item-Id) fetched
  std::map<std::pair<std::string, std::string>, HeldVerdict> verdicts_;  // (source, commit)
  std::vector<Delivery> deliveries_;
  std::map<std::string, std::set<std::string>> waiting_;  // untrusted hook's label -> sources
  std::set<std::pair<std::string, std::string>> delivered_;
  std::map<std::string, std::string> errors_;  // source -> its last failure
  std::set<std::string> dropped_;              // commits that no longer resolve
  NotifyReport report_;
};

Result<NotifyReport> Notifier::run(const PollReport& report) {
  pick_new(report);
  // Held changes are judged before the lock is taken (that reads and parses versions); the
  // verdicts are applied to the state read afresh under the lock.
  auto peek = load_state(archive_);
  if (!peek) return peek.error();
  judge_held(*peek);
  drop_flips();
  // Nothing new, nothing held and nothing pending (an archive without hooks): no lock, no
  // write.
  if (nothing_to_record(*peek)) return report_;
  if (auto ok = record_pending(); !ok) return ok.error();
  if (deliveries_.empty()) return report_;
  if (auto ok = deliver_all(); !ok) return ok.error();
  report_waiting();
  if (auto ok = clear_delivered(); !ok) return ok.error();
  report_.delivered = delivered_.size();
  return report_;
}

// The new commits whose hooks are due: those the rules pick (cosmetic-only and minor changes
// left out unless asked), at once, or held when `after` asks to wait.
void Notifier::pick_new(const PollReport& report) {
  const auto pick = [&](const std::string& name, const std::string& commit) {
    const SourceConfig* source = config_.find(name);
    if (!source) return;
    const NotifySettings settings = notify_settings(config_, *source);
    if (!settings.any()) return;
    auto r = notify_detail::render_change(archive_, commit, name, settings);
    if (!r) {
      // Kept pending: the next poll tries again to read it.
      fresh_[name].push_back(commit);
      return;
    }
    if (!r->notify) return;
    if (settings.after > 1) {
      held_now_[name].push_back(commit);
      return;
    }
    fresh_[name].push_back(commit);
    rendered_.emplace(commit, std::move(*r));
  };
  for (const SourceOutcome& o : report.sources) {
    if (observed(o.outcome)) seen_.insert(o.name);
    if (o.commit.empty() || (o.outcome != Outcome::added && o.outcome != Outcome::changed))
      continue;
    pick(o.name, o.commit);
  }
  // Article edits (docs/articles.md), after the feeds' commits as poll made them. A first
  // capture or an uncertain extraction is no edit; an article fetched again (its text the
  // same, or edited) is a look at it for an edit `after` holds.
  for (const ArticleOutcome& a : report.articles) {
    if (a.result == "changed" || a.result == "unchanged" || a.result == "not-modified" ||
        a.result == "noted")
      seen_articles_.insert({a.source, trailer_value(a.item_id, 300)});
    if (a.result == "changed" && !a.commit.empty()) pick(a.source, a.commit);
  }
}

// Changes held by earlier polls: each poll that looked at the source counts, and checks that
// the change is still there.
void Notifier::judge_held(const State& peek) {
  for (const auto& [name, st] : peek.sources) {
    if (st.held_notifications.empty()) continue;
    const SourceConfig* source = config_.find(name);
    if (!source) continue;
    const NotifySettings settings = notify_settings(config_, *source);
    for (const HeldNotification& h : st.held_notifications) {
      // A feed change counts the polls that looked at the feed; an article edit those that
      // fetched its article again.
      auto item = notify_detail::article_item_id(archive_, h.commit);
      if (item && *item ? !seen_articles_.contains({name, **item}) : !seen_.contains(name))
        continue;
      auto still = notify_detail::still_there(archive_, h.commit, name, settings);
      HeldVerdict v;
      v.polls = h.polls;
      if (!still) {
        if (still.error().code == Errc::not_found) v.kind = HeldVerdict::Kind::drop;
      } else if (*still == Still::gone) {
        v.kind = HeldVerdict::Kind::drop;
        v.polls = h.polls + 1;
      } else if (*still == Still::there) {
        v.polls = h.polls + 1;
        if (v.polls >= settings.after) v.kind = HeldVerdict::Kind::release;
      }
      verdicts_[{name, h.commit}] = v;
    }
  }
}

// A new change that undoes a held one found gone in this poll is the other half of the flip:
// recorded, never notified. The others are held, and said so.
void Notifier::drop_flips() {
  for (auto& [name, commits] : held_now_) {
    const SourceConfig* source = config_.find(name);
    if (!source) continue;
    const NotifySettings settings = notify_settings(config_, *source);
    for (const auto& [key, v] : verdicts_) {
      if (key.first != name || v.kind != HeldVerdict::Kind::drop) continue;
      // Named copies: clang 14 cannot capture structured bindings in a lambda (P1091, 16).
      const std::string& source_name = name;
      const std::string& dropped = key.second;
      std::erase_if(commits, [&](const std::string& c) {
        auto flip = notify_detail::undoes(archive_, dropped, c, source_name, settings);
        if (!flip || !*flip) return false;
        note(fmt::format("{}: {} changes back what {} changed: recorded, not notified", source_name,
                         c.substr(0, 7), dropped.substr(0, 7)));
        return true;
      });
    }
    for (const std::string& c : commits)
      note(fmt::format("{}: {} held: notified if still so after {} polls (after = {})", name,
                       c.substr(0, 7), settings.after, settings.after));
  }
}

bool Notifier::nothing_to_record(const State& peek) const {
  return fresh_.empty() && held_now_.empty() && verdicts_.empty() &&
         std::all_of(peek.sources.begin(), peek.sources.end(), [](const auto& s) {
           return s.second.pending_notifications.empty() && s.second.held_notifications.empty();
         });
}

// Pending first, durably: a hook that hangs or a feeddiff that is killed while hooks run
// loses no notification. The lock is held only while the state is read and written, not
// while hooks run, so a poll that starts meanwhile is not held up.
Status Notifier::record_pending() {
  auto lock = ArchiveLock::acquire(archive_, /*wait=*/true);
  if (!lock) return lock.error();
  auto state = load_state(archive_);
  if (!state) return state.error();
  bool dirty = false;
  for (auto& [name, st] : state->sources)
    if (settle_held(name, st)) dirty = true;
  if (hold_new(*state)) dirty = true;
  if (queue_fresh(*state)) dirty = true;
  for (const auto& [name, st] : state->sources)
    for (const auto& c : st.pending_notifications) deliveries_.push_back({name, c});
  if (dirty) return save_state(archive_, *state);
  return Ok{};
}

// Applies this poll's verdicts to a source's held changes: released into the pending list
// once they stayed, dropped (and said so) when a poll found them gone. A source whose hooks
// were removed from the config has nothing left to deliver to. Whether it changed the state.
bool Notifier::settle_held(const std::string& name, SourceState& st) {
  const SourceConfig* source = config_.find(name);
  if ((!source || !notify_settings(config_, *source).any()) &&
      (!st.pending_notifications.empty() || !st.held_notifications.empty())) {
    st.pending_notifications.clear();
    st.held_notifications.clear();
    st.notify_error.clear();
    return true;
  }
  bool dirty = false;
  std::vector<HeldNotification> kept;
  for (HeldNotification& h : st.held_notifications) {
    auto v = verdicts_.find({name, h.commit});
    if (v == verdicts_.end()) {
      kept.push_back(h);
      continue;
    }
    dirty = true;
    if (v->second.kind == HeldVerdict::Kind::release) {
      fresh_[name].push_back(h.commit);
      note(fmt::format("{}: {} still so after {} polls: notifying", name, h.commit.substr(0, 7),
                       v->second.polls));
    } else if (v->second.kind == HeldVerdict::Kind::drop) {
      st.notify_reverted =
          fmt::format("{} reverted after {} poll{} ({}), not notified", h.commit.substr(0, 7),
                      v->second.polls - 1, v->second.polls == 2 ? "" : "s",
                      format_iso8601_ms(options_.now ? options_.now : now_ms()));
      note(fmt::format("{}: {} reverted within {} polls: recorded, not notified", name,
                       h.commit.substr(0, 7), v->second.polls));
    } else {
      h.polls = v->second.polls;
      kept.push_back(h);
    }
  }
  st.held_notifications = std::move(kept);
  return dirty;
}

// The changes this poll holds join their sources' held lists (the oldest go past the bound).
bool Notifier::hold_new(State& state) const {
  for (const auto& [name, commits] : held_now_) {
    auto& held = state.sources[name].held_notifications;
    for (const auto& c : commits)
      if (std::none_of(held.begin(), held.end(),
                       [&](const HeldNotification& h) { return h.commit == c; }))
        held.push_back({c, 1});
    if (held.size() > kMaxPendingNotifications)
      held.erase(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(
                                                  held.size() - kMaxPendingNotifications));
  }
  return !held_now_.empty();
}

// The changes due now join their sources' pending lists; past the bound the oldest go, and
// that is said.
bool Notifier::queue_fresh(State& state) const {
  for (const auto& [name, commits] : fresh_) {
    auto& pending = state.sources[name].pending_notifications;
    for (const auto& c : commits)
      if (std::find(pending.begin(), pending.end(), c) == pending.end()) pending.push_back(c);
    if (pending.size() > kMaxPendingNotifications) {
      const std::size_t dropped = pending.size() - kMaxPendingNotifications;
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(dropped));
      problem(
          fmt::format("{}: notify: {} undelivered notifications dropped (at most {} are "
                      "kept; the oldest go first)",
                      name, dropped, kMaxPendingNotifications));
    }
  }
  return !fresh_.empty();
}

// Runs the pending deliveries, oldest first within each source. A hook runs only when this
// machine trusts its exact value: one that came with a clone, a sync or a pull, or was
// edited by hand, waits, and so do its notifications.
Status Notifier::deliver_all() {
  auto hooks = hook_values(archive_, config_);
  if (!hooks) return hooks.error();
  for (const Delivery& d : deliveries_) deliver(d, *hooks);
  return Ok{};
}

// Whether a hook of the source waits for trust: then none of them runs (a trusted exec run
// alone would run again once the webhook is trusted), and the delivery stays pending.
bool Notifier::waits_for_trust(const Delivery& d, const NotifySettings& settings,
                               const std::vector<HookValue>& hooks) {
  const auto untrusted = [&](const char* kind, const std::string& value) -> const HookValue* {
    if (value.empty()) return nullptr;
    for (const HookValue& h : hooks)
      if (h.kind == kind && h.value == value) return h.trusted ? nullptr : &h;
    return nullptr;
  };
  const HookValue* exec_waits = untrusted("exec", settings.exec);
  const HookValue* webhook_waits = untrusted("webhook", settings.webhook);
  if (!exec_waits && !webhook_waits) return false;
  for (const HookValue* h : {exec_waits, webhook_waits})
    if (h) waiting_[hook_label(*h)].insert(d.source);
  errors_[d.source] = "a hook waits for trust on this machine (see `feeddiff trust`)";
  ++report_.waiting;
  return true;
}

// The delivery's change as its hooks get it, rendered once per commit; nullptr when it cannot
// be read (said, and kept pending), or its commit is gone (said, and dropped).
const Rendered* Notifier::rendered_for(const Delivery& d, const NotifySettings& settings) {
  if (auto it = rendered_.find(d.commit); it != rendered_.end()) return &it->second;
  auto r = notify_detail::render_change(archive_, d.commit, d.source, settings);
  if (r) return &rendered_.emplace(d.commit, std::move(*r)).first->second;
  if (r.error().code == Errc::not_found) {
    // The commit left the history (a rewrite): there is nothing left to tell.
    problem(fmt::format("{}: notify: commit {} is gone, dropped: {}", d.source,
                        d.commit.substr(0, 7), r.error().message));
    dropped_.insert(d.commit);
  } else {
    ++report_.failures;
    errors_[d.source] = r.error().message;
    problem(fmt::format("{}: notify failed: {} (retried at the next poll)", d.source,
                        r.error().message));
  }
  return nullptr;
}

// Runs a delivery's hooks: exec, then webhook; delivered when both went through.
void Notifier::deliver(const Delivery& d, const std::vector<HookValue>& hooks) {
  const SourceConfig* source = config_.find(d.source);
  if (!source) return;
  const NotifySettings settings = notify_settings(config_, *source);
  if (waits_for_trust(d, settings, hooks)) return;
  const Rendered* rendered = rendered_for(d, settings);
  if (!rendered) return;
  const std::vector<std::pair<std::string, std::string>> env = {{"FEEDDIFF_COMMIT", d.commit},
                                                                {"FEEDDIFF_SOURCE", d.source},
                                                                {"FEEDDIFF_URL", source->url},
                                                                {"FEEDDIFF_KIND", rendered->kind}};
  bool ok = true;
  const auto attempt = [&](const char* kind, const HookRun& run) {
    if (run.ok) return;
    ok = false;
    ++report_.failures;
    errors_[d.source] = fmt::format("{}: {} (commit {})", kind, run.why, d.commit.substr(0, 7));
    problem(fmt::format("{}: notify failed: {}: {} (commit {}; retried at the next poll)", d.source,
                        kind, run.why, d.commit.substr(0, 7)));
  };
  if (!settings.exec.empty())
    attempt("exec", run_exec_hook(settings.exec, archive_.work_dir(), rendered->json, env,
                                  settings.timeout));
  if (!settings.webhook.empty())
    attempt("webhook", post_webhook(settings.webhook, rendered->json, settings.timeout,
                                    options_.connect_timeout));
  if (ok) delivered_.insert({d.source, d.commit});
}

// One line for every hook that waits for trust, and what to do about it.
void Notifier::report_waiting() {
  if (waiting_.empty()) return;
  std::string which;
  for (const auto& [label, sources] : waiting_) {
    std::string names;
    for (const auto& n : sources) names += (names.empty() ? "" : ", ") + n;
    which += fmt::format("{}{} (for {})", which.empty() ? "" : "; ", label, names);
  }
  ++report_.failures;
  const std::size_t held = report_.waiting;
  problem(fmt::format(
      "notify: not run, not trusted on this machine: {}; {} notification{} kept pending. A hook "
      "that came with a clone, a sync or a pull, or was edited by hand, runs only once you "
      "consent (as git's safe.directory): review it with `feeddiff trust`, then run `feeddiff "
      "trust --all`",
      which, held, held == 1 ? "" : "s"));
}

// What went through leaves the pending list; the state is read afresh, under the lock, so
// that whatever a poll recorded meanwhile is kept.
Status Notifier::clear_delivered() {
  auto lock = ArchiveLock::acquire(archive_, /*wait=*/true);
  if (!lock) return lock.error();
  auto state = load_state(archive_);
  if (!state) return state.error();
  std::set<std::string> attempted;
  for (const Delivery& d : deliveries_) attempted.insert(d.source);
  for (const std::string& name : attempted) {
    SourceState& st = state->sources[name];
    std::erase_if(st.pending_notifications, [&](const std::string& c) {
      return delivered_.contains({name, c}) || dropped_.contains(c);
    });
    auto e = errors_.find(name);
    st.notify_error = e == errors_.end() ? "" : e->second;
  }
  return save_state(archive_, *state);
}

}  // namespace

Result<NotifyReport> notify_changes(Archive& archive, const PollReport& report,
                                    const NotifyOptions& options, const NotifySinks& sinks) {
  auto config = load_config(archive);
  if (!config) return config.error();
  return Notifier(archive, *config, options, sinks).run(report);
}

}  // namespace feeddiff
