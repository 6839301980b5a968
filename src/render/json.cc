// The change page and the log as JSON documents (docs/json.md). Keys keep insertion order
// (ordered_json), so the same view gives the same bytes; the schema's version is in the
// document.

#include <nlohmann/json.hpp>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/json_parts.h"
#include "render/page.h"

namespace feeddiff {

namespace {

using Json = nlohmann::ordered_json;

Json optional_string(const std::optional<std::string>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json index_or_null(std::size_t index) {
  return index == page::kNoIndex ? Json(nullptr) : Json(index);
}

// An HTTP status as recorded ("200") as a number; null when absent or not a number.
Json status_number(const std::optional<std::string>& status) {
  if (!status || status->empty() || status->size() > 3) return nullptr;
  int value = 0;
  for (char ch : *status) {
    if (ch < '0' || ch > '9') return nullptr;
    value = value * 10 + (ch - '0');
  }
  return value;
}

const char* kind_word(char kind) {
  switch (kind) {
    case '+':
      return "added";
    case '-':
      return "removed";
    default:
      return "context";
  }
}

// Characters that are valid JSON unescaped but reorder or hide text when the document is
// printed on a terminal: DEL, C1 controls, bidi marks, embeddings, overrides and isolates,
// line and paragraph separators, and a stray BOM. The dump is valid UTF-8 (invalid bytes were
// replaced), and outside strings it is ASCII, so escaping them in place keeps the document's
// meaning.
std::string escape_invisible(const std::string& dumped) {
  std::string out;
  out.reserve(dumped.size());
  auto escaped = [&out](unsigned cp) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
  };
  for (std::size_t i = 0; i < dumped.size();) {
    // Invalid UTF-8 cannot occur here; were it to, each such byte is copied as it is.
    const Utf8Char c = decode_utf8(dumped, i);
    const char32_t cp = c.size ? c.cp : static_cast<unsigned char>(dumped[i]);
    const std::size_t n = c.size ? c.size : 1;
    const bool invisible = cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C ||
                           cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
                           (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
    if (invisible)
      escaped(static_cast<unsigned>(cp));
    else
      out.append(dumped, i, n);
    i += n;
  }
  return out;
}

std::string dump(const Json& document) {
  return escape_invisible(document.dump(2, ' ', false, Json::error_handler_t::replace)) + "\n";
}

// A changed field, before and after: short fields by value, long text by its word diff.
Json field_change_json(const FieldChange& c) {
  Json out;
  out["field"] = c.field;
  out["text"] = c.text;
  out["old"] = c.text ? Json(nullptr) : Json(c.old_value);
  out["new"] = c.text ? Json(nullptr) : Json(c.new_value);
  out["cut"] = c.cut;
  if (!c.text) {
    out["words"] = nullptr;
    out["skipped_after"] = nullptr;
    out["held_back_changes"] = nullptr;
    out["held_back_chars"] = nullptr;
    out["not_compared_chars"] = nullptr;
    return out;
  }
  Json runs = Json::array();
  for (const WordRun& run : c.words.runs) {
    Json one;
    one["kind"] = word_kind_name(run.kind);
    one["text"] = run.text;
    one["skipped"] = run.skipped;
    runs.push_back(std::move(one));
  }
  out["words"] = std::move(runs);
  out["skipped_after"] = c.words.skipped_after;
  out["held_back_changes"] = c.words.held_back_changes;
  out["held_back_chars"] = c.words.held_back_chars;
  out["not_compared_chars"] = c.words.not_compared_chars;
  return out;
}

Json items_json(const ItemDiff& items, const RenderOptions& options) {
  Json out;
  out["summary"] = page::items_summary(items);
  out["cosmetic_only"] = items.cosmetic_only;
  out["ignored_changes"] = items.ignored_changes;
  out["minor"] = items.minor;
  out["channel_fields"] = items.channel_fields;
  out["total"] = items.items.size();
  Json listed = Json::array();
  for (const ItemChange& item : items.items) {
    if (!page::listed(item, options)) continue;
    if (listed.size() >= options.max_items) break;
    Json one;
    one["kind"] = item_kind_name(item.kind);
    one["id"] = item.id;
    one["title"] = item.title;
    one["fields"] = item.fields;
    Json changes = Json::array();
    for (const FieldChange& c : item.changes) changes.push_back(field_change_json(c));
    one["field_changes"] = std::move(changes);
    one["moved"] = item.moved;
    one["minor"] = item.minor;
    one["aged_out"] = item.kind == ItemChange::Kind::removed ? Json(item.aged_out) : Json(nullptr);
    one["old_index"] = index_or_null(item.old_index);
    one["new_index"] = index_or_null(item.new_index);
    listed.push_back(std::move(one));
  }
  out["listed"] = listed.size();
  if (options.only.empty()) {
    out["only"] = nullptr;
  } else {
    Json kinds = Json::array();
    for (ItemChange::Kind k : options.only) kinds.push_back(item_kind_name(k));
    out["only"] = std::move(kinds);
  }
  out["filtered_out"] = page::filtered_out(items, options);
  out["changes"] = std::move(listed);
  return out;
}

Json diff_json(const ChangeView& c, const RenderOptions& options) {
  const page::ShownDiff shown = page::shown(c.diff, options);
  Json out;
  out["of"] = c.diff_label;
  out["empty"] = c.diff.empty();
  out["approximate"] = c.diff.approximate;
  out["lines_total"] = shown.total_lines;
  out["lines_shown"] = shown.lines.size();
  out["lines_cut"] = shown.cut_lines;
  out["truncated"] = shown.total_lines > shown.lines.size();

  // Each '@' line of the shown diff starts the next hunk of the whole diff, in order.
  Json hunks = Json::array();
  std::size_t next_hunk = 0;
  for (const page::ShownLine& line : shown.lines) {
    if (line.kind == '@') {
      const Hunk& h = c.diff.hunks[next_hunk++];
      Json hunk;
      hunk["header"] = line.header;
      hunk["old_start"] = h.old_start;
      hunk["old_count"] = h.old_count;
      hunk["new_start"] = h.new_start;
      hunk["new_count"] = h.new_count;
      hunk["lines"] = Json::array();
      hunks.push_back(std::move(hunk));
      continue;
    }
    Json one;
    one["kind"] = kind_word(line.kind);
    one["text"] = std::string(line.text) + (line.cr ? "\r" : "");  // the bytes, as before
    one["cut"] = line.cut;
    one["no_newline"] = line.no_newline;
    hunks.back()["lines"].push_back(std::move(one));
  }
  out["hunks"] = std::move(hunks);
  const std::string footer = page::footer(shown, options);
  out["footer"] = footer.empty() ? Json(nullptr) : Json(footer);
  return out;
}

}  // namespace

std::string render_json(const ChangeView& c, const RenderOptions& options) {
  Json doc;
  doc["feeddiff"] = "change";
  doc["version"] = kJsonSchemaVersion;
  // `diff` of two files has no commit, and its times are no commit's either.
  doc["id"] = c.commit_id.empty() ? Json(nullptr) : Json(c.commit_id);
  doc["short_id"] = c.commit_id.empty() ? Json(nullptr) : Json(c.commit_id.substr(0, 7));
  doc["title"] = c.title;
  doc["forge_url"] = optional_string(c.forge_url);
  doc["path"] = c.path;
  doc["path_status"] = c.path_status;
  doc["source"] = c.source;
  doc["lines_added"] = c.diff.added;
  doc["lines_removed"] = c.diff.removed;
  doc["stored_bytes"] = c.stored_bytes;
  doc["timestamp"] = c.timestamp_kind == "origin" || c.timestamp_kind == "observed"
                         ? Json(c.timestamp_kind)
                         : Json(nullptr);
  doc["raw_artifact"] = c.path;
  Json headers = Json::array();
  for (const HeaderRow& row : c.headers) {
    Json one;
    one["name"] = row.name;
    one["value"] = optional_string(row.value);
    headers.push_back(std::move(one));
  }
  doc["headers"] = std::move(headers);
  doc["items"] = c.items ? items_json(*c.items, options) : Json(nullptr);
  doc["items_note"] = c.items_note.empty() ? Json(nullptr) : Json(c.items_note);
  doc["reverted_to"] = optional_string(c.reverted_to);
  doc["diff"] = diff_json(c, options);
  Json limits;
  limits["max_lines"] = options.max_lines;
  limits["max_line_chars"] = options.max_line_chars;
  limits["max_items"] = options.max_items;
  doc["limits"] = std::move(limits);
  return dump(doc);
}

std::string render_log_json(const std::vector<LogEntry>& entries) {
  Json doc;
  doc["feeddiff"] = "log";
  doc["version"] = kJsonSchemaVersion;
  Json changes = Json::array();
  for (const LogEntry& e : entries) {
    Json one;
    one["id"] = e.id;
    one["short_id"] = e.short_id.empty() ? e.id.substr(0, 7) : e.short_id;
    one["title"] = e.title;
    one["source"] = e.source.empty() ? Json(nullptr) : Json(e.source);
    one["timestamp"] = e.timestamp;
    one["observed_at"] = optional_string(e.observed_at);
    one["status"] = status_number(e.status);
    one["class"] = optional_string(e.change_class);
    one["item_summary"] = optional_string(e.item_summary);
    one["not_a_feed"] = optional_string(e.not_a_feed);
    changes.push_back(std::move(one));
  }
  doc["changes"] = std::move(changes);
  return dump(doc);
}

namespace page {

nlohmann::ordered_json field_change_to_json(const FieldChange& change) {
  return field_change_json(change);
}

std::string json_document(const nlohmann::ordered_json& document) {
  return dump(document);
}

}  // namespace page

}  // namespace feeddiff
