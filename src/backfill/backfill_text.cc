// backfill's report for a terminal: a line per page walked, where and why the walk stopped,
// and what was recorded. Page URLs and stop lines carry the publisher's text: escaped here.

#include <fmt/format.h>

#include "feeddiff/backfill.h"
#include "feeddiff/core.h"

namespace feeddiff {

BackfillText backfill_text(const BackfillReport& report) {
  BackfillText text;
  std::string& out = text.out;
  for (const BackfillPage& page : report.pages) {
    if (page.number == 1) {
      out += fmt::format("backfill: {}: page 1 is the current document ({} items), {}\n",
                         report.name, page.items, escape_terminal(page.url));
      continue;
    }
    out += fmt::format("backfill: {}: page {} {} ({} items, {} bytes, HTTP {}) {}\n", report.name,
                       page.number, page.result, page.items, with_thousands(page.bytes),
                       page.status, escape_terminal(page.url));
  }
  const bool failed =
      report.stop == BackfillStop::failed || report.stop == BackfillStop::not_a_feed;
  if (!failed) out += escape_terminal(report.stop_line) + "\n";
  const std::string range = report.oldest.empty()
                                ? std::string()
                                : fmt::format(", dated {} to {}", report.oldest.substr(0, 10),
                                              report.newest.substr(0, 10));
  if (!report.commit.empty())
    out += fmt::format("backfill: {}: recorded the publisher's archive in {}: {} ({} new){}\n",
                       report.name, report.commit.substr(0, 7),
                       plural(report.items, "item", "items"), report.new_items, range);
  else if (report.pages.size() > 1)
    out += fmt::format("backfill: {}: every page as recorded before: nothing new ({}{})\n",
                       report.name, plural(report.items, "item", "items"), range);
  else
    out +=
        fmt::format("backfill: {}: the feed links to no archive: nothing recorded\n", report.name);
  for (const std::string& warning : report.warnings) text.err += escape_terminal(warning) + "\n";
  if (failed) text.err += escape_terminal(report.stop_line) + "\n";
  text.failed = failed;
  return text;
}

}  // namespace feeddiff
