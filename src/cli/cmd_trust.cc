// feeddiff trust [exec|webhook]... [--all]: the hooks this machine consents to run.

#include <fmt/format.h>
#include <algorithm>
#include <optional>

#include "cli/command.h"
#include "feeddiff/notify.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

struct TrustFlags {
  std::vector<std::string> kinds;
  bool all = false;
};

std::string describe(const HookValue& hook) {
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

Result<int> run_trust(const Globals& globals, const TrustFlags& flags) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  std::vector<std::string> kinds = flags.kinds;
  if (flags.all) kinds = {"exec", "webhook"};
  // Recording takes the lock before it reads feeddiff.toml, so that what it trusts is what
  // the file says, not what a sync replaced it with meanwhile.
  std::optional<ArchiveLock> lock;
  if (!kinds.empty()) {
    auto l = ArchiveLock::acquire(*archive, /*wait=*/false);
    if (!l) return l.error();
    lock.emplace(std::move(*l));
  }
  auto config = load_config(*archive);
  if (!config) return config.error();
  auto hooks = hook_values(*archive, *config);
  if (!hooks) return hooks.error();

  if (kinds.empty()) {
    // Only a listing: what runs and what waits.
    if (hooks->empty()) {
      write_out("No hooks in feeddiff.toml: nothing to trust.\n");
      return 0;
    }
    std::string out;
    std::size_t waiting = 0;
    for (const HookValue& hook : *hooks) {
      waiting += !hook.trusted;
      out += escape_terminal(
                 fmt::format("{}  {}", hook.trusted ? "trusted" : "waiting", describe(hook))) +
             "\n";
    }
    if (waiting)
      out += fmt::format(
          "{} hook{} wait{} for trust and do not run: if you would run {} yourself, `feeddiff "
          "trust --all` (or `feeddiff trust exec`, `feeddiff trust webhook`).\n",
          waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "", waiting == 1 ? "it" : "them");
    write_out(out);
    return 0;
  }
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  if (auto ok = trust_hooks(*archive, *hooks, kinds); !ok) return ok.error();
  std::string out;
  std::size_t trusted = 0;
  for (const HookValue& hook : *hooks) {
    if (std::find(kinds.begin(), kinds.end(), hook.kind) == kinds.end()) continue;
    ++trusted;
    out += escape_terminal("trusted  " + describe(hook)) + "\n";
  }
  if (!trusted) out += "No such hooks in feeddiff.toml: none trusted now.\n";
  write_out(out);
  return 0;
}

}  // namespace

Command trust_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "trust", "List the hooks of feeddiff.toml and which may run here; consent to run them");
  auto flags = std::make_shared<TrustFlags>();
  app->add_option("KIND", flags->kinds,
                  "Trust the current value of these hooks: exec, webhook (default: only list)")
      ->check(CLI::IsMember({"exec", "webhook"}));
  app->add_flag("--all", flags->all, "Trust every hook's current value (exec and webhook)");
  app->footer(
      R"(feeddiff.toml is committed: a clone, a sync or a pull brings its [notify] hooks from
whoever could push to the archive. As git never runs hooks that come with a clone, feeddiff
runs an `exec` command or posts to a `webhook` only when this machine consented to that exact
value: `feeddiff trust` records its SHA-256 (with the contents of the files in the archive
that an exec command names, such as `sh hooks/notify.sh`) in .git/feeddiff/trust, which is
never committed. A hook that changes, by a sync or by your own edit, waits until you trust it
again; meanwhile its notifications are kept pending (100 per source at most) and the next poll
after `feeddiff trust` delivers them. Trusting a kind replaces what was trusted of that kind:
values no longer in feeddiff.toml are forgotten.

Examples:
  feeddiff trust              list the hooks: trusted, or waiting
  feeddiff trust --all        run every hook in feeddiff.toml as it is now
  feeddiff trust exec         only the exec commands)");
  return {app, [flags, &globals] { return run_trust(globals, *flags); }};
}

}  // namespace feeddiff::cli
