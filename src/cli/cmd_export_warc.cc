// feeddiff export-warc [NAME...] -o FILE.warc.gz: the recorded versions as a WARC file.

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/input.h"
#include "feeddiff/core.h"
#include "feeddiff/export.h"

namespace feeddiff::cli {

namespace {

struct ExportWarcOptions {
  std::vector<std::string> sources;
  std::string output;
  std::string cdxj;
  std::string since;
};

// FILE.warc.gz -> FILE.cdxj (FILE.warc -> FILE.cdxj; anything else gets .cdxj added).
std::string cdxj_beside(const std::string& warc) {
  for (std::string_view suffix : {".warc.gz", ".warc"})
    if (warc.ends_with(suffix)) return warc.substr(0, warc.size() - suffix.size()) + ".cdxj";
  return warc + ".cdxj";
}

Result<int> export_warc_run(const Globals& globals, const ExportWarcOptions& options) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto sources = sources_to_export(*archive, options.sources);
  if (!sources) return sources.error();
  WarcExportOptions request;
  request.sources = std::move(*sources);
  request.since = options.since;
  request.warc_path = options.output;
  request.cdxj_path = options.cdxj.empty() ? cdxj_beside(options.output) : options.cdxj;
  request.software = fmt::format("feeddiff {}", version());
  request.created = now_ms();
  auto report = export_warc(*archive, request);
  if (!report) return report.error();
  std::string out;
  std::size_t records = 0;
  for (const auto& s : report->sources) {
    records += s.responses + s.revisits;
    out += fmt::format("{}: {}, {}", escape_terminal(s.name),
                       plural(s.responses, "response", "responses"),
                       plural(s.revisits, "revisit", "revisits"));
    if (s.skipped)
      out += fmt::format(" ({} not a recorded response)", plural(s.skipped, "commit", "commits"));
    out += "\n";
  }
  out += fmt::format("wrote {} ({} and a warcinfo, {} bytes) and {}\n",
                     escape_terminal(request.warc_path), plural(records, "record", "records"),
                     report->bytes, escape_terminal(request.cdxj_path));
  out += fmt::format("next time, for what is new: --since {}\n", report->head.substr(0, 12));
  write_out(out);
  return 0;
}

}  // namespace

Command export_warc_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand(
      "export-warc", "Write the recorded versions as a WARC file, with its CDXJ index");
  auto options = std::make_shared<ExportWarcOptions>();
  app->add_option("NAME", options->sources, "Only these sources (default: all)");
  app->add_option("-o,--output", options->output, "The WARC file to write (replaced)")
      ->type_name("FILE.warc.gz")
      ->required();
  app->add_option("--cdxj", options->cdxj,
                  "The CDXJ index to write (default: FILE.cdxj beside the WARC file)")
      ->type_name("FILE");
  app->add_option("--since", options->since,
                  "Only the versions recorded after COMMIT (what the last export printed)")
      ->type_name("COMMIT");
  app->footer(
      R"(Writes a WARC/1.1 file (ISO 28500), each record a gzip member: a warcinfo record,
then for every recorded version of each source, oldest first, a response record (the
status line, the headers as recorded, the body byte for byte as stored), dated by when
it was fetched (WARC-Date) and aimed at the URL it came from (WARC-Target-URI), with
SHA-1 payload and block digests. A version whose body the source had recorded before
(a feed gone back to an earlier version) is a revisit record referring to the first.
Beside it, a CDXJ index (SURT, timestamp, JSON: url, mime, status, digest, length,
offset, filename) for pywb, ReplayWeb.page and other replay tools.

What the archive does not record, and what stands in: the protocol and reason phrase of
the status line (HTTP/1.1 and the standard phrase); the body before HTTP content-coding
(bodies are stored decoded: Content-Encoding is kept as X-Feeddiff-Original-Content-
Encoding, and Content-Length is the stored body's). The warcinfo record says so too.

Record ids are derived from the commit, so exports of the same version agree; with
--since, a revisit may refer to a record an earlier file holds. The files are written
whole or not at all.

Examples:
  feeddiff export-warc -o feeds.warc.gz
  feeddiff export-warc pytorch -o pytorch.warc.gz --cdxj pytorch.cdxj
  feeddiff export-warc -o week-2.warc.gz --since 3f2a9c1e0b7d)");
  return {app, [options, &globals] { return export_warc_run(globals, *options); }};
}

}  // namespace feeddiff::cli
