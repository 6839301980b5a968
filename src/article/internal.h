#pragma once
// Pieces of the article extractor shared between its files; not part of the contract.
// The page is parsed by gumbo (tree.cc) and copied into a Tree of plain values, which the
// other files read and edit: gumbo's own types stay in tree.cc.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/article.h"
#include "feeddiff/result.h"

namespace feeddiff::article_detail {

/// Index of a node in Tree::nodes; kNone for no node.
using NodeId = std::int32_t;
inline constexpr NodeId kNone = -1;

/// One element or text node. Elements are named by their lower-case tag name. The strings
/// are views into gumbo's output (or gumbo's static names), which the Tree keeps alive: a
/// Tree is copied for each attempt at the article, and the page's text is not.
struct Node {
  bool is_text = false;
  bool removed = false;   ///< cut out of the tree (still in nodes, unreachable from its parent)
  std::string_view name;  ///< element: lower-case tag name; text: empty
  std::string_view text;  ///< text node: its text as the page has it (entities decoded)
  std::vector<std::pair<std::string_view, std::string_view>> attributes;  ///< names lower-case
  NodeId parent = kNone;
  std::vector<NodeId> children;
  // Filled by measure(): over the subtree, whitespace runs counted once.
  std::size_t text_length = 0;  ///< characters (UTF-8 code points) of text
  double link_length = 0;       ///< of those, inside <a> (an in-page link's weighs 0.3)
  std::size_t commas = 0;       ///< commas (ASCII and CJK) in the text
  // Filled by the scorer.
  bool scored = false;
  double score = 0;
};

/// The parsed page: node 0 is the document, its element children follow.
struct Tree {
  std::vector<Node> nodes;
  /// What the views of nodes point into: gumbo's output, and names made lower-case.
  std::shared_ptr<const void> owner;
  NodeId html = kNone;  ///< the <html> element
  NodeId head = kNone;  ///< <head>
  NodeId body = kNone;  ///< <body>

  /// An attribute's value, "" when absent.
  std::string_view attr(NodeId id, std::string_view name) const;
  /// Whether the element has the attribute (with any value).
  bool has_attr(NodeId id, std::string_view name) const;
  /// "class id" in lower case: what the class/id patterns are matched against.
  std::string class_and_id(NodeId id) const;
  /// Whether id is an element named one of names.
  bool is(NodeId id, std::initializer_list<std::string_view> names) const;
  /// The text of the subtree, whitespace collapsed to single spaces and trimmed.
  std::string inner_text(NodeId id) const;
  /// Removes a node from its parent's children (its subtree goes with it).
  void remove(NodeId id);
  /// Whether an element named name encloses id (up to max_up levels; 0 for any).
  bool has_ancestor(NodeId id, std::string_view name, int max_up = 0) const;
  /// Element children of id, in order.
  std::vector<NodeId> element_children(NodeId id) const;
  /// Every element of the subtree under id (id included when include_self), in page order.
  std::vector<NodeId> elements_under(NodeId id, bool include_self = false) const;
  /// Removes a measured node and takes its lengths off its ancestors' (no new measure).
  void remove_measured(NodeId id);
  /// Recomputes text_length, link_length and commas for the subtree under id.
  void measure(NodeId id);
};

/// Parses html into a tree, enforcing options' limits (bytes, tags, depth) before and after
/// gumbo runs: a page over one is Errc::unsupported naming it.
Result<Tree> parse_tree(std::string_view html, const ArticleOptions& options);

/// The metadata the page states about itself (meta tags, JSON-LD, <title>, <html lang>).
struct Metadata {
  std::string title;
  std::string byline;
  std::string published;
  std::string language;
  std::string site_name;
};

/// Reads the page's metadata; does not edit the tree.
Metadata read_metadata(const Tree& tree);

/// The article's blocks, found by scoring the body of a copy of the tree (the tree itself is
/// left as parsed, for another attempt). byline is set when a byline element is found in the
/// body and it is empty; title is used to drop a heading that repeats it.
std::vector<Block> find_article(const Tree& tree, std::string& byline, std::string_view title);

/// The blocks of text under the roots, in page order.
std::vector<Block> make_blocks(const Tree& tree, const std::vector<NodeId>& roots);

/// How much of b's words a also has, 0 to 1 (1: b's words are all in a); case-insensitive.
double text_similarity(std::string_view a, std::string_view b);
/// Whether text is empty or only HTML whitespace.
bool is_blank(std::string_view text);
/// Text with every run of HTML whitespace made one space, trimmed.
std::string collapse_space(std::string_view text);
/// HTML's ASCII whitespace.
inline bool is_html_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
/// ASCII lower case of one byte.
inline char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
/// ASCII lower case.
std::string lower(std::string_view text);
/// Characters (code points) of UTF-8 text.
std::size_t utf8_length(std::string_view text);

}  // namespace feeddiff::article_detail
