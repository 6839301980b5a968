#pragma once
// What the HTML pages share: the head (charset, a Content-Security-Policy that allows no
// script and no fetch, the viewport, inline CSS), the breadcrumbs, and safe links.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace feeddiff::html {

/// A `<link>` of the head beyond the Atom feeds: the site's Memento links (RFC 7089).
struct HeadLink {
  std::string rel;   ///< e.g. "timemap", "original", "prev memento"
  std::string type;  ///< the media type, or "" for none
  std::string href;  ///< written only when safe_href accepts it
};

/// `<!DOCTYPE html>` up to and including `<body>`: the title is escaped here. atom_href, when
/// safe and not empty, is announced as the page's Atom feed (link rel="alternate").
/// more_atom: further Atom feeds the page announces, each (title, href); more: other links.
/// csp, when not empty, replaces the Content-Security-Policy that allows no script (the
/// site's search page alone runs its own script file).
std::string head(std::string_view title, std::string_view atom_href = {},
                 const std::vector<std::pair<std::string, std::string>>& more_atom = {},
                 const std::vector<HeadLink>& more = {}, std::string_view csp = {});

/// `</body></html>` and the final line end.
std::string tail();

/// A breadcrumb line of links (label, href), or "" when there are none.
std::string nav(const std::vector<std::pair<std::string, std::string>>& links);

/// The href as an attribute value, when it is http(s) or relative (no other scheme, so no
/// javascript: or data:); nullopt otherwise.
std::optional<std::string> safe_href(std::string_view href);

/// `<a href="...">label</a>` when the href is safe, else the label alone; label is escaped.
std::string link(std::string_view href, std::string_view label);

/// &, <, >, " and ' as entities, nothing else: for text that is already inert (escape_html
/// is this after escape_terminal), such as HTML placed in an Atom <content> element.
std::string escape_markup(std::string_view text);

/// Links to the numbered pages of a list (prefix N.html), newest first: the ten newest, then
/// page 1 (each page links on to the older one, so every page is reachable), after
/// `Pages (SIZE WHAT each, 1 the oldest):`; "" for no page.
std::string pager(std::size_t pages, const std::string& prefix, std::size_t size,
                  std::string_view what);

/// `2026-10-01T05:54:04.027Z` as `2026-10-01 05:54` (UTC), for tables.
std::string short_time(std::string_view iso);

}  // namespace feeddiff::html
