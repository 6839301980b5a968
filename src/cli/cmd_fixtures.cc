// feeddiff fixtures check|update DIR [--offline]: keeps recorded feeds for CI. DIR holds a
// manifest (fixtures.toml, in feeddiff.toml's form: one [sources.NAME] table with the url)
// and, per fixture, the body as received (NAME/response.xml or .json), the response as the
// trailers of a commit would record it (NAME/response.headers, include/feeddiff/message.h) and the
// canonical document made from the body (NAME/canonical.xml or .json). `update` fetches each URL
// (conditionally, with the recorded validators) and rewrites a fixture whose body changed; `check`
// does the same without writing and exits 1 on drift. With --offline nothing is fetched: the
// derived files are checked against, or regenerated from, the recorded bodies.

#include <fmt/format.h>
#include <filesystem>

#include "cli/command.h"
#include "feeddiff/changes.h"
#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/fetch.h"
#include "feeddiff/message.h"
#include "feeddiff/normalize.h"
#include "feeddiff/poll.h"
#include "feeddiff/render.h"

namespace feeddiff::cli {

namespace {

namespace fs = std::filesystem;

struct FixturesOptions {
  std::string action;
  std::string dir;
  bool offline = false;
  std::size_t max_lines = 40;
};

// What is recorded of one fixture.
struct Recorded {
  std::string name;
  std::string url;
  fs::path dir;
  std::optional<std::string> body;  // nullopt: never recorded
  std::string extension = "xml";    // of response.* and canonical.*
  CommitMessage response;           // response.headers
};

std::string extension_for(std::string_view body) {
  const auto first = body.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (body[first] == '{' || body[first] == '[') ? "json"
                                                                                       : "xml";
}

Result<std::vector<Recorded>> load_fixtures(const fs::path& dir) {
  auto manifest = read_file((dir / "fixtures.toml").string());
  if (!manifest)
    return Error{Errc::not_found, fmt::format("{} has no fixtures.toml ({})", dir.string(),
                                              manifest.error().message)};
  auto config = parse_config(*manifest);
  if (!config)
    return Error{Errc::bad_config,
                 fmt::format("{}: {}", (dir / "fixtures.toml").string(), config.error().message)};
  std::vector<Recorded> out;
  for (const auto& source : config->sources) {
    Recorded r;
    r.name = source.name;
    r.url = source.url;
    r.dir = dir / source.name;
    for (const char* ext : {"xml", "json"}) {
      if (auto body = read_file((r.dir / fmt::format("response.{}", ext)).string())) {
        r.body = std::move(*body);
        r.extension = ext;
        break;
      }
    }
    if (auto headers = read_file((r.dir / "response.headers").string()))
      r.response = message_from_trailers(parse_trailer_block(*headers));
    out.push_back(std::move(r));
  }
  return out;
}

// The change page of a fixture, as `show` gives it; a fixture has no commit.
std::string change_summary(const Recorded& fixture, const std::string& new_body,
                           const CommitMessage& response, std::size_t max_lines) {
  LoadedChange change;
  change.old_body = Blob(fixture.body.value_or(""));
  change.new_body = Blob(new_body);
  ChangeView& v = change.view;
  v.title =
      version_title(fixture.name, !fixture.body, new_body.size(), response.status.value_or("?"));
  v.path = (fs::path(fixture.name) / ("response." + extension_for(new_body))).string();
  v.path_status = fixture.body ? "modified" : "added";
  v.source = fixture.name;
  v.stored_bytes = new_body.size();
  v.timestamp_kind = response.origin_date ? "origin" : "observed";
  v.headers = recorded_rows(response);
  v.diff_label = "raw";
  v.diff = diff_lines(change.old_body, change.new_body);
  add_feed_summary(change, false, {});
  RenderOptions render;
  render.max_lines = max_lines;
  return render_text(v, render);  // with no commit id, the page starts at the title
}

// The canonical document of a body, or why there is none.
Result<std::string> canonical(const std::string& body) {
  NormalizeOptions what;
  what.items = false;  // the canonical text is all a fixture keeps
  auto doc = normalize(body, what);
  if (!doc) return doc.error();
  return std::move(doc->text);
}

// Writes the body, the response and the canonical document of a fixture.
Status record(const Recorded& fixture, const std::string& body, const std::string& trailers) {
  std::error_code ec;
  fs::create_directories(fixture.dir, ec);
  if (ec)
    return Error{Errc::io, fmt::format("cannot create {}: {}", fixture.dir.string(), ec.message())};
  const std::string ext = extension_for(body);
  auto doc = canonical(body);
  // Each file is replaced atomically; the body goes last, so a fixture whose body is the new
  // one also has the new response and canonical form.
  if (doc) {
    if (auto ok = write_file_atomic((fixture.dir / ("canonical." + ext)).string(), *doc); !ok)
      return ok;
  }
  if (auto ok = write_file_atomic((fixture.dir / "response.headers").string(), trailers); !ok)
    return ok;
  if (auto ok = write_file_atomic((fixture.dir / ("response." + ext)).string(), body); !ok)
    return ok;
  if (ext != fixture.extension) {
    fs::remove(fixture.dir / ("response." + fixture.extension), ec);
    fs::remove(fixture.dir / ("canonical." + fixture.extension), ec);
  }
  return Ok{};
}

void report_failure(const std::string& name, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: failed: %s\n", escape_terminal(name).c_str(),
               escape_terminal(message).c_str());
}

Result<int> offline(const std::vector<Recorded>& fixtures, bool update) {
  int code = 0;
  std::string out;
  for (const Recorded& f : fixtures) {
    if (!f.body) {
      report_failure(f.name, "no recorded body (run `feeddiff fixtures update` online first)");
      code = 1;
      continue;
    }
    const fs::path path = f.dir / ("canonical." + f.extension);
    auto doc = canonical(*f.body);
    if (!doc) {
      out += fmt::format("{}: no canonical document ({})\n", f.name,
                         escape_terminal(doc.error().message));
      continue;
    }
    auto old = read_file(path.string());
    if (old && *old == *doc) {
      out += fmt::format("{}: up to date\n", f.name);
      continue;
    }
    if (update) {
      if (auto ok = write_file_atomic(path.string(), *doc); !ok) return ok.error();
      out += fmt::format("{}: regenerated {}\n", f.name, path.filename().string());
    } else {
      out += fmt::format("{}: {} is stale\n", f.name, path.filename().string());
      code = 1;
    }
  }
  write_out(out);
  return code;
}

Result<int> online(std::vector<Recorded>& fixtures, bool update, std::size_t max_lines) {
  auto now = current_time();
  if (!now) return now.error();
  std::vector<FetchRequest> requests;
  for (const Recorded& f : fixtures) {
    FetchRequest request;
    request.url = f.url;
    if (f.body) {
      if (const std::string* etag = f.response.header("etag")) request.if_none_match = *etag;
      if (const std::string* modified = f.response.header("last-modified"))
        request.if_modified_since = *modified;
    }
    requests.push_back(std::move(request));
  }
  std::vector<std::optional<Result<FetchResponse>>> responses(requests.size());
  fetch_all(requests, FetchOptions{}, [&](std::size_t index, Result<FetchResponse> response) {
    responses[index] = std::move(response);
  });

  int code = 0;
  for (std::size_t i = 0; i < fixtures.size(); ++i) {
    const Recorded& f = fixtures[i];
    const Result<FetchResponse>& response = *responses[i];
    if (!response) {
      report_failure(f.name, response.error().message);
      code = 1;
      continue;
    }
    if (response->status == 304 && f.body) {
      write_out(fmt::format("{}: unchanged (HTTP 304)\n", escape_terminal(f.name)));
      continue;
    }
    if (response->status < 200 || response->status > 299) {
      report_failure(f.name, fmt::format("HTTP {} from {}", response->status,
                                         redact_url(response->final_url)));
      code = 1;
      continue;
    }
    if (f.body && *f.body == response->body) {
      write_out(fmt::format("{}: unchanged\n", escape_terminal(f.name)));
      continue;
    }
    // Exactly the trailers a poll would commit for this response.
    const CommitMessage recorded = record_response(f.name, recorded_response(*response), *now);
    write_out(change_summary(f, response->body, recorded, max_lines));
    if (update) {
      if (auto ok = record(f, response->body, format_trailers(recorded)); !ok) return ok.error();
      write_out(fmt::format("{}: updated\n\n", escape_terminal(f.name)));
    } else {
      write_out(fmt::format("{}: drifted (run `feeddiff fixtures update` to record it)\n\n",
                            escape_terminal(f.name)));
      code = 1;
    }
  }
  return code;
}

Result<int> fixtures(const FixturesOptions& options) {
  auto loaded = load_fixtures(options.dir);
  if (!loaded) return loaded.error();
  const bool update = options.action == "update";
  if (options.offline) return offline(*loaded, update);
  return online(*loaded, update, options.max_lines);
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
