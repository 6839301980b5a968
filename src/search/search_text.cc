// search's answer for a terminal (`search`'s text format): each hit's source and title, the
// item, the versions the match spans and when it was gone, and a snippet with the match
// marked. Feed text is escaped here, the one place it meets the terminal.

#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/search.h"

namespace feeddiff {

namespace {

std::string short_commit(const std::string& id) {
  return id.substr(0, 7);
}

// The snippet for a terminal: feed text escaped, the match bold (with colour) or between
// `**` (without), so a pipe keeps plain text.
std::string snippet_text(const std::vector<SnippetRun>& runs, bool color) {
  std::string out;
  for (const SnippetRun& run : runs) {
    // A snippet is one line: the text's own line breaks read as spaces (before escaping,
    // which would show them as \x0a).
    std::string one_line = run.text;
    for (char& c : one_line)
      if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    const std::string text = escape_terminal(one_line);
    if (!run.match)
      out += text;
    else if (color)
      out += "\x1b[1m" + text + "\x1b[0m";
    else
      out += "**" + text + "**";
  }
  return out;
}

}  // namespace

std::string search_text(const SearchResult& result, bool color) {
  std::string out;
  for (const SearchHit& hit : result.hits) {
    const std::string title = escape_terminal(hit.title);
    out += color ? fmt::format("\x1b[1m{}\x1b[0m: {}\n", escape_terminal(hit.source), title)
                 : fmt::format("{}: {}\n", escape_terminal(hit.source), title);
    out += fmt::format("  item     {}\n", escape_terminal(hit.item_id));
    if (hit.article_url) out += fmt::format("  article  {}\n", escape_terminal(*hit.article_url));
    out += fmt::format("  matched  {} ({}) to {} ({}), {}\n", format_iso8601_ms(hit.first.observed),
                       short_commit(hit.first.commit), format_iso8601_ms(hit.last.observed),
                       short_commit(hit.last.commit), plural(hit.versions, "version", "versions"));
    if (hit.gone)
      out += fmt::format("  gone     {} ({}): {}\n", format_iso8601_ms(hit.gone->observed),
                         short_commit(hit.gone->commit),
                         hit.article_url  ? "the article's text changed"
                         : hit.edited_out ? "the item's text changed"
                                          : "the item left the feed");
    else
      out += "  gone     still there\n";
    if (!hit.snippet.empty()) out += "  " + snippet_text(hit.snippet, color) + "\n";
    out += "\n";
  }
  if (result.hits.empty())
    out += "No match.\n";
  else if (result.more)
    out += fmt::format("{} shown; more with --limit.\n", plural(result.hits.size(), "hit", "hits"));
  else
    out += fmt::format("{}.\n", plural(result.hits.size(), "hit", "hits"));
  return out;
}

}  // namespace feeddiff
