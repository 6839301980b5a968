// Which part of the page is the article: unlikely parts cut, paragraphs scored into their
// ancestors, the best ancestor and its worthy siblings kept, then cleaned (clean.cc) of what
// scored well but is not prose (link lists, forms, share bars). docs/article.md explains
// each step and its numbers.

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "article/extractor.h"

namespace feeddiff::article_detail {

namespace {

// A page whose article is shorter than this is extracted again with fewer cuts.
constexpr std::size_t kRetryLength = 500;
// Paragraphs shorter than this add nothing to their ancestors' scores.
constexpr std::size_t kMinParagraph = 25;
// How many levels of ancestors a paragraph's score reaches.
constexpr int kScoredAncestors = 5;
constexpr std::size_t kTopCandidates = 5;

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

bool contains_any(std::string_view s, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (contains(s, w)) return true;
  return false;
}

// A whole space-separated token of s ("hid" in "x hid y", not in "hidden").
bool has_token(std::string_view s, std::string_view token) {
  std::size_t at = 0;
  while ((at = s.find(token, at)) != std::string_view::npos) {
    const bool start = at == 0 || s[at - 1] == ' ';
    const bool end = at + token.size() == s.size() || s[at + token.size()] == ' ';
    if (start && end) return true;
    at += token.size();
  }
  return false;
}

// Class and id words of what is seldom the article: page furniture, comments, ads, cookie
// and consent banners.
bool unlikely(std::string_view s) {
  return contains_any(s,
                      {"-ad-",         "ai2html",    "banner",  "breadcrumbs", "combx",  "comment",
                       "community",    "cover-wrap", "disqus",  "extra",       "footer", "gdpr",
                       "header",       "legends",    "menu",    "related",     "remark", "replies",
                       "rss",          "shoutbox",   "sidebar", "skyscraper",  "social", "sponsor",
                       "supplemental", "ad-break",   "agegate", "pagination",  "pager",  "popup",
                       "yom-remote",   "cookie",     "consent", "newsletter",  "dialog"});
}
// ... unless they also say this (a "main-header-content" is worth a look).
bool maybe_candidate(std::string_view s) {
  return contains_any(s,
                      {"and", "article", "body", "column", "content", "main", "mathjax", "shadow"});
}
bool positive(std::string_view s) {
  return contains_any(s, {"article", "body", "content", "entry", "hentry", "h-entry", "main",
                          "page", "pagination", "post", "text", "blog", "story"});
}
bool negative(std::string_view s) {
  return has_token(s, "hid") ||
         contains_any(s, {"-ad-",     "hidden",     "banner",  "combx",    "comment", "com-",
                          "contact",  "footer",     "gdpr",    "masthead", "media",   "meta",
                          "outbrain", "promo",      "related", "scroll",   "share",   "shoutbox",
                          "sidebar",  "skyscraper", "sponsor", "shopping", "tags",    "widget"});
}
bool byline_words(std::string_view s) {
  return contains_any(s, {"byline", "author", "dateline", "writtenby", "p-author"});
}

}  // namespace

bool Extractor::visible(NodeId id) const {
  const std::string style = lower(t_.attr(id, "style"));
  if (contains(style, "display:none") || contains(style, "display: none") ||
      contains(style, "visibility:hidden") || contains(style, "visibility: hidden"))
    return false;
  if (t_.has_attr(id, "hidden")) return false;
  return !(t_.attr(id, "aria-hidden") == "true" &&
           !contains(lower(t_.attr(id, "class")), "fallback-image"));
}

bool Extractor::phrasing(NodeId id) const {
  const Node& n = t_.nodes[id];
  if (n.is_text) return true;
  if (t_.is(id,
            {"abbr",     "audio",    "b",      "bdo",      "br",     "button",   "cite",   "code",
             "data",     "datalist", "dfn",    "em",       "embed",  "i",        "img",    "input",
             "kbd",      "label",    "mark",   "math",     "meter",  "noscript", "object", "output",
             "progress", "q",        "ruby",   "samp",     "script", "select",   "small",  "span",
             "strong",   "sub",      "sup",    "textarea", "time",   "var",      "wbr",    "font",
             "u",        "s",        "strike", "tt",       "big"}))
    return true;
  if (t_.is(id, {"a", "del", "ins"})) {
    for (NodeId c : n.children)
      if (!t_.nodes[c].removed && !phrasing(c)) return false;
    return true;
  }
  return false;
}

bool Extractor::has_block_child(NodeId id) const {
  // Stops at the first block found: asked of every div, and divs nest.
  std::vector<NodeId> stack(t_.nodes[id].children.rbegin(), t_.nodes[id].children.rend());
  while (!stack.empty()) {
    const NodeId e = stack.back();
    stack.pop_back();
    if (t_.nodes[e].removed || t_.nodes[e].is_text) continue;
    if (t_.is(e, {"blockquote", "dl", "div", "img", "ol", "p", "pre", "table", "ul"})) return true;
    const auto& children = t_.nodes[e].children;
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return false;
}

// A div holding both blocks and loose text: each run of loose text and inline elements
// becomes a paragraph of its own, so that it is scored like one.
void Extractor::wrap_phrasing_runs(NodeId div) {
  std::vector<NodeId> children;
  std::vector<NodeId> run;
  const auto flush = [&] {
    bool text = false;
    for (NodeId r : run)
      if (!t_.nodes[r].is_text || !is_blank(t_.nodes[r].text)) text = true;
    if (text) {
      const auto p = static_cast<NodeId>(t_.nodes.size());
      Node node;
      node.name = "p";
      node.parent = div;
      node.children = run;
      t_.nodes.push_back(std::move(node));
      for (NodeId r : run) t_.nodes[r].parent = p;
      children.push_back(p);
    } else {
      children.insert(children.end(), run.begin(), run.end());
    }
    run.clear();
  };
  for (NodeId c : t_.nodes[div].children) {
    if (t_.nodes[c].removed) continue;
    if (phrasing(c)) {
      run.push_back(c);
    } else {
      flush();
      children.push_back(c);
    }
  }
  flush();
  t_.nodes[div].children = std::move(children);
}

// The next child at or after from that is neither blank text nor gone (a script is gone:
// it is cut before scoring); children.size() when none is.
NodeId Extractor::next_significant(const std::vector<NodeId>& children, std::size_t from) const {
  std::size_t i = from;
  while (i < children.size()) {
    const Node& c = t_.nodes[children[i]];
    if (!c.removed && !(c.is_text && is_blank(c.text)) &&
        !t_.is(children[i], {"script", "style", "noscript"}))
      break;
    ++i;
  }
  return static_cast<NodeId>(i);
}

// Text divided by two or more <br>s in a row is paragraphs: each run after such a chain
// becomes a <p> of its own, so that it is scored as one (a page of one <div> and many
// <br>s would otherwise be a single paragraph, worth little beside its neighbours).
void Extractor::replace_brs() {
  std::vector<NodeId> parents;
  for (NodeId e : t_.elements_under(t_.body, true))
    for (NodeId c : t_.nodes[e].children)
      if (!t_.nodes[c].removed && t_.is(c, {"br"})) {
        parents.push_back(e);
        break;
      }
  for (NodeId parent : parents) {
    const std::vector<NodeId> children = t_.nodes[parent].children;
    std::vector<NodeId> out;
    bool made = false;
    const auto is_br = [&](std::size_t i) {
      return i < children.size() && t_.is(children[i], {"br"});
    };
    std::size_t i = 0;
    while (i < children.size()) {
      if (!is_br(i) || t_.nodes[children[i]].removed) {
        out.push_back(children[i++]);
        continue;
      }
      // The chain: this <br> and each one after it with only blank text between.
      std::size_t k = i + 1;
      bool chain = false;
      for (auto next = static_cast<std::size_t>(next_significant(children, k)); is_br(next);
           next = static_cast<std::size_t>(next_significant(children, k))) {
        chain = true;
        t_.remove(children[next]);
        k = next + 1;
      }
      if (!chain) {
        out.push_back(children[i++]);
        continue;
      }
      t_.remove(children[i]);
      // The paragraph: what follows, up to the next chain or the next block.
      const auto p = static_cast<NodeId>(t_.nodes.size());
      Node node;
      node.name = "p";
      node.parent = parent;
      t_.nodes.push_back(std::move(node));
      std::vector<NodeId> inside;
      for (; k < children.size(); ++k) {
        const NodeId c = children[k];
        if (t_.nodes[c].removed) continue;
        if (is_br(k) && is_br(static_cast<std::size_t>(next_significant(children, k + 1)))) break;
        if (!phrasing(c)) break;
        inside.push_back(c);
      }
      while (!inside.empty() &&
             (t_.is(inside.back(), {"br"}) ||
              (t_.nodes[inside.back()].is_text && is_blank(t_.nodes[inside.back()].text)))) {
        t_.remove(inside.back());
        inside.pop_back();
      }
      for (NodeId c : inside) t_.nodes[c].parent = p;
      t_.nodes[p].children = std::move(inside);
      out.push_back(p);
      made = true;
      i = k;
    }
    t_.nodes[parent].children = std::move(out);
    // A paragraph holds no paragraph: the one the <br>s were in is a division now.
    if (made && t_.nodes[parent].name == "p") t_.nodes[parent].name = "div";
  }
}

int Extractor::class_weight(NodeId id) const {
  if (!flags_.weight_classes) return 0;
  int weight = 0;
  const std::string cls = lower(t_.attr(id, "class"));
  const std::string idv = lower(t_.attr(id, "id"));
  for (const std::string* s : {&cls, &idv}) {
    if (s->empty()) continue;
    if (negative(*s)) weight -= 25;
    if (positive(*s)) weight += 25;
  }
  return weight;
}

void Extractor::initialize(NodeId id) {
  Node& n = t_.nodes[id];
  n.scored = true;
  n.score = 0;
  if (t_.is(id, {"div"}))
    n.score = 5;
  else if (t_.is(id, {"pre", "td", "blockquote"}))
    n.score = 3;
  else if (t_.is(id, {"address", "ol", "ul", "dl", "dd", "dt", "li", "form"}))
    n.score = -3;
  else if (t_.is(id, {"h1", "h2", "h3", "h4", "h5", "h6", "th"}))
    n.score = -5;
  n.score += class_weight(id);
}

double Extractor::link_density(NodeId id) const {
  const Node& n = t_.nodes[id];
  if (n.text_length == 0) return 0;
  return n.link_length / static_cast<double>(n.text_length);
}

std::vector<NodeId> Extractor::run(std::string& byline) {
  // Forms and their controls stay until the article is picked: a whole page may sit in one
  // <form> (ASP.NET pages do), and a form is judged like any container once picked.
  static constexpr std::string_view kAlwaysCut[] = {
      "script", "style", "noscript", "template", "link",   "meta", "iframe",
      "object", "embed", "svg",      "canvas",   "dialog", "head", "title"};
  replace_brs();
  std::vector<NodeId> to_score;
  bool title_header_removed = false;
  std::vector<NodeId> stack{t_.body};
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    Node& n = t_.nodes[id];
    if (n.removed || n.is_text) continue;
    const auto cut = [&] { t_.remove(id); };
    if (id != t_.body) {
      if (n.name != "body" && !visible(id)) {
        cut();
        continue;
      }
      bool always = false;
      for (std::string_view name : kAlwaysCut) always = always || n.name == name;
      if (always || (t_.attr(id, "role") == "dialog" && t_.attr(id, "aria-modal") == "true")) {
        if (t_.is(id, {"iframe", "embed", "object"}) && video_player(id)) mark_video(id);
        cut();
        continue;
      }
      const std::string match = t_.class_and_id(id);
      // The first byline element is the byline when the page's metadata names no author;
      // any other stays in the body, as the reader sees it there.
      if (byline.empty() && (byline_words(match) || t_.attr(id, "rel") == "author" ||
                             contains(t_.attr(id, "itemprop"), "author"))) {
        t_.measure(id);
        const std::size_t length = t_.nodes[id].text_length;
        if (length > 0 && length < 100) {
          NodeId name = id;
          for (NodeId e : t_.elements_under(id))
            if (contains(t_.attr(e, "itemprop"), "name")) {
              name = e;
              break;
            }
          byline = t_.inner_text(name);
          cut();
          continue;
        }
      }
      if (!title_header_removed && t_.is(id, {"h1", "h2"}) &&
          text_similarity(title_, t_.inner_text(id)) > 0.75) {
        title_header_removed = true;
        cut();
        continue;
      }
      if (flags_.strip_unlikely) {
        if (unlikely(match) && !maybe_candidate(match) &&
            !t_.has_ancestor(id, "table", kNearAncestor) &&
            !t_.has_ancestor(id, "code", kNearAncestor) && n.name != "a") {
          cut();
          continue;
        }
        const std::string_view role = t_.attr(id, "role");
        if (n.name == "nav" || role == "menu" || role == "menubar" || role == "complementary" ||
            role == "navigation" || role == "alert" || role == "alertdialog" || role == "dialog") {
          cut();
          continue;
        }
      }
      if (t_.is(id, {"div", "section", "header", "h1", "h2", "h3", "h4", "h5", "h6"})) {
        bool empty = true;
        for (NodeId c : n.children) {
          const Node& child = t_.nodes[c];
          if (child.removed) continue;
          if (child.is_text ? !is_blank(child.text) : !(child.name == "br" || child.name == "hr"))
            empty = false;
        }
        if (empty) {
          cut();
          continue;
        }
      }
      if (t_.is(id, {"section", "h2", "h3", "h4", "h5", "h6", "p", "td", "pre"}))
        to_score.push_back(id);
      if (n.name == "div") {
        // A div around one paragraph is that paragraph: it scores into the div's parent,
        // where its siblings are.
        const std::vector<NodeId> elements = t_.element_children(id);
        bool loose_text = false;
        for (NodeId c : n.children)
          loose_text = loose_text || (t_.nodes[c].is_text && !is_blank(t_.nodes[c].text));
        if (elements.size() == 1 && t_.is(elements[0], {"p"}) && !loose_text && n.parent != kNone) {
          t_.measure(id);
          if (link_density(id) < 0.25) {
            const NodeId p = elements[0];
            for (NodeId& sibling : t_.nodes[n.parent].children)
              if (sibling == id) sibling = p;
            t_.nodes[p].parent = n.parent;
            t_.remove(id);
            stack.push_back(p);
            continue;
          }
        }
        // Inline content alone reads as a paragraph, unless it is mostly links: then it
        // stays a division around its paragraph, judged as furniture like other divisions.
        bool paragraph = !has_block_child(id);
        if (paragraph) {
          t_.measure(id);
          paragraph = link_density(id) < 0.25;
        }
        if (paragraph) {
          n.name = "p";
          to_score.push_back(id);
        } else {
          wrap_phrasing_runs(id);
        }
      }
    }
    const auto& children = t_.nodes[id].children;
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
  t_.measure(t_.body);
  return pick(to_score);
}

std::vector<NodeId> Extractor::pick(const std::vector<NodeId>& to_score) {
  std::vector<NodeId> candidates;
  for (NodeId id : to_score) {
    const Node& n = t_.nodes[id];
    if (n.removed || n.parent == kNone || n.text_length < kMinParagraph) continue;
    double score = 2 + static_cast<double>(n.commas) +
                   static_cast<double>(std::min<std::size_t>(n.text_length / 100, 3));
    int level = 0;
    for (NodeId a = n.parent; a != kNone && level < kScoredAncestors; a = t_.nodes[a].parent) {
      // The document node and <html> take no score: the body is the widest candidate.
      if (a == 0 || t_.nodes[a].parent == 0 || t_.nodes[a].parent == kNone) break;
      if (!t_.nodes[a].scored) {
        initialize(a);
        candidates.push_back(a);
      }
      const double divider = level == 0 ? 1 : level == 1 ? 2 : level * 3;
      t_.nodes[a].score += score / divider;
      ++level;
    }
  }
  for (NodeId c : candidates) t_.nodes[c].score *= 1 - link_density(c);
  std::vector<NodeId> top = candidates;
  std::stable_sort(top.begin(), top.end(),
                   [&](NodeId a, NodeId b) { return t_.nodes[a].score > t_.nodes[b].score; });
  if (top.size() > kTopCandidates) top.resize(kTopCandidates);
  if (top.empty() || top[0] == t_.body) return {t_.body};

  NodeId best = top[0];
  // Several near-equal candidates under one ancestor: the article is that ancestor.
  std::vector<std::vector<NodeId>> alternatives;
  for (std::size_t i = 1; i < top.size(); ++i) {
    if (t_.nodes[top[i]].score / t_.nodes[best].score < 0.75) continue;
    std::vector<NodeId> ancestors;
    for (NodeId a = t_.nodes[top[i]].parent; a != kNone; a = t_.nodes[a].parent)
      ancestors.push_back(a);
    alternatives.push_back(std::move(ancestors));
  }
  if (alternatives.size() >= 3) {
    for (NodeId p = t_.nodes[best].parent; p != kNone && p != t_.body; p = t_.nodes[p].parent) {
      std::size_t containing = 0;
      for (const auto& list : alternatives)
        if (std::find(list.begin(), list.end(), p) != list.end()) ++containing;
      if (containing >= 3) {
        best = p;
        break;
      }
    }
  }
  if (!t_.nodes[best].scored) initialize(best);
  // Climb while the parent scores nearly as well: the article's text is split across it.
  double last = t_.nodes[best].score;
  const double threshold = last / 3;
  for (NodeId p = t_.nodes[best].parent; p != kNone && p != t_.body && p != 0;
       p = t_.nodes[p].parent) {
    if (!t_.nodes[p].scored) continue;
    if (t_.nodes[p].score < threshold) break;
    if (t_.nodes[p].score > last) {
      best = p;
      break;
    }
    last = t_.nodes[p].score;
  }
  for (NodeId p = t_.nodes[best].parent;
       p != kNone && p != t_.body && p != 0 && t_.element_children(p).size() == 1;
       p = t_.nodes[p].parent)
    best = p;
  if (!t_.nodes[best].scored) initialize(best);

  // Siblings worth keeping: scored well, share the class, or read as prose.
  std::vector<NodeId> roots;
  const NodeId parent = t_.nodes[best].parent;
  if (parent == kNone || parent == 0) {
    roots.push_back(best);
  } else {
    const double best_score = t_.nodes[best].score;
    const double sibling_threshold = std::max(10.0, best_score * 0.2);
    const std::string best_class(t_.attr(best, "class"));
    for (NodeId s : t_.element_children(parent)) {
      bool keep = s == best;
      if (!keep) {
        const double bonus =
            !best_class.empty() && t_.attr(s, "class") == best_class ? best_score * 0.2 : 0;
        const Node& n = t_.nodes[s];
        if (n.scored && n.score + bonus >= sibling_threshold) {
          keep = true;
        } else if (n.name == "p") {
          const double density = link_density(s);
          const std::string text = t_.inner_text(s);
          const std::size_t length = utf8_length(text);
          if (length > 80 && density < 0.25) {
            keep = true;
          } else if (length < 80 && length > 0 && density == 0 &&
                     (contains(text, ". ") || text.ends_with('.'))) {
            keep = true;
          }
        }
      }
      if (keep) roots.push_back(s);
    }
  }
  clean(roots);
  return roots;
}

std::vector<Block> find_article(const Tree& tree, std::string& byline, std::string_view title) {
  // Each attempt works on its own copy of the parsed page and is written out as blocks at
  // once, so that at most two trees exist at a time; the first attempt long enough is kept,
  // else the longest.
  static constexpr Flags kAttempts[] = {
      {true, true, true}, {false, true, true}, {false, false, true}, {false, false, false}};
  std::vector<Block> best;
  std::string best_byline;
  std::size_t best_length = 0;
  bool first = true;
  for (const Flags& flags : kAttempts) {
    Tree work = tree;
    std::string found_byline = byline;
    const auto roots = Extractor(work, flags, title).run(found_byline);
    std::size_t length = 0;
    for (NodeId r : roots) {
      work.measure(r);
      length += work.nodes[r].text_length;
    }
    if (first || length > best_length) {
      best = make_blocks(work, roots);
      best_byline = std::move(found_byline);
      best_length = length;
      first = false;
    }
    if (length >= kRetryLength) break;
  }
  byline = std::move(best_byline);
  return best;
}

}  // namespace feeddiff::article_detail
