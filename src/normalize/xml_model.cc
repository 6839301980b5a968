// The feed model's common ground: an element's text, its fields, links and enclosures, the
// channel, and the walk that hands the root to the reader of its format (xml_rss.cc,
// xml_atom.cc).

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "normalize/xml_model.h"

namespace feeddiff::normalize_detail {
namespace {

// An Atom text construct whose text is base64: Atom 0.3 mode="base64", or (`any_type`, for
// titles, which are text whatever they say) a type that is a MIME type neither text/* nor
// XML (RFC 4287 4.1.3.3; content of such a type stays base64, as it is no text).
bool base64_construct(pugi::xml_node e, bool any_type) {
  if (sv(e.attribute("mode").value()) == "base64") return true;
  if (!any_type) return false;
  const std::string_view type = trim_space(sv(e.attribute("type").value()));
  return type.find('/') != std::string_view::npos && !type.starts_with("text/") &&
         !type.ends_with("/xml") && !type.ends_with("+xml");
}

}  // namespace

std::string FeedModel::text_of(pugi::xml_node e) {
  const pugi::xml_node first = e.first_child();
  if (!first) return {};
  if (!first.next_sibling()) {
    if (first.type() != pugi::node_pcdata && first.type() != pugi::node_cdata) return {};
    return std::string(trim_space(sv(first.value())));
  }
  std::string s;
  for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) s += c.value();
  return std::string(trim_space(s));
}

// The element's text, base64-decoded when it is a base64 text construct (and decodes).
std::string FeedModel::construct_text(pugi::xml_node e, bool any_type) {
  std::string text = text_of(e);
  if (!base64_construct(e, any_type)) return text;
  std::string decoded;
  if (!base64_decode(text, decoded)) return text;
  return std::string(trim_space(decoded));
}

// Atom text construct: HTML as written for html, markup for xhtml, text otherwise.
std::string FeedModel::atom_text(pugi::xml_node e) {
  bool has_elem = false;
  for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element) has_elem = true;
  if (!has_elem) return construct_text(e, false);
  return std::string(trim_space(writer_.inline_markup(e)));
}

// Plain text; markup inside the element (XHTML, or HTML left unescaped) reads as text.
std::string FeedModel::title_of(pugi::xml_node e, bool atom) {
  bool has_elem = false;
  for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element) has_elem = true;
  if (!atom && !has_elem) return text_of(e);
  const std::string_view type = sv(e.attribute("type").value());
  if (has_elem) return html_to_text(writer_.inline_markup(e));
  if (type == "html" || type == "text/html" || sv(e.attribute("mode").value()) == "escaped")
    return html_to_text(construct_text(e, true));
  return construct_text(e, true);
}

std::string FeedModel::attrs_value(pugi::xml_node e) {
  std::vector<std::pair<std::string, std::string_view>> list;
  for (pugi::xml_attribute a = e.first_attribute(); a; a = a.next_attribute()) {
    const std::string_view name = sv(a.name());
    if (name == "xmlns" || name.starts_with("xmlns:")) continue;
    std::string cn;
    tree_.append_qname(cn, name);
    list.emplace_back(std::move(cn), sv(a.value()));
  }
  std::sort(list.begin(), list.end());
  std::string s;
  for (const auto& [k, v] : list) {
    if (!s.empty()) s += ' ';
    s += k;
    s += "=\"";
    s += v;
    s += '"';
  }
  return s;
}

// A field's value: its text, else its attributes, else (nested) its children's.
void FeedModel::add_fields(std::vector<Field>& fields, pugi::xml_node e, const std::string& prefix,
                           bool channel) {
  if (fields.size() >= kMaxFields) {
    too_many_fields_ = true;
    return;
  }
  const std::size_t pushed = tree_.push_scope(e);
  const Name n = tree_.name_of(e);
  const std::string name = prefix + tree_.qname(e);
  bool has_elem = false;
  for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element) has_elem = true;
  if (has_elem && !tree_.html_field(e, n) && prefix.size() < 200) {
    for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) add_fields(fields, c, name + "/", channel);
  } else {
    std::string value = has_elem ? atom_text(e) : text_of(e);
    const std::string attrs = attrs_value(e);
    if (!attrs.empty()) value = value.empty() ? attrs : attrs + " " + value;
    fields.push_back(Field{name, std::move(value), channel && tree_.volatile_field(n)});
  }
  tree_.pop_scope(pushed);
}

// An Atom link's target: its href, or, for a link without one, its text (as Atom 0.3-era
// feeds write it).
std::string FeedModel::atom_href(pugi::xml_node e) {
  const pugi::xml_attribute href = e.attribute("href");
  return href ? std::string(trim_space(sv(href.value()))) : text_of(e);
}

Enclosure FeedModel::enclosure_of(pugi::xml_node e, const char* url_attr) {
  if (std::string_view(url_attr) == "href")
    return Enclosure{atom_href(e), std::string(trim_space(sv(e.attribute("type").value()))),
                     std::string(trim_space(sv(e.attribute("length").value())))};
  return Enclosure{std::string(trim_space(sv(e.attribute(url_attr).value()))),
                   std::string(trim_space(sv(e.attribute("type").value()))),
                   std::string(trim_space(sv(e.attribute("length").value())))};
}

void FeedModel::channel_fields(Feed& feed, pugi::xml_node channel, std::string_view skip) {
  if (counting_) return;
  for (pugi::xml_node c = channel.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_comment && !is_marker(c)) {
      const std::string_view v = trim_space(sv(c.value()));
      feed.channel.push_back(Field{"comment", std::string(v), is_volatile_comment(v)});
      continue;
    }
    if (c.type() != pugi::node_element) continue;
    const std::size_t p = tree_.push_scope(c);
    const Name n = tree_.name_of(c);
    tree_.pop_scope(p);
    if (n.local == skip || (n.local == "items" && skip == "item")) continue;
    add_fields(feed.channel, c, "", true);
  }
}

// Whether there is room for one more item; past kMaxItems, notes that there was not. In
// the counting pass, counts it and keeps none.
bool FeedModel::keep_item(const Feed& feed) {
  if (counting_) {
    ++counted_;
    return false;
  }
  if (feed.items.size() < kMaxItems) return true;
  too_many_items_ = true;
  return false;
}

void FeedModel::top_comments(Feed& feed) {
  if (counting_) return;
  for (pugi::xml_node c = tree_.doc().first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_comment && !is_marker(c)) {
      const std::string_view v = trim_space(sv(c.value()));
      feed.channel.push_back(Field{"comment", std::string(v), is_volatile_comment(v)});
    }
}

// The items are counted first: past kMaxItems no model is made at all (it would be thrown
// away), and otherwise the item vector is allocated once at its size, where growing it would
// leave up to half of it unused and hold the old and the new array at once while it moves
// (an Item is ~320 bytes before its strings: six times a short item's XML).
Feed FeedModel::extract() {
  too_many_items_ = false;
  too_many_fields_ = false;
  Feed feed;
  counting_ = true;
  counted_ = 0;
  walk(feed);
  counting_ = false;
  if (counted_ > kMaxItems) {
    too_many_items_ = true;
    return feed;
  }
  feed = Feed{};
  reserve_large(feed.items, counted_);  // ~400 bytes an item: megabytes for a 20 MB feed
  walk(feed);
  return feed;
}

void FeedModel::walk(Feed& feed) {
  tree_.reset_scope();
  top_comments(feed);
  const pugi::xml_node root = tree_.doc().document_element();
  const std::size_t pushed = tree_.push_scope(root);
  const Name rn = tree_.name_of(root);
  tree_.set_root(rn);
  if (rn.local == "rss")
    walk_rss(feed, root);
  else if (rn.local == "RDF")
    walk_rdf(feed, root);
  else if (rn.local == "feed")
    walk_atom(feed, root, rn);
  else if (tree_.entry_doc())
    walk_entry(feed, root, rn);
  else
    feed.format = "xml";
  tree_.pop_scope(pushed);
}

}  // namespace feeddiff::normalize_detail
