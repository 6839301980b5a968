// Parses the command line, runs one command, and is the only place that prints errors.

#include <unistd.h>

#include <fmt/format.h>
#include <cstdio>
#include <cstdlib>

#include "cli/command.h"
#include "feeddiff/cli.h"
#include "feeddiff/core.h"
#include "feeddiff/render.h"

namespace feeddiff {

namespace cli {

Result<Archive> open_archive(const Globals& globals) {
  return Archive::open(globals.dir);
}

bool stdout_is_terminal() {
  return ::isatty(STDOUT_FILENO) == 1;
}

bool use_color(const Globals& globals) {
  if (globals.color == "always") return true;
  if (globals.color == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return stdout_is_terminal();
}

void write_out(std::string_view bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
}

Result<TimeMs> current_time() {
  const char* fixed = std::getenv("FEEDDIFF_NOW");
  if (!fixed || !*fixed) return now_ms();
  auto t = parse_iso8601(fixed);
  if (!t)
    return Error{Errc::usage,
                 fmt::format("FEEDDIFF_NOW='{}' is no UTC time like 2026-10-01T05:54:04Z",
                             escape_terminal(fixed))};
  return *t;
}

}  // namespace cli

namespace {

constexpr const char* kFooter = R"(Start here:
  feeddiff init feeds && cd feeds
  feeddiff add pytorch https://pytorch.org/blog/feed/ --every 1h
  feeddiff poll            (from cron: */15 * * * * feeddiff -C ~/feeds poll)
  feeddiff log && feeddiff show

Exit codes: 0 success, 1 some sources failed (or drift found), 2 error or usage.
Run `feeddiff COMMAND --help` for a command's options and examples.)";

std::string one_line(std::string message) {
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  return message;
}

int report_error(const Error& error) {
  std::fflush(stdout);
  std::fprintf(stderr, "feeddiff: error: %s\n", escape_terminal(one_line(error.message)).c_str());
  return kExitError;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"feeddiff: archive web feeds in git and see what changed.", "feeddiff"};
  app.footer(kFooter);
  app.set_version_flag("--version", fmt::format("feeddiff {}", version()));
  app.require_subcommand(1, 1);
  cli::Globals globals;
  app.add_option("-C", globals.dir, "Run in this archive (default: the current directory)")
      ->type_name("DIR");
  app.add_option("--color", globals.color, "Colour output: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");

  std::vector<cli::Command> commands = {
      cli::init_command(app, globals),        cli::add_command(app, globals),
      cli::remove_command(app, globals),      cli::poll_command(app, globals),
      cli::log_command(app, globals),         cli::show_command(app, globals),
      cli::cat_command(app, globals),         cli::status_command(app, globals),
      cli::enable_command(app, globals),      cli::import_command(app, globals),
      cli::export_opml_command(app, globals), cli::gc_command(app, globals),
      cli::site_command(app, globals),        cli::fixtures_command(app, globals),
      cli::normalize_command(app, globals),   cli::items_command(app, globals),
      cli::diff_command(app, globals),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string where;
    for (const auto& command : commands)
      if (command.app->parsed()) where = " " + command.app->get_name();
    std::fprintf(stderr, "feeddiff: error: %s (see `feeddiff%s --help`)\n",
                 escape_terminal(one_line(e.what())).c_str(), where.c_str());
    return kExitError;
  }

  for (const auto& command : commands) {
    if (!command.app->parsed()) continue;
    Result<int> code = [&]() -> Result<int> {
      try {
        return command.run();
      } catch (const std::exception& e) {
        return Error{Errc::internal, fmt::format("internal error: {}", e.what())};
      }
    }();
    std::fflush(stdout);
    if (!code) return report_error(code.error());
    return *code;
  }
  return report_error(Error{Errc::usage, "no command given (see `feeddiff --help`)"});
}

}  // namespace feeddiff
