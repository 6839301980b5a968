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

Result<int> run_trust(const Globals& globals, const TrustFlags& flags) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  std::vector<std::string> kinds = flags.kinds;
  if (flags.all) kinds = {"exec", "webhook"};
  if (kinds.empty()) {
    // Only a listing: what runs and what waits.
    auto hooks = current_hooks(*archive);
    if (!hooks) return hooks.error();
    if (hooks->empty()) {
      write_out("No hooks in feeddiff.toml: nothing to trust.\n");
      return 0;
    }
    std::string out;
    std::size_t waiting = 0;
    for (const HookValue& hook : *hooks) {
      waiting += !hook.trusted;
      out += escape_terminal(fmt::format("{}  {}", hook.trusted ? "trusted" : "waiting",
                                         hook_description(hook))) +
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
  auto trusted = trust_current_hooks(*archive, kinds);
  if (!trusted) return trusted.error();
  std::string out;
  for (const HookValue& hook : *trusted)
    out += escape_terminal("trusted  " + hook_description(hook)) + "\n";
  if (trusted->empty()) out += "No such hooks in feeddiff.toml: none trusted now.\n";
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
