// The article's subtrees as blocks of text: block elements end a block, inline ones join
// their text, and the innermost of <li>, <blockquote>, <figcaption>, <h1>-<h6>, <pre> says
// what kind of block the text is.

#include <string>
#include <string_view>
#include <vector>

#include "article/internal.h"

namespace feeddiff::article_detail {

namespace {

// Elements that begin and end a block of text.
bool breaks_block(const Tree& tree, NodeId id) {
  return tree.is(
      id,
      {"p",          "div",     "section", "article", "main",    "header",     "footer", "aside",
       "nav",        "h1",      "h2",      "h3",      "h4",      "h5",         "h6",     "ul",
       "ol",         "li",      "dl",      "dt",      "dd",      "blockquote", "pre",    "figure",
       "figcaption", "table",   "tr",      "caption", "thead",   "tbody",      "tfoot",  "form",
       "fieldset",   "address", "details", "summary", "hr",      "center",     "hgroup", "legend",
       "body",       "html",    "menu",    "dialog",  "picture", "video",      "audio"});
}

struct Context {
  BlockKind kind = BlockKind::paragraph;
  int level = 0;
};

class Builder {
 public:
  explicit Builder(std::vector<Block>& out) : out_(out) {}

  void text(std::string_view s, bool pre) {
    if (pre) {
      buffer_ += s;
      return;
    }
    // Whitespace runs become one space; a <br> is the only line break.
    for (char c : s) {
      if (is_html_space(c)) {
        if (!buffer_.empty() && buffer_.back() != ' ' && buffer_.back() != '\n') buffer_ += ' ';
      } else {
        buffer_ += c;
      }
    }
  }
  void line_break() {
    while (!buffer_.empty() && buffer_.back() == ' ') buffer_.pop_back();
    buffer_ += '\n';
  }
  /// Whether the text so far ends at a <br> (with nothing but spaces after it).
  bool at_line_break() const {
    std::size_t end = buffer_.size();
    while (end > 0 && buffer_[end - 1] == ' ') --end;
    return end > 0 && buffer_[end - 1] == '\n';
  }
  void space() {
    if (!buffer_.empty() && buffer_.back() != ' ' && buffer_.back() != '\n') buffer_ += ' ';
  }

  void flush(const Context& context) {
    std::string text;
    if (context.kind == BlockKind::preformatted) {
      std::string_view s = buffer_;
      while (!s.empty() && (s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
      while (!s.empty() && is_html_space(s.back())) s.remove_suffix(1);
      text = s;
    } else {
      // Each line trimmed, empty lines dropped.
      std::size_t start = 0;
      while (start <= buffer_.size()) {
        std::size_t end = buffer_.find('\n', start);
        if (end == std::string::npos) end = buffer_.size();
        const std::string line =
            collapse_space(std::string_view(buffer_).substr(start, end - start));
        if (!line.empty()) {
          if (!text.empty()) text += '\n';
          text += line;
        }
        start = end + 1;
      }
    }
    buffer_.clear();
    if (text.empty()) return;
    out_.push_back(Block{context.kind, context.level, std::move(text)});
  }

 private:
  std::vector<Block>& out_;
  std::string buffer_;
};

}  // namespace

std::vector<Block> make_blocks(const Tree& tree, const std::vector<NodeId>& roots) {
  std::vector<Block> blocks;
  Builder builder(blocks);
  std::vector<Context> contexts{Context{}};
  int pre_depth = 0;
  // Entered (false) then left (true), without recursion: the article is as deep as the page.
  std::vector<std::pair<NodeId, bool>> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, false});
  while (!stack.empty()) {
    const auto [id, leaving] = stack.back();
    stack.pop_back();
    const Node& node = tree.nodes[id];
    if (node.removed) continue;
    if (node.is_text) {
      builder.text(node.text, pre_depth > 0);
      continue;
    }
    const bool block = breaks_block(tree, id);
    const bool kind_changes = tree.is(id, {"li", "dt", "dd", "blockquote", "figcaption", "caption",
                                           "pre", "h1", "h2", "h3", "h4", "h5", "h6"});
    if (leaving) {
      if (block) builder.flush(contexts.back());
      if (kind_changes) contexts.pop_back();
      if (node.name == "pre") --pre_depth;
      if (tree.is(id, {"td", "th"})) builder.space();
      continue;
    }
    if (node.name == "br") {
      // Two <br>s in a row end a paragraph, as pages that have no <p> mean them to.
      if (builder.at_line_break() && pre_depth == 0)
        builder.flush(contexts.back());
      else
        builder.line_break();
      continue;
    }
    if (tree.is(id, {"img", "hr", "wbr"})) continue;
    if (block) builder.flush(contexts.back());
    if (kind_changes) {
      Context context = contexts.back();
      if (tree.is(id, {"li", "dt", "dd"})) {
        context = {BlockKind::list_item, 0};
      } else if (node.name == "blockquote") {
        context = {BlockKind::quote, 0};
      } else if (tree.is(id, {"figcaption", "caption"})) {
        context = {BlockKind::caption, 0};
      } else if (node.name == "pre") {
        context = {BlockKind::preformatted, 0};
      } else {
        context = {BlockKind::heading, node.name[1] - '0'};
      }
      contexts.push_back(context);
    }
    if (node.name == "pre") ++pre_depth;
    stack.push_back({id, true});
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it)
      stack.push_back({*it, false});
  }
  builder.flush(contexts.back());
  return blocks;
}

}  // namespace feeddiff::article_detail
