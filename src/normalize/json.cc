// JSON Feed 1.0/1.1 (and any JSON): canonical JSON with sorted keys, and the item model.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "normalize/internal.h"

namespace feeddiff::normalize_detail {
namespace {

using nlohmann::json;

std::string as_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return {};
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string string_at(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? std::string() : as_text(*it);
}

void add_person(std::vector<std::string>& out, const json& p) {
  if (p.is_object()) {
    std::string name = string_at(p, "name");
    if (name.empty()) name = string_at(p, "url");
    if (!name.empty()) out.push_back(std::move(name));
  } else if (p.is_string()) {
    out.push_back(p.get<std::string>());
  }
}

Item json_item(const json& j) {
  Item it;
  if (!j.is_object()) {
    it.extra.push_back(Field{"item", as_text(j), false});
    assign_fallback_id(it);
    return it;
  }
  for (const auto& [key, value] : j.items()) {
    if (key == "id")
      it.id = as_text(value);
    else if (key == "url")
      it.link = as_text(value);
    else if (key == "title")
      it.title = as_text(value);
    else if (key == "date_published")
      it.published = as_text(value);
    else if (key == "date_modified")
      it.updated = as_text(value);
    else if (key == "summary")
      it.summary = as_text(value);
    else if (key == "content_html")
      it.content = as_text(value);
    else if (key == "author")
      add_person(it.authors, value);
    else if (key == "authors" && value.is_array())
      for (const auto& p : value) add_person(it.authors, p);
    else if (key == "tags" && value.is_array())
      for (const auto& t : value) it.categories.push_back(as_text(t));
    else if (key == "attachments" && value.is_array())
      for (const auto& a : value) {
        if (!a.is_object()) continue;
        it.enclosures.push_back(Enclosure{string_at(a, "url"), string_at(a, "mime_type"),
                                          string_at(a, "size_in_bytes")});
      }
    else
      it.extra.push_back(Field{key, as_text(value), false});
  }
  if (it.content.empty()) it.content = string_at(j, "content_text");
  assign_fallback_id(it);
  return it;
}

}  // namespace

Result<Document> normalize_json(std::string_view decoded, Document doc, bool model, bool text) {
  json j;
  try {
    j = json::parse(decoded.begin(), decoded.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: reason"
    const std::size_t colon = what.find(": ", what.find("column"));
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    const std::size_t at = e.byte == 0 ? 0 : e.byte - 1;
    return Error{Errc::bad_xml, line_column(decoded, at) + ": JSON " + reason};
  } catch (const json::exception& e) {
    return Error{Errc::bad_xml, std::string("JSON: ") + e.what()};
  }
  if (text) {
    doc.text = j.dump(2, ' ', false, json::error_handler_t::replace);
    doc.text += '\n';
  }
  if (!model) return doc;
  const bool is_feed =
      j.is_object() && j.contains("version") && j["version"].is_string() &&
      j["version"].get<std::string>().find("jsonfeed.org/version/") != std::string::npos;
  if (!is_feed) {
    doc.feed.format = "json";
    return doc;
  }
  const std::string version = j["version"].get<std::string>();
  doc.feed.format = version.ends_with("/1.1") ? "jsonfeed1.1" : "jsonfeed1.0";
  for (const auto& [key, value] : j.items()) {
    if (key == "items") continue;
    doc.feed.channel.push_back(Field{key, as_text(value), false});
  }
  const auto items = j.find("items");
  if (items != j.end() && items->is_array())
    for (const auto& item : *items) doc.feed.items.push_back(json_item(item));
  return doc;
}

}  // namespace feeddiff::normalize_detail
