#pragma once
// The canonical writer: a parsed document written in its canonical form (normalize.h lists
// the rules). Internal to normalize.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "normalize/xml_tree.h"

namespace feeddiff::normalize_detail {

/// Writes one document (its namespaces collected) into a string.
class CanonicalWriter {
 public:
  /// With `keep_inline`, the inline markup of elements holding elements beside text is kept
  /// for inline_markup() (the model asks for it again); without, nothing is kept.
  CanonicalWriter(XmlTree& tree, std::string& out, bool keep_inline)
      : tree_(tree), out_(out), keep_inline_(keep_inline) {}

  /// Appends the canonical document to `out`.
  void write_document();

  /// The children of `e` as markup on one line (write_inline_children): as write_document()
  /// made it when it was kept (the namespace scope is the same when the model is extracted),
  /// else made now, in the tree's current scope. Valid until the next call.
  const std::string& inline_markup(pugi::xml_node e);

 private:
  void indent(int depth);
  std::size_t open_tag(std::string& out, pugi::xml_node e, bool root);
  void write_misc(pugi::xml_node n, int depth);
  pugi::xml_node write_inline_text(std::string& buf, pugi::xml_node first);
  void write_inline_children(std::string& buf, pugi::xml_node n);
  void write_lines(const std::vector<std::string_view>& lines, int depth, bool escaped);
  void close_tag(std::size_t name_at, std::size_t name_size);
  void write_element(pugi::xml_node e, int depth, bool channel_ctx, bool root);

  XmlTree& tree_;
  std::string& out_;
  bool keep_inline_ = true;
  std::vector<std::pair<std::string, std::string_view>> attrs_;
  std::vector<std::string_view> lines_;
  std::unordered_map<const void*, std::string> inline_cache_;  // see inline_markup
  std::string scratch_;
  std::string inline_buf_;  // write_element's inline markup, when it is not kept
};

}  // namespace feeddiff::normalize_detail
