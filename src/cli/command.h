#pragma once
// What every command file shares: the global options, how a command plugs into the
// parser, and small helpers for output.

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/backfill.h"
#include "feeddiff/config.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

/// Options that every command takes.
struct Globals {
  std::string dir = ".";       ///< -C: the archive
  std::string color = "auto";  ///< --color: auto, always, never
};

/// Runs a parsed command; its value is the exit code (0 or 1); errors become exit 2.
using Runner = std::function<Result<int>()>;

/// A registered command: its parser node and what runs it.
struct Command {
  CLI::App* app = nullptr;  ///< the subcommand
  Runner run;               ///< called when it was chosen
};

/// Each command file defines one of these.
Command init_command(CLI::App& root, const Globals& globals);
Command clone_command(CLI::App& root, const Globals& globals);
Command sync_command(CLI::App& root, const Globals& globals);
Command add_command(CLI::App& root, const Globals& globals);
Command remove_command(CLI::App& root, const Globals& globals);
Command poll_command(CLI::App& root, const Globals& globals);
Command log_command(CLI::App& root, const Globals& globals);
Command show_command(CLI::App& root, const Globals& globals);
Command cat_command(CLI::App& root, const Globals& globals);
Command status_command(CLI::App& root, const Globals& globals);
Command enable_command(CLI::App& root, const Globals& globals);
Command import_command(CLI::App& root, const Globals& globals);
Command export_opml_command(CLI::App& root, const Globals& globals);
Command export_sqlite_command(CLI::App& root, const Globals& globals);
Command export_warc_command(CLI::App& root, const Globals& globals);
Command gc_command(CLI::App& root, const Globals& globals);
Command site_command(CLI::App& root, const Globals& globals);
Command fixtures_command(CLI::App& root, const Globals& globals);
Command normalize_command(CLI::App& root, const Globals& globals);
Command items_command(CLI::App& root, const Globals& globals);
Command article_command(CLI::App& root, const Globals& globals);
Command search_command(CLI::App& root, const Globals& globals);
Command diff_command(CLI::App& root, const Globals& globals);
Command history_command(CLI::App& root, const Globals& globals);
Command migrate_command(CLI::App& root, const Globals& globals);
Command trust_command(CLI::App& root, const Globals& globals);
Command backfill_command(CLI::App& root, const Globals& globals);

/// backfill's options from its flags (cmd_backfill.cc), shared with `add --backfill`.
Result<BackfillOptions> backfill_options(const std::string& name, std::size_t max_pages,
                                         const std::string& delay, const std::string& timeout,
                                         const std::string& max_body, bool wait);
/// Prints a walk's pages and where it stopped; the exit code (0, 1 partial, 2 failed).
int print_backfill(const BackfillReport& report);

/// Opens the archive named by -C.
Result<Archive> open_archive(const Globals& globals);

/// Whether to colour stdout: --color, NO_COLOR, and whether stdout is a terminal.
bool use_color(const Globals& globals);

/// Whether stdout is a terminal.
bool stdout_is_terminal();

/// Writes bytes to stdout exactly.
void write_out(std::string_view bytes);

/// The manual page feeddiff(1), in roff, from the parser `app` with every command set up.
std::string man_page(const CLI::App& app);

/// The git commit feeddiff was built from (`git describe`, "-dirty" when the tree had
/// changes), or "unknown"; written at build time by cmake/build_info.cmake.
std::string_view build_commit();

/// The clock: FEEDDIFF_NOW (an ISO-8601 UTC time, for tests and replays) or the wall clock.
Result<TimeMs> current_time();

}  // namespace feeddiff::cli
