#include "feeddiff/status.h"

#include <fmt/format.h>

#include <algorithm>

namespace feeddiff {

Result<StatusData> read_status(const Archive& archive, const StatusRequest& request) {
  StatusData out;
  auto config = load_config(archive);
  if (!config) return config.error();
  out.config = std::move(*config);
  auto state = load_state(archive);
  if (!state) return state.error();
  out.state = std::move(*state);
  if (!request.shard.empty()) {
    auto parsed = parse_shard(request.shard);
    if (!parsed) return parsed.error();
    out.shard = *parsed;
  }
  auto unpublished = archive.unpublished();
  if (!unpublished) return unpublished.error();
  out.unpublished = std::move(*unpublished);
  auto hooks = hook_values(archive, out.config);
  if (!hooks) return hooks.error();
  out.hooks = std::move(*hooks);
  auto stored = load_credentials(archive);
  if (!stored) return stored.error();
  for (auto& c : *stored) out.credentials[c.source] = std::move(c);
  return out;
}

Result<std::vector<const SourceConfig*>> chosen_sources(const Config& config,
                                                        const std::vector<std::string>& names) {
  std::vector<const SourceConfig*> sources;
  for (const auto& name : names) {
    const SourceConfig* source = config.find(name);
    if (!source) return Error{Errc::not_found, fmt::format("no source named '{}'", name)};
    sources.push_back(source);
  }
  if (names.empty())
    for (const auto& source : config.sources) sources.push_back(&source);
  return sources;
}

SourceState state_of(const StatusData& data, const std::string& source) {
  auto it = data.state.sources.find(source);
  return it == data.state.sources.end() ? SourceState{} : it->second;
}

Withheld withheld(const SourceConfig& source, const std::vector<HookValue>& hooks,
                  const CredentialsBySource& credentials) {
  Withheld out;
  // HookValue::sources is in config order, which is sorted by name.
  for (const HookValue& h : hooks)
    if (!h.trusted && std::binary_search(h.sources.begin(), h.sources.end(), source.name))
      out.hooks.push_back(h.kind);
  if (auto it = credentials.find(source.name); it != credentials.end()) {
    out.credentials = &it->second;
    // An older feeddiff's line is bound to the URL by the next poll.
    out.credentials_sent = it->second.origin.empty() || credentials_apply(it->second, source.url);
  }
  return out;
}

StatusCounts count_status(const StatusData& data, const std::vector<const SourceConfig*>& sources,
                          TimeMs now) {
  StatusCounts out;
  for (const auto* source : sources) {
    const SourceState st = state_of(data, source->name);
    out.in_shard += data.shard && shard_of(*source, data.shard->count) == data.shard->index;
    out.failing += st.consecutive_failures > 0 && !st.disabled;
    out.disabled += st.disabled;
    out.due += !st.disabled && st.next_due <= now;
  }
  out.untrusted = static_cast<std::size_t>(std::count_if(
      data.hooks.begin(), data.hooks.end(), [](const HookValue& h) { return !h.trusted; }));
  return out;
}

bool redirect_held_by_edit(const Archive& archive, const State& state) {
  for (const auto& [name, st] : state.sources)
    if (!st.pending_redirect.empty() && st.pending_redirect_count >= kAdoptRedirectAfter) {
      auto dirty = archive.uncommitted("feeddiff.toml");
      return dirty && *dirty;
    }
  return false;
}

}  // namespace feeddiff
