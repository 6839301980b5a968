// The life of items across a source's versions, for a terminal, as markdown, JSON and HTML.
// An edit's fields are written as the change pages write them (page::*_field_changes), so an
// edit reads the same in `history` as in `show`.

#include <fmt/format.h>
#include <algorithm>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/html_page.h"
#include "render/json_parts.h"
#include "render/page.h"

namespace feeddiff {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kTitleChars = 100;

// A title (or an id) as one line, cut to kTitleChars characters. Unescaped.
std::string title_line(std::string_view text) {
  return one_line(text, kTitleChars);
}

// "body: 1 edit (+1 -1 words) https://...": an article version's summary and its URL.
std::string article_detail(const HistoryArticle& a) {
  return title_line(a.summary.empty() ? a.url : a.summary + " " + a.url);
}

std::string label_of(const ItemLife& life) {
  return title_line(life.title.empty() ? life.id : life.title);
}

// "first seen", "changed", ...: an event's kind as the pages write it.
std::string kind_words(ItemEvent::Kind kind) {
  std::string out = item_event_name(kind);
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

// An event's kind as the pages write it, a removal that aged out of the window as such.
std::string event_words(const ItemEvent& e) {
  if (e.kind == ItemEvent::Kind::removed && e.change.aged_out) return "aged out";
  return kind_words(e.kind);
}

// What the event line says after its kind, unescaped: the title for an item that came or
// went, the changed fields for an edit, the positions (1 for the first item) for a move.
std::string event_detail(const ItemEvent& e) {
  const ItemChange& c = e.change;
  auto position = [](std::size_t index) {
    return index == page::kNoIndex ? std::string("?") : std::to_string(index + 1);
  };
  if (e.kind == ItemEvent::Kind::changed) {
    std::string fields;
    for (const auto& f : c.fields) fields += (fields.empty() ? "" : ", ") + f;
    if (c.moved)
      fields += fmt::format("; moved from position {} to {}", position(c.old_index),
                            position(c.new_index));
    return fields.empty() ? std::string("only ignored fields") : fields;
  }
  if (e.kind == ItemEvent::Kind::moved)
    return fmt::format("from position {} to {}", position(c.old_index), position(c.new_index));
  return title_line(c.title);
}

const HistoryVersion* version_at(const HistoryView& v, std::size_t index) {
  return index < v.versions.size() ? &v.versions[index] : nullptr;
}

std::string when(const HistoryView& v, std::size_t index) {
  const HistoryVersion* version = version_at(v, index);
  return version ? html::short_time(version->observed_at) : std::string("?");
}

std::string short_commit(const HistoryView& v, std::size_t index) {
  const HistoryVersion* version = version_at(v, index);
  return version ? version->commit.substr(0, 7) : std::string("?");
}

// The last event that removed the item, when it is gone now.
const ItemEvent* removal(const ItemLife& life) {
  if (life.present() || life.events.empty() || life.events.back().kind != ItemEvent::Kind::removed)
    return nullptr;
  return &life.events.back();
}

std::size_t unreadable(const HistoryView& v) {
  return static_cast<std::size_t>(
      std::count_if(v.versions.begin(), v.versions.end(),
                    [](const HistoryVersion& h) { return !h.note.empty(); }));
}

std::string now_words(const HistoryView& v, const ItemLife& life) {
  if (life.present()) return "present";
  const ItemEvent* gone = removal(life);
  return gone ? fmt::format("{} {} ({})", event_words(*gone), when(v, gone->version),
                            short_commit(v, gone->version))
              : std::string("removed");
}

// "present", "removed" or "aged out": where the item is now, in one word.
std::string now_word(const ItemLife& life) {
  if (life.present()) return "present";
  const ItemEvent* gone = removal(life);
  return gone ? event_words(*gone) : std::string("removed");
}

std::string edits_words(const HistoryView& v, const ItemLife& life) {
  if (!life.last_changed) return "none";
  return fmt::format("{} (last {}, {})", with_thousands(life.edits), when(v, *life.last_changed),
                     short_commit(v, *life.last_changed));
}

// The field list above an item's events, label and value, unescaped.
std::vector<std::pair<std::string, std::string>> item_fields(const HistoryView& v,
                                                             const ItemLife& life) {
  std::vector<std::pair<std::string, std::string>> out = {
      {"Source", v.source},
      {"Id", life.id},
      {"Title", life.title.empty() ? std::string("(none)") : life.title},
  };
  std::string older;
  for (const auto& t : life.titles)
    if (t != life.title) older += (older.empty() ? "" : "; ") + title_line(t);
  if (!older.empty()) out.emplace_back("Also titled", older);
  out.emplace_back("First seen", fmt::format("{} ({})", when(v, life.first_seen),
                                             short_commit(v, life.first_seen)));
  out.emplace_back("Edits", edits_words(v, life));
  out.emplace_back("Now", now_words(v, life));
  return out;
}

std::string items_heading(const HistoryView& v) {
  const std::size_t present = static_cast<std::size_t>(
      std::count_if(v.items.begin(), v.items.end(), [](const ItemLife& l) { return l.present(); }));
  return fmt::format("{} item{} ({} present now) across {} version{}",
                     with_thousands(v.items.size()), v.items.size() == 1 ? "" : "s",
                     with_thousands(present), with_thousands(v.versions.size()),
                     v.versions.size() == 1 ? "" : "s");
}

// ---- JSON -----------------------------------------------------------------------------------

Json version_json(const HistoryView& v, std::size_t index) {
  const HistoryVersion* version = version_at(v, index);
  if (!version) return nullptr;
  Json out;
  out["commit"] = version->commit;
  out["observed_at"] = version->observed_at;
  return out;
}

Json index_json(std::size_t index) {
  return index == page::kNoIndex ? Json(nullptr) : Json(index);
}

Json life_summary_json(const HistoryView& v, const ItemLife& life) {
  Json out;
  out["id"] = life.id;
  out["title"] = life.title;
  out["titles"] = life.titles;
  out["first_seen"] = version_json(v, life.first_seen);
  out["last_changed"] = life.last_changed ? version_json(v, *life.last_changed) : Json(nullptr);
  out["edits"] = life.edits;
  out["present"] = life.present();
  const ItemEvent* gone = removal(life);
  out["removed"] = gone ? version_json(v, gone->version) : Json(nullptr);
  return out;
}

Json event_json(const HistoryView& v, const ItemEvent& e) {
  Json out;
  out["kind"] = item_event_name(e.kind);
  const HistoryVersion* version = version_at(v, e.version);
  out["commit"] = version ? Json(version->commit) : Json(nullptr);
  out["observed_at"] = version ? Json(version->observed_at) : Json(nullptr);
  out["title"] = e.change.title;
  out["fields"] = e.change.fields;
  Json changes = Json::array();
  for (const FieldChange& c : e.change.changes) changes.push_back(page::field_change_to_json(c));
  out["field_changes"] = std::move(changes);
  out["moved"] = e.change.moved;
  out["aged_out"] = e.kind == ItemEvent::Kind::removed ? Json(e.change.aged_out) : Json(nullptr);
  out["old_index"] = index_json(e.change.old_index);
  out["new_index"] = index_json(e.change.new_index);
  return out;
}

}  // namespace

// ---- text -----------------------------------------------------------------------------------

std::string render_history_text(const HistoryView& v, bool color) {
  const char* bold = color ? "\x1b[1m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  const char* green = color ? "\x1b[32m" : "";
  const char* red = color ? "\x1b[31m" : "";
  std::string out;
  if (!v.single) {
    out += fmt::format("{}Items of {}{}: {}\n", bold, escape_terminal(v.source), reset,
                       items_heading(v));
    if (const std::size_t bad = unreadable(v))
      out += fmt::format("({} version{} could not be read as a feed)\n", with_thousands(bad),
                         bad == 1 ? "" : "s");
    if (v.items.empty()) return out;
    out += fmt::format("\n{:<16}  {:<16}  {:>5}  {:<8}  {}\n", "FIRST SEEN", "LAST CHANGED",
                       "EDITS", "NOW", "ITEM");
    for (const ItemLife& life : v.items)
      out += fmt::format("{:<16}  {:<16}  {:>5}  {:<8}  {}  {}\n", when(v, life.first_seen),
                         life.last_changed ? when(v, *life.last_changed) : std::string("-"),
                         with_thousands(life.edits), now_word(life),
                         escape_terminal(label_of(life)), escape_terminal(title_line(life.id)));
    return out;
  }
  for (const ItemLife& life : v.items) {
    out += fmt::format("{}History of an item{}\n", bold, reset);
    const auto fields = item_fields(v, life);
    std::size_t width = 0;
    for (const auto& [label, value] : fields) width = std::max(width, label.size());
    for (const auto& [label, value] : fields)
      out += fmt::format("{:<{}}  {}\n", label, width, escape_terminal(value));
    out += "\nEvents, oldest first\n";
    for (const ItemEvent& e : life.events) {
      const char* c =
          e.kind == ItemEvent::Kind::removed                                               ? red
          : e.kind == ItemEvent::Kind::first_seen || e.kind == ItemEvent::Kind::reappeared ? green
                                                                                           : "";
      out +=
          fmt::format("  {}  {}  {}{:<10}{}  {}\n", when(v, e.version), short_commit(v, e.version),
                      c, event_words(e), *c ? reset : "", escape_terminal(event_detail(e)));
      if (e.kind == ItemEvent::Kind::changed) out += page::text_field_changes(e.change, color);
    }
    if (!v.articles.empty()) out += "\nIts article's versions, oldest first\n";
    for (const HistoryArticle& a : v.articles)
      out += fmt::format("  {}  {}  {:<10}  {}\n", html::short_time(a.observed_at),
                         a.commit.substr(0, 7), a.result, escape_terminal(article_detail(a)));
  }
  if (const std::size_t bad = unreadable(v)) {
    out += fmt::format(
        "\n{} version{} could not be read as a feed (each later one is compared "
        "with the last that could):\n",
        with_thousands(bad), bad == 1 ? "" : "s");
    for (const HistoryVersion& h : v.versions)
      if (!h.note.empty())
        out += fmt::format("  {}  {}  {}\n", html::short_time(h.observed_at), h.commit.substr(0, 7),
                           escape_terminal(h.note));
  }
  return out;
}

// ---- markdown -------------------------------------------------------------------------------

std::string render_history_markdown(const HistoryView& v) {
  std::string out;
  if (!v.single) {
    out +=
        fmt::format("# Items of {}\n\n{}\n\n", page::markdown_inline(v.source), items_heading(v));
    if (v.items.empty()) return out;
    out += "| First seen | Last changed | Edits | Now | Item | Id |\n|---|---|--:|---|---|---|\n";
    for (const ItemLife& life : v.items)
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", when(v, life.first_seen),
                         life.last_changed ? when(v, *life.last_changed) : std::string("-"),
                         life.edits, now_word(life), page::markdown_inline(label_of(life)),
                         page::markdown_inline(title_line(life.id)));
    return out;
  }
  for (const ItemLife& life : v.items) {
    out += fmt::format("# History of an item\n\n## {}\n\n", page::markdown_inline(label_of(life)));
    for (const auto& [label, value] : item_fields(v, life))
      out += fmt::format("- **{}**: {}\n", label, page::markdown_inline(value));
    out += "\n### Events\n\n";
    for (const ItemEvent& e : life.events) {
      out += fmt::format("- **{}** {} `{}` {}\n", event_words(e), when(v, e.version),
                         short_commit(v, e.version), page::markdown_inline(event_detail(e)));
      if (e.kind == ItemEvent::Kind::changed) out += page::markdown_field_changes(e.change);
    }
    if (!v.articles.empty()) out += "\n### Its article's versions\n\n";
    for (const HistoryArticle& a : v.articles)
      out += fmt::format("- **{}** {} `{}` {}\n", a.result, html::short_time(a.observed_at),
                         a.commit.substr(0, 7), page::markdown_inline(article_detail(a)));
  }
  return out;
}

// ---- JSON -----------------------------------------------------------------------------------

std::string render_history_json(const HistoryView& v) {
  Json doc;
  doc["feeddiff"] = "history";
  doc["version"] = kJsonSchemaVersion;
  doc["source"] = v.source;
  doc["versions"] = v.versions.size();
  Json notes = Json::array();
  for (const HistoryVersion& h : v.versions) {
    if (h.note.empty()) continue;
    Json one;
    one["commit"] = h.commit;
    one["observed_at"] = h.observed_at;
    one["note"] = h.note;
    notes.push_back(std::move(one));
  }
  doc["unreadable"] = std::move(notes);
  if (v.single && !v.items.empty()) {
    Json item = life_summary_json(v, v.items.front());
    Json events = Json::array();
    for (const ItemEvent& e : v.items.front().events) events.push_back(event_json(v, e));
    item["events"] = std::move(events);
    Json articles = Json::array();
    for (const HistoryArticle& a : v.articles)
      articles.push_back({{"commit", a.commit},
                          {"observed_at", a.observed_at},
                          {"url", a.url},
                          {"result", a.result},
                          {"summary", a.summary}});
    item["articles"] = std::move(articles);
    doc["item"] = std::move(item);
    doc["items"] = nullptr;
  } else {
    doc["item"] = nullptr;
    Json items = Json::array();
    for (const ItemLife& life : v.items) items.push_back(life_summary_json(v, life));
    doc["items"] = std::move(items);
  }
  return page::json_document(doc);
}

// ---- HTML -----------------------------------------------------------------------------------

std::string render_history_html(const HistoryView& v, const HtmlLinks& links) {
  auto commit_cell = [&v](std::size_t index) {
    const HistoryVersion* version = version_at(v, index);
    if (!version) return std::string("?");
    const std::string label = version->commit.substr(0, 7);
    return "<code>" +
           (version->href.empty() ? escape_html(label) : html::link(version->href, label)) +
           "</code>";
  };
  std::string out;
  if (!v.single) {
    out += html::head("Items of " + v.source);
    out += html::nav(links.nav);
    out +=
        fmt::format("<header>\n<p class=\"kicker\">Items</p>\n<h1>{}</h1>\n<p>{}</p>\n</header>\n",
                    escape_html(v.source), escape_html(items_heading(v)));
    out +=
        "<div class=\"scroll\"><table>\n<thead><tr><th>First seen</th><th>Last changed</th>"
        "<th class=\"num\">Edits</th><th>Now</th><th>Item</th></tr></thead>\n<tbody>\n";
    for (const ItemLife& life : v.items)
      out += fmt::format(
          "<tr><td>{} {}</td><td>{}</td><td "
          "class=\"num\">{}</td><td>{}</td><td>{}<br><code>{}</code>"
          "</td></tr>\n",
          escape_html(when(v, life.first_seen)), commit_cell(life.first_seen),
          life.last_changed
              ? escape_html(when(v, *life.last_changed)) + " " + commit_cell(*life.last_changed)
              : std::string("-"),
          life.edits, now_word(life), escape_html(label_of(life)),
          escape_html(title_line(life.id)));
    out += "</tbody>\n</table></div>\n";
    return out + html::tail();
  }
  const std::string title = v.items.empty() ? std::string("Item") : label_of(v.items.front());
  out += html::head("History · " + title, links.atom.value_or(""));
  out += html::nav(links.nav);
  for (const ItemLife& life : v.items) {
    out += fmt::format("<header>\n<p class=\"kicker\">History of an item of {}</p>\n<h1>{}</h1>\n",
                       escape_html(v.source), escape_html(label_of(life)));
    if (links.atom)
      out += fmt::format("<p class=\"id\">{}</p>\n",
                         html::link(*links.atom, "Atom feed of this item's edits"));
    out += "</header>\n";
    out += "<dl class=\"fields\">\n";
    for (const auto& [label, value] : item_fields(v, life))
      out += fmt::format(
          "<dt>{}</dt><dd>{}</dd>\n", escape_html(label),
          label == "Id" ? "<code>" + escape_html(value) + "</code>" : escape_html(value));
    out += "</dl>\n<section id=\"events\">\n<h2>Versions</h2>\n<ul class=\"items\">\n";
    for (const ItemEvent& e : life.events) {
      const char* cls =
          e.kind == ItemEvent::Kind::removed ? (e.change.aged_out ? "aged-out" : "removed")
          : e.kind == ItemEvent::Kind::first_seen || e.kind == ItemEvent::Kind::reappeared
              ? "added"
              : "changed";
      const std::string changes =
          e.kind == ItemEvent::Kind::changed ? page::html_field_changes(e.change) : std::string();
      out += fmt::format("<li><span class=\"kind {}\">{}</span> <div>{} {} {}\n{}</div></li>\n",
                         cls, escape_html(event_words(e)), escape_html(when(v, e.version)),
                         commit_cell(e.version), escape_html(event_detail(e)), changes);
    }
    out += "</ul>\n</section>\n";
    if (v.articles.empty()) continue;
    out += "<section id=\"articles\">\n<h2>Its article's versions</h2>\n<ul class=\"items\">\n";
    for (const HistoryArticle& a : v.articles)
      out += fmt::format(
          "<li><span class=\"kind {}\">{}</span> <div>{} <code>{}</code> {}</div></li>\n",
          a.result == "uncertain" ? "removed"
          : a.result == "added"   ? "added"
                                  : "changed",
          escape_html(a.result), escape_html(html::short_time(a.observed_at)),
          escape_html(a.commit.substr(0, 7)), escape_html(article_detail(a)));
    out += "</ul>\n</section>\n";
  }
  return out + html::tail();
}

}  // namespace feeddiff
