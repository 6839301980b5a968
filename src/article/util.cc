// The Tree's small questions and the text helpers every file of the extractor uses.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "article/internal.h"

namespace feeddiff::article_detail {

bool is_blank(std::string_view text) {
  for (char c : text)
    if (!is_html_space(c)) return false;
  return true;
}

std::string collapse_space(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (is_html_space(c)) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

std::size_t utf8_length(std::string_view text) {
  std::size_t n = 0;
  for (char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string_view Tree::attr(NodeId id, std::string_view name) const {
  for (const auto& [key, value] : nodes[id].attributes)
    if (key == name) return value;
  return {};
}

bool Tree::has_attr(NodeId id, std::string_view name) const {
  for (const auto& attribute : nodes[id].attributes)
    if (attribute.first == name) return true;
  return false;
}

std::string Tree::class_and_id(NodeId id) const {
  std::string s = lower(attr(id, "class"));
  s += ' ';
  s += lower(attr(id, "id"));
  return s;
}

bool Tree::is(NodeId id, std::initializer_list<std::string_view> names) const {
  if (id == kNone || nodes[id].is_text) return false;
  return std::find(names.begin(), names.end(), nodes[id].name) != names.end();
}

std::string Tree::inner_text(NodeId id) const {
  std::string raw;
  std::vector<NodeId> stack{id};
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    const Node& node = nodes[n];
    if (node.removed) continue;
    if (node.is_text) {
      raw += node.text;
      continue;
    }
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) stack.push_back(*it);
  }
  return collapse_space(raw);
}

void Tree::remove(NodeId id) {
  // Marked, not erased: every walk skips removed nodes, so removing is O(1) whatever the
  // number of siblings.
  nodes[id].removed = true;
}

void Tree::remove_measured(NodeId id) {
  nodes[id].removed = true;
  const Node& gone = nodes[id];
  for (NodeId p = gone.parent; p != kNone; p = nodes[p].parent) {
    nodes[p].text_length -= std::min(nodes[p].text_length, gone.text_length);
    nodes[p].link_length -= std::min(nodes[p].link_length, gone.link_length);
    nodes[p].commas -= std::min(nodes[p].commas, gone.commas);
  }
}

bool Tree::has_ancestor(NodeId id, std::string_view name, int max_up) const {
  int up = 0;
  for (NodeId p = nodes[id].parent; p != kNone; p = nodes[p].parent) {
    if (max_up > 0 && ++up > max_up) return false;
    if (!nodes[p].is_text && nodes[p].name == name) return true;
  }
  return false;
}

std::vector<NodeId> Tree::element_children(NodeId id) const {
  std::vector<NodeId> out;
  for (NodeId c : nodes[id].children)
    if (!nodes[c].removed && !nodes[c].is_text) out.push_back(c);
  return out;
}

std::vector<NodeId> Tree::elements_under(NodeId id, bool include_self) const {
  std::vector<NodeId> out;
  std::vector<NodeId> stack;
  if (include_self) {
    stack.push_back(id);
  } else {
    for (auto it = nodes[id].children.rbegin(); it != nodes[id].children.rend(); ++it)
      stack.push_back(*it);
  }
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    if (nodes[n].removed || nodes[n].is_text) continue;
    out.push_back(n);
    for (auto it = nodes[n].children.rbegin(); it != nodes[n].children.rend(); ++it)
      stack.push_back(*it);
  }
  return out;
}

void Tree::measure(NodeId id) {
  // Post-order without recursion: a node is finished once every child is.
  std::vector<std::pair<NodeId, bool>> stack{{id, false}};
  while (!stack.empty()) {
    auto [n, done] = stack.back();
    stack.pop_back();
    Node& node = nodes[n];
    if (node.removed) continue;
    if (node.is_text) {
      node.text_length = 0;
      node.commas = 0;
      bool space = true;
      for (std::size_t i = 0; i < node.text.size(); ++i) {
        const char c = node.text[i];
        if (is_html_space(c)) {
          if (!space) ++node.text_length;
          space = true;
          continue;
        }
        space = false;
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++node.text_length;
        if (c == ',') ++node.commas;
        // The commas of other scripts Readability.js counts: U+060C Arabic, U+FE50 small,
        // U+FE10 and U+FE11 vertical presentation forms, U+2E41 reversed, U+2E34 raised,
        // U+2E32 turned, U+FF0C fullwidth.
        if (static_cast<unsigned char>(c) >= 0xD8) {
          const std::string_view rest = node.text.substr(i, 3);
          for (std::string_view comma :
               {"\xD8\x8C", "\xEF\xB9\x90", "\xEF\xB8\x90", "\xEF\xB8\x91", "\xE2\xB9\x81",
                "\xE2\xB8\xB4", "\xE2\xB8\xB2", "\xEF\xBC\x8C"})
            if (rest.starts_with(comma)) ++node.commas;
        }
      }
      node.link_length = 0;
      continue;
    }
    if (!done) {
      stack.push_back({n, true});
      for (NodeId c : node.children) stack.push_back({c, false});
      continue;
    }
    node.text_length = node.commas = 0;
    node.link_length = 0;
    for (NodeId c : node.children) {
      const Node& child = nodes[c];
      if (child.removed) continue;
      node.text_length += child.text_length;
      node.link_length += child.link_length;
      node.commas += child.commas;
    }
    if (node.name == "a") {
      // A link within the page (a footnote, a table of contents) is part of the text more
      // than a way out of it: it counts for less.
      const std::string_view href = attr(n, "href");
      const bool in_page = href.size() > 1 && href[0] == '#';
      node.link_length = static_cast<double>(node.text_length) * (in_page ? 0.3 : 1.0);
    }
  }
}

}  // namespace feeddiff::article_detail
