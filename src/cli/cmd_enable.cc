// feeddiff enable NAME: poll a source again after 410 Gone disabled it.

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/poll.h"

namespace feeddiff::cli {

namespace {

Result<int> enable(const Globals& globals, const std::string& name, bool wait) {
  if (auto ok = check_source_name(name); !ok) return ok.error();
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto was_disabled = enable_source(*archive, name, wait);
  if (!was_disabled) return was_disabled.error();
  write_out(*was_disabled ? fmt::format("Enabled {}: the next `feeddiff poll` fetches it\n", name)
                          : fmt::format("{} was not disabled; its backoff is cleared, so the next "
                                        "`feeddiff poll` fetches it\n",
                                        name));
  return 0;
}

}  // namespace

Command enable_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "enable", "Poll a source again after HTTP 410 Gone disabled it (and clear its backoff)");
  auto name = std::make_shared<std::string>();
  auto wait = std::make_shared<bool>(false);
  app->add_option("NAME", *name, "The source (see `feeddiff status`)")->required();
  app->add_flag("--wait", *wait, "Wait for a running poll instead of failing at once");
  app->footer(R"(A server that answers 410 Gone says the feed is gone for good, so feeddiff stops
polling it and `feeddiff status` shows it as disabled. If the feed comes back (or the 410 was
a mistake), enable it: its failure count and backoff are forgotten too, and the next poll
fetches it whatever its schedule.

Example:
  feeddiff status           shows: oldblog  gone ... disabled until `feeddiff enable oldblog`
  feeddiff enable oldblog
  feeddiff poll oldblog)");
  return {app, [name, wait, &globals] { return enable(globals, *name, *wait); }};
}

}  // namespace feeddiff::cli
