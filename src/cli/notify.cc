// [notify] hooks after a poll, and `poll --digest`.

#include "cli/notify.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "cli/command.h"
#include "cli/trust.h"
#include "feeddiff/changes.h"
#include "feeddiff/diff.h"
#include "feeddiff/fetch.h"
#include "feeddiff/normalize.h"
#include "feeddiff/process.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

// Items of one source the digest lists; the counts always cover them all.
constexpr std::size_t kDigestItems = 20;
// Characters of one value the digest shows.
constexpr std::size_t kDigestValueChars = 120;

}  // namespace

HookRun run_exec_hook(const std::string& command, const std::string& dir, const std::string& input,
                      const std::vector<std::pair<std::string, std::string>>& env, TimeMs timeout) {
  ChildRequest request;
  request.program = "/bin/sh";
  request.argv = {"/bin/sh", "-c", command};
  // In the archive, so that `feeddiff show "$FEEDDIFF_COMMIT"` works without -C.
  request.dir = dir;
  request.env = env;
  request.input = input;
  // The hook's stdout goes where feeddiff's diagnostics go: stdout is poll's report (and the
  // digest), which a hook's chatter must not interleave with.
  request.out = ChildStream::to_stderr;
  request.err = ChildStream::inherit;
  request.timeout_ms = timeout;
  auto run = run_child(request);
  if (!run) return {false, run.error().message};
  return {static_cast<bool>(*run), run->why};
}

// A webhook's secret is often its path or query (Slack's, Discord's, ?token=): messages name
// its scheme, host and port only.
std::string webhook_origin(const std::string& url) {
  const UrlParts parts = split_url(url);
  std::string out = std::string(parts.scheme) + "://" + std::string(parts.host);
  if (parts.port) out += ":" + std::string(*parts.port);
  return out;
}

HookRun post_webhook(const std::string& url, const std::string& json, TimeMs timeout,
                     TimeMs connect_timeout) {
  FetchRequest request;
  request.url = url;
  request.post_body = json;
  request.max_redirects = 0;  // a redirected POST is a misconfigured hook: say so
  request.max_body_bytes = std::size_t{1} << 20;
  request.total_timeout_ms = static_cast<long>(timeout);
  request.connect_timeout_ms = static_cast<long>(std::min(connect_timeout, timeout));
  const std::string origin = webhook_origin(url);
  if (auto ok = check_url(url); !ok) return {false, origin + ": not an http(s) URL"};
  auto response = fetch(request);
  if (!response) {
    // fetch's messages carry the URL without credentials, but with its path.
    std::string why = response.error().message;
    const std::string shown = redact_url(url);
    // The search goes on after the origin put in: a URL without a path is its own origin,
    // and searching from `at` would find it there again forever.
    for (auto at = why.find(shown); at != std::string::npos;
         at = why.find(shown, at + origin.size()))
      why.replace(at, shown.size(), origin);
    return {false, why};
  }
  if (response->status < 200 || response->status > 299)
    return {false, fmt::format("{}: HTTP {}", origin, response->status)};
  return {true, ""};
}

namespace {

// A needle found without case (ASCII letters) in time linear in the text searched
// (Knuth-Morris-Pratt): `match` runs over text a feed chooses, so no pattern engine that
// such text could make backtrack.
class Needle {
 public:
  explicit Needle(std::string_view needle) : lower_(to_lower(needle)), fail_(lower_.size(), 0) {
    for (std::size_t i = 1, k = 0; i < lower_.size(); ++i) {
      while (k > 0 && lower_[i] != lower_[k]) k = fail_[k - 1];
      if (lower_[i] == lower_[k]) ++k;
      fail_[i] = k;
    }
  }
  bool in(std::string_view text) const {
    if (lower_.empty()) return true;
    std::size_t k = 0;
    for (const char raw : text) {
      const char c = (raw >= 'A' && raw <= 'Z') ? static_cast<char>(raw - 'A' + 'a') : raw;
      while (k > 0 && c != lower_[k]) k = fail_[k - 1];
      if (c == lower_[k] && ++k == lower_.size()) return true;
    }
    return false;
  }

 private:
  std::string lower_;
  std::vector<std::size_t> fail_;
};

// The item model of a version; nullopt when it does not parse.
std::optional<Feed> feed_of(std::string_view bytes) {
  NormalizeOptions options;
  options.text = false;
  auto doc = normalize(bytes, options);
  if (!doc) return std::nullopt;
  return std::move(doc->feed);
}

// A feed's items by id (the first of a repeated id), hashed with diff's keyed hash: ids are
// chosen by the feed.
using ItemsById = std::unordered_map<std::string_view, const Item*, TextHash, std::equal_to<>>;
ItemsById items_by_id(const std::optional<Feed>& feed) {
  ItemsById out;
  if (feed)
    for (const Item& item : feed->items) out.try_emplace(item.id, &item);
  return out;
}

// An item change a notification rests on: what a later poll checks is still so.
struct Selected {
  std::string kind;                 // a kNotifyKinds word
  std::string id;                   // the item's identity
  std::vector<std::string> fields;  // for "changed": the fields the rules care about
};

// The kNotifyKinds word of an item change: a removal is "aged_out" or "removed".
std::string kind_word(const ItemChange& c) {
  if (c.kind == ItemChange::Kind::removed && c.aged_out) return "aged_out";
  return item_kind_name(c.kind);
}

bool listed(const std::vector<std::string>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// What the rules make of a loaded change: whether it notifies, and the item changes it
// rests on (all of them, minor ones only when `minor = true`, when no rule narrows them).
struct Verdict {
  bool notify = false;
  std::vector<Selected> selected;
};

Verdict judge(const LoadedChange& change, const NotifySettings& settings) {
  Verdict out;
  const ChangeView& view = change.view;
  if (!view.items) {
    // No item summary (a version does not parse): news for a hook that takes every change,
    // nothing for one that asked for certain items.
    out.notify = !settings.selects_items();
    return out;
  }
  const ItemDiff& items = *view.items;
  // A first version is news however it reads; after that, a change whose items say nothing
  // happened but volatile fields (or formatting) is cosmetic.
  const bool modified = view.path_status == "modified";
  if (modified && (items.cosmetic_only || items.empty()) && !settings.cosmetic) return out;
  if (modified && items.minor && !settings.minor) return out;
  // `fields` alone asks about edits: added or removed items do not carry a field change.
  std::vector<std::string> kinds = settings.kinds;
  if (kinds.empty() && !settings.fields.empty()) kinds = {"changed"};
  std::vector<Needle> needles;
  for (const std::string& m : settings.match) needles.emplace_back(m);
  std::optional<Feed> old_feed, new_feed;
  ItemsById old_items, new_items;
  if (!needles.empty()) {
    old_feed = feed_of(change.old_body);
    new_feed = feed_of(change.new_body);
    old_items = items_by_id(old_feed);
    new_items = items_by_id(new_feed);
  }
  const auto matches = [&](const ItemChange& c) {
    if (needles.empty()) return true;
    // The text a reader sees: the title, then summary and content with markup stripped, of
    // the item as it is now (as it was, for a removal).
    std::vector<std::string> texts = {c.title};
    const ItemsById& by_id = c.kind == ItemChange::Kind::removed ? old_items : new_items;
    if (auto it = by_id.find(std::string_view(c.id)); it != by_id.end()) {
      texts.push_back(readable_text(it->second->summary));
      texts.push_back(readable_text(it->second->content));
    }
    for (const Needle& n : needles)
      for (const std::string& t : texts)
        if (n.in(t)) return true;
    return false;
  };
  for (const ItemChange& c : items.items) {
    if (c.minor && !settings.minor) continue;
    const std::string word = kind_word(c);
    if (!kinds.empty() && !listed(kinds, word)) continue;
    Selected s{word, c.id, {}};
    if (c.kind == ItemChange::Kind::changed) {
      for (const std::string& f : c.fields)
        if (settings.fields.empty() || listed(settings.fields, f)) s.fields.push_back(f);
      if (s.fields.empty()) continue;
    }
    if (!matches(c)) continue;
    out.selected.push_back(std::move(s));
  }
  out.notify = settings.selects_items() ? !out.selected.empty() : true;
  return out;
}

// Whether a commit only records a response that is not a feed (raw/NAME/not-a-feed), or
// only takes that record away when the feed came back unchanged: neither is an item change.
bool not_a_feed_commit(const Archive& archive, const LoadedChange& change,
                       const std::string& source) {
  if (const std::string* cls = change.commit.trailer("Change-Class"))
    if (*cls == "not-a-feed" || *cls == "restored") return true;
  auto paths = archive.source_changes(change.commit.id, source);
  if (!paths || paths->empty()) return false;
  return std::all_of(paths->begin(), paths->end(),
                     [](const PathChange& p) { return p.path.ends_with("/not-a-feed"); });
}

// A loaded change and its JSON, for the hooks of one commit.
struct Rendered {
  bool notify = false;  // the rules pick it
  std::string json;     // exactly what `show --format json COMMIT` prints
};

Result<Rendered> render_change(const Archive& archive, const std::string& commit,
                               const std::string& source, const NotifySettings& settings) {
  auto change = load_change(archive, {.revision = commit, .source = source});
  if (!change) return change.error();
  Rendered out;
  if (!not_a_feed_commit(archive, **change, source)) out.notify = judge(**change, settings).notify;
  out.json = render_json((*change)->view, RenderOptions{});
  return out;
}

// What a later poll finds of a held change.
enum class Still { there, gone, unknown };

// Whether the change a commit made, as the rules select it, is still in the source's version
// at HEAD: an added (or reappeared, changed, moved) item is still in the feed, a removed one
// still out of it, and a changed item's selected fields have not changed since (a value
// changed back, or changed again, is gone: a newer change waits on its own). A change that
// selects no item (a channel field) is gone only when HEAD's body is byte for byte the one
// before it. `unknown` when HEAD holds a response that is not a feed, or a version that does
// not parse: that poll tells nothing either way.
Result<Still> still_there(const Archive& archive, const std::string& commit,
                          const std::string& source, const NotifySettings& settings) {
  auto change = load_change(archive, {.revision = commit, .source = source});
  if (!change) return change.error();
  const LoadedChange& c = **change;
  auto head = archive.resolve("HEAD");
  if (!head) return head.error();
  auto dir = archive.source_dir_at(head->id, source);
  if (!dir) return dir.error();
  auto interloper = archive.blob_id(head->id, *dir + "not-a-feed");
  if (!interloper) return interloper.error();
  if (*interloper) return Still::unknown;
  const std::string file = c.view.path.substr(c.view.path.rfind('/') + 1);
  auto blob = archive.blob_id(head->id, *dir + file);
  if (!blob) return blob.error();
  if (!*blob) return Still::gone;  // the source was removed
  auto now = archive.read_blob(**blob);
  if (!now) return now.error();
  const std::string_view now_bytes = *now;
  if (now_bytes == std::string_view(c.new_body)) return Still::there;
  if (now_bytes == std::string_view(c.old_body)) return Still::gone;
  const Verdict verdict = judge(c, settings);
  if (verdict.selected.empty()) return Still::there;
  auto then = feed_of(c.new_body);
  auto current = feed_of(now_bytes);
  if (!then || !current) return Still::unknown;
  const ItemDiff since = diff_items(*then, *current, feed_rules(archive, head->id, source).ignore,
                                    /*field_values=*/false);
  std::set<std::string> added, removed;
  std::map<std::string, std::vector<std::string>> edited;
  for (const ItemChange& i : since.items) {
    if (i.kind == ItemChange::Kind::added) added.insert(i.id);
    if (i.kind == ItemChange::Kind::removed) removed.insert(i.id);
    if (i.kind == ItemChange::Kind::changed) edited[i.id] = i.fields;
  }
  for (const Selected& s : verdict.selected) {
    if (s.kind == "removed" || s.kind == "aged_out") {
      if (!added.contains(s.id)) return Still::there;
      continue;
    }
    if (removed.contains(s.id)) continue;
    const auto e = edited.find(s.id);
    const bool edited_since = e != edited.end() && std::any_of(s.fields.begin(), s.fields.end(),
                                                               [&](const std::string& f) {
                                                                 return listed(e->second, f);
                                                               });
    if (!edited_since) return Still::there;
  }
  return Still::gone;
}

// Whether a new change undoes a held one that a poll found gone: the flip back of A-B-A.
// It is measured from the version before the held change (not from its own parent, the
// flip): when the rules select nothing from there to its version, nothing was notified and
// nothing is news. A version that went on elsewhere (A-B-C) is news, and is held on its own.
Result<bool> undoes(const Archive& archive, const std::string& held, const std::string& fresh,
                    const std::string& source, const NotifySettings& settings) {
  auto before = load_change(archive, {.revision = held, .source = source});
  if (!before) return before.error();
  auto after = load_change(archive, {.revision = fresh, .source = source});
  if (!after) return after.error();
  if (std::string_view((*before)->old_body) == std::string_view((*after)->new_body)) return true;
  auto old_feed = feed_of((*before)->old_body);
  auto new_feed = feed_of((*after)->new_body);
  if (!old_feed || !new_feed) return false;
  const FeedRules rules = feed_rules(archive, fresh, source);
  LoadedChange net;
  net.old_body = (*before)->old_body;
  net.new_body = (*after)->new_body;
  net.view.path_status = (*before)->view.path_status;
  net.view.items = diff_items(*old_feed, *new_feed, rules.ignore, true, rules.insignificant);
  return !judge(net, settings).notify;
}

void report_line(const std::string& line) {
  const std::string out = escape_terminal(line) + "\n";
  std::fputs(out.c_str(), stderr);
}

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

}  // namespace

Result<std::size_t> notify_changes(Archive& archive, const PollReport& report,
                                   TimeMs connect_timeout, bool quiet) {
  auto config = load_config(archive);
  if (!config) return config.error();
  const auto say = [quiet](const std::string& line) {
    if (!quiet) write_out(escape_terminal(line) + "\n");
  };

  // The new commits whose hooks are due: those the rules pick (cosmetic-only and minor
  // changes left out unless asked), at once, or held when `after` asks to wait.
  std::map<std::string, std::vector<std::string>> fresh;
  std::map<std::string, std::vector<std::string>> held_now;  // source -> commits, oldest first
  std::map<std::string, Rendered> rendered;
  std::set<std::string> seen;  // sources this poll fetched
  for (const SourceOutcome& o : report.sources) {
    if (observed(o.outcome)) seen.insert(o.name);
    if (o.commit.empty() || (o.outcome != Outcome::added && o.outcome != Outcome::changed))
      continue;
    const SourceConfig* source = config->find(o.name);
    if (!source) continue;
    const NotifySettings settings = notify_settings(*config, *source);
    if (!settings.any()) continue;
    auto r = render_change(archive, o.commit, o.name, settings);
    if (!r) {
      // Kept pending: the next poll tries again to read it.
      fresh[o.name].push_back(o.commit);
      continue;
    }
    if (!r->notify) continue;
    if (settings.after > 1) {
      held_now[o.name].push_back(o.commit);
      continue;
    }
    fresh[o.name].push_back(o.commit);
    rendered.emplace(o.commit, std::move(*r));
  }

  // Changes held by earlier polls: each poll that looked at the source counts, and checks
  // that the change is still there. Judged before the lock is taken (it reads and parses
  // versions); the verdicts are applied to the state read afresh under the lock.
  std::map<std::pair<std::string, std::string>, HeldVerdict> verdicts;
  auto peek = load_state(archive);
  if (!peek) return peek.error();
  for (const auto& [name, st] : peek->sources) {
    if (st.held_notifications.empty() || !seen.contains(name)) continue;
    const SourceConfig* source = config->find(name);
    if (!source) continue;
    const NotifySettings settings = notify_settings(*config, *source);
    for (const HeldNotification& h : st.held_notifications) {
      auto still = still_there(archive, h.commit, name, settings);
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
      verdicts[{name, h.commit}] = v;
    }
  }

  // A new change that undoes a held one found gone in this poll is the other half of the
  // flip: recorded, never notified.
  for (auto& [name, commits] : held_now) {
    const SourceConfig* source = config->find(name);
    if (!source) continue;
    const NotifySettings settings = notify_settings(*config, *source);
    for (const auto& [key, v] : verdicts) {
      if (key.first != name || v.kind != HeldVerdict::Kind::drop) continue;
      // Named copies: clang 14 cannot capture structured bindings in a lambda (P1091, 16).
      const std::string& source_name = name;
      const std::string& dropped = key.second;
      std::erase_if(commits, [&](const std::string& c) {
        auto flip = undoes(archive, dropped, c, source_name, settings);
        if (!flip || !*flip) return false;
        say(fmt::format("{}: {} changes back what {} changed: recorded, not notified", source_name,
                        c.substr(0, 7), dropped.substr(0, 7)));
        return true;
      });
    }
    for (const std::string& c : commits)
      say(fmt::format("{}: {} held: notified if still so after {} polls (after = {})", name,
                      c.substr(0, 7), settings.after, settings.after));
  }

  // Pending first, durably: a hook that hangs or a feeddiff that is killed while hooks run
  // loses no notification. The lock is held only while the state is read and written, not
  // while hooks run, so a poll that starts meanwhile is not held up.
  std::vector<Delivery> deliveries;
  {
    // Nothing new, nothing held and nothing pending (an archive without hooks): no lock, no
    // write.
    if (fresh.empty() && held_now.empty() && verdicts.empty() &&
        std::all_of(peek->sources.begin(), peek->sources.end(), [](const auto& s) {
          return s.second.pending_notifications.empty() && s.second.held_notifications.empty();
        }))
      return std::size_t{0};
    auto lock = ArchiveLock::acquire(archive, /*wait=*/true);
    if (!lock) return lock.error();
    auto state = load_state(archive);
    if (!state) return state.error();
    bool dirty = false;
    for (auto& [name, st] : state->sources) {
      const SourceConfig* source = config->find(name);
      if ((!source || !notify_settings(*config, *source).any()) &&
          (!st.pending_notifications.empty() || !st.held_notifications.empty())) {
        // Its hooks were removed from the config: nothing is left to deliver to.
        st.pending_notifications.clear();
        st.held_notifications.clear();
        st.notify_error.clear();
        dirty = true;
        continue;
      }
      // Held changes: released into the pending list once they stayed, dropped (and said so)
      // when a poll found them gone.
      std::vector<HeldNotification> kept;
      for (HeldNotification& h : st.held_notifications) {
        auto v = verdicts.find({name, h.commit});
        if (v == verdicts.end()) {
          kept.push_back(h);
          continue;
        }
        dirty = true;
        if (v->second.kind == HeldVerdict::Kind::release) {
          fresh[name].push_back(h.commit);
          say(fmt::format("{}: {} still so after {} polls: notifying", name, h.commit.substr(0, 7),
                          v->second.polls));
        } else if (v->second.kind == HeldVerdict::Kind::drop) {
          auto now = current_time();
          st.notify_reverted =
              fmt::format("{} reverted after {} poll{} ({}), not notified", h.commit.substr(0, 7),
                          v->second.polls - 1, v->second.polls == 2 ? "" : "s",
                          format_iso8601_ms(now ? *now : now_ms()));
          say(fmt::format("{}: {} reverted within {} polls: recorded, not notified", name,
                          h.commit.substr(0, 7), v->second.polls));
        } else {
          h.polls = v->second.polls;
          kept.push_back(h);
        }
      }
      st.held_notifications = std::move(kept);
    }
    for (auto& [name, commits] : held_now) {
      auto& held = state->sources[name].held_notifications;
      for (const auto& c : commits)
        if (std::none_of(held.begin(), held.end(),
                         [&](const HeldNotification& h) { return h.commit == c; }))
          held.push_back({c, 1});
      if (held.size() > kMaxPendingNotifications)
        held.erase(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(
                                                    held.size() - kMaxPendingNotifications));
      dirty = true;
    }
    for (auto& [name, commits] : fresh) {
      auto& pending = state->sources[name].pending_notifications;
      for (const auto& c : commits)
        if (std::find(pending.begin(), pending.end(), c) == pending.end()) pending.push_back(c);
      if (pending.size() > kMaxPendingNotifications) {
        const std::size_t dropped = pending.size() - kMaxPendingNotifications;
        pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(dropped));
        report_line(
            fmt::format("{}: notify: {} undelivered notifications dropped (at most {} "
                        "are kept; the oldest go first)",
                        name, dropped, kMaxPendingNotifications));
      }
      dirty = true;
    }
    for (const auto& [name, st] : state->sources)
      for (const auto& c : st.pending_notifications) deliveries.push_back({name, c});
    if (dirty)
      if (auto ok = save_state(archive, *state); !ok) return ok.error();
  }
  if (deliveries.empty()) return std::size_t{0};

  // A hook runs only when this machine trusts its exact value (cli/trust.h): one that came
  // with a clone, a sync or a pull, or was edited by hand, waits, and so do its notifications.
  auto hooks = hook_values(archive, *config);
  if (!hooks) return hooks.error();
  std::map<std::string, std::set<std::string>> waiting;  // label -> its sources
  std::size_t held = 0;
  const auto untrusted = [&](const char* kind, const std::string& value) -> const HookValue* {
    if (value.empty()) return nullptr;
    for (const HookValue& h : *hooks)
      if (h.kind == kind && h.value == value) return h.trusted ? nullptr : &h;
    return nullptr;
  };

  // Run them, oldest first within each source.
  std::set<std::pair<std::string, std::string>> delivered;
  std::map<std::string, std::string> errors;  // source -> its last failure
  std::set<std::string> dropped;              // commits that no longer resolve
  std::size_t failures = 0;
  for (const Delivery& d : deliveries) {
    const SourceConfig* source = config->find(d.source);
    if (!source) continue;
    const NotifySettings settings = notify_settings(*config, *source);
    // Every hook of the source trusted, or none of them runs: a trusted exec run alone would
    // run again once the webhook is trusted.
    const HookValue* exec_waits = untrusted("exec", settings.exec);
    const HookValue* webhook_waits = untrusted("webhook", settings.webhook);
    if (exec_waits || webhook_waits) {
      for (const HookValue* h : {exec_waits, webhook_waits})
        if (h) waiting[hook_label(*h)].insert(d.source);
      errors[d.source] = "a hook waits for trust on this machine (see `feeddiff trust`)";
      ++held;
      continue;
    }
    auto it = rendered.find(d.commit);
    if (it == rendered.end()) {
      auto r = render_change(archive, d.commit, d.source, settings);
      if (!r) {
        if (r.error().code == Errc::not_found) {
          // The commit left the history (a rewrite): there is nothing left to tell.
          report_line(fmt::format("{}: notify: commit {} is gone, dropped: {}", d.source,
                                  d.commit.substr(0, 7), r.error().message));
          dropped.insert(d.commit);
        } else {
          ++failures;
          errors[d.source] = r.error().message;
          report_line(fmt::format("{}: notify failed: {} (retried at the next poll)", d.source,
                                  r.error().message));
        }
        continue;
      }
      it = rendered.emplace(d.commit, std::move(*r)).first;
    }
    const std::vector<std::pair<std::string, std::string>> env = {{"FEEDDIFF_COMMIT", d.commit},
                                                                  {"FEEDDIFF_SOURCE", d.source},
                                                                  {"FEEDDIFF_URL", source->url}};
    bool ok = true;
    auto attempt = [&](const char* kind, const HookRun& run) {
      if (run.ok) return;
      ok = false;
      ++failures;
      errors[d.source] = fmt::format("{}: {} (commit {})", kind, run.why, d.commit.substr(0, 7));
      report_line(fmt::format("{}: notify failed: {}: {} (commit {}; retried at the next poll)",
                              d.source, kind, run.why, d.commit.substr(0, 7)));
    };
    if (!settings.exec.empty())
      attempt("exec", run_exec_hook(settings.exec, archive.work_dir(), it->second.json, env,
                                    settings.timeout));
    if (!settings.webhook.empty())
      attempt("webhook",
              post_webhook(settings.webhook, it->second.json, settings.timeout, connect_timeout));
    if (ok) delivered.insert({d.source, d.commit});
  }

  if (!waiting.empty()) {
    std::string which;
    for (const auto& [label, sources] : waiting) {
      std::string names;
      for (const auto& n : sources) names += (names.empty() ? "" : ", ") + n;
      which += fmt::format("{}{} (for {})", which.empty() ? "" : "; ", label, names);
    }
    ++failures;
    report_line(fmt::format(
        "notify: not run, not trusted on this machine: {}; {} notification{} kept pending. A hook "
        "that came with a clone, a sync or a pull, or was edited by hand, runs only once you "
        "consent (as git's safe.directory): review it with `feeddiff trust`, then run `feeddiff "
        "trust --all`",
        which, held, held == 1 ? "" : "s"));
  }

  // What went through leaves the pending list; the state is read afresh, under the lock, so
  // that whatever a poll recorded meanwhile is kept.
  auto lock = ArchiveLock::acquire(archive, /*wait=*/true);
  if (!lock) return lock.error();
  auto state = load_state(archive);
  if (!state) return state.error();
  std::set<std::string> attempted;
  for (const Delivery& d : deliveries) attempted.insert(d.source);
  for (const std::string& name : attempted) {
    SourceState& st = state->sources[name];
    std::erase_if(st.pending_notifications, [&](const std::string& c) {
      return delivered.contains({name, c}) || dropped.contains(c);
    });
    auto e = errors.find(name);
    st.notify_error = e == errors.end() ? "" : e->second;
  }
  if (auto ok = save_state(archive, *state); !ok) return ok.error();
  return failures;
}

namespace {

// Feed text, cut short and escaped for a terminal (a newline in a title stays `\x0a`).
std::string shorten(std::string_view text) {
  bool cut = false;
  std::string out = escape_terminal(cut_chars(text, kDigestValueChars, &cut));
  if (cut) out += "...";
  return out;
}

std::string item_label(const ItemChange& item) {
  if (!item.title.empty()) return shorten(item.title);
  if (!item.id.empty()) return shorten(item.id);
  return "(untitled)";
}

}  // namespace

std::string poll_digest(const Archive& archive, const PollReport& report) {
  std::string out;
  std::size_t sources = 0;
  for (const SourceOutcome& o : report.sources) {
    if (o.commit.empty() || (o.outcome != Outcome::added && o.outcome != Outcome::changed))
      continue;
    ++sources;
    std::string section;
    auto change = load_change(archive, {.revision = o.commit, .source = o.name});
    // Source names are safe path components (check_source_name): no escaping needed.
    const std::string head =
        fmt::format("{} ({}, commit {})", o.name, outcome_name(o.outcome), o.commit.substr(0, 7));
    if (!change) {
      section = fmt::format("{}: {}\n", head, shorten(change.error().message));
    } else if (!(*change)->view.items) {
      const std::string& note = (*change)->view.items_note;
      section = fmt::format("{}: {}\n", head, note.empty() ? "no item summary" : shorten(note));
    } else {
      const ItemDiff& items = *(*change)->view.items;
      section = fmt::format("{}: {}\n", head, escape_terminal(summarize_items(items)));
      std::size_t shown = 0;
      for (const ItemChange& item : items.items) {
        if (item.kind == ItemChange::Kind::moved) continue;
        if (shown++ == kDigestItems) break;
        switch (item.kind) {
          case ItemChange::Kind::added:
            section += fmt::format("  added    {}\n", item_label(item));
            break;
          case ItemChange::Kind::removed:
            section += fmt::format("  {:<8} {}\n", item_change_word(item), item_label(item));
            break;
          case ItemChange::Kind::reappeared:
            section += fmt::format("  reappeared {}\n", item_label(item));
            break;
          case ItemChange::Kind::duplicate:
            section += fmt::format("  duplicate {}\n", item_label(item));
            break;
          default: {
            std::string fields;
            for (const auto& f : item.fields) fields += (fields.empty() ? "" : ", ") + shorten(f);
            section += fmt::format("  changed  {} ({})\n", item_label(item), fields);
            for (const FieldChange& c : item.changes) {
              if (c.text) {
                // The word diff as `show` writes it without colour: [-removed-]{+added+}.
                std::string words;
                for (const WordRun& run : c.words.runs) {
                  if (run.skipped) words += "... ";
                  if (run.kind == WordRun::Kind::added)
                    words += "{+" + run.text + "+}";
                  else if (run.kind == WordRun::Kind::removed)
                    words += "[-" + run.text + "-]";
                  else
                    words += run.text;
                }
                section += fmt::format("           {}: {}\n", shorten(c.field), shorten(words));
              } else {
                section += fmt::format("           {}: {} -> {}\n", shorten(c.field),
                                       shorten(c.old_value), shorten(c.new_value));
              }
            }
          }
        }
      }
      const std::size_t listed = static_cast<std::size_t>(
          std::count_if(items.items.begin(), items.items.end(),
                        [](const auto& i) { return i.kind != ItemChange::Kind::moved; }));
      if (listed > kDigestItems)
        section += fmt::format("  ... and {} more\n", listed - kDigestItems);
    }
    out += "\n" + section;
  }
  if (!sources) return "";
  return fmt::format("feeddiff: {} source{} changed\n", sources, sources == 1 ? "" : "s") + out;
}

}  // namespace feeddiff::cli
