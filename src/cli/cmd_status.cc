// feeddiff status [NAME...] [--json]: where each source stands between polls.

#include <fmt/format.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "feeddiff/render.h"
#include "feeddiff/status.h"

namespace feeddiff::cli {

namespace {

struct StatusFlags {
  StatusRequest request;
  bool json = false;
};

// "5m", "2h5m", "3d4h": the two leading units are enough to read a schedule.
std::string rough(TimeMs ms) {
  std::string exact = format_duration(std::max<TimeMs>(ms, 0));
  int units = 0;
  std::string out;
  for (char c : exact) {
    out += c;
    if (std::isalpha(static_cast<unsigned char>(c)) && ++units == 2) break;
  }
  return out;
}

std::string ago(TimeMs then, TimeMs now) {
  if (now - then < 1000) return "just now";
  return rough(now - then) + " ago";
}

// A moment to the second, UTC: `2026-12-05T10:00:00Z`.
std::string when(TimeMs t) {
  std::string iso = format_iso8601_ms(t);
  if (const auto dot = iso.find('.'); dot != std::string::npos) iso = iso.substr(0, dot) + "Z";
  return iso;
}

// A permanent redirect seen: how far it is from being adopted.
void add_redirect_part(const SourceState& st, bool config_dirty, std::vector<std::string>& parts) {
  if (!st.pending_redirect.empty() && st.pending_redirect_count >= kAdoptRedirectAfter)
    parts.push_back(fmt::format(
        "permanent redirect to {} seen {} polls in a row, {}", st.pending_redirect,
        st.pending_redirect_count,
        config_dirty
            ? "not adopted while feeddiff.toml has uncommitted changes (commit or undo them)"
            : "adopted by the next poll that sees it"));
  else if (!st.pending_redirect.empty())
    parts.push_back(fmt::format("permanent redirect to {} seen {} of {} polls before it is adopted",
                                st.pending_redirect, st.pending_redirect_count,
                                kAdoptRedirectAfter));
}

// What waits to notify: hooks not trusted here, changes held by `after`, the last that
// reverted, hooks failing, notifications not delivered yet.
void add_notify_parts(const SourceState& st, const Withheld& held,
                      std::vector<std::string>& parts) {
  if (!held.hooks.empty()) {
    std::string kinds;
    for (const auto& k : held.hooks) kinds += (kinds.empty() ? "" : " and ") + k;
    std::string hook = fmt::format("{} hook{} not trusted on this machine, not run", kinds,
                                   held.hooks.size() == 1 ? "" : "s");
    if (!st.pending_notifications.empty())
      hook += fmt::format(" ({} notification{} kept)", st.pending_notifications.size(),
                          st.pending_notifications.size() == 1 ? "" : "s");
    parts.push_back(hook + ": see `feeddiff trust`");
  }
  if (!st.held_notifications.empty())
    parts.push_back(fmt::format("{} change{} held by notify's `after` (notified once {} still so)",
                                st.held_notifications.size(),
                                st.held_notifications.size() == 1 ? "" : "s",
                                st.held_notifications.size() == 1 ? "it is" : "they are"));
  if (!st.notify_reverted.empty()) parts.push_back("last held change " + st.notify_reverted);
  // Hooks that failed are retried by every poll until they succeed; until then, here.
  if (!st.notify_error.empty())
    parts.push_back(
        fmt::format("hooks failing: {} ({} notification{} kept, retried by the next "
                    "poll)",
                    st.notify_error, st.pending_notifications.size(),
                    st.pending_notifications.size() == 1 ? "" : "s"));
  else if (!st.pending_notifications.empty() && held.hooks.empty())
    parts.push_back(fmt::format("{} notification{} not delivered yet, retried by the next poll",
                                st.pending_notifications.size(),
                                st.pending_notifications.size() == 1 ? "" : "s"));
}

// The pieces of one source's line, in reading order. config_dirty: feeddiff.toml has
// uncommitted changes, which hold back the adoption of a redirect (see poll).
std::string status_line(const SourceConfig& source, const SourceState& st, TimeMs now,
                        std::size_t name_width, bool config_dirty,
                        const std::optional<Shard>& shard, const Withheld& held) {
  std::vector<std::string> parts;
  if (shard) {
    const unsigned owner = shard_of(source, shard->count);
    parts.push_back(fmt::format("shard {}{}{}", owner, source.shard ? " (pinned)" : "",
                                owner == shard->index ? " (this one)" : ""));
  }
  if (st.last_result.empty()) {
    parts.push_back("never polled");
  } else {
    std::string last = fmt::format("{} {}", st.last_result, ago(st.last_attempt, now));
    if (st.last_status) last += fmt::format(" (HTTP {})", st.last_status);
    if (!st.last_error.empty() && !st.disabled && st.not_a_feed.empty())
      last += ": " + st.last_error;
    parts.push_back(std::move(last));
  }
  // While it lasts: the URL answers, but with something that is no feed (a challenge, login or
  // error page, an empty body). Archived at raw/NAME/not-a-feed; the feed's last version stays.
  if (!st.not_a_feed.empty())
    parts.push_back(fmt::format("not a feed since {} ({}): {}", when(st.not_a_feed_since),
                                ago(st.not_a_feed_since, now), st.not_a_feed));
  if (!st.items_error.empty())
    parts.push_back("newest version archived, but its items cannot be read: " + st.items_error);
  if (st.consecutive_failures > 1)
    parts.push_back(fmt::format("{} failures in a row", st.consecutive_failures));
  if (st.disabled) {
    parts.push_back(st.disabled_reason.empty()
                        ? fmt::format("disabled until `feeddiff enable {}`", source.name)
                        : "disabled: " + st.disabled_reason);
  } else if (st.next_due <= now) {
    parts.push_back("due now");
  } else {
    parts.push_back(fmt::format("next poll in {}", rough(st.next_due - now)));
  }
  add_redirect_part(st, config_dirty, parts);
  add_notify_parts(st, held, parts);
  if (held.credentials && !held.credentials_sent)
    parts.push_back(fmt::format("credentials not sent: they were given for {}, the URL is {}",
                                held.credentials->origin, url_origin(source.url)));
  std::string line = fmt::format("{:<{}}  ", source.name, name_width);
  for (std::size_t i = 0; i < parts.size(); ++i) line += (i ? "; " : "") + parts[i];
  return escape_terminal(line) + "\n";
}

using Json = nlohmann::ordered_json;

Json json_time(TimeMs t) {
  return t ? Json(format_iso8601_ms(t)) : Json(nullptr);
}

Json json_text(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

// Keys in a fixed order (ordered_json) so that the same state gives the same bytes. Bytes
// that are not valid UTF-8 (an ETag is whatever a server sent) become U+FFFD, so the output
// is always valid JSON.
std::string status_json(const StatusData& data, const std::vector<const SourceConfig*>& sources,
                        TimeMs now) {
  const std::optional<Shard>& shard = data.shard;
  Json list = Json::array();
  for (const SourceConfig* source : sources) {
    const SourceState st = state_of(data, source->name);
    Json redirect = nullptr;
    if (!st.pending_redirect.empty())
      redirect = Json{{"target", st.pending_redirect},
                      {"seen", st.pending_redirect_count},
                      {"adopted_after", kAdoptRedirectAfter}};
    Json j;
    j["name"] = source->name;
    j["url"] = redact_url(source->url);
    j["every_seconds"] = source->every / 1000;
    j["last_result"] = json_text(st.last_result);
    j["last_attempt"] = json_time(st.last_attempt);
    j["last_status"] = st.last_status ? Json(st.last_status) : Json(nullptr);
    j["last_error"] = json_text(st.last_error);
    j["last_success"] = json_time(st.last_success);
    j["last_change"] = json_time(st.last_change);
    j["consecutive_failures"] = st.consecutive_failures;
    j["next_due"] = json_time(st.next_due);
    j["due"] = !st.disabled && st.next_due <= now;
    j["pending_redirect"] = std::move(redirect);
    j["disabled"] = st.disabled;
    j["disabled_reason"] = json_text(st.disabled_reason);
    j["etag"] = json_text(st.etag);
    j["last_modified"] = json_text(st.last_modified);
    j["items_error"] = json_text(st.items_error);
    const Withheld held = withheld(*source, data.hooks, data.credentials);
    j["hooks_waiting_for_trust"] = held.hooks;
    j["pending_notifications"] = st.pending_notifications.size();
    j["held_notifications"] = st.held_notifications.size();
    j["notify_reverted"] = json_text(st.notify_reverted);
    j["pending_notification_commits"] = st.pending_notifications;
    j["notify_error"] = json_text(st.notify_error);
    j["not_a_feed"] = st.not_a_feed.empty() ? Json(nullptr)
                                            : Json{{"reason", st.not_a_feed},
                                                   {"since", json_time(st.not_a_feed_since)},
                                                   {"commit", json_text(st.not_a_feed_commit)}};
    j["credentials"] = held.credentials ? Json{{"origin", json_text(held.credentials->origin)},
                                               {"sent", held.credentials_sent}}
                                        : Json(nullptr);
    if (shard) j["shard"] = shard_of(*source, shard->count);
    list.push_back(std::move(j));
  }
  Json doc = {{"now", json_time(now)}};
  if (shard) doc["shard"] = {{"index", shard->index}, {"count", shard->count}};
  if (const auto& u = data.unpublished)
    doc["unpublished"] = {{"upstream", u->first}, {"commits", u->second}};
  doc["sources"] = std::move(list);
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// The lines under the sources': the counts, the shard, hooks waiting for trust, what is not
// yet published.
std::string status_footer(const Archive& archive, const StatusData& data,
                          const std::vector<const SourceConfig*>& sources, TimeMs now) {
  const StatusCounts n = count_status(data, sources, now);
  std::string out =
      fmt::format("{} source{}: {} failing, {} disabled, {} due now; {:.1f} MiB of git objects\n",
                  sources.size(), sources.size() == 1 ? "" : "s", n.failing, n.disabled, n.due,
                  static_cast<double>(archive.object_bytes()) / (1 << 20));
  if (data.shard)
    out += fmt::format("{} of them in shard {}/{}\n", n.in_shard, data.shard->index,
                       data.shard->count);
  if (n.untrusted)
    out += fmt::format(
        "{} hook{} of feeddiff.toml not trusted on this machine, so not run: review with "
        "`feeddiff trust`, consent with `feeddiff trust --all`\n",
        n.untrusted, n.untrusted == 1 ? "" : "s");
  if (const auto& u = data.unpublished)
    out += u->second == 0
               ? fmt::format("every commit is on {} (as of the last fetch)\n",
                             escape_terminal(u->first))
               : fmt::format("{} local commit{} not yet on {} (as of the last fetch)\n", u->second,
                             u->second == 1 ? "" : "s", escape_terminal(u->first));
  return out;
}

// status's text: a line per source, then the footer.
std::string status_text(const Archive& archive, const StatusData& data,
                        const std::vector<const SourceConfig*>& sources, TimeMs now) {
  std::size_t width = 0;
  for (const auto* source : sources) width = std::max(width, source->name.size());
  const bool config_dirty = redirect_held_by_edit(archive, data.state);
  std::string out;
  for (const auto* source : sources) {
    out += status_line(*source, state_of(data, source->name), now, width, config_dirty, data.shard,
                       withheld(*source, data.hooks, data.credentials));
  }
  return out + status_footer(archive, data, sources, now);
}

Result<int> run_status(const Globals& globals, const StatusFlags& flags) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto now = current_time();
  if (!now) return now.error();
  auto data = read_status(*archive, flags.request);
  if (!data) return data.error();
  auto sources = chosen_sources(data->config, flags.request.names);
  if (!sources) return sources.error();
  if (flags.json) {
    write_out(status_json(*data, *sources, *now));
    return 0;
  }
  if (sources->empty()) {
    write_out("No sources yet: add one with `feeddiff add NAME URL`.\n");
    return 0;
  }
  write_out(status_text(*archive, *data, *sources, *now));
  return 0;
}

}  // namespace

Command status_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "status", "Per source: last result and when, next poll, failures, redirects, disabled");
  auto flags = std::make_shared<StatusFlags>();
  app->add_option("NAME", flags->request.names, "Only these sources (default: all)");
  app->add_flag("--json", flags->json, "One JSON document (times in UTC, ISO 8601)");
  app->add_option("--shard", flags->request.shard,
                  "Also say which shard of a fleet of N pollers each source belongs to "
                  "(see `poll --shard`)")
      ->type_name("K/N");
  app->footer(R"(One line per source, read from the poll state (.git/feeddiff/state.json):
  what the last poll got and how long ago, the HTTP status, the error if it failed,
  how many polls in a row failed, when the next poll will fetch it, a permanent redirect
  seen but not yet adopted (it is adopted after 3 polls in a row), whether 410 Gone
  disabled it, a hook this machine has not trusted (`feeddiff trust`), which does not run,
  and credentials not sent because the URL left the origin they were given for. While the
  last response was not a feed (a challenge, login or error page, an empty body), it says
  so, since when and why; hooks that failed, with their error and how many notifications
  wait for the next poll. Nothing is fetched.

  openai  changed 12m ago (HTTP 200); next poll in 48m
  flaky   failed 5m ago (HTTP 503): http://example.com/feed: HTTP 503; 3 failures in a row;
          next poll in 3h55m
  oldblog gone 2d ago (HTTP 410); disabled: HTTP 410 Gone: disabled until `feeddiff enable oldblog`
  walled  not-a-feed 5m ago (HTTP 200); not a feed since 2026-12-05T09:00:00Z (3h ago): HTML
          document "Just a moment..." (text/html); 4 failures in a row; next poll in 8h

Failures back off exponentially (the interval doubled per failure, at most a day) and
Retry-After is honoured, so a broken feed is not hammered; none is silently dropped.

In a clone (`feeddiff clone`, or any branch with an upstream), the last line says how many
local commits its upstream (origin/main, as of the last fetch) does not have yet.

Examples:
  feeddiff status
  feeddiff status --json | jq '.sources[] | select(.consecutive_failures > 0) | .name')");
  return {app, [flags, &globals] { return run_status(globals, *flags); }};
}

}  // namespace feeddiff::cli
