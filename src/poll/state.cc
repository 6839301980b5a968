// .git/feeddiff/state.json: what poll remembers between runs (not committed), its format,
// and `enable`, which clears a source's disabled state.

#include <fmt/format.h>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "feeddiff/poll.h"

namespace feeddiff {

namespace {

constexpr int kStateVersion = 1;

std::string state_path(const Archive& archive) {
  return archive.private_dir() + "/state.json";
}

template <class T>
void get_to(const nlohmann::json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}

}  // namespace

Result<State> load_state(const Archive& archive) {
  const std::string path = state_path(archive);
  State state;
  if (!std::filesystem::exists(path)) return state;
  auto text = read_file(path);
  if (!text) return text.error();
  try {
    auto j = nlohmann::json::parse(*text);
    for (const auto& [name, s] : j.at("sources").items()) {
      SourceState& out = state.sources[name];
      get_to(s, "etag", out.etag);
      get_to(s, "last_modified", out.last_modified);
      get_to(s, "last_attempt", out.last_attempt);
      get_to(s, "last_success", out.last_success);
      get_to(s, "last_change", out.last_change);
      get_to(s, "last_result", out.last_result);
      get_to(s, "last_error", out.last_error);
      get_to(s, "last_status", out.last_status);
      get_to(s, "consecutive_failures", out.consecutive_failures);
      get_to(s, "next_due", out.next_due);
      get_to(s, "pending_redirect", out.pending_redirect);
      get_to(s, "pending_redirect_count", out.pending_redirect_count);
      get_to(s, "disabled", out.disabled);
      get_to(s, "disabled_reason", out.disabled_reason);
      get_to(s, "items_error", out.items_error);
      get_to(s, "pending_notifications", out.pending_notifications);
      get_to(s, "notify_error", out.notify_error);
      if (auto held = s.find("held_notifications"); held != s.end() && held->is_array())
        for (const auto& h : *held) {
          HeldNotification one;
          get_to(h, "commit", one.commit);
          get_to(h, "polls", one.polls);
          if (!one.commit.empty()) out.held_notifications.push_back(std::move(one));
        }
      get_to(s, "notify_reverted", out.notify_reverted);
      get_to(s, "not_a_feed", out.not_a_feed);
      get_to(s, "not_a_feed_since", out.not_a_feed_since);
      get_to(s, "not_a_feed_commit", out.not_a_feed_commit);
    }
  } catch (const std::exception& e) {
    return Error{Errc::bad_config,
                 fmt::format("{} is damaged ({}); move it away to start the poll state afresh",
                             path, e.what())};
  }
  return state;
}

Status save_state(const Archive& archive, const State& state) {
  nlohmann::ordered_json sources = nlohmann::ordered_json::object();
  for (const auto& [name, s] : state.sources) {
    sources[name] = {
        {"etag", s.etag},
        {"last_modified", s.last_modified},
        {"last_attempt", s.last_attempt},
        {"last_success", s.last_success},
        {"last_change", s.last_change},
        {"last_result", s.last_result},
        {"last_error", s.last_error},
        {"last_status", s.last_status},
        {"consecutive_failures", s.consecutive_failures},
        {"next_due", s.next_due},
        {"pending_redirect", s.pending_redirect},
        {"pending_redirect_count", s.pending_redirect_count},
        {"disabled", s.disabled},
        {"disabled_reason", s.disabled_reason},
        {"items_error", s.items_error},
    };
    // Only when there is something to say: a state without hooks reads as it always did.
    if (!s.pending_notifications.empty())
      sources[name]["pending_notifications"] = s.pending_notifications;
    if (!s.notify_error.empty()) sources[name]["notify_error"] = s.notify_error;
    if (!s.held_notifications.empty()) {
      nlohmann::ordered_json held = nlohmann::ordered_json::array();
      for (const HeldNotification& h : s.held_notifications)
        held.push_back({{"commit", h.commit}, {"polls", h.polls}});
      sources[name]["held_notifications"] = std::move(held);
    }
    if (!s.notify_reverted.empty()) sources[name]["notify_reverted"] = s.notify_reverted;
    if (!s.not_a_feed.empty()) {
      sources[name]["not_a_feed"] = s.not_a_feed;
      sources[name]["not_a_feed_since"] = s.not_a_feed_since;
      sources[name]["not_a_feed_commit"] = s.not_a_feed_commit;
    }
  }
  nlohmann::ordered_json j = {{"version", kStateVersion}, {"sources", std::move(sources)}};
  // Replace invalid UTF-8 rather than throw: an ETag is bytes from a server.
  return write_file_atomic(state_path(archive),
                           j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Result<bool> enable_source(Archive& archive, const std::string& name, bool wait_for_lock) {
  auto lock = ArchiveLock::acquire(archive, wait_for_lock);
  if (!lock) return lock.error();
  auto config = load_config(archive);
  if (!config) return config.error();
  if (!config->find(name))
    return Error{Errc::not_found,
                 fmt::format("no source named '{}' (see `feeddiff status`)", name)};
  auto state = load_state(archive);
  if (!state) return state.error();
  SourceState& st = state->sources[name];
  const bool was_disabled = st.disabled;
  st.disabled = false;
  st.disabled_reason.clear();
  st.consecutive_failures = 0;
  st.next_due = 0;
  if (auto ok = save_state(archive, *state); !ok) return ok.error();
  return was_disabled;
}

}  // namespace feeddiff
