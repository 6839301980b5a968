// feeddiff fixtures check|update DIR [--offline]: keeps recorded feeds for CI (the service
// and the files it keeps: include/feeddiff/fixtures.h). This file parses and prints.

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/core.h"
#include "feeddiff/fixtures.h"

namespace feeddiff::cli {

namespace {

using Kind = FixtureOutcome::Kind;

struct FixturesOptions {
  std::string action;
  std::string dir;
  bool offline = false;
  std::size_t max_lines = 40;
};

void report_failure(const std::string& name, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: failed: %s\n", escape_terminal(name).c_str(),
               escape_terminal(message).c_str());
}

// Offline, the lines go out together once every fixture is checked (none on an error);
// failures go to stderr as they come.
Result<int> offline(const std::vector<Fixture>& fixtures, bool update) {
  int code = 0;
  std::string out;
  auto ok = check_fixtures_offline(fixtures, update, [&](const FixtureOutcome& o) {
    switch (o.kind) {
      case Kind::failed:
        report_failure(o.name, o.detail);
        code = 1;
        break;
      case Kind::no_canonical:
        out += fmt::format("{}: no canonical document ({})\n", o.name, escape_terminal(o.detail));
        break;
      case Kind::up_to_date:
        out += fmt::format("{}: up to date\n", o.name);
        break;
      case Kind::regenerated:
        out += fmt::format("{}: regenerated {}\n", o.name, o.detail);
        break;
      default:  // stale
        out += fmt::format("{}: {} is stale\n", o.name, o.detail);
        code = 1;
    }
  });
  if (!ok) return ok.error();
  write_out(out);
  return code;
}

// Online, each fixture's lines go out as its outcome is known.
void print_online(const FixtureOutcome& o, int& code) {
  const std::string name = escape_terminal(o.name);
  switch (o.kind) {
    case Kind::failed:
      report_failure(o.name, o.detail);
      code = 1;
      break;
    case Kind::not_modified:
      write_out(fmt::format("{}: unchanged (HTTP 304)\n", name));
      break;
    case Kind::unchanged:
      write_out(fmt::format("{}: unchanged\n", name));
      break;
    case Kind::changed:
      write_out(o.page);
      break;
    case Kind::updated:
      write_out(fmt::format("{}: updated\n\n", name));
      break;
    default:  // drifted
      write_out(fmt::format("{}: drifted (run `feeddiff fixtures update` to record it)\n\n", name));
      code = 1;
  }
}

Result<int> fixtures(const FixturesOptions& options) {
  auto loaded = load_fixtures(options.dir);
  if (!loaded) return loaded.error();
  const bool update = options.action == "update";
  if (options.offline) return offline(*loaded, update);
  auto now = current_time();
  if (!now) return now.error();
  int code = 0;
  auto ok = check_fixtures_online(*loaded, {update, options.max_lines, *now},
                                  [&](const FixtureOutcome& o) { print_online(o, code); });
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
