// Parses the command line, runs one command, and is the only place that prints errors.

#include <unistd.h>

#include <fmt/format.h>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

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

namespace {

using Builder = cli::Command (*)(CLI::App&, const cli::Globals&);

// Every command, in the order `feeddiff --help` lists them.
constexpr std::pair<std::string_view, Builder> kBuilders[] = {
    {"init", cli::init_command},
    {"add", cli::add_command},
    {"remove", cli::remove_command},
    {"poll", cli::poll_command},
    {"log", cli::log_command},
    {"show", cli::show_command},
    {"cat", cli::cat_command},
    {"status", cli::status_command},
    {"enable", cli::enable_command},
    {"import", cli::import_command},
    {"export-opml", cli::export_opml_command},
    {"gc", cli::gc_command},
    {"site", cli::site_command},
    {"fixtures", cli::fixtures_command},
    {"normalize", cli::normalize_command},
    {"items", cli::items_command},
    {"diff", cli::diff_command},
};

Builder builder_of(std::string_view name) {
  for (const auto& [command, build] : kBuilders)
    if (command == name) return build;
  return nullptr;
}

// The command the arguments name: the first argument that is neither a global option nor
// its value. Empty when an option of another kind comes first (--help, --version, a typo),
// for which every command is set up, as help and error messages list them all.
std::string_view named_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-C" || arg == "--color") {
      ++i;
      continue;
    }
    if (arg.starts_with("-C") || arg.starts_with("--color=")) continue;
    if (arg.starts_with("-")) return {};
    return arg;
  }
  return {};
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

  // Setting up all 17 commands' options costs a quarter of a millisecond, which `show` feels
  // (bench/show): only the command named is set up, unless none is.
  std::vector<cli::Command> commands;
  if (const Builder build = builder_of(named_command(argc, argv))) {
    commands.push_back(build(app, globals));
  } else {
    for (const auto& [name, build_one] : kBuilders) commands.push_back(build_one(app, globals));
  }

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
