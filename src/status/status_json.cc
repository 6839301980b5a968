// The JSON face of `feeddiff status --json`.

#include <nlohmann/json.hpp>

#include "feeddiff/status.h"

namespace feeddiff {

namespace {

using Json = nlohmann::ordered_json;

Json json_time(TimeMs t) {
  return t ? Json(format_iso8601_ms(t)) : Json(nullptr);
}

Json json_text(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

}  // namespace

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

}  // namespace feeddiff
