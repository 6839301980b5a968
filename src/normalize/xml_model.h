#pragma once
// The feed model of a parsed XML document: its format, channel fields and items. One reader
// per format family, as one object: xml_model.cc (what they share and the walk that picks
// one), xml_rss.cc (RSS 0.9x/2.0, RSS 1.0), xml_atom.cc (Atom feeds and entry documents).
// Internal to normalize.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "normalize/xml_canonical.h"
#include "normalize/xml_tree.h"

namespace feeddiff::normalize_detail {

/// Extracts the model of one document (its namespaces collected).
class FeedModel {
 public:
  /// `writer` gives the inline markup of fields holding elements (XHTML, unescaped HTML).
  FeedModel(XmlTree& tree, CanonicalWriter& writer) : tree_(tree), writer_(writer) {}

  /// The model; empty of items past kMaxItems (see too_many_items).
  Feed extract();
  /// Whether extract() left items out, the feed holding more than kMaxItems.
  bool too_many_items() const { return too_many_items_; }
  /// Whether extract() left fields out, an item or the channel holding more than kMaxFields.
  bool too_many_fields() const { return too_many_fields_; }

 private:
  // xml_model.cc
  std::string text_of(pugi::xml_node e);
  std::string construct_text(pugi::xml_node e, bool any_type);
  std::string atom_text(pugi::xml_node e);
  std::string title_of(pugi::xml_node e, bool atom);
  std::string attrs_value(pugi::xml_node e);
  void add_fields(std::vector<Field>& fields, pugi::xml_node e, const std::string& prefix,
                  bool channel);
  std::string atom_href(pugi::xml_node e);
  Enclosure enclosure_of(pugi::xml_node e, const char* url_attr);
  void channel_fields(Feed& feed, pugi::xml_node channel, std::string_view skip);
  bool keep_item(const Feed& feed);
  void top_comments(Feed& feed);
  void walk(Feed& feed);

  // Calls fn(child) for each child element of parent whose local name is `local`, with the
  // child's namespaces in scope.
  template <class Fn>
  void elements(pugi::xml_node parent, std::string_view local, Fn&& fn) {
    for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element) continue;
      const std::size_t p = tree_.push_scope(c);
      const Name n = tree_.name_of(c);
      if (n.local == local) fn(c);
      tree_.pop_scope(p);
    }
  }

  // xml_rss.cc
  void walk_rss(Feed& feed, pugi::xml_node root);
  void walk_rdf(Feed& feed, pugi::xml_node root);
  Item rss_item(pugi::xml_node item);

  // xml_atom.cc
  void walk_atom(Feed& feed, pugi::xml_node root, const Name& rn);
  void walk_entry(Feed& feed, pugi::xml_node root, const Name& rn);
  std::string person_of(pugi::xml_node e);
  Item atom_entry(pugi::xml_node entry);

  XmlTree& tree_;
  CanonicalWriter& writer_;
  bool too_many_items_ = false;
  bool too_many_fields_ = false;
  bool counting_ = false;    // walk() counts the items (keep_item) and extracts nothing
  std::size_t counted_ = 0;  // what the counting walk() found
};

}  // namespace feeddiff::normalize_detail
