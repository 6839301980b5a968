// The Item-Summary trailer of a poll's commit, and the fields a cosmetic change touched: a
// change's item-level difference as one line of text.

#include "poll/item_summary.h"

#include <fmt/format.h>

#include <iterator>

#include "feeddiff/poll.h"

namespace feeddiff {

std::string cosmetic_fields(const ItemDiff& d) {
  std::string fields;
  for (const auto& f : d.channel_fields) fields += (fields.empty() ? "" : ", ") + f;
  for (const auto& item : d.items)
    for (const auto& f : item.fields) fields += (fields.empty() ? "" : ", ") + f;
  return fields.empty() ? std::string("ignored fields") : fields;
}

std::string item_summary_trailer(const ItemDiff& d) {
  if (d.empty()) return "cosmetic only: formatting";
  if (d.cosmetic_only) return "cosmetic only: " + cosmetic_fields(d);
  constexpr std::size_t kinds = std::size(kItemKinds);
  std::size_t counts[kinds] = {};
  std::size_t aged_out = 0, minor = 0;
  for (const ItemChange& c : d.items) {
    if (c.kind == ItemChange::Kind::removed && c.aged_out)
      ++aged_out;
    else
      ++counts[static_cast<std::size_t>(c.kind)];
    if (c.kind == ItemChange::Kind::changed && c.minor) ++minor;
  }
  std::string out;
  auto add = [&](std::size_t n, std::string_view word) {
    if (n) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, word);
  };
  for (std::size_t k = 0; k < kinds; ++k) {
    const ItemChange::Kind kind = kItemKinds[k];
    if (kind == ItemChange::Kind::removed) add(aged_out, "aged out");
    add(counts[k], item_kind_name(kind));
    if (kind == ItemChange::Kind::changed && minor)
      out += minor == counts[k] ? " (minor)" : fmt::format(" ({} minor)", minor);
  }
  if (!d.channel_fields.empty()) {
    std::string fields;
    for (std::size_t i = 0; i < d.channel_fields.size() && i < 5; ++i)
      fields += (i ? ", " : "") + d.channel_fields[i];
    if (d.channel_fields.size() > 5) fields += ", ...";
    out += fmt::format("{}channel: {}", out.empty() ? "" : "; ", fields);
  }
  if (out.empty()) out = "only ignored fields changed";
  return out;
}

}  // namespace feeddiff
