// What `feeddiff trust` asks of the notify module: the hooks feeddiff.toml holds now, and
// consent to some kinds of them, under the archive's lock so that what is trusted is what
// the file says, not what a sync replaced it with meanwhile.

#include <fmt/format.h>

#include <algorithm>

#include "feeddiff/notify.h"

namespace feeddiff {

std::string hook_description(const HookValue& hook) {
  std::string line = hook_label(hook);
  if (hook.kind == "webhook") line += fmt::format(" ({})", redact_url(hook.value));
  if (!hook.files.empty()) {
    std::string files;
    for (const auto& f : hook.files) files += (files.empty() ? "" : ", ") + f;
    line += fmt::format(", with the contents of {}", files);
  }
  std::string sources;
  for (const auto& s : hook.sources) sources += (sources.empty() ? "" : ", ") + s;
  line += sources.empty() ? ", for no source" : fmt::format(", for {}", sources);
  return line;
}

Result<std::vector<HookValue>> current_hooks(const Archive& archive) {
  auto config = load_config(archive);
  if (!config) return config.error();
  return hook_values(archive, *config);
}

Result<std::vector<HookValue>> trust_current_hooks(const Archive& archive,
                                                   std::vector<std::string> kinds) {
  auto lock = ArchiveLock::acquire(archive, /*wait=*/false);
  if (!lock) return lock.error();
  auto hooks = current_hooks(archive);
  if (!hooks) return hooks.error();
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  if (auto ok = trust_hooks(archive, *hooks, kinds); !ok) return ok.error();
  std::erase_if(*hooks, [&](const HookValue& hook) {
    return std::find(kinds.begin(), kinds.end(), hook.kind) == kinds.end();
  });
  return hooks;
}

}  // namespace feeddiff
