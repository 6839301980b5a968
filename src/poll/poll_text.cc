// A poll's report for a terminal: a line per source and per article page, and the packs'
// lines. Names, messages and URLs carry a feed's or a server's text: escaped here.

#include <fmt/format.h>

#include <algorithm>

#include "feeddiff/core.h"
#include "feeddiff/poll.h"

namespace feeddiff {

bool is_failure(Outcome outcome) {
  return outcome == Outcome::failed || outcome == Outcome::gone || outcome == Outcome::not_a_feed;
}

std::string outcome_line(const SourceOutcome& o, TimeMs now) {
  std::string line;
  switch (o.outcome) {
    case Outcome::added:
    case Outcome::changed:
    case Outcome::restored:
      line = fmt::format("{}: {} ({} bytes, HTTP {}) {}", o.name, outcome_name(o.outcome),
                         with_thousands(o.bytes), o.status, o.commit.substr(0, 7));
      break;
    case Outcome::not_a_feed:
      // Built here rather than taken from o.message: a --sync renames the commit.
      line = fmt::format("{}: not a feed ({}, HTTP {}) {} (retry in {})", o.name, o.not_a_feed,
                         o.status,
                         o.commit.empty() ? "the same as last time, not recorded again"
                                          : "recorded as " + o.commit.substr(0, 7),
                         format_duration(std::max<TimeMs>(0, o.next_due - now)));
      break;
    case Outcome::not_due:
      line = fmt::format("{}: not due (next poll in {})", o.name,
                         format_duration(std::max<TimeMs>(0, o.next_due - now)));
      break;
    case Outcome::failed:
      line = fmt::format("{}: failed: {} (retry in {})", o.name, o.message,
                         format_duration(std::max<TimeMs>(0, o.next_due - now)));
      break;
    default:
      line = fmt::format("{}: {}", o.name, o.message.empty() ? outcome_name(o.outcome) : o.message);
  }
  if (!o.redirect_note.empty()) line += fmt::format(" [{}]", o.redirect_note);
  if (!o.credentials_note.empty()) line += fmt::format(" [{}]", o.credentials_note);
  return escape_terminal(line);
}

std::string article_line(const ArticleOutcome& a) {
  std::string line =
      a.result == "added" || a.result == "changed"
          ? fmt::format("{}: article {}: {}", a.source, a.result, a.message)
          : fmt::format("{}: article {}: {} ({})", a.source, a.result, a.message, a.url);
  if (!a.commit.empty()) line += " " + a.commit.substr(0, 7);
  return escape_terminal(line);
}

std::string articles_error_line(const PollReport& report) {
  if (report.articles_error.empty()) return "";
  return escape_terminal(fmt::format("articles: stopped early, the rest wait for the next poll: {}",
                                     report.articles_error));
}

std::string packs_error_line(const PollReport& report) {
  if (report.packs_error.empty()) return "";
  return escape_terminal(
      fmt::format("packs: not consolidated: {} (the changes are recorded; `feeddiff gc` repacks)",
                  report.packs_error));
}

std::string packs_rolled_line(const PollReport& report) {
  if (!report.packs.packs_rolled) return "";
  return fmt::format("packs: {} rolled up into one ({} objects, {:.1f} ms), {} packs now",
                     report.packs.packs_rolled, with_thousands(report.packs.objects),
                     static_cast<double>(report.packs.micros) / 1000.0, report.packs.packs_after);
}

}  // namespace feeddiff
