// An article version (docs/articles.md) as text and as JSON: what changed in the headline,
// byline and published time, then the body's word diff. Every value came from a page.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/page.h"

namespace feeddiff {

namespace {

using Json = nlohmann::ordered_json;

std::string shown(const std::string& value) {
  return value.empty() ? std::string("(none)") : escape_terminal(value);
}

// "Headline  old -> new", or the value alone when it did not change.
std::string field_line(std::string_view label, const std::string& before, const std::string& after,
                       bool first, const char* removed, const char* added, const char* reset) {
  if (first || before == after) return fmt::format("{:<10}  {}\n", label, shown(after));
  return fmt::format("{:<10}  {}{}{} -> {}{}{}  (changed)\n", label, removed, shown(before),
                     *removed ? reset : "", added, shown(after), *added ? reset : "");
}

}  // namespace

std::string render_article_text(const ArticleView& v, const RenderOptions& options) {
  const char* added = options.color ? "\x1b[32m" : "";
  const char* removed = options.color ? "\x1b[31m" : "";
  const char* bold = options.color ? "\x1b[1m" : "";
  const char* dim = options.color ? "\x1b[2m" : "";
  const char* reset = options.color ? "\x1b[0m" : "";
  std::string out;
  out += fmt::format("{}Article {}{}\n{}\n", bold, v.commit_id.substr(0, 7), reset, v.commit_id);
  out += fmt::format("{}{}{}\n\n", bold, escape_terminal(v.title), reset);
  out += fmt::format("{:<10}  {}\n", "Source", escape_terminal(v.source));
  out += fmt::format("{:<10}  {}\n", "URL", escape_terminal(v.url));
  out += fmt::format("{:<10}  {}\n", "Item", escape_terminal(v.item_id));
  out += fmt::format("{:<10}  {} (HTTP {})\n", "Observed", escape_terminal(v.observed_at),
                     escape_terminal(v.status));
  out += fmt::format("{:<10}  {}\n", "Page", escape_terminal(v.path));
  if (!v.uncertain.empty()) {
    out += fmt::format(
        "\nExtraction uncertain: {}.\nThe page is archived as it came; this version is not an "
        "edit, and the next one is compared with the last text before it.\n",
        escape_terminal(v.uncertain));
    if (!v.new_title.empty())
      out += fmt::format("{:<10}  {}\n", "Last text", escape_terminal(v.new_title));
    return out;
  }
  out += '\n';
  out += field_line("Headline", v.old_title, v.new_title, v.first, removed, added, reset);
  out += field_line("Byline", v.old_byline, v.new_byline, v.first, removed, added, reset);
  out += field_line("Published", v.old_published, v.new_published, v.first, removed, added, reset);
  if (v.first) {
    out += fmt::format("\nFirst capture: {} words of text.\n", with_thousands(v.words));
    return out;
  }
  if (!v.body_changed) {
    out += "\nBody: the text reads the same.\n";
    return out;
  }
  out += fmt::format("\nBody ({} words now):\n", with_thousands(v.words));
  std::string line;
  for (const WordRun& run : v.body.runs) {
    if (run.skipped) line += "…";
    if (run.kind == WordRun::Kind::kept) {
      line += escape_terminal(run.text);
      continue;
    }
    const bool plus = run.kind == WordRun::Kind::added;
    const page::Padded text = page::padded(run.text);
    line += escape_terminal(text.lead);
    if (options.color)
      line += fmt::format("{}{}{}", plus ? added : removed, escape_terminal(text.core), reset);
    else
      line +=
          fmt::format("{}{}{}", plus ? "{+" : "[-", escape_terminal(text.core), plus ? "+}" : "-]");
    line += escape_terminal(text.trail);
  }
  if (v.body.skipped_after) line += "…";
  out += line + "\n";
  if (const std::string note = page::held_back_note(v.body); !note.empty())
    out += fmt::format("{}({}){}\n", dim, note, reset);
  return out;
}

std::string render_article_json(const ArticleView& v) {
  Json runs = Json::array();
  for (const WordRun& run : v.body.runs)
    runs.push_back(
        {{"kind", word_kind_name(run.kind)}, {"text", run.text}, {"skipped", run.skipped}});
  Json doc = {
      {"schema_version", kJsonSchemaVersion},
      {"kind", "article"},
      {"commit", v.commit_id},
      {"title", v.title},
      {"source", v.source},
      {"url", v.url},
      {"item_id", v.item_id},
      {"status", v.status},
      {"observed_at", v.observed_at},
      {"path", v.path},
      {"uncertain", v.uncertain.empty() ? Json(nullptr) : Json(v.uncertain)},
      {"first", v.first},
      {"headline", {{"old", v.old_title}, {"new", v.new_title}}},
      {"byline", {{"old", v.old_byline}, {"new", v.new_byline}}},
      {"published", {{"old", v.old_published}, {"new", v.new_published}}},
      {"words", v.words},
      {"body_changed", v.body_changed},
      {"body", runs},
      {"skipped_after", v.body.skipped_after},
      {"held_back_changes", v.body.held_back_changes},
      {"held_back_chars", v.body.held_back_chars},
  };
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace feeddiff
