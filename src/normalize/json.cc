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

// Builds the tree as nlohmann's own DOM parser does (iteratively; a repeated key keeps its
// last value), and stops at the first limit crossed. The callback form of json::parse would
// see the depth too, but it is quadratic in the number of values (300,000 items: minutes).
// Limits: nlohmann frees trees iteratively, but dump() recurses, and its indentation grows
// with depth, so a 200 KB body of nested arrays would write gigabytes. The depth and the size
// of the canonical text (two spaces a level a line) are bounded before either is made.
class LimitedBuilder final : public nlohmann::json_sax<json> {
 public:
  explicit LimitedBuilder(std::size_t input_size) : budget_(canonical_budget(input_size)) {}

  bool null() override { return add(json(nullptr)); }
  bool boolean(bool v) override { return add(json(v)); }
  bool number_integer(number_integer_t v) override { return add(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return add(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return add(json(v)); }
  bool string(string_t& v) override { return add(json(std::move(v))); }
  bool binary(binary_t& v) override { return add(json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool key(string_t& v) override {
    key_ = std::move(v);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    failed_ = true;
    position_ = position;
    id_ = ex.id;
    what_ = ex.what();
    return false;
  }

  json root;             ///< the document, once parsed
  bool failed_ = false;  ///< a syntax error (position_, id_, what_) or a limit (limit_)
  std::size_t position_ = 0;
  int id_ = 0;
  std::string what_;
  std::string limit_;

 private:
  bool count() {
    estimate_ += 2 * stack_.size() + 2;
    if (estimate_ <= budget_) return true;
    limit_ = "JSON whose canonical form would exceed " + std::to_string(budget_ >> 20) + " MiB (" +
             std::to_string(kCanonicalGrowth) + " times the input)";
    return false;
  }
  json* place(json&& v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }
  bool add(json&& v) {
    if (!count()) return false;
    place(std::move(v));
    return true;
  }
  bool open(json&& v) {
    if (stack_.size() >= kMaxJsonDepth) {
      limit_ = "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return false;
    }
    if (!count()) return false;
    stack_.push_back(place(std::move(v)));
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  std::size_t budget_;
  std::size_t estimate_ = 0;
  std::vector<json*> stack_;
  std::string key_;
};

}  // namespace

Result<Document> normalize_json(std::string_view decoded, Document doc, bool model, bool text) {
  LimitedBuilder builder(decoded.size());
  const bool parsed = json::sax_parse(decoded.begin(), decoded.end(), &builder);
  if (!builder.limit_.empty()) return Error{Errc::unsupported, builder.limit_};
  if (!parsed || builder.failed_) {
    const std::string& what = builder.what_;
    if (builder.id_ >= 100 && builder.id_ < 200) {
      // "[json.exception.parse_error.101] parse error at line 1, column 5: reason"
      const std::size_t colon = what.find(": ", what.find("column"));
      std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
      const std::size_t at = builder.position_ == 0 ? 0 : builder.position_ - 1;
      return Error{Errc::bad_xml, line_column(decoded, at) + ": JSON " + reason};
    }
    return Error{Errc::bad_xml, "JSON: " + what};
  }
  json& j = builder.root;
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
  if (j.size() > kMaxFields + 1)
    return Error{Errc::unsupported,
                 "an item or channel of more than " + std::to_string(kMaxFields) + " fields"};
  for (const auto& [key, value] : j.items()) {
    if (key == "items") continue;
    doc.feed.channel.push_back(Field{key, as_text(value), false});
  }
  const auto items = j.find("items");
  if (items != j.end() && items->is_array()) {
    if (items->size() > kMaxItems)
      return Error{Errc::unsupported, "a feed of more than " + std::to_string(kMaxItems) +
                                          " items (" + std::to_string(items->size()) + ")"};
    for (const auto& item : *items)
      if (item.is_object() && item.size() > kMaxFields)
        return Error{Errc::unsupported,
                     "an item or channel of more than " + std::to_string(kMaxFields) + " fields"};
    doc.feed.items.reserve(items->size());
    for (const auto& item : *items) doc.feed.items.push_back(json_item(item));
  }
  return doc;
}

}  // namespace feeddiff::normalize_detail
