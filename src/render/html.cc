// The change page as a standalone HTML document, laid out like the reference page but
// leading with what changed: the id and forge link, the title, the field list, the item
// summary, the coloured diff with its limits, then the recorded headers, folded. Everything
// that came from a feed or a server goes through escape_html; the page has no script and
// fetches nothing.

#include <fmt/format.h>

#include <algorithm>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/html_page.h"
#include "render/page.h"

namespace feeddiff {

namespace {

// "GitHub", "GitLab", "Codeberg", from the commit page's host.
std::string forge_name(std::string_view url) {
  if (url.starts_with("https://github.com/")) return "GitHub";
  if (url.starts_with("https://gitlab.com/")) return "GitLab";
  if (url.starts_with("https://codeberg.org/")) return "Codeberg";
  return "the forge";
}

std::string field_value(const ChangeView& c, const HtmlLinks& links, const std::string& label,
                        const std::string& value) {
  if (label == "Lines added") return "<span class=\"plus\">" + escape_html(value) + "</span>";
  if (label == "Lines removed") return "<span class=\"minus\">" + escape_html(value) + "</span>";
  if (label == "Raw artifact at this commit" && links.raw)
    return "<code>" + html::link(*links.raw, c.path) + "</code>";
  if (label == "Raw artifact at this commit" || label == "Source")
    return "<code>" + escape_html(value) + "</code>";
  return escape_html(value);
}

// The before and after of each changed field: short values as <del>old</del> → <ins>new</ins>,
// long text as its word diff.
std::string html_changes(const ItemChange& item) {
  if (item.changes.empty()) return "";
  std::string out = "<dl class=\"changes\">\n";
  for (const FieldChange& c : item.changes) {
    out += fmt::format("<dt>{}</dt><dd>", escape_html(c.field));
    if (!c.text) {
      auto value = [](const std::string& v) {
        return v.empty() ? std::string("<span class=\"null\">(empty)</span>") : escape_html(v);
      };
      out += fmt::format("<del>{}</del> → <ins>{}</ins></dd>\n", value(c.old_value),
                         value(c.new_value));
      continue;
    }
    if (c.words.runs.empty()) {
      out += "<span class=\"null\">markup only, the text reads the same</span></dd>\n";
      continue;
    }
    out += page::html_words(c.words) + "</dd>\n";
  }
  return out + "</dl>\n";
}

std::string items_section(const ChangeView& c, const RenderOptions& options,
                          const HtmlLinks& links) {
  if (!c.items && c.items_note.empty()) return "";
  std::string out = "<section id=\"items\">\n<h2>Items</h2>\n";
  if (!c.items) return out + fmt::format("<p>{}</p>\n</section>\n", escape_html(c.items_note));
  out += fmt::format("<p>{}</p>\n", escape_html(page::items_summary(*c.items)));
  std::size_t more = 0;
  const auto lines = page::item_lines(*c.items, options, &more);
  if (!lines.empty()) {
    out += "<ul class=\"items\">\n";
    for (const auto& line : lines) {
      const std::string changes = line.change ? html_changes(*line.change) : std::string();
      std::string label = escape_html(line.label);
      if (line.change && links.item)
        if (const std::string page = links.item(*line.change); !page.empty())
          label += fmt::format(" <a class=\"history\" href=\"{}\">history</a>", escape_html(page));
      std::string cls = line.kind;  // "aged out" is the class aged-out
      std::replace(cls.begin(), cls.end(), ' ', '-');
      out += fmt::format("<li><span class=\"kind {}\">{}</span> {}</li>\n", escape_html(cls),
                         escape_html(line.kind),
                         changes.empty() ? label : "<div>" + label + "\n" + changes + "</div>");
    }
    out += "</ul>\n";
  }
  if (more) out += fmt::format("<p class=\"footer\">… and {} more.</p>\n", with_thousands(more));
  if (auto note = page::filtered_note(*c.items, options); !note.empty())
    out += fmt::format("<p class=\"footer\">{}.</p>\n", escape_html(note));
  return out + "</section>\n";
}

std::string diff_section(const ChangeView& c, const RenderOptions& options) {
  std::string out =
      fmt::format("<section id=\"diff\">\n<h2>Diff <span class=\"null\">({} body)</span></h2>\n",
                  escape_html(c.diff_label));
  const page::ShownDiff diff = page::shown(c.diff, options);
  if (c.diff.empty()) {
    out += fmt::format("<p>No difference in the {} body.</p>\n", escape_html(c.diff_label));
  } else {
    out += "<div class=\"diff mono\">\n";
    for (const auto& line : diff.lines) {
      if (line.kind == '@') {
        out += fmt::format("<div class=\"h\">{}</div>\n", escape_html(line.header));
        continue;
      }
      const char* cls = line.kind == '+' ? "a" : line.kind == '-' ? "r" : "c";
      out += fmt::format("<div class=\"{}\">{}{}{}</div>\n", cls, line.kind, escape_html(line.text),
                         line.cut ? "<span class=\"cut\" title=\"line cut\">…</span>" : "");
      if (line.no_newline) out += "<div class=\"m\">\\ No newline at end of file</div>\n";
    }
    out += "</div>\n";
  }
  if (auto f = page::footer(diff, options); !f.empty())
    out += fmt::format("<p class=\"footer\">{}</p>\n", escape_html(f));
  return out + "</section>\n";
}

}  // namespace

std::string render_items_html(const ChangeView& change, const RenderOptions& options) {
  return items_section(change, options, {});
}

std::string render_html(const ChangeView& c, const RenderOptions& options, const HtmlLinks& links) {
  const std::string short_id = c.commit_id.substr(0, 7);
  std::vector<html::HeadLink> memento;
  for (const auto& [rel, href] : links.memento) memento.push_back({rel, "", href});
  std::string out = html::head(fmt::format("Change {} · {}", short_id, c.title), {}, {}, memento);
  out += html::nav(links.nav);
  if (c.commit_id.empty()) {  // `diff` of two files: no commit to name
    out += "<header>\n<p class=\"kicker\">Comparison</p>\n";
  } else {
    out += "<header>\n<p class=\"kicker\">Change</p>\n";
    out += fmt::format("<h1 class=\"mono\">{}</h1>\n", escape_html(short_id));
    out += fmt::format("<p class=\"id\"><code>{}</code>", escape_html(c.commit_id));
    if (c.forge_url && html::safe_href(*c.forge_url))
      out += " · " + html::link(*c.forge_url, "commit on " + forge_name(*c.forge_url));
    out += "</p>\n";
  }
  out += fmt::format("<p class=\"title\">{}</p>\n", escape_html(c.title));
  out += fmt::format("<p class=\"path\"><code>{}</code> {}</p>\n</header>\n", escape_html(c.path),
                     escape_html(c.path_status));

  out += "<dl class=\"fields\">\n";
  for (const auto& [label, value] : page::fields(c))
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", escape_html(label),
                       field_value(c, links, label, value));
  out += "</dl>\n";

  out += items_section(c, options, links);
  out += diff_section(c, options);

  // What changed comes first; the response's headers follow, folded: they are the record's
  // fine print, and on a phone a table of them above the items hid the change.
  const std::vector<HeaderRow> headers = page::sent_headers(c);
  if (!headers.empty()) {
    out += fmt::format(
        "<section id=\"headers\">\n<details>\n<summary><h2>Recorded headers <span "
        "class=\"null\">({})</span></h2></summary>\n<div class=\"scroll\"><table>\n<tbody>\n",
        headers.size());
    for (const auto& row : headers)
      out += fmt::format("<tr><th scope=\"row\">{}</th><td class=\"mono\">{}</td></tr>\n",
                         escape_html(row.name), escape_html(*row.value));
    out += "</tbody>\n</table></div>\n</details>\n</section>\n";
  }
  return out + html::tail();
}

namespace page {

std::string html_words(const WordExcerpt& words) {
  constexpr std::string_view kGap =
      "<span class=\"cut\" title=\"unchanged text left out\">…</span>";
  std::string out;
  for (const WordRun& run : words.runs) {
    if (run.skipped) out += kGap;
    if (run.kind == WordRun::Kind::kept) {
      out += escape_html(run.text);
      continue;
    }
    const char* tag = run.kind == WordRun::Kind::added ? "ins" : "del";
    const page::Padded text = page::padded(run.text);
    out += fmt::format("{1}<{0}>{2}</{0}>{3}", tag, escape_html(text.lead), escape_html(text.core),
                       escape_html(text.trail));
  }
  if (words.skipped_after) out += kGap;
  if (const std::string note = page::held_back_note(words); !note.empty())
    out += fmt::format(" <span class=\"footer\">({})</span>", escape_html(note));
  return out;
}

std::string html_field_changes(const ItemChange& change) {
  return html_changes(change);
}

}  // namespace page

}  // namespace feeddiff
