// The document's namespaces, collected once before anything is written: the limits a hostile
// document could cross, and the one prefix each URI is written with.

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "normalize/xml_tree.h"

namespace feeddiff::normalize_detail {
namespace {

struct KnownNamespace {
  std::string_view uri;
  std::string_view prefix;
};

// The conventional prefix of well-known namespace URIs.
constexpr KnownNamespace kKnown[] = {
    {"http://purl.org/rss/1.0/modules/content/", "content"},
    {"http://purl.org/dc/elements/1.1/", "dc"},
    {"http://purl.org/dc/terms/", "dcterms"},
    {"http://www.w3.org/2005/Atom", "atom"},
    {"http://purl.org/atom/ns#", "atom"},
    {"http://search.yahoo.com/mrss/", "media"},
    {"http://search.yahoo.com/mrss", "media"},
    {"http://www.rssboard.org/media-rss", "media"},
    {"http://www.itunes.com/dtds/podcast-1.0.dtd", "itunes"},
    {"http://www.itunes.com/DTDs/Podcast-1.0.dtd", "itunes"},
    {"http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdf"},
    {"http://www.w3.org/2000/01/rdf-schema#", "rdfs"},
    {"http://purl.org/rss/1.0/modules/syndication/", "sy"},
    {"http://purl.org/rss/1.0/modules/slash/", "slash"},
    {"http://wellformedweb.org/CommentAPI/", "wfw"},
    {"http://www.georss.org/georss", "georss"},
    {"http://www.georss.org/georss/10", "georss"},
    {"http://www.w3.org/2003/01/geo/wgs84_pos#", "geo"},
    {"http://www.opengis.net/gml", "gml"},
    {"https://podcastindex.org/namespace/1.0", "podcast"},
    {"http://podcastindex.org/namespace/1.0", "podcast"},
    {"https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md", "podcast"},
    {"http://www.google.com/schemas/play-podcasts/1.0", "googleplay"},
    {"https://www.google.com/schemas/play-podcasts/1.0", "googleplay"},
    {"http://backend.userland.com/creativeCommonsRssModule", "creativeCommons"},
    {"http://creativecommons.org/ns#", "cc"},
    {"http://web.resource.org/cc/", "cc"},
    {"http://webns.net/mvcb/", "admin"},
    {"http://purl.org/rss/1.0/modules/admin/", "admin"},
    {"http://www.w3.org/1999/xhtml", "xhtml"},
    {"http://madskills.com/public/xml/rss/module/trackback/", "trackback"},
    {"http://purl.org/rss/1.0/modules/trackback/", "trackback"},
    {"http://purl.org/rss/1.0/modules/taxonomy/", "taxo"},
    {"http://purl.org/rss/1.0/modules/annotate/", "annotate"},
    {"http://purl.org/rss/1.0/modules/image/", "image"},
    {"http://purl.org/rss/1.0/modules/event/", "ev"},
    {"http://purl.org/rss/1.0/modules/aggregation/", "ag"},
    {"http://purl.org/rss/1.0/modules/company/", "company"},
    {"http://purl.org/rss/1.0/modules/reference/", "ref"},
    {"http://purl.org/rss/1.0/modules/richequiv/", "reqv"},
    {"http://purl.org/rss/1.0/modules/servicestatus/", "ss"},
    {"http://purl.org/rss/1.0/modules/link/", "l"},
    {"http://purl.org/rss/1.0/", "rss"},
    {"http://my.netscape.com/rdf/simple/0.9/", "rss090"},
    {"http://rssnamespace.org/feedburner/ext/1.0", "feedburner"},
    {"http://purl.org/syndication/thread/1.0", "thr"},
    {"http://purl.org/syndication/history/1.0", "fh"},
    {"http://a9.com/-/spec/opensearch/1.1/", "opensearch"},
    {"http://a9.com/-/spec/opensearchrss/1.0/", "opensearch"},
    {"http://schemas.google.com/g/2005", "gd"},
    {"http://www.blogger.com/atom/ns#", "blogger"},
    {"http://www.youtube.com/xml/schemas/2015", "yt"},
    {"http://xmlns.com/foaf/0.1/", "foaf"},
    {"http://www.w3.org/2000/svg", "svg"},
    {"http://www.w3.org/1998/Math/MathML", "mathml"},
    {"http://www.w3.org/1999/XSL/Transform", "xsl"},
    {"http://www.w3.org/2001/XMLSchema-instance", "xsi"},
};

std::string_view known_prefix(std::string_view uri) {
  for (const auto& k : kKnown)
    if (k.uri == uri) return k.prefix;
  return {};
}

}  // namespace

std::string XmlTree::collect_namespaces(std::size_t input_size) {
  const std::size_t budget = canonical_budget(input_size);
  std::size_t estimate = 0;
  std::vector<std::pair<std::string_view, std::string_view>> declared;  // uri, prefix
  std::vector<std::size_t> pushed;  // declarations pushed per open node
  auto note_prefix = [&](std::string_view qname) {
    const std::size_t colon = qname.find(':');
    if (colon == std::string_view::npos || colon == 0) return;
    const std::string_view prefix = qname.substr(0, colon);
    std::string_view uri;
    if (prefix == "xml" || prefix == "xmlns" || resolve(prefix, uri)) return;
    if (std::find(undeclared_.begin(), undeclared_.end(), prefix) == undeclared_.end())
      undeclared_.emplace_back(prefix);
  };
  // Only the root element: pugixml accepts more top-level elements, but the canonical
  // document is the first one, and what the others declare must not reach it.
  const pugi::xml_node root = doc_.document_element();
  pugi::xml_node n = root;
  while (n) {
    std::size_t k = 0;
    if (n.type() == pugi::node_element) {
      const pugi::xml_attribute first = n.first_attribute();
      if (first) k = scan_scope(n);
      if (k) declaring_.push_back(n.internal_object());
      const char* qname = n.name();
      if (std::strchr(qname, ':')) note_prefix(sv(qname));
      std::size_t attributes = 0;
      for (pugi::xml_attribute a = first; a; a = a.next_attribute()) {
        if (++attributes > kMaxAttributes)
          return "an element with more than " + std::to_string(kMaxAttributes) + " attributes";
        const std::string_view name = sv(a.name());
        if (!name.starts_with("xmlns")) note_prefix(name);
        if (!name.starts_with("xmlns:") || name.size() == 6) continue;
        const std::string_view uri = sv(a.value());
        if (uri.empty()) continue;
        if (std::none_of(declared.begin(), declared.end(),
                         [&](const auto& d) { return d.first == uri; }))
          declared.emplace_back(uri, name.substr(6));
      }
      if (declared.size() + undeclared_.size() > kMaxNamespaces)
        return "more than " + std::to_string(kMaxNamespaces) + " namespaces";
    }
    // Two lines (open and close) at this depth, each indented two spaces a level.
    estimate += 4 * pushed.size() + 4;
    if (estimate > budget)
      return "a canonical form over " + std::to_string(budget >> 20) + " MiB (" +
             std::to_string(kCanonicalGrowth) + " times the input)";
    if (const pugi::xml_node child = n.first_child()) {
      pushed.push_back(k);
      if (pushed.size() > static_cast<std::size_t>(kMaxDepth))
        return "elements nested deeper than " + std::to_string(kMaxDepth) + " levels";
      n = child;
      continue;
    }
    pop_scope(k);
    while (n != root && !n.next_sibling()) {
      n = n.parent();
      pop_scope(pushed.back());
      pushed.pop_back();
    }
    n = n == root ? pugi::xml_node() : n.next_sibling();
  }
  scope_.clear();
  memo_size_ = 0;
  estimate_ = estimate;
  std::sort(declaring_.begin(), declaring_.end());
  // Known URIs take their conventional prefix (sorted, so two URIs sharing one number
  // the same way every time); the others keep theirs, numbered on a clash.
  std::vector<std::string_view> known;
  for (const auto& d : declared)
    if (!known_prefix(d.first).empty()) known.push_back(d.first);
  std::sort(known.begin(), known.end());
  for (std::string_view uri : known) assign(uri, known_prefix(uri));
  for (const auto& d : declared)
    if (known_prefix(d.first).empty()) assign(d.first, d.second);
  return {};
}

void XmlTree::assign(std::string_view uri, std::string_view prefix) {
  std::string p(prefix);
  auto taken = [&](const std::string& q) {
    // Prefixes used without a declaration stay as they are, so nothing may take them.
    return q == "xml" || q == "xmlns" ||
           std::find(undeclared_.begin(), undeclared_.end(), q) != undeclared_.end() ||
           std::any_of(canon_.begin(), canon_.end(), [&](const auto& c) { return c.second == q; });
  };
  for (int k = 2; taken(p); ++k) p = std::string(prefix) + std::to_string(k);
  canon_.emplace_back(std::string(uri), std::move(p));
}

}  // namespace feeddiff::normalize_detail
