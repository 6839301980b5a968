// [notify] hooks after a poll, and `poll --digest`.

#include "cli/notify.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "cli/change.h"
#include "cli/trust.h"
#include "feeddiff/fetch.h"
#include "feeddiff/render.h"

extern char** environ;

namespace feeddiff::cli {

namespace {

using Clock = std::chrono::steady_clock;

// How often a running hook is looked at while it has nothing to be written to it.
constexpr int kTickMs = 20;
// Items of one source the digest lists; the counts always cover them all.
constexpr std::size_t kDigestItems = 20;
// Characters of one value the digest shows.
constexpr std::size_t kDigestValueChars = 120;

// Writes to a pipe whose reader is gone raise SIGPIPE, which would end feeddiff. Blocked on
// this thread while a hook is fed; a SIGPIPE raised meanwhile is taken off the pending set
// before the mask is restored, so it is never delivered.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) == 1 && sigismember(&old_, SIGPIPE) != 1) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
};

std::string exit_reason(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "ended abnormally";
}

// The environment a hook sees: feeddiff's, with `extra` set (replacing any of those names).
std::vector<std::string> hook_environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(extra.begin(), extra.end(), [&](const auto& kv) {
      return entry.size() > kv.first.size() && entry.starts_with(kv.first) &&
             entry[kv.first.size()] == '=';
    });
    if (!replaced) out.emplace_back(entry);
  }
  for (const auto& [name, value] : extra) out.push_back(name + "=" + value);
  return out;
}

}  // namespace

HookRun run_exec_hook(const std::string& command, const std::string& dir, const std::string& input,
                      const std::vector<std::pair<std::string, std::string>>& env, TimeMs timeout) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return {false, fmt::format("cannot make a pipe: {}", std::strerror(errno))};
  const int read_end = fds[0];
  int write_end = fds[1];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, read_end, STDIN_FILENO);
  // The hook's stdout goes where feeddiff's diagnostics go: stdout is poll's report (and the
  // digest), which a hook's chatter must not interleave with.
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  // In the archive, so that `feeddiff show "$FEEDDIFF_COMMIT"` works without -C.
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own, so that the timeout kills what the shell started too; default
  // SIGPIPE and an empty mask, whatever feeddiff's are.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> env_strings = hook_environment(env);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string shell = "/bin/sh", dash_c = "-c", script = command;
  char* argv[] = {shell.data(), dash_c.data(), script.data(), nullptr};

  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(read_end);
  if (spawned != 0) {
    ::close(write_end);
    return {false, fmt::format("cannot run /bin/sh: {}", std::strerror(spawned))};
  }
  ::fcntl(write_end, F_SETFL, ::fcntl(write_end, F_GETFL) | O_NONBLOCK);

  const SigpipeBlocked blocked;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout);
  std::size_t written = 0;
  if (input.empty()) {
    ::close(write_end);
    write_end = -1;
  }
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      if (write_end >= 0) ::close(write_end);
      return {false, fmt::format("lost the hook: {}", std::strerror(errno))};
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      if (write_end >= 0) ::close(write_end);
      return {false, fmt::format("timed out after {}, killed", format_duration(timeout))};
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const int wait_ms = static_cast<int>(std::clamp<long long>(left, 1, kTickMs));
    pollfd p{write_end, POLLOUT, 0};
    // With nothing to write, poll on no descriptor: a sleep of one tick.
    ::poll(&p, write_end >= 0 ? 1 : 0, wait_ms);
    if (write_end >= 0 && p.revents != 0) {
      const ssize_t n = ::write(write_end, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      // A hook that closed its stdin (or never reads it) is not fed more.
      const bool gave_up = n < 0 && errno != EAGAIN && errno != EINTR;
      if (gave_up || written == input.size()) {
        ::close(write_end);
        write_end = -1;
      }
    }
  }
  if (write_end >= 0) ::close(write_end);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {true, ""};
  return {false, exit_reason(status)};
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

// A loaded change and its JSON, for the hooks of one commit.
struct Rendered {
  bool cosmetic = false;  // nothing but volatile or ignored parts changed
  bool minor = false;     // every change matched an insignificant rule
  std::string json;       // exactly what `show --format json COMMIT` prints
};

Result<Rendered> render_change(const Archive& archive, const std::string& commit,
                               const std::string& source) {
  auto change = load_change(archive, commit, source);
  if (!change) return change.error();
  Rendered out;
  const ChangeView& view = (*change)->view;
  // A first version is news however it reads; after that, a change whose items say nothing
  // happened but volatile fields (or formatting) is cosmetic.
  if (view.path_status == "modified" && view.items)
    out.cosmetic = view.items->cosmetic_only || view.items->empty();
  if (view.path_status == "modified" && view.items) out.minor = view.items->minor;
  out.json = render_json(view, RenderOptions{});
  return out;
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

}  // namespace

Result<std::size_t> notify_changes(Archive& archive, const PollReport& report,
                                   TimeMs connect_timeout) {
  auto config = load_config(archive);
  if (!config) return config.error();

  // The new commits whose hooks are due (cosmetic-only and minor changes left out unless
  // asked).
  std::map<std::string, std::vector<std::string>> fresh;
  std::map<std::string, Rendered> rendered;
  for (const SourceOutcome& o : report.sources) {
    if (o.commit.empty() || (o.outcome != Outcome::added && o.outcome != Outcome::changed))
      continue;
    const SourceConfig* source = config->find(o.name);
    if (!source) continue;
    const NotifySettings settings = notify_settings(*config, *source);
    if (!settings.any()) continue;
    auto r = render_change(archive, o.commit, o.name);
    if (!r) {
      // Kept pending: the next poll tries again to read it.
      fresh[o.name].push_back(o.commit);
      continue;
    }
    if (r->cosmetic && !settings.cosmetic) continue;
    if (r->minor && !settings.minor) continue;
    fresh[o.name].push_back(o.commit);
    rendered.emplace(o.commit, std::move(*r));
  }

  // Pending first, durably: a hook that hangs or a feeddiff that is killed while hooks run
  // loses no notification. The lock is held only while the state is read and written, not
  // while hooks run, so a poll that starts meanwhile is not held up.
  std::vector<Delivery> deliveries;
  {
    // Nothing new and nothing pending (an archive without hooks): no lock, no write.
    if (fresh.empty()) {
      auto peek = load_state(archive);
      if (!peek) return peek.error();
      if (std::all_of(peek->sources.begin(), peek->sources.end(),
                      [](const auto& s) { return s.second.pending_notifications.empty(); }))
        return std::size_t{0};
    }
    auto lock = ArchiveLock::acquire(archive, /*wait=*/true);
    if (!lock) return lock.error();
    auto state = load_state(archive);
    if (!state) return state.error();
    bool dirty = false;
    for (auto& [name, st] : state->sources) {
      const SourceConfig* source = config->find(name);
      if ((!source || !notify_settings(*config, *source).any()) &&
          !st.pending_notifications.empty()) {
        // Its hooks were removed from the config: nothing is left to deliver to.
        st.pending_notifications.clear();
        st.notify_error.clear();
        dirty = true;
      }
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
      auto r = render_change(archive, d.commit, d.source);
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
    auto change = load_change(archive, o.commit, o.name);
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
            section += fmt::format("  removed  {}\n", item_label(item));
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
