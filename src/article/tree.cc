// The page as a Tree: the limits checked before gumbo sees the bytes, gumbo's parse, and the
// copy of its output into plain values. The only file that includes gumbo.

#include <gumbo.h>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "article/internal.h"

namespace feeddiff::article_detail {

namespace {

bool is_ascii_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool in(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// ---- The nesting estimate ----
//
// gumbo 0.10 is quadratic in the depth of the page: each start tag that closes a <p> scans
// the stack of open elements through a variadic tag-set test, so 20,000 nested <div>s take
// 2.6 s and 100,000 about a minute; and with its default options each parse error keeps a
// copy of that stack (40,000 nested <div>s took 12 GB). Errors are switched off below; the
// depth has to be refused before the parse. This estimate follows the tree builder's rules
// for what closes what closely enough that every page that nests deep by start tags alone,
// by end tags that close nothing, by scope boundaries (<object>, <table>), by self-closing
// HTML tags or by formatting elements reopened after being closed implicitly, is estimated
// at least as deep as gumbo makes it. It is no parser: what it gets wrong errs deep, and
// what it might miss is still bounded by max_tags (a quadratic cost in max_tags, see
// docs/article.md).

constexpr std::array<std::string_view, 18> kVoid = {
    "area", "base",  "br",     "col",   "embed", "hr",     "img",      "input",   "link",
    "meta", "param", "source", "track", "wbr",   "keygen", "basefont", "bgsound", "frame"};
constexpr std::array<std::string_view, 10> kRawText = {
    "script", "style",   "textarea", "title",    "xmp",
    "iframe", "noembed", "noframes", "noscript", "plaintext"};
constexpr std::array<std::string_view, 14> kFormatting = {
    "a",    "b", "big",   "code",   "em",     "font", "i",
    "nobr", "s", "small", "strike", "strong", "tt",   "u"};
constexpr std::array<std::string_view, 9> kScopeBoundary = {
    "html", "table", "td", "th", "caption", "applet", "marquee", "object", "template"};
// What ends foreign content (<svg>, <math>) when it starts inside it.
constexpr std::array<std::string_view, 43> kBreakout = {
    "b",     "big",   "blockquote", "body",   "br",   "center", "code",  "dd", "div",  "dl",   "dt",
    "em",    "embed", "h1",         "h2",     "h3",   "h4",     "h5",    "h6", "head", "hr",   "i",
    "img",   "li",    "listing",    "menu",   "meta", "nobr",   "ol",    "p",  "pre",  "ruby", "s",
    "small", "span",  "strong",     "strike", "sub",  "sup",    "table", "tt", "u",    "ul"};
// Elements the search for an open <li>, <dt> or <dd> may pass without stopping.
constexpr std::array<std::string_view, 13> kListTransparent = {
    "div", "p", "address", "span", "a", "b", "i", "em", "strong", "small", "font", "u", "code"};

template <std::size_t N>
bool one_of(std::string_view name, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), name) != set.end();
}

class NestingEstimate {
 public:
  explicit NestingEstimate(std::size_t max_depth) : max_depth_(max_depth) {}

  bool start(const std::string& name, bool self_closing) {
    if (foreign_ > 0 && one_of(name, kBreakout)) {
      while (foreign_ > 0) pop();
    }
    if (one_of(name, kVoid) || (foreign_ > 0 && self_closing)) return ok();
    if (in(name, {"p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "tbody", "thead",
                  "tfoot", "rb", "rt", "rp"})) {
      const bool list = in(name, {"li", "dt", "dd"});
      for (std::size_t i = open_.size(); i-- > 0;) {
        if (open_[i] == name) {
          pop_to(i);
          break;
        }
        if (list ? !one_of(open_[i], kListTransparent) : one_of(open_[i], kScopeBoundary)) break;
      }
    }
    open_.push_back(name);
    if (name == "svg" || name == "math") ++foreign_;
    return ok();
  }

  void end(const std::string& name) {
    for (std::size_t i = open_.size(); i-- > 0;) {
      if (open_[i] == name) {
        pop_to(i);
        // Closed by its own end tag: a formatting element is not reopened.
        return;
      }
      if (one_of(open_[i], kScopeBoundary)) return;
    }
  }

 private:
  bool ok() const { return open_.size() + reopenable_ <= max_depth_; }

  void pop() {
    if (open_.back() == "svg" || open_.back() == "math") --foreign_;
    // A formatting element closed by something else is reopened at the next text.
    if (one_of(open_.back(), kFormatting)) ++reopenable_;
    open_.pop_back();
  }

  // Pops everything above index i, and i itself without counting it as reopenable.
  void pop_to(std::size_t i) {
    while (open_.size() > i + 1) pop();
    if (open_.back() == "svg" || open_.back() == "math") --foreign_;
    open_.pop_back();
  }

  std::size_t max_depth_;
  std::vector<std::string> open_;
  std::size_t reopenable_ = 0;
  std::size_t foreign_ = 0;
};

// Where the case-insensitive "</name" next starts at or after from; npos when nowhere.
std::size_t find_end_tag(std::string_view html, std::string_view name, std::size_t from) {
  for (std::size_t at = html.find("</", from); at != std::string_view::npos;
       at = html.find("</", at + 2)) {
    if (html.size() - at - 2 < name.size()) return std::string_view::npos;
    bool same = true;
    for (std::size_t k = 0; k < name.size() && same; ++k)
      same = ascii_lower(html[at + 2 + k]) == name[k];
    if (same) return at;
  }
  return std::string_view::npos;
}

Status check_before_parse(std::string_view html, const ArticleOptions& options) {
  if (html.size() > options.max_bytes)
    return Error{Errc::unsupported, fmt::format("page is {} bytes, more than the {} allowed",
                                                html.size(), options.max_bytes)};
  const auto too_deep = [&] {
    return Error{Errc::unsupported,
                 fmt::format("elements nested deeper than {} levels", options.max_depth)};
  };
  NestingEstimate nesting(options.max_depth);
  std::size_t tags = 0;
  std::string name;
  std::size_t i = 0;
  while ((i = html.find('<', i)) != std::string_view::npos && i + 1 < html.size()) {
    const char c = html[i + 1];
    if (html.substr(i, 4) == "<!--") {
      const std::size_t end = html.find("-->", i + 4);
      i = end == std::string_view::npos ? html.size() : end + 3;
      continue;
    }
    if (c == '!' || c == '?') {
      const std::size_t end = html.find('>', i);
      i = end == std::string_view::npos ? html.size() : end + 1;
      continue;
    }
    const bool closing = c == '/';
    const std::size_t name_at = i + (closing ? 2 : 1);
    if (name_at >= html.size() || !is_ascii_alpha(html[name_at])) {
      ++i;
      continue;
    }
    std::size_t name_end = name_at;
    while (name_end < html.size() &&
           std::string_view(" \t\n\r\f/>").find(html[name_end]) == std::string_view::npos)
      ++name_end;
    name = lower(html.substr(name_at, name_end - name_at));
    const std::size_t gt = html.find('>', name_end);
    const std::size_t after = gt == std::string_view::npos ? html.size() : gt + 1;
    if (closing) {
      nesting.end(name);
      i = after;
      continue;
    }
    if (++tags > options.max_tags)
      return Error{Errc::unsupported, fmt::format("more than {} tags", options.max_tags)};
    const bool self_closing = gt != std::string_view::npos && gt > 0 && html[gt - 1] == '/';
    if (!nesting.start(name, self_closing)) return too_deep();
    i = after;
    if (name == "plaintext") break;
    if (one_of(name, kRawText)) {
      const std::size_t end = find_end_tag(html, name, i);
      if (end == std::string_view::npos) break;
      i = end;
    }
  }
  return Ok{};
}

// ---- gumbo's output, owned ----

struct GumboOutputDeleter {
  void operator()(GumboOutput* output) const {
    gumbo_destroy_output(&kGumboDefaultOptions, output);
  }
};
using GumboOutputPtr = std::unique_ptr<GumboOutput, GumboOutputDeleter>;

// What a Tree's views point into.
struct Owned {
  GumboOutputPtr output;
  std::deque<std::string> lowered;  // names of unknown elements, lower-cased; never moved
};

std::string_view element_name(const GumboElement& element, Owned& owned) {
  if (element.tag != GUMBO_TAG_UNKNOWN) return gumbo_normalized_tagname(element.tag);
  GumboStringPiece original = element.original_tag;
  gumbo_tag_from_original_text(&original);
  return owned.lowered.emplace_back(lower(std::string_view(original.data, original.length)));
}

}  // namespace

Result<Tree> parse_tree(std::string_view html, const ArticleOptions& options) {
  if (auto checked = check_before_parse(html, options); !checked) return checked.error();
  GumboOptions gumbo_options = kGumboDefaultOptions;
  gumbo_options.max_errors = 0;  // each error copies the open-element stack: see above
  auto owned = std::make_shared<Owned>();
  owned->output.reset(gumbo_parse_with_options(&gumbo_options, html.data(), html.size()));
  const GumboOutput* output = owned->output.get();
  if (!output) return Error{Errc::internal, "the HTML parser returned nothing"};

  Tree tree;
  tree.owner = owned;
  tree.nodes.emplace_back();  // the document
  // Copied with an explicit stack: gumbo's tree is as deep as the page.
  struct Pending {
    const GumboNode* node;
    NodeId parent;
    std::size_t depth;
  };
  std::vector<Pending> stack;
  const GumboVector& top = output->document->v.document.children;
  for (unsigned i = top.length; i-- > 0;)
    stack.push_back({static_cast<const GumboNode*>(top.data[i]), 0, 1});
  while (!stack.empty()) {
    const Pending pending = stack.back();
    stack.pop_back();
    const GumboNode* g = pending.node;
    if (pending.depth > options.max_depth)
      return Error{Errc::unsupported,
                   fmt::format("elements nested deeper than {} levels", options.max_depth)};
    Node node;
    node.parent = pending.parent;
    if (g->type == GUMBO_NODE_TEXT || g->type == GUMBO_NODE_WHITESPACE ||
        g->type == GUMBO_NODE_CDATA) {
      node.is_text = true;
      node.text = g->v.text.text;
    } else if (g->type == GUMBO_NODE_ELEMENT || g->type == GUMBO_NODE_TEMPLATE) {
      node.name = element_name(g->v.element, *owned);
      const GumboVector& attributes = g->v.element.attributes;
      node.attributes.reserve(attributes.length);
      for (unsigned i = 0; i < attributes.length; ++i) {
        const auto* a = static_cast<const GumboAttribute*>(attributes.data[i]);
        // gumbo lower-cases attribute names in HTML; foreign ones keep their case.
        node.attributes.emplace_back(a->name, a->value);
      }
    } else {
      continue;  // comments
    }
    const auto id = static_cast<NodeId>(tree.nodes.size());
    tree.nodes[pending.parent].children.push_back(id);
    tree.nodes.push_back(std::move(node));
    if (g->type == GUMBO_NODE_ELEMENT || g->type == GUMBO_NODE_TEMPLATE) {
      const std::string_view name = tree.nodes[id].name;
      if (name == "html" && tree.html == kNone) tree.html = id;
      if (name == "head" && tree.head == kNone) tree.head = id;
      if (name == "body" && tree.body == kNone) tree.body = id;
      const GumboVector& children = g->v.element.children;
      for (unsigned i = children.length; i-- > 0;)
        stack.push_back({static_cast<const GumboNode*>(children.data[i]), id, pending.depth + 1});
    }
  }
  if (tree.body == kNone) tree.body = 0;
  return tree;
}

}  // namespace feeddiff::article_detail
