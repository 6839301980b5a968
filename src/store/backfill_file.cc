// backfill/NAME/items: the items of a publisher's archive, one a line, written by backfill
// and read by show. Tab-separated as the cache's record files, so a title with a tab or a
// line break stays on its line.

#include "feeddiff/message.h"

namespace feeddiff {

std::string format_backfill_items(const std::vector<BackfillItem>& items) {
  std::string out;
  for (const BackfillItem& item : items) {
    for (const std::string* field :
         {&item.date, &item.written, &item.id, &item.page, &item.title, &item.link})
      append_tab_field(out, *field);
    out += '\n';
  }
  return out;
}

std::vector<BackfillItem> parse_backfill_items(std::string_view text) {
  std::vector<BackfillItem> out;
  std::vector<std::string> fields;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    fields.clear();
    // Each field follows a tab: the line's first field is the empty one before it.
    if (!split_tab_fields(line, fields) || fields.size() != 7 || !fields[0].empty()) continue;
    out.push_back({std::move(fields[1]), std::move(fields[2]), std::move(fields[3]),
                   std::move(fields[4]), std::move(fields[5]), std::move(fields[6])});
  }
  return out;
}

}  // namespace feeddiff
