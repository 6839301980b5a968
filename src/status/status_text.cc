// The text of `feeddiff status`: a line per source, then the counts. Here rather than in the
// command, as git keeps its status text in wt-status.c beside what it reports: the wording
// is part of what status is, and tests call it without a process.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "feeddiff/status.h"

namespace feeddiff {

namespace {

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

}  // namespace

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

}  // namespace feeddiff
