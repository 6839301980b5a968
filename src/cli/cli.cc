// Parses the command line, runs one command, and is the only place that prints errors.

#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "feeddiff/cli.h"
#include "feeddiff/core.h"
#include "feeddiff/fetch.h"
#include "feeddiff/normalize.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"
#include "feeddiff/store.h"

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
  feeddiff poll            (from cron: */15 * * * * feeddiff -C ~/feeds poll --quiet)
  feeddiff log && feeddiff show

Poll on a schedule with systemd (installed units, see `man feeddiff`):
  systemctl --user enable --now "feeddiff-poll@$(systemd-escape --path ~/feeds).timer"

-C DIR and --color WHEN may come before or after the command, as in git:
  feeddiff show --color=never HEAD    feeddiff log pytorch -C ~/feeds

Exit codes: 0 success, 1 some sources failed (or drift found), 2 error or usage.
Run `feeddiff COMMAND --help` for a command's options and examples, `man feeddiff` for all.)";

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
    {"clone", cli::clone_command},
    {"add", cli::add_command},
    {"remove", cli::remove_command},
    {"poll", cli::poll_command},
    {"sync", cli::sync_command},
    {"log", cli::log_command},
    {"show", cli::show_command},
    {"history", cli::history_command},
    {"cat", cli::cat_command},
    {"status", cli::status_command},
    {"enable", cli::enable_command},
    {"trust", cli::trust_command},
    {"import", cli::import_command},
    {"export-opml", cli::export_opml_command},
    {"export-sqlite", cli::export_sqlite_command},
    {"export-warc", cli::export_warc_command},
    {"gc", cli::gc_command},
    {"migrate", cli::migrate_command},
    {"site", cli::site_command},
    {"fixtures", cli::fixtures_command},
    {"normalize", cli::normalize_command},
    {"items", cli::items_command},
    {"diff", cli::diff_command},
    {"article", cli::article_command},
    {"search", cli::search_command},
    {"backfill", cli::backfill_command},
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

// What `feeddiff WORD` says when WORD is no command: the nearest commands, as git does. A
// command is near when a few typos away (at most a third of the word, at least one) or
// when WORD begins it ("stat" for "status").
std::string not_a_command(std::string_view word) {
  std::vector<std::string_view> commands;
  for (const auto& [command, build] : kBuilders) commands.push_back(command);
  const std::vector<std::string_view> nearest = nearest_words(word, commands, true);
  std::string message =
      fmt::format("'{}' is not a feeddiff command", escape_terminal(one_line(word)));
  if (nearest.empty()) return message + " (see `feeddiff --help`)";
  message += "; did you mean ";
  for (std::size_t i = 0; i < nearest.size(); ++i) {
    if (i) message += i + 1 == nearest.size() ? " or " : ", ";
    message += fmt::format("'{}'", nearest[i]);
  }
  return message + "?";
}

// The option nearest to a mistyped one ("--itmes" for "--items"), among the options of the
// command being parsed and the global ones, by the distance not_a_command uses: "" when none
// is near. Only long options are compared: a one-letter typo is no word to correct.
std::string nearest_option(std::string_view word, const CLI::App& root, const CLI::App* command) {
  std::string_view name = word.substr(0, word.find('='));
  if (!name.starts_with("--") || name.size() < 4) return "";
  name.remove_prefix(2);
  std::vector<std::string_view> names;
  for (const CLI::App* app : {command, &root})
    if (app)
      for (const CLI::Option* option : app->get_options())
        for (const std::string& long_name : option->get_lnames()) names.push_back(long_name);
  const std::vector<std::string_view> nearest = nearest_words(name, names, false);
  return nearest.empty() ? "" : "--" + std::string(nearest.front());
}

// What `feeddiff` alone prints (to stderr, exit 2, as any usage error): how to call it and
// the commands, one line each; --help has the rest.
std::string short_help(const CLI::App& app) {
  std::string out =
      "usage: feeddiff [-C DIR] [--color WHEN] COMMAND [ARGS...]\n\n"
      "archive web feeds in git and see what changed\n\nCommands:\n";
  // A command in no group is hidden from --help, and so from this.
  const auto commands =
      app.get_subcommands([](const CLI::App* command) { return !command->get_group().empty(); });
  std::size_t width = 0;
  for (const CLI::App* command : commands) width = std::max(width, command->get_name().size());
  for (const CLI::App* command : commands)
    out += fmt::format("  {:<{}}  {}\n", command->get_name(), width, command->get_description());
  out +=
      "\nRun `feeddiff --help` to get started, `feeddiff COMMAND --help` for a command's options "
      "and examples.\n";
  return out;
}

// `feeddiff --version`: feeddiff's version and commit, then the libraries in use (libgit2
// and pugixml are linked in, libcurl is the one fetch loads).
std::string version_text() {
  std::string curl;
  if (auto v = libcurl_version())
    curl = *v;
  else
    curl = "not loaded (" + one_line(v.error().message) + ")";
  return fmt::format("feeddiff {} (commit {})\nlibgit2 {}\nlibcurl {}\npugixml {}", version(),
                     cli::build_commit(), libgit2_version(), curl, pugixml_version());
}

}  // namespace

namespace {

// The root parser: its help, --version, and the global options (taken after the command too).
void set_up_root(CLI::App& app, cli::Globals& globals) {
  app.footer(kFooter);
  app.set_version_flag("--version", version_text,
                       "Print the version, the commit it was built from and the versions of "
                       "libgit2, libcurl and pugixml, and exit");
  app.require_subcommand(1, 1);
  // Global options are also taken after the command (`feeddiff show --color=never HEAD`), as
  // git takes them: an option the command does not know is tried as a global one. Set before
  // the commands are, which inherit it.
  app.fallthrough();
  app.add_option("-C", globals.dir, "Run in this archive (default: the current directory)")
      ->type_name("DIR");
  app.add_option("--color", globals.color, "Colour output: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");
}

// Setting up all 18 commands' options costs a quarter of a millisecond, which `show` feels
// (bench/show): only the command named is set up, unless none is.
std::vector<cli::Command> set_up_commands(CLI::App& app, const cli::Globals& globals,
                                          Builder named) {
  std::vector<cli::Command> commands;
  if (named) {
    commands.push_back(named(app, globals));
  } else {
    for (const auto& [name, build_one] : kBuilders) commands.push_back(build_one(app, globals));
  }
  return commands;
}

// What a parse error prints (stderr, exit 2): the short help for no command at all, else the
// error with the nearest option to a mistyped one and where to look.
int parse_error(CLI::App& app, const std::vector<cli::Command>& commands,
                const CLI::ParseError& e) {
  std::string where;
  const CLI::App* parsed = nullptr;
  for (const auto& command : commands)
    if (command.app->parsed()) {
      where = " " + command.app->get_name();
      parsed = command.app;
    }
  // `feeddiff` alone, or with global options only: how to use it, not "A subcommand is
  // required".
  if (!parsed && dynamic_cast<const CLI::RequiredError*>(&e)) {
    std::fflush(stdout);
    std::fputs(short_help(app).c_str(), stderr);
    return kExitError;
  }
  std::string hint;
  if (dynamic_cast<const CLI::ExtrasError*>(&e))
    for (const std::string& extra : app.remaining(true))
      if (const std::string near = nearest_option(extra, app, parsed); !near.empty()) {
        hint = fmt::format("; did you mean '{}'?", near);
        break;
      }
  std::fprintf(stderr, "feeddiff: error: %s%s (see `feeddiff%s --help`)\n",
               escape_terminal(one_line(e.what())).c_str(), hint.c_str(), where.c_str());
  return kExitError;
}

// Runs the command that was parsed; its exit code, or its error reported.
int run_parsed(const std::vector<cli::Command>& commands) {
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

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"feeddiff: archive web feeds in git and see what changed.", "feeddiff"};
  cli::Globals globals;
  set_up_root(app, globals);
  // A word where a command belongs that names none: an error before anything is parsed, so
  // that `feeddiff sycn --help` fails too instead of printing the main help.
  const std::string_view named = named_command(argc, argv);
  const Builder named_builder = builder_of(named);
  if (!named.empty() && !named_builder)
    return report_error(Error{Errc::usage, not_a_command(named)});
  const std::vector<cli::Command> commands = set_up_commands(app, globals, named_builder);

  // The build writes the manual page feeddiff(1) with `feeddiff --man` (cmake/man.cmake): it is
  // made from this parser, so it lists exactly the commands and options --help does.
  if (argc == 2 && std::string_view(argv[1]) == "--man") {
    std::fputs(cli::man_page(app).c_str(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitError;
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
    return parse_error(app, commands, e);
  }
  return run_parsed(commands);
}

}  // namespace feeddiff
