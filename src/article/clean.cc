// The picked elements cleaned of what scored well but is not prose: forms, share bars, ad
// labels, and containers that read as furniture (link lists, image strips, layout tables).
// docs/article.md, step 7.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "article/extractor.h"

namespace feeddiff::article_detail {

namespace {

bool share_bar(std::string_view s) {
  for (std::string_view word : {"share", "sharedaddy"}) {
    std::size_t at = 0;
    while ((at = s.find(word, at)) != std::string_view::npos) {
      const auto boundary = [](char c) {
        return !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'));
      };
      const bool start = at == 0 || boundary(s[at - 1]) || s[at - 1] == '_';
      const std::size_t e = at + word.size();
      const bool end = e == s.size() || boundary(s[e]) || s[e] == '_';
      if (start && end) return true;
      at = e;
    }
  }
  return false;
}
// The whole text of an ad's label or a loading placeholder, in the languages seen on pages.
bool ad_or_loading_label(std::string_view text) {
  const std::string t = lower(text);
  std::string_view base = t;
  for (std::string_view ellipsis : {"...", "\xE2\x80\xA6"})
    if (base.ends_with(ellipsis)) base.remove_suffix(ellipsis.size());
  for (std::string_view word :
       {"ad", "ads", "advertising", "advertisement", "pub", "publicit\xC3\xA9", "werbung",
        "\xE5\xB9\xBF\xE5\x91\x8A", "\xD0\xA0\xD0\xB5\xD0\xBA\xD0\xBB\xD0\xB0\xD0\xBC\xD0\xB0",
        "\xD1\x80\xD0\xB5\xD0\xBA\xD0\xBB\xD0\xB0\xD0\xBC\xD0\xB0", "anuncio", "loading",
        "\xE6\xAD\xA3\xE5\x9C\xA8\xE5\x8A\xA0\xE8\xBD\xBD", "chargement", "cargando",
        "\xD0\x97\xD0\xB0\xD0\xB3\xD1\x80\xD1\x83\xD0\xB7\xD0\xBA\xD0\xB0",
        "\xD0\xB7\xD0\xB0\xD0\xB3\xD1\x80\xD1\x83\xD0\xB7\xD0\xBA\xD0\xB0"})
    if (base == word) return true;
  return false;
}

}  // namespace

// An embedded player of a video site: the video is part of the article, and so is what
// surrounds it (Readability.js's list of sites).
bool Extractor::video_player(NodeId id) const {
  static constexpr std::string_view kHosts[] = {
      "dailymotion.com",   "youtube.com", "youtube-nocookie.com",
      "player.vimeo.com",  "v.qq.com",    "bilibili.com",
      "live.bilibili.com", "archive.org", "upload.wikimedia.org",
      "player.twitch.tv"};
  for (const auto& attribute : t_.nodes[id].attributes) {
    const std::string value = lower(attribute.second.substr(0, 1000));
    for (std::string_view host : kHosts)
      for (std::string_view prefix : {"//", "//www."}) {
        const std::size_t at = value.find(prefix);
        for (std::size_t i = at; i != std::string::npos; i = value.find(prefix, i + 1))
          if (std::string_view(value).substr(i + prefix.size()).starts_with(host)) return true;
      }
  }
  return false;
}

void Extractor::mark_video(NodeId id) {
  if (holds_video_.size() < t_.nodes.size()) holds_video_.resize(t_.nodes.size(), false);
  for (NodeId a = t_.nodes[id].parent; a != kNone && !holds_video_[a]; a = t_.nodes[a].parent)
    holds_video_[a] = true;
}

bool Extractor::data_table(NodeId id) const {
  // Asked again for each element inside a table: answered once a table.
  if (data_tables_.size() < t_.nodes.size()) data_tables_.resize(t_.nodes.size(), -1);
  if (data_tables_[id] < 0) data_tables_[id] = judge_table(id) ? 1 : 0;
  return data_tables_[id] == 1;
}

bool Extractor::judge_table(NodeId id) const {
  if (t_.attr(id, "role") == "presentation" || t_.attr(id, "datatable") == "0") return false;
  if (!t_.attr(id, "summary").empty()) return true;
  const std::vector<NodeId> under = t_.elements_under(id);
  bool nested = false;
  for (NodeId e : under) {
    if (t_.is(e, {"caption"}) && !t_.nodes[e].children.empty()) return true;
    if (t_.is(e, {"col", "colgroup", "tfoot", "thead", "th"})) return true;
    nested = nested || t_.is(e, {"table"});
  }
  if (nested) return false;
  // Rows and the widest row's cells, spans counted: one row or one column lays a page out.
  const auto span = [&](NodeId e, std::string_view name) {
    const std::string_view v = t_.attr(e, name);
    std::size_t n = 0;
    for (char c : v.substr(0, 4)) {
      if (c < '0' || c > '9') break;
      n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    return n == 0 ? std::size_t{1} : n;
  };
  std::size_t rows = 0;
  std::size_t columns = 0;
  for (NodeId e : under) {
    if (!t_.is(e, {"tr"})) continue;
    rows += span(e, "rowspan");
    std::size_t cells = 0;
    for (NodeId c : t_.elements_under(e))
      if (t_.is(c, {"td"})) cells += span(c, "colspan");
    columns = std::max(columns, cells);
  }
  if (columns == 1 || rows == 1) return false;
  return rows >= 10 || columns > 4 || rows * columns > 10;
}

// Whether a table, list or div inside the article is furniture rather than content.
bool Extractor::remove_conditionally(NodeId id, std::string_view tag) const {
  const Node& n = t_.nodes[id];
  for (NodeId a = n.parent; a != kNone; a = t_.nodes[a].parent)
    if (t_.is(a, {"table"}) && data_table(a)) return false;
  if (t_.has_ancestor(id, "code", kNearAncestor)) return false;
  if (tag == "table" && data_table(id)) return false;
  const int weight = class_weight(id);
  if (weight < 0) return true;
  if (static_cast<std::size_t>(id) < holds_video_.size() && holds_video_[id]) return false;
  // Ten ASCII commas make prose (not the commas of other scripts: a CJK list of links has
  // many fullwidth ones).
  std::size_t commas = 0;
  const auto count_commas = [&](NodeId e) {
    for (NodeId c : t_.nodes[e].children)
      if (t_.nodes[c].is_text && !t_.nodes[c].removed)
        commas += static_cast<std::size_t>(
            std::count(t_.nodes[c].text.begin(), t_.nodes[c].text.end(), ','));
  };
  count_commas(id);
  std::size_t p = 0, img = 0, li = 0, input = 0, list_text = 0, heading_text = 0, textish = 0;
  bool has_data_table = false;
  for (NodeId e : t_.elements_under(id)) {
    const Node& d = t_.nodes[e];
    count_commas(e);
    if (d.name == "p") ++p;
    if (d.name == "img") ++img;
    if (d.name == "li") ++li;
    if (d.name == "input") ++input;
    if (d.name == "table" && data_table(e)) has_data_table = true;
    if (d.name == "ul" || d.name == "ol") list_text += d.text_length;
    if (t_.is(e, {"h1", "h2", "h3", "h4", "h5", "h6"})) heading_text += d.text_length;
    if (t_.is(e, {"span", "li", "td", "blockquote", "dl", "div", "img", "ol", "p", "pre", "table",
                  "ul"}))
      textish += d.text_length;
  }
  if (has_data_table || commas >= 10) return false;
  const double length = static_cast<double>(n.text_length);
  bool list = tag == "ul" || tag == "ol" || (length > 0 && list_text / length > 0.9);
  const bool in_figure = t_.has_ancestor(id, "figure", kNearAncestor);
  const double heading_density = length > 0 ? heading_text / length : 0;
  const double text_density = length > 0 ? textish / length : 0;
  const double links = link_density(id);
  const double li_extra = static_cast<double>(li) - 100;
  const bool remove =
      (!in_figure && img > 1 && static_cast<double>(p) / static_cast<double>(img) < 0.5) ||
      (!list && li_extra > static_cast<double>(p)) || (input > p / 3) ||
      (!list && !in_figure && heading_density < 0.9 && length < 25 && (img == 0 || img > 2) &&
       links > 0) ||
      (!list && weight < 25 && links > 0.2) || (weight >= 25 && links > 0.5) ||
      (img == 0 && text_density == 0);
  if (list && remove) {
    for (NodeId c : t_.element_children(id))
      if (t_.element_children(c).size() > 1) return remove;
    if (img == li) return false;
  }
  return remove;
}

void Extractor::clean(const std::vector<NodeId>& roots) {
  for (NodeId root : roots) {
    t_.measure(root);
    if (flags_.clean_conditionally) {
      // Forms first, while their inputs still count against them.
      std::vector<NodeId> all = t_.elements_under(root, true);
      for (auto it = all.rbegin(); it != all.rend(); ++it) {
        const NodeId e = *it;
        if (e == root || t_.nodes[e].removed || !t_.is(e, {"form", "fieldset"})) continue;
        if (remove_conditionally(e, t_.nodes[e].name)) t_.remove_measured(e);
      }
    }
    for (NodeId e : t_.elements_under(root, true)) {
      if (t_.nodes[e].removed) continue;
      const Node& n = t_.nodes[e];
      if (e != root && t_.is(e, {"footer", "aside", "input", "button", "select", "textarea"})) {
        t_.remove(e);
        continue;
      }
      if (e != root && n.text_length < 500 && share_bar(t_.class_and_id(e))) {
        t_.remove(e);
        continue;
      }
      if (e != root && t_.is(e, {"h1", "h2"}) && class_weight(e) < 0) {
        t_.remove(e);
        continue;
      }
      // "Advertisement", "Loading...": labels of what was cut or never loaded.
      if (e != root && n.text_length > 0 && n.text_length <= 20 &&
          ad_or_loading_label(t_.inner_text(e)))
        t_.remove(e);
    }
    t_.measure(root);  // what was cut above no longer counts
    if (flags_.clean_conditionally) {
      // Innermost first, so that a container is judged on what is left inside it.
      std::vector<NodeId> all = t_.elements_under(root, true);
      for (auto it = all.rbegin(); it != all.rend(); ++it) {
        const NodeId e = *it;
        if (t_.nodes[e].removed) continue;
        // A kept element that is no common container (a td, a form, a quote) is judged as
        // the division it stands for in the article.
        const bool as_div =
            e == root && !t_.is(e, {"table", "ul", "div", "article", "section", "p", "ol"});
        if (!as_div && !t_.is(e, {"table", "ul", "div"})) continue;
        if (remove_conditionally(e, as_div ? "div" : t_.nodes[e].name)) t_.remove_measured(e);
      }
    }
  }
}

}  // namespace feeddiff::article_detail
