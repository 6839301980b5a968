#include "render/html_page.h"

#include <fmt/format.h>

#include "feeddiff/render.h"

namespace feeddiff {

std::string escape_html(std::string_view text) {
  return html::escape_markup(escape_terminal(text));
}

namespace html {

std::string escape_markup(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  append_markup_escaped(out, text, /*apostrophe=*/true);
  return out;
}

namespace {

// Inline CSS and nothing else: no script, no image, no font, no fetch.
constexpr std::string_view kPageCsp =
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'; "
    "base-uri 'none'; form-action 'none'";

// One stylesheet for every page. Narrow screens get a stacked field list and wrapped diff
// lines; wide ones a two-column field list. Colours follow the reader's light or dark theme.
constexpr std::string_view kCss = R"css(
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;
--line:#d1d9e0;--add:#dafbe1;--add-fg:#116329;--del:#ffebe9;--del-fg:#82071e;--hunk:#ddf4ff;
--hunk-fg:#0550ae;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;
--panel:#151b23;--line:#3d444d;--add:#12261e;--add-fg:#3fb950;--del:#25171c;--del-fg:#f85149;
--hunk:#121d2f;--hunk-fg:#79c0ff;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main{max-width:72rem;margin:0 auto;padding:1rem 1rem 3rem}
a{color:var(--link)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
code,pre,td.mono,.diff{font-size:.875rem}
nav.crumbs{font-size:.875rem;color:var(--muted);margin-bottom:.5rem}
nav.crumbs a{margin-right:.25rem}
.kicker{margin:0;color:var(--muted);font-size:.875rem;text-transform:uppercase;letter-spacing:.06em}
h1{margin:.1rem 0 .25rem;font-size:1.75rem;line-height:1.2;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:2rem 0 .5rem;padding-bottom:.25rem;border-bottom:1px solid var(--line)}
.id{margin:0 0 .75rem;color:var(--muted);overflow-wrap:anywhere}
.title{font-size:1.2rem;font-weight:600;margin:.5rem 0 .25rem;overflow-wrap:anywhere}
.path{margin:0 0 1rem;color:var(--muted);overflow-wrap:anywhere}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.5rem;margin:0;
padding:.75rem 1rem;background:var(--panel);border:1px solid var(--line);border-radius:6px}
dl.fields dt{color:var(--muted)}
dl.fields dd{margin:0;overflow-wrap:anywhere}
.plus{color:var(--add-fg);font-weight:600}
.minus{color:var(--del-fg);font-weight:600}
.null{color:var(--muted);font-style:italic}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.875rem}
th,td{text-align:left;vertical-align:top;padding:.3rem .6rem;border-bottom:1px solid var(--line)}
thead th{color:var(--muted);font-weight:600}
tbody th{font-weight:500;white-space:nowrap}
td{overflow-wrap:anywhere}
td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
ul.items{list-style:none;padding:0;margin:.5rem 0}
ul.items li{display:flex;gap:.5rem;padding:.2rem 0;overflow-wrap:anywhere}
.kind{flex:none;width:7rem;white-space:nowrap;padding-top:.1rem;font-size:.8rem;font-weight:600;text-transform:uppercase;
letter-spacing:.04em;color:var(--muted)}
.kind.added{color:var(--add-fg)}
.kind.removed{color:var(--del-fg)}
.kind.aged-out{color:var(--muted)}
.kind.reappeared{color:var(--add-fg)}
.diff{border:1px solid var(--line);border-radius:6px;overflow:hidden;margin:0}
.diff div{white-space:pre-wrap;overflow-wrap:anywhere;padding:0 .6rem;min-height:1.35em;
line-height:1.35}
.diff .a{background:var(--add)}
.diff .r{background:var(--del)}
.diff .h{background:var(--hunk);color:var(--hunk-fg)}
.diff .m{color:var(--muted);font-style:italic}
.cut{color:var(--muted)}
dl.changes{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .75rem;margin:.25rem 0 .4rem;
font-size:.9rem}
dl.changes dt{color:var(--muted)}
dl.changes dd{margin:0;overflow-wrap:anywhere}
del{background:var(--del);color:var(--del-fg)}
ins{background:var(--add);color:var(--add-fg);text-decoration:none}
.footer{color:var(--muted);font-size:.875rem}
details>summary{cursor:pointer}
summary h2{display:inline-block;border:0;margin:2rem 0 .5rem}
@media (max-width:40rem){main{padding:.75rem .6rem 2rem}h1{font-size:1.4rem}
dl.fields{grid-template-columns:1fr;gap:0}dl.fields dd{margin-bottom:.4rem}
.hide-narrow{display:none}}
)css";

}  // namespace

std::string head(std::string_view title, std::string_view atom_href,
                 const std::vector<std::pair<std::string, std::string>>& more_atom,
                 const std::vector<HeadLink>& more, std::string_view csp) {
  std::string alternate;
  if (const auto href = safe_href(atom_href))
    alternate = fmt::format(
        "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"{}\" href=\"{}\">\n",
        escape_html(title), *href);
  for (const auto& [feed_title, feed_href] : more_atom)
    if (const auto href = safe_href(feed_href))
      alternate += fmt::format(
          "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"{}\" href=\"{}\">\n",
          escape_html(feed_title), *href);
  for (const HeadLink& l : more)
    if (const auto href = safe_href(l.href))
      alternate += fmt::format(
          "<link rel=\"{}\"{} href=\"{}\">\n", escape_html(l.rel),
          l.type.empty() ? std::string() : fmt::format(" type=\"{}\"", escape_html(l.type)), *href);
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"referrer\" content=\"no-referrer\">\n"
      "<meta name=\"generator\" content=\"feeddiff\">\n"
      "{}<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n",
      csp.empty() ? kPageCsp : csp, alternate, escape_html(title), kCss);
}

std::string tail() {
  return "</main>\n</body>\n</html>\n";
}

std::string nav(const std::vector<std::pair<std::string, std::string>>& links) {
  if (links.empty()) return "";
  std::string out = "<nav class=\"crumbs\">";
  bool first = true;
  for (const auto& [label, href] : links) {
    if (!first) out += " › ";
    first = false;
    out += link(href, label);
  }
  return out + "</nav>\n";
}

std::optional<std::string> safe_href(std::string_view href) {
  if (href.empty()) return std::nullopt;
  const auto colon = href.find(':');
  const auto slash = href.find_first_of("/?#");
  const bool has_scheme = colon != std::string_view::npos && colon < slash;
  if (has_scheme && !href.starts_with("https://") && !href.starts_with("http://"))
    return std::nullopt;
  for (char ch : href)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) return std::nullopt;
  return escape_html(href);
}

std::string link(std::string_view href, std::string_view label) {
  if (auto safe = safe_href(href))
    return fmt::format("<a href=\"{}\">{}</a>", *safe, escape_html(label));
  return escape_html(label);
}

std::string pager(std::size_t pages, const std::string& prefix, std::size_t size,
                  std::string_view what) {
  if (pages == 0) return "";
  std::string out = fmt::format("<p class=\"pages\">Pages ({} {} each, 1 the oldest):", size, what);
  const std::size_t last_listed = pages > 10 ? pages - 9 : 1;
  for (std::size_t n = pages; n >= last_listed; --n)
    out += " " + link(fmt::format("{}{}.html", prefix, n), std::to_string(n));
  if (last_listed > 2) out += " …";
  if (last_listed > 1) out += " " + link(prefix + "1.html", "1");
  return out + "</p>\n";
}

std::string short_time(std::string_view iso) {
  if (iso.size() < 16) return std::string(iso);
  std::string out(iso.substr(0, 16));
  out[10] = ' ';
  return out;
}

}  // namespace html
}  // namespace feeddiff
