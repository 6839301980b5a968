// Canonical XML and the item model, from a parsed pugixml tree.

#include <algorithm>
#include <array>
#include <cstring>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "normalize/internal.h"

namespace feeddiff::normalize_detail {
namespace {

constexpr std::string_view kAtom10 = "http://www.w3.org/2005/Atom";
constexpr std::string_view kAtom03 = "http://purl.org/atom/ns#";
constexpr std::string_view kRss10 = "http://purl.org/rss/1.0/";
constexpr std::string_view kRss090 = "http://my.netscape.com/rdf/simple/0.9/";
constexpr std::string_view kDc = "http://purl.org/dc/elements/1.1/";
constexpr std::string_view kDcTerms = "http://purl.org/dc/terms/";
constexpr std::string_view kContent = "http://purl.org/rss/1.0/modules/content/";
constexpr std::string_view kAdmin = "http://webns.net/mvcb/";
constexpr std::string_view kMarkerText = "feeddiff:volatile";

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

bool all_space(const char* s) {
  for (; *s; ++s)
    if (!is_space(*s)) return false;
  return true;
}

std::string_view sv(const pugi::char_t* s) {
  return std::string_view(s);
}

bool is_marker(pugi::xml_node n) {
  return n.type() == pugi::node_comment && trim_space(sv(n.value())) == kMarkerText;
}

// Bytes escape() must look at: markup characters and controls; in text, '"', LF and tab are
// written as they are.
constexpr std::array<bool, 256> make_escape_table(bool attribute) {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = attribute || (c != '\n' && c != '\t');
  t['&'] = t['<'] = t['>'] = true;
  t['"'] = attribute;
  return t;
}
constexpr std::array<bool, 256> kEscapeText = make_escape_table(false);
constexpr std::array<bool, 256> kEscapeAttribute = make_escape_table(true);

void escape(std::string& out, std::string_view s, bool attribute) {
  const std::array<bool, 256>& table = attribute ? kEscapeAttribute : kEscapeText;
  const std::size_t n = s.size();
  std::size_t from = 0, i = 0;
  while (true) {
    i = attribute ? find_byte<true, '&', '<', '>', '"'>(s, i, table)
                  : find_byte<true, '&', '<', '>'>(s, i, table);
    if (i >= n) break;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const char* rep = nullptr;
    char buf[8];
    switch (c) {
      case '&':
        rep = "&amp;";
        break;
      case '<':
        rep = "&lt;";
        break;
      case '>':
        rep = "&gt;";
        break;
      case '"':
        rep = "&quot;";
        break;
      case '\n':
        rep = "&#xA;";
        break;
      case '\t':
        rep = "&#x9;";
        break;
      case '\r':
        rep = "&#xD;";
        break;
      default: {
        static constexpr char kHex[] = "0123456789ABCDEF";
        buf[0] = '&', buf[1] = '#', buf[2] = 'x', buf[3] = kHex[c >> 4], buf[4] = kHex[c & 15],
        buf[5] = ';', buf[6] = 0;
        rep = buf;
      }
    }
    out.append(s.data() + from, i - from);
    out += rep;
    from = i + 1;
    ++i;
  }
  out.append(s.data() + from, n - from);
}

// Whitespace runs as one space.
void append_collapsed(std::string& out, std::string_view s) {
  bool space = false;
  for (char c : s) {
    if (is_space(c)) {
      space = true;
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
}

// Controls that CDATA cannot hold (all but LF and tab), and ']' that may start "]]>".
constexpr std::array<bool, 256> kCdataUnsafe = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = c != '\n' && c != '\t';
  t[']'] = true;
  return t;
}();

bool cdata_safe(std::string_view s) {
  for (std::size_t i = find_byte<true, ']'>(s, 0, kCdataUnsafe); i < s.size();
       i = find_byte<true, ']'>(s, i + 1, kCdataUnsafe)) {
    if (s[i] != ']') return false;
    if (s.substr(i, 3) == "]]>") return false;
  }
  return true;
}

struct Name {
  std::string_view uri;    // "" when none
  std::string_view local;  // without prefix
};

class XmlNormalizer {
 public:
  // With `model` false, extract() is not called: nothing is kept for it.
  XmlNormalizer(pugi::xml_document& doc, std::string& out, bool model)
      : doc_(doc), out_(out), model_(model) {}

  // "" or what limit the document crosses: elements nested deeper than kMaxDepth (the writer
  // recurses), more attributes on one element or more namespaces than anyone writes (each
  // is looked up in a list), or a canonical form far larger than the input (indentation grows
  // with depth, so deep nesting repeated would write gigabytes from kilobytes).
  std::string collect_namespaces(std::size_t input_size) {
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

  void write_document() {
    std::string_view version = "1.0", standalone;
    for (pugi::xml_node n = doc_.first_child(); n; n = n.next_sibling()) {
      if (n.type() != pugi::node_declaration) continue;
      const std::string_view v = sv(n.attribute("version").value());
      if (v == "1.0" || v == "1.1") version = v;
      const std::string_view s = sv(n.attribute("standalone").value());
      if (s == "yes" || s == "no") standalone = s;
    }
    out_ += "<?xml version=\"";
    out_ += version;
    out_ += "\" encoding=\"UTF-8\"";
    if (!standalone.empty()) {
      out_ += " standalone=\"";
      out_ += standalone;
      out_ += '"';
    }
    out_ += "?>\n";
    bool root_done = false;
    for (pugi::xml_node n = doc_.first_child(); n; n = n.next_sibling()) {
      switch (n.type()) {
        case pugi::node_doctype:
          out_ += "<!DOCTYPE ";
          out_ += trim_space(sv(n.value()));
          out_ += ">\n";
          break;
        case pugi::node_element:
          if (!root_done) write_element(n, 0, false, true);
          root_done = true;
          break;
        case pugi::node_comment:
        case pugi::node_pi:
          write_misc(n, 0);
          break;
        default:
          break;
      }
    }
  }

  // What collect_namespaces() reckoned the indentation and line ends will add: more than
  // they do (it counts text nodes as lines too), which is what reserving wants.
  std::size_t canonical_estimate() const { return estimate_; }

  Feed extract();
  // Whether extract() left items out, the feed holding more than kMaxItems.
  bool too_many_items() const { return too_many_items_; }
  // Whether extract() left fields out, an item or the channel holding more than kMaxFields.
  bool too_many_fields() const { return too_many_fields_; }

 private:
  void assign(std::string_view uri, std::string_view prefix) {
    std::string p(prefix);
    auto taken = [&](const std::string& q) {
      // Prefixes used without a declaration stay as they are, so nothing may take them.
      return q == "xml" || q == "xmlns" ||
             std::find(undeclared_.begin(), undeclared_.end(), q) != undeclared_.end() ||
             std::any_of(canon_.begin(), canon_.end(),
                         [&](const auto& c) { return c.second == q; });
    };
    for (int k = 2; taken(p); ++k) p = std::string(prefix) + std::to_string(k);
    canon_.emplace_back(std::string(uri), std::move(p));
  }

  std::string_view canon_prefix(std::string_view uri) const {
    for (const auto& c : canon_)
      if (c.first == uri) return c.second;
    return {};
  }

  // Pushes the node's namespace declarations; returns how many. Only the elements that
  // collect_namespaces saw declaring some are looked at again.
  std::size_t push_scope(pugi::xml_node n) {
    if (!std::binary_search(declaring_.begin(), declaring_.end(), n.internal_object())) return 0;
    const std::size_t pushed = scan_scope(n);
    if (pushed) memo_size_ = 0;
    return pushed;
  }
  std::size_t scan_scope(pugi::xml_node n) {
    std::size_t pushed = 0;
    for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
      const std::string_view name = sv(a.name());
      if (name == "xmlns") {
        scope_.emplace_back(std::string_view(), sv(a.value()));
        ++pushed;
      } else if (name.starts_with("xmlns:")) {
        scope_.emplace_back(name.substr(6), sv(a.value()));
        ++pushed;
      }
    }
    return pushed;
  }
  void pop_scope(std::size_t k) {
    if (k == 0) return;
    scope_.resize(scope_.size() - k);
    memo_size_ = 0;
  }

  // The URI bound to a prefix in the current scope; nullopt-like {false} when unbound.
  bool resolve(std::string_view prefix, std::string_view& uri) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == prefix) {
        uri = it->second;
        return true;
      }
    return false;
  }

  Name name_of(pugi::xml_node n) const {
    const std::string_view q = sv(n.name());
    const std::size_t colon = q.find(':');
    Name r{{}, q};
    std::string_view prefix;
    if (colon != std::string_view::npos) {
      prefix = q.substr(0, colon);
      r.local = q.substr(colon + 1);
    }
    resolve(prefix, r.uri);
    return r;
  }

  // Appends the canonical qualified name of an element or attribute name.
  void append_qname(std::string& out, std::string_view q) const {
    const std::size_t colon = q.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      out += q;
      return;
    }
    const std::string_view prefix = q.substr(0, colon);
    std::string_view canon;
    bool found = false;
    for (std::size_t k = 0; k < memo_size_; ++k)
      if (memo_[k].prefix == prefix) {
        canon = memo_[k].canon;
        found = true;
        break;
      }
    if (!found) {
      std::string_view uri;
      if (prefix != "xml" && prefix != "xmlns" && resolve(prefix, uri)) canon = canon_prefix(uri);
      if (memo_size_ < memo_.size()) memo_[memo_size_++] = PrefixMemo{prefix, canon};
    }
    if (!canon.empty()) {
      out += canon;
      out += q.substr(colon);
      return;
    }
    out += q;
  }

  // Canonical prefixes append_qname found for document prefixes ("" when the name stays as
  // written), while the scope stays as it is: forgotten whenever it changes.
  struct PrefixMemo {
    std::string_view prefix, canon;
  };
  mutable std::array<PrefixMemo, 8> memo_{};
  mutable std::size_t memo_size_ = 0;

  std::string qname(pugi::xml_node n) const {
    std::string s;
    append_qname(s, sv(n.name()));
    return s;
  }

  // Appended from a run of spaces (one memcpy) rather than filled a character at a time.
  void indent(int depth) {
    static constexpr std::string_view kSpaces =
        "                                                                "
        "                                                                ";
    std::size_t n = static_cast<std::size_t>(depth) * 2;
    for (; n > kSpaces.size(); n -= kSpaces.size()) out_ += kSpaces;
    out_.append(kSpaces.data(), n);
  }

  // `<name attrs` with attributes sorted and namespace declarations moved to the root.
  // Returns the size of the name written.
  std::size_t open_tag(std::string& out, pugi::xml_node e, bool root) {
    out += '<';
    const std::size_t name_at = out.size();
    append_qname(out, sv(e.name()));
    const std::size_t name_size = out.size() - name_at;
    const pugi::xml_attribute first = e.first_attribute();
    if (!first && (!root || canon_.empty())) return name_size;
    attrs_.clear();
    for (pugi::xml_attribute a = first; a; a = a.next_attribute()) {
      const std::string_view name = sv(a.name());
      if (name.starts_with("xmlns:")) continue;
      std::string cn;
      append_qname(cn, name);
      attrs_.emplace_back(std::move(cn), sv(a.value()));
    }
    if (root)
      for (const auto& c : canon_) attrs_.emplace_back("xmlns:" + c.second, c.first);
    // Sorted by name, stably (an insertion sort: there are few, and it allocates nothing).
    for (std::size_t i = 1; i < attrs_.size(); ++i)
      for (std::size_t j = i; j > 0 && attrs_[j].first < attrs_[j - 1].first; --j)
        std::swap(attrs_[j], attrs_[j - 1]);
    for (const auto& [name, value] : attrs_) {
      out += ' ';
      out += name;
      out += "=\"";
      escape(out, value, true);
      out += '"';
    }
    return name_size;
  }

  // An Atom Entry Document (RFC 4287 section 4.1.2): an entry as the root element, which
  // is read as a feed of that one entry. Only in an Atom namespace: "entry" is a common name.
  static bool atom_entry_root(const Name& n) {
    return n.local == "entry" && (n.uri == kAtom10 || n.uri == kAtom03);
  }

  bool in_atom(const Name& n) const {
    return n.uri == kAtom10 || n.uri == kAtom03 || (n.uri.empty() && atom_doc_);
  }

  // Elements whose text is HTML, or that hold XHTML.
  bool html_field(pugi::xml_node e, const Name& n) const {
    if (n.uri == kContent && n.local == "encoded") return true;
    if (n.local == "description" && (n.uri.empty() || n.uri == kRss10 || n.uri == kRss090))
      return true;
    if (!in_atom(n)) return false;
    if (n.local != "content" && n.local != "summary" && n.local != "title" &&
        n.local != "subtitle" && n.local != "rights" && n.local != "tagline" && n.local != "info" &&
        n.local != "copyright")
      return false;
    const std::string_view type = sv(e.attribute("type").value());
    return type == "html" || type == "text/html" || type == "xhtml" ||
           type == "application/xhtml+xml" || sv(e.attribute("mode").value()) == "escaped";
  }

  bool volatile_field(const Name& n) const {
    if (n.uri == kDc) return n.local == "date";
    if (n.uri == kAdmin) return n.local == "generatorAgent";
    return n.local == "lastBuildDate" || n.local == "generator" ||
           (in_atom(n) && (n.local == "updated" || n.local == "modified"));
  }

  void write_misc(pugi::xml_node n, int depth) {
    if (n.type() == pugi::node_comment) {
      if (is_marker(n)) return;
      indent(depth);
      const std::string_view v = trim_space(sv(n.value()));
      const bool is_volatile = is_volatile_comment(v);
      out_ += v.empty() ? "<!---->" : "<!-- ";
      if (!v.empty()) {
        // A volatile comment goes on one line, so the marker covers all of it.
        if (is_volatile)
          append_collapsed(out_, v);
        else
          out_ += v;
        out_ += " -->";
      }
      if (is_volatile) out_ += kVolatileMarker;
      out_ += '\n';
    } else if (n.type() == pugi::node_pi) {
      indent(depth);
      out_ += "<?";
      out_ += n.name();
      const std::string_view v = trim_space(sv(n.value()));
      if (!v.empty()) {
        out_ += ' ';
        out_ += v;
      }
      out_ += "?>\n";
    }
  }

  // The run of text starting at `first` (text nodes, and the markers between them that are
  // not written), as the next parse will see it: one text node. A run of only whitespace is
  // written as character references, because pugixml drops whitespace-only text it reads
  // raw, and a second pass would lose the space a `&#x20;` kept in the first. Returns the
  // run's last node.
  pugi::xml_node write_inline_text(std::string& buf, pugi::xml_node first) {
    bool blank = true, empty = true;
    pugi::xml_node last = first;
    for (pugi::xml_node c = first; c; c = c.next_sibling()) {
      if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
        blank = blank && all_space(c.value());
        empty = empty && *c.value() == '\0';
      } else if (!is_marker(c)) {
        break;
      }
      last = c;
    }
    for (pugi::xml_node c = first;; c = c.next_sibling()) {
      if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
        if (!blank || empty)
          escape(buf, sv(c.value()), false);
        else
          for (const char* p = c.value(); *p; ++p)
            buf += *p == ' ' ? "&#x20;" : *p == '\t' ? "&#x9;" : *p == '\n' ? "&#xA;" : "&#xD;";
      }
      if (c == last) break;
    }
    return last;
  }

  // Children of n, as markup on one line (it may hold the text's own line ends).
  void write_inline_children(std::string& buf, pugi::xml_node n) {
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
      switch (c.type()) {
        case pugi::node_pcdata:
        case pugi::node_cdata:
          c = write_inline_text(buf, c);
          break;
        case pugi::node_element: {
          const std::size_t pushed = push_scope(c);
          open_tag(buf, c, false);
          if (c.first_child()) {
            buf += '>';
            write_inline_children(buf, c);
            buf += "</";
            append_qname(buf, sv(c.name()));
            buf += '>';
          } else {
            buf += "/>";
          }
          pop_scope(pushed);
          break;
        }
        case pugi::node_comment:
          if (!is_marker(c)) {
            buf += "<!--";
            buf += c.value();
            buf += "-->";
          }
          break;
        case pugi::node_pi:
          buf += "<?";
          buf += c.name();
          buf += ' ';
          buf += c.value();
          buf += "?>";
          break;
        default:
          break;
      }
    }
  }

  void write_lines(const std::vector<std::string_view>& lines, int depth, bool escaped) {
    for (std::string_view l : lines) {
      indent(depth);
      if (escaped)
        escape(out_, l, false);
      else
        out_ += l;
      out_ += '\n';
    }
  }

  // `</name>`, the name copied from where open_tag wrote it into out_ (`name_size` bytes at
  // `name_at`), as it is the same in the same scope.
  void close_tag(std::size_t name_at, std::size_t name_size) {
    out_ += "</";
    out_.append(out_, name_at, name_size);
    out_ += '>';
  }

  void write_element(pugi::xml_node e, int depth, bool channel_ctx, bool root) {
    const std::size_t pushed = push_scope(e);
    const Name n = name_of(e);
    if (root) {
      atom_doc_ = n.local == "feed" || atom_entry_root(n);
      entry_doc_ = atom_entry_root(n);
    }
    bool has_elem = false, has_text = false, has_other = false;
    std::size_t text_nodes = 0;
    for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling()) {
      switch (c.type()) {
        case pugi::node_element:
          has_elem = true;
          break;
        case pugi::node_pcdata:
        case pugi::node_cdata:
          ++text_nodes;
          if (!has_text && !all_space(c.value())) has_text = true;
          break;
        case pugi::node_comment:
          if (!is_marker(c)) has_other = true;
          break;
        case pugi::node_pi:
          has_other = true;
          break;
        default:
          break;
      }
    }
    const bool is_html = html_field(e, n);
    const bool is_volatile = channel_ctx && volatile_field(n);
    indent(depth);
    const std::size_t name_at = out_.size() + 1;  // after the '<'
    const std::size_t name_size = open_tag(out_, e, root);
    if ((has_elem || has_other) && (has_text || is_html)) {
      // Kept for extract() when there is a model, else the same buffer serves every element.
      std::string own;
      std::string& buf = model_ && has_elem ? own : inline_buf_;
      buf.clear();
      write_inline_children(buf, e);
      lines_.clear();
      split_html(buf, lines_);
      out_ += '>';
      if (lines_.size() <= 1) {
        if (!lines_.empty()) out_ += lines_[0];
      } else {
        out_ += '\n';
        write_lines(lines_, depth + 1, false);
        indent(depth);
      }
      close_tag(name_at, name_size);
      if (has_elem && model_) inline_cache_.emplace(e.internal_object(), std::move(own));
    } else if (has_elem || has_other) {
      out_ += ">\n";
      // An entry document's source element holds the fields of the feed it came from.
      const bool child_channel = (root && n.local == "feed") ||
                                 (depth == 1 && n.local == "channel") ||
                                 (depth == 1 && entry_doc_ && n.local == "source" && in_atom(n));
      for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling()) {
        if (c.type() == pugi::node_element)
          write_element(c, depth + 1, child_channel, false);
        else
          write_misc(c, depth + 1);
      }
      indent(depth);
      close_tag(name_at, name_size);
    } else {
      std::string joined;
      std::string_view text;
      if (text_nodes == 1) {
        text = sv(e.first_child().value());
      } else {
        for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling()) joined += c.value();
        text = joined;
      }
      text = trim_space(text);
      if (text.empty()) {
        out_ += "/>";
      } else if (is_html) {
        lines_.clear();
        split_html(text, lines_);
        // Decided on the lines, as they are what a second pass sees.
        // The lines are pieces of the text, so a text that is safe has safe lines; only an
        // unsafe one needs its lines checked (trimming may have cut what made it unsafe).
        const bool cdata =
            cdata_safe(text) || std::all_of(lines_.begin(), lines_.end(), cdata_safe);
        const bool markup =
            text.find('<') != std::string_view::npos || text.find('&') != std::string_view::npos;
        if (lines_.size() <= 1) {
          out_ += '>';
          if (cdata && markup) {
            out_ += "<![CDATA[";
            out_ += text;
            out_ += "]]>";
          } else {
            escape(out_, text, false);
          }
        } else {
          out_ += cdata ? "><![CDATA[\n" : ">\n";
          write_lines(lines_, depth + 1, !cdata);
          indent(depth);
          if (cdata) out_ += "]]>";
        }
        close_tag(name_at, name_size);
      } else {
        out_ += '>';
        escape(out_, text, false);
        close_tag(name_at, name_size);
      }
    }
    if (is_volatile) out_ += kVolatileMarker;
    out_ += '\n';
    pop_scope(pushed);
  }

  // ---- the model ----

  // write_inline_children(e), as write_element made it (the namespace scope is the same when
  // the model is extracted), else made now.
  const std::string& inline_markup(pugi::xml_node e) {
    if (auto it = inline_cache_.find(e.internal_object()); it != inline_cache_.end())
      return it->second;
    scratch_.clear();
    write_inline_children(scratch_, e);
    return scratch_;
  }

  std::string text_of(pugi::xml_node e) {
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

  // An Atom text construct whose text is base64: Atom 0.3 mode="base64", or (`any_type`, for
  // titles, which are text whatever they say) a type that is a MIME type neither text/* nor
  // XML (RFC 4287 4.1.3.3; content of such a type stays base64, as it is no text).
  static bool base64_construct(pugi::xml_node e, bool any_type) {
    if (sv(e.attribute("mode").value()) == "base64") return true;
    if (!any_type) return false;
    const std::string_view type = trim_space(sv(e.attribute("type").value()));
    return type.find('/') != std::string_view::npos && !type.starts_with("text/") &&
           !type.ends_with("/xml") && !type.ends_with("+xml");
  }

  // The element's text, base64-decoded when it is a base64 text construct (and decodes).
  std::string construct_text(pugi::xml_node e, bool any_type) {
    std::string text = text_of(e);
    if (!base64_construct(e, any_type)) return text;
    std::string decoded;
    if (!base64_decode(text, decoded)) return text;
    return std::string(trim_space(decoded));
  }

  // Atom text construct: HTML as written for html, markup for xhtml, text otherwise.
  std::string atom_text(pugi::xml_node e) {
    bool has_elem = false;
    for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) has_elem = true;
    if (!has_elem) return construct_text(e, false);
    return std::string(trim_space(inline_markup(e)));
  }

  // Plain text; markup inside the element (XHTML, or HTML left unescaped) reads as text.
  std::string title_of(pugi::xml_node e, bool atom) {
    bool has_elem = false;
    for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) has_elem = true;
    if (!atom && !has_elem) return text_of(e);
    const std::string_view type = sv(e.attribute("type").value());
    if (has_elem) return html_to_text(inline_markup(e));
    if (type == "html" || type == "text/html" || sv(e.attribute("mode").value()) == "escaped")
      return html_to_text(construct_text(e, true));
    return construct_text(e, true);
  }

  std::string attrs_value(pugi::xml_node e) {
    std::vector<std::pair<std::string, std::string_view>> list;
    for (pugi::xml_attribute a = e.first_attribute(); a; a = a.next_attribute()) {
      const std::string_view name = sv(a.name());
      if (name == "xmlns" || name.starts_with("xmlns:")) continue;
      std::string cn;
      append_qname(cn, name);
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
  void add_fields(std::vector<Field>& fields, pugi::xml_node e, const std::string& prefix,
                  bool channel) {
    if (fields.size() >= kMaxFields) {
      too_many_fields_ = true;
      return;
    }
    const std::size_t pushed = push_scope(e);
    const Name n = name_of(e);
    const std::string name = prefix + qname(e);
    bool has_elem = false;
    for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) has_elem = true;
    if (has_elem && !html_field(e, n) && prefix.size() < 200) {
      for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
        if (c.type() == pugi::node_element) add_fields(fields, c, name + "/", channel);
    } else {
      std::string value = has_elem ? atom_text(e) : text_of(e);
      const std::string attrs = attrs_value(e);
      if (!attrs.empty()) value = value.empty() ? attrs : attrs + " " + value;
      fields.push_back(Field{name, std::move(value), channel && volatile_field(n)});
    }
    pop_scope(pushed);
  }

  static bool rss_core(std::string_view uri) {
    return uri.empty() || uri == kRss10 || uri == kRss090 ||
           uri == "http://backend.userland.com/rss2" ||
           uri == "http://blogs.law.harvard.edu/tech/rss" ||
           uri == "http://backend.userland.com/rss";
  }

  // An Atom link's target: its href, or, for a link without one, its text (as Atom 0.3-era
  // feeds write it).
  std::string atom_href(pugi::xml_node e) {
    const pugi::xml_attribute href = e.attribute("href");
    return href ? std::string(trim_space(sv(href.value()))) : text_of(e);
  }

  Enclosure enclosure_of(pugi::xml_node e, const char* url_attr) {
    if (std::string_view(url_attr) == "href")
      return Enclosure{atom_href(e), std::string(trim_space(sv(e.attribute("type").value()))),
                       std::string(trim_space(sv(e.attribute("length").value())))};
    return Enclosure{std::string(trim_space(sv(e.attribute(url_attr).value()))),
                     std::string(trim_space(sv(e.attribute("type").value()))),
                     std::string(trim_space(sv(e.attribute("length").value())))};
  }

  Item rss_item(pugi::xml_node item) {
    Item it;
    const std::size_t pushed = push_scope(item);
    std::string guid, about(trim_space(sv(item.attribute("rdf:about").value())));
    std::string dc_date, atom_id, atom_link, dc_title, dc_description;
    for (pugi::xml_node c = item.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element) continue;
      const std::size_t p2 = push_scope(c);
      const Name n = name_of(c);
      bool used = true;
      if (rss_core(n.uri)) {
        if (n.local == "title" && it.title.empty())
          it.title = title_of(c, false);
        else if (n.local == "link" && it.link.empty())
          it.link = text_of(c);
        else if (n.local == "guid" && guid.empty())
          guid = text_of(c);
        else if (n.local == "pubDate" && it.published.empty())
          it.published = text_of(c);
        else if (n.local == "description" && it.summary.empty())
          it.summary = text_of(c);
        else if (n.local == "author")
          it.authors.push_back(text_of(c));
        else if (n.local == "category")
          it.categories.push_back(text_of(c));
        else if (n.local == "enclosure")
          it.enclosures.push_back(enclosure_of(c, "url"));
        else
          used = false;
      } else if (n.uri == kDc) {
        if (n.local == "creator" || n.local == "author")
          it.authors.push_back(text_of(c));
        else if (n.local == "date" && dc_date.empty())
          dc_date = text_of(c);
        else if (n.local == "subject")
          it.categories.push_back(text_of(c));
        else if (n.local == "title" && dc_title.empty())
          dc_title = text_of(c);
        else if (n.local == "description" && dc_description.empty())
          dc_description = text_of(c);
        else
          used = false;
      } else if (n.uri == kContent && n.local == "encoded" && it.content.empty()) {
        it.content = text_of(c);
      } else if (n.uri == kAtom10 || n.uri == kAtom03) {
        if (n.local == "link") {
          const std::string_view rel = sv(c.attribute("rel").value());
          if (rel == "enclosure")
            it.enclosures.push_back(enclosure_of(c, "href"));
          else if ((rel.empty() || rel == "alternate") && atom_link.empty())
            atom_link = atom_href(c);
          else
            used = false;
        } else if (n.local == "id" && atom_id.empty()) {
          atom_id = text_of(c);
        } else if (n.local == "updated" && it.updated.empty()) {
          it.updated = text_of(c);
        } else {
          used = false;
        }
      } else if (n.uri == kDcTerms && n.local == "modified" && it.updated.empty()) {
        it.updated = text_of(c);
      } else {
        used = false;
      }
      pop_scope(p2);
      if (!used) add_fields(it.extra, c, "", false);
    }
    if (it.published.empty()) it.published = dc_date;
    if (it.title.empty()) it.title = dc_title;
    if (it.summary.empty()) it.summary = dc_description;
    if (it.link.empty()) it.link = atom_link;
    it.id = !guid.empty() ? guid : !atom_id.empty() ? atom_id : about;
    assign_fallback_id(it);
    pop_scope(pushed);
    return it;
  }

  std::string person_of(pugi::xml_node e) {
    std::string email;
    for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element) continue;
      const Name n = name_of(c);
      if (n.local == "name") {
        std::string v = text_of(c);
        if (!v.empty()) return v;
      } else if (n.local == "email" && email.empty()) {
        email = text_of(c);
      }
    }
    return email.empty() ? text_of(e) : email;
  }

  Item atom_entry(pugi::xml_node entry) {
    Item it;
    const std::size_t pushed = push_scope(entry);
    for (pugi::xml_node c = entry.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element) continue;
      const std::size_t p2 = push_scope(c);
      const Name n = name_of(c);
      bool used = true;
      if (in_atom(n)) {
        if (n.local == "id" && it.id.empty())
          it.id = text_of(c);
        else if (n.local == "title" && it.title.empty())
          it.title = title_of(c, true);
        else if (n.local == "link") {
          const std::string_view rel = sv(c.attribute("rel").value());
          if (rel == "enclosure")
            it.enclosures.push_back(enclosure_of(c, "href"));
          else if ((rel.empty() || rel == "alternate") && it.link.empty())
            it.link = atom_href(c);
          else
            used = false;
        } else if ((n.local == "published" || n.local == "issued") && it.published.empty())
          it.published = text_of(c);
        else if ((n.local == "updated" || n.local == "modified") && it.updated.empty())
          it.updated = text_of(c);
        else if (n.local == "author")
          it.authors.push_back(person_of(c));
        else if (n.local == "category") {
          std::string term(trim_space(sv(c.attribute("term").value())));
          it.categories.push_back(term.empty() ? text_of(c) : term);
        } else if (n.local == "summary" && it.summary.empty())
          it.summary = atom_text(c);
        else if (n.local == "content" && it.content.empty())
          it.content = atom_text(c);
        else if (n.local == "source" && entry_doc_ && entry == doc_.document_element()) {
          // An entry document's source is its channel (see walk).
        } else
          used = false;
      } else if (n.uri == kDc && n.local == "creator") {
        it.authors.push_back(text_of(c));
      } else if (n.uri == kDc && n.local == "subject") {
        it.categories.push_back(text_of(c));
      } else {
        used = false;
      }
      pop_scope(p2);
      if (!used) add_fields(it.extra, c, "", false);
    }
    assign_fallback_id(it);
    pop_scope(pushed);
    return it;
  }

  void channel_fields(Feed& feed, pugi::xml_node channel, std::string_view skip) {
    if (counting_) return;
    for (pugi::xml_node c = channel.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_comment && !is_marker(c)) {
        const std::string_view v = trim_space(sv(c.value()));
        feed.channel.push_back(Field{"comment", std::string(v), is_volatile_comment(v)});
        continue;
      }
      if (c.type() != pugi::node_element) continue;
      const std::size_t p = push_scope(c);
      const Name n = name_of(c);
      pop_scope(p);
      if (n.local == skip || (n.local == "items" && skip == "item")) continue;
      add_fields(feed.channel, c, "", true);
    }
  }

  // Whether there is room for one more item; past kMaxItems, notes that there was not. In
  // the counting pass, counts it and keeps none.
  bool keep_item(const Feed& feed) {
    if (counting_) {
      ++counted_;
      return false;
    }
    if (feed.items.size() < kMaxItems) return true;
    too_many_items_ = true;
    return false;
  }

  // extract()'s walk over the channel and items (see counting_).
  void walk(Feed& feed);

  void top_comments(Feed& feed) {
    if (counting_) return;
    for (pugi::xml_node c = doc_.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_comment && !is_marker(c)) {
        const std::string_view v = trim_space(sv(c.value()));
        feed.channel.push_back(Field{"comment", std::string(v), is_volatile_comment(v)});
      }
  }

  pugi::xml_document& doc_;
  std::string& out_;
  std::vector<std::pair<std::string, std::string>> canon_;  // uri, prefix
  std::vector<std::string> undeclared_;                     // prefixes used, never bound
  std::vector<std::pair<std::string_view, std::string_view>> scope_;
  std::vector<std::pair<std::string, std::string_view>> attrs_;
  std::vector<std::string_view> lines_;
  std::unordered_map<const void*, std::string> inline_cache_;  // see inline_markup
  std::vector<const void*> declaring_;  // elements that declare namespaces, sorted
  std::string scratch_;
  std::string inline_buf_;  // write_element's inline markup, when it is not kept
  bool atom_doc_ = false;
  bool entry_doc_ = false;  // the root is an Atom entry (see atom_entry_root)
  bool model_ = true;
  bool too_many_items_ = false;
  bool too_many_fields_ = false;
  std::size_t estimate_ = 0;  // see canonical_estimate
  bool counting_ = false;     // walk() counts the items (keep_item) and extracts nothing
  std::size_t counted_ = 0;   // what the counting walk() found
};

// The items are counted first: past kMaxItems no model is made at all (it would be thrown
// away), and otherwise the item vector is allocated once at its size, where growing it would
// leave up to half of it unused and hold the old and the new array at once while it moves
// (an Item is ~320 bytes before its strings: six times a short item's XML).
Feed XmlNormalizer::extract() {
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

void XmlNormalizer::walk(Feed& feed) {
  scope_.clear();
  memo_size_ = 0;
  top_comments(feed);
  const pugi::xml_node root = doc_.document_element();
  const std::size_t pushed = push_scope(root);
  const Name rn = name_of(root);
  atom_doc_ = rn.local == "feed" || atom_entry_root(rn);
  entry_doc_ = atom_entry_root(rn);
  auto elements = [&](pugi::xml_node parent, std::string_view local, auto&& fn) {
    for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling()) {
      if (c.type() != pugi::node_element) continue;
      const std::size_t p = push_scope(c);
      const Name n = name_of(c);
      if (n.local == local) fn(c);
      pop_scope(p);
    }
  };
  if (rn.local == "rss") {
    const std::string_view version = trim_space(sv(root.attribute("version").value()));
    feed.format = version == "2.0" || version == "2.00" ? "rss2.0"
                  : version.empty()                     ? "rss"
                                                        : "rss" + std::string(version);
    if (feed.format.size() > 12) feed.format = "rss";
    // Items belong to the channel; a wrapper rss/channel around a second feed (as some
    // mirrors serve) is looked through.
    pugi::xml_node channel;
    elements(root, "channel", [&](pugi::xml_node c) {
      if (!channel) channel = c;
    });
    if (channel) {
      const std::size_t pc = push_scope(channel);
      bool any = false;
      elements(channel, "item", [&](pugi::xml_node) { any = true; });
      pugi::xml_node inner;
      if (!any) elements(channel, "rss", [&](pugi::xml_node c) { inner = c; });
      if (inner) {
        const std::size_t pi = push_scope(inner);
        pugi::xml_node ic;
        elements(inner, "channel", [&](pugi::xml_node c) {
          if (!ic) ic = c;
        });
        if (ic) {
          const std::size_t pj = push_scope(ic);
          channel_fields(feed, ic, "item");
          elements(ic, "item", [&](pugi::xml_node c) {
            if (keep_item(feed)) feed.items.push_back(rss_item(c));
          });
          pop_scope(pj);
        }
        pop_scope(pi);
      } else {
        channel_fields(feed, channel, "item");
        elements(channel, "item", [&](pugi::xml_node c) {
          if (keep_item(feed)) feed.items.push_back(rss_item(c));
        });
      }
      pop_scope(pc);
    }
    // RSS 0.9x feeds in the wild sometimes put items beside the channel.
    elements(root, "item", [&](pugi::xml_node c) {
      if (keep_item(feed)) feed.items.push_back(rss_item(c));
    });
  } else if (rn.local == "RDF") {
    std::string_view def;
    resolve({}, def);
    feed.format = def == kRss090 ? "rss0.90" : "rss1.0";
    elements(root, "channel", [&](pugi::xml_node c) { channel_fields(feed, c, "item"); });
    elements(root, "item", [&](pugi::xml_node c) {
      if (keep_item(feed)) feed.items.push_back(rss_item(c));
    });
  } else if (rn.local == "feed") {
    feed.format =
        rn.uri == kAtom03 || sv(root.attribute("version").value()) == "0.3" ? "atom0.3" : "atom1.0";
    channel_fields(feed, root, "entry");
    elements(root, "entry", [&](pugi::xml_node c) {
      if (keep_item(feed)) feed.items.push_back(atom_entry(c));
    });
  } else if (entry_doc_) {
    feed.format = rn.uri == kAtom03 ? "atom0.3-entry" : "atom1.0-entry";
    // The channel is what the entry says of its feed (atom:source), if anything.
    bool source = false;
    elements(root, "source", [&](pugi::xml_node c) {
      if (source || !in_atom(name_of(c))) return;
      source = true;
      channel_fields(feed, c, {});
    });
    if (keep_item(feed)) feed.items.push_back(atom_entry(root));
  } else {
    feed.format = "xml";
  }
  pop_scope(pushed);
}

}  // namespace

Result<Document> normalize_xml(std::string_view decoded, Document doc, RepairLog& log, bool model,
                               bool text) {
  Repaired repaired = repair_xml(decoded, log);
  constexpr unsigned kOptions = pugi::parse_cdata | pugi::parse_escapes | pugi::parse_eol |
                                pugi::parse_wconv_attribute | pugi::parse_comments |
                                pugi::parse_pi | pugi::parse_declaration | pugi::parse_doctype;
  pugi::xml_document xml;
  // Parsed in place (pugixml decodes into the buffer), so a second attempt repairs again.
  pugi::xml_parse_result r = xml.load_buffer_inplace(repaired.text.data(), repaired.text.size(),
                                                     kOptions, pugi::encoding_utf8);
  if (!r && xml.document_element() && r.offset > 0) {
    // Junk after a complete root element: cut it off and parse again.
    const std::string end_tag = "</" + std::string(xml.document_element().name()) + ">";
    std::vector<Repair> scratch;
    RepairLog quiet(scratch);
    Repaired again = repair_xml(decoded, quiet);
    const std::string_view before =
        trim_space(std::string_view(again.text).substr(0, static_cast<std::size_t>(r.offset)));
    if (before.ends_with(end_tag)) {
      const std::size_t cut = before.size();
      log.add(decoded, again.map.to_input(cut), "removed junk after the root element");
      again.text.resize(cut);
      repaired = std::move(again);
      r = xml.load_buffer_inplace(repaired.text.data(), repaired.text.size(), kOptions,
                                  pugi::encoding_utf8);
    }
  }
  if (!r) {
    const std::size_t at =
        repaired.map.to_input(static_cast<std::size_t>(std::max<std::ptrdiff_t>(r.offset, 0)));
    return Error{Errc::bad_xml, line_column(decoded, at) + ": " + r.description()};
  }
  XmlNormalizer n(xml, doc.text, model);
  if (std::string limit = n.collect_namespaces(repaired.text.size()); !limit.empty())
    return Error{Errc::unsupported, "a document with " + limit};
  if (text) {
    // Reserved at what the text may grow to, so that it is never reallocated: growing it
    // would hold the old and the new buffer at once (three times the text, beside the tree).
    // Pages reserved and never written are never resident.
    reserve_large(doc.text,
                  repaired.text.size() + repaired.text.size() / 8 + n.canonical_estimate());
    n.write_document();
  }
  if (model) {
    doc.feed = n.extract();
    if (n.too_many_items())
      return Error{Errc::unsupported,
                   "a feed of more than " + std::to_string(kMaxItems) + " items"};
    if (n.too_many_fields())
      return Error{Errc::unsupported,
                   "an item or channel of more than " + std::to_string(kMaxFields) + " fields"};
  }
  return doc;
}

}  // namespace feeddiff::normalize_detail

namespace feeddiff {

std::string pugixml_version() {
  // PUGIXML_VERSION is major * 1000 + minor * 10 since 1.10 (1130 is 1.13); major * 100 +
  // minor * 10 before (190 is 1.9).
  constexpr int kVersion = PUGIXML_VERSION;
  constexpr int kMajorUnit = kVersion >= 1000 ? 1000 : 100;
  return std::to_string(kVersion / kMajorUnit) + "." + std::to_string(kVersion % kMajorUnit / 10);
}

}  // namespace feeddiff
