// `poll --digest`: what a poll's commits changed, source by source, for cron's mail.

#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "feeddiff/changes.h"
#include "feeddiff/diff.h"
#include "feeddiff/notify.h"
#include "feeddiff/render.h"
#include "notify/internal.h"

namespace feeddiff {

namespace {

// Items of one source the digest lists; the counts always cover them all.
constexpr std::size_t kDigestItems = 20;
// Characters of one value the digest shows.
constexpr std::size_t kDigestValueChars = 120;

// Feed text, cut short and escaped for a terminal (a newline in a title stays `\x0a`).
std::string shorten(std::string_view text) {
  bool cut = false;
  std::string out = escape_terminal(cut_chars(text, kDigestValueChars, &cut));
  if (cut) out += "...";
  return out;
}

std::string item_label(const ItemChange& item) {
  if (!item.title.empty()) return shorten(item.title);
  if (!item.id.empty()) return shorten(item.id);
  return "(untitled)";
}

// One field of a changed item, under its line: the word diff as `show` writes it without
// colour ([-removed-]{+added+}), or the old and new values.
std::string field_line(const FieldChange& c) {
  if (!c.text)
    return fmt::format("           {}: {} -> {}\n", shorten(c.field), shorten(c.old_value),
                       shorten(c.new_value));
  return fmt::format("           {}: {}\n", shorten(c.field),
                     shorten(notify_detail::plain_words(c.words.runs)));
}

// The lines of one item change: its kind and label, and for a changed item its fields.
std::string item_lines(const ItemChange& item) {
  switch (item.kind) {
    case ItemChange::Kind::added:
      return fmt::format("  added    {}\n", item_label(item));
    case ItemChange::Kind::removed:
      return fmt::format("  {:<8} {}\n", item_change_word(item), item_label(item));
    case ItemChange::Kind::reappeared:
      return fmt::format("  reappeared {}\n", item_label(item));
    case ItemChange::Kind::duplicate:
      return fmt::format("  duplicate {}\n", item_label(item));
    default: {
      std::string fields;
      for (const auto& f : item.fields) fields += (fields.empty() ? "" : ", ") + shorten(f);
      std::string out = fmt::format("  changed  {} ({})\n", item_label(item), fields);
      for (const FieldChange& c : item.changes) out += field_line(c);
      return out;
    }
  }
}

// The section of one committed change: a heading with its item summary, then its items
// (moves left out), the first kDigestItems of them.
std::string section(const Archive& archive, const SourceOutcome& o) {
  auto change = load_change(archive, {.revision = o.commit, .source = o.name});
  // Source names are safe path components (check_source_name): no escaping needed.
  const std::string head =
      fmt::format("{} ({}, commit {})", o.name, outcome_name(o.outcome), o.commit.substr(0, 7));
  if (!change) return fmt::format("{}: {}\n", head, shorten(change.error().message));
  if (!(*change)->view.items) {
    const std::string& note = (*change)->view.items_note;
    return fmt::format("{}: {}\n", head, note.empty() ? "no item summary" : shorten(note));
  }
  const ItemDiff& items = *(*change)->view.items;
  std::string out = fmt::format("{}: {}\n", head, escape_terminal(summarize_items(items)));
  std::size_t shown = 0;
  for (const ItemChange& item : items.items) {
    if (item.kind == ItemChange::Kind::moved) continue;
    if (shown++ == kDigestItems) break;
    out += item_lines(item);
  }
  const std::size_t listed = static_cast<std::size_t>(
      std::count_if(items.items.begin(), items.items.end(),
                    [](const auto& i) { return i.kind != ItemChange::Kind::moved; }));
  if (listed > kDigestItems) out += fmt::format("  ... and {} more\n", listed - kDigestItems);
  return out;
}

}  // namespace

std::string notify_detail::plain_words(const std::vector<WordRun>& runs) {
  std::string words;
  for (const WordRun& run : runs) {
    if (run.skipped) words += "... ";
    if (run.kind == WordRun::Kind::added)
      words += "{+" + run.text + "+}";
    else if (run.kind == WordRun::Kind::removed)
      words += "[-" + run.text + "-]";
    else
      words += run.text;
  }
  return words;
}

std::string poll_digest(const Archive& archive, const PollReport& report) {
  std::string out;
  std::set<std::string> sources;
  for (const SourceOutcome& o : report.sources) {
    if (o.commit.empty() || (o.outcome != Outcome::added && o.outcome != Outcome::changed))
      continue;
    sources.insert(o.name);
    out += "\n" + section(archive, o);
  }
  // Then the edits of the articles the items link to (first captures and uncertain
  // extractions are no edit), a section per source.
  for (const std::string& edits : notify_detail::article_digest(archive, report)) {
    sources.insert(edits.substr(0, edits.find(' ')));
    out += "\n" + edits;
  }
  if (sources.empty()) return "";
  return fmt::format("feeddiff: {} source{} changed\n", sources.size(),
                     sources.size() == 1 ? "" : "s") +
         out;
}

}  // namespace feeddiff
