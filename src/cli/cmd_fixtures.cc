// feeddiff fixtures check|update DIR [--offline]: keeps recorded feeds for CI (the service
// and the files it keeps: include/feeddiff/fixtures.h). This file parses and prints.

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/core.h"
#include "feeddiff/fixtures.h"

namespace feeddiff::cli {

namespace {

struct FixturesOptions {
  std::string action;
  std::string dir;
  bool offline = false;
  std::size_t max_lines = 40;
};

// Offline, the lines go out together once every fixture is checked (none on an error);
// online, each fixture's as its outcome is known. Failures go to stderr as they come.
void print_outcome(const FixtureOutcome& o, std::string* held, int& code) {
  if (fixture_failed(o)) code = 1;
  if (o.kind == FixtureOutcome::Kind::failed) {
    std::fflush(stdout);
    std::fputs(fixture_text(o).c_str(), stderr);
  } else if (held) {
    *held += fixture_text(o);
  } else {
    write_out(fixture_text(o));
  }
}

Result<int> fixtures(const FixturesOptions& options) {
  auto loaded = load_fixtures(options.dir);
  if (!loaded) return loaded.error();
  const bool update = options.action == "update";
  int code = 0;
  if (options.offline) {
    std::string out;
    auto ok = check_fixtures_offline(
        *loaded, update, [&](const FixtureOutcome& o) { print_outcome(o, &out, code); });
    if (!ok) return ok.error();
    write_out(out);
    return code;
  }
  auto now = current_time();
  if (!now) return now.error();
  auto ok =
      check_fixtures_online(*loaded, {update, options.max_lines, *now},
                            [&](const FixtureOutcome& o) { print_outcome(o, nullptr, code); });
  if (!ok) return ok.error();
  return code;
}

}  // namespace

Command fixtures_command(CLI::App& root, const Globals&) {
  auto* app = root.add_subcommand(
      "fixtures", "Refresh recorded feeds for CI (update) or report how they drifted (check)");
  auto options = std::make_shared<FixturesOptions>();
  app->add_option("ACTION", options->action, "check or update")
      ->required()
      ->check(CLI::IsMember({"check", "update"}));
  app->add_option("DIR", options->dir, "The fixtures directory (holds fixtures.toml)")->required();
  app->add_flag("--offline", options->offline,
                "Fetch nothing: check or regenerate the canonical documents from the recorded "
                "bodies");
  app->add_option("--max-lines", options->max_lines,
                  "Diff lines shown per drifted fixture at most (default 40)")
      ->check(CLI::PositiveNumber);
  app->footer(R"(DIR/fixtures.toml lists the fixtures as feeddiff.toml lists sources:
  [sources.openai-research]
  url = "https://example.com/feed.xml"
Each fixture NAME is recorded as DIR/NAME/response.xml (or .json), the body byte for byte;
DIR/NAME/response.headers, the response as trailers (exactly as a poll's commit records it,
redacted alike); and
DIR/NAME/canonical.xml (or .json), its canonical document.

check   fetches each URL (conditionally, with the recorded validators) and prints the change
        page of every fixture whose body differs; exit 1 when any drifted or failed.
update  the same, and records the new body, response and canonical document (each file
        replaced atomically). A fixture that cannot be fetched is reported and left as it is.
--offline  no network: check that (or regenerate) each canonical document matches its body.

Examples:
  feeddiff fixtures check tests/fixtures          in CI: fail on drift
  feeddiff fixtures update tests/fixtures && git diff tests/fixtures)");
  return {app, [options] { return fixtures(*options); }};
}

}  // namespace feeddiff::cli
