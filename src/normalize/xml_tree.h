#pragma once
// What the canonical writer (xml_canonical.cc) and the feed model (xml_model.cc, xml_rss.cc,
// xml_atom.cc) share over one parsed document: the namespace URIs feeds use, names and the
// canonical prefixes they are written with, the namespace scope of the element being visited,
// and which elements hold HTML or change on every rebuild. Internal to normalize, the one
// module that includes pugixml.

#include <algorithm>
#include <array>
#include <cstddef>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "normalize/internal.h"

namespace feeddiff::normalize_detail {

inline constexpr std::string_view kAtom10 = "http://www.w3.org/2005/Atom";
inline constexpr std::string_view kAtom03 = "http://purl.org/atom/ns#";
inline constexpr std::string_view kRss10 = "http://purl.org/rss/1.0/";
inline constexpr std::string_view kRss090 = "http://my.netscape.com/rdf/simple/0.9/";
inline constexpr std::string_view kDc = "http://purl.org/dc/elements/1.1/";
inline constexpr std::string_view kDcTerms = "http://purl.org/dc/terms/";
inline constexpr std::string_view kContent = "http://purl.org/rss/1.0/modules/content/";
inline constexpr std::string_view kAdmin = "http://webns.net/mvcb/";
inline constexpr std::string_view kMarkerText = "feeddiff:volatile";

inline bool all_space(const char* s) {
  for (; *s; ++s)
    if (!is_space(*s)) return false;
  return true;
}

inline std::string_view sv(const pugi::char_t* s) {
  return std::string_view(s);
}

/// Whether a comment is the volatile marker a canonical document carries (never written back).
inline bool is_marker(pugi::xml_node n) {
  return n.type() == pugi::node_comment && trim_space(sv(n.value())) == kMarkerText;
}

/// An element's name as its namespace scope resolves it.
struct Name {
  std::string_view uri;    ///< "" when none
  std::string_view local;  ///< without prefix
};

/// One parsed document with its namespaces: collected once, then a scope pushed and popped
/// as the writer and the model walk the elements (each walk starts with reset_scope()).
class XmlTree {
 public:
  explicit XmlTree(pugi::xml_document& doc) : doc_(doc) {}

  /// The parsed document.
  pugi::xml_document& doc() const { return doc_; }

  /// "" or what limit the document crosses: elements nested deeper than kMaxDepth (the writer
  /// recurses), more attributes on one element or more namespaces than anyone writes (each
  /// is looked up in a list), or a canonical form far larger than the input (indentation
  /// grows with depth, so deep nesting repeated would write gigabytes from kilobytes).
  std::string collect_namespaces(std::size_t input_size);

  /// What collect_namespaces() reckoned the indentation and line ends will add: more than
  /// they do (it counts text nodes as lines too), which is what reserving wants.
  std::size_t canonical_estimate() const { return estimate_; }

  /// Every namespace URI declared with a prefix, and the prefix it is written with, which the
  /// root element declares.
  const std::vector<std::pair<std::string, std::string>>& canonical_namespaces() const {
    return canon_;
  }

  /// Empties the scope, for a walk from the document's top.
  void reset_scope() {
    scope_.clear();
    memo_size_ = 0;
  }

  /// Pushes the node's namespace declarations; returns how many. Only the elements that
  /// collect_namespaces saw declaring some are looked at again.
  std::size_t push_scope(pugi::xml_node n) {
    if (!std::binary_search(declaring_.begin(), declaring_.end(), n.internal_object())) return 0;
    const std::size_t pushed = scan_scope(n);
    if (pushed) memo_size_ = 0;
    return pushed;
  }
  /// Pops what push_scope() pushed.
  void pop_scope(std::size_t k) {
    if (k == 0) return;
    scope_.resize(scope_.size() - k);
    memo_size_ = 0;
  }

  /// The URI bound to a prefix in the current scope; false when unbound.
  bool resolve(std::string_view prefix, std::string_view& uri) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == prefix) {
        uri = it->second;
        return true;
      }
    return false;
  }

  /// The element's name in the current scope.
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

  /// Appends the canonical qualified name of an element or attribute name.
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

  /// The element's canonical qualified name.
  std::string qname(pugi::xml_node n) const {
    std::string s;
    append_qname(s, sv(n.name()));
    return s;
  }

  /// Notes what the root element makes of the document: an Atom feed, an Atom entry.
  void set_root(const Name& root) {
    atom_doc_ = root.local == "feed" || atom_entry_root(root);
    entry_doc_ = atom_entry_root(root);
  }
  /// Whether the root is an Atom entry (see atom_entry_root).
  bool entry_doc() const { return entry_doc_; }

  /// An Atom Entry Document (RFC 4287 section 4.1.2): an entry as the root element, which
  /// is read as a feed of that one entry. Only in an Atom namespace: "entry" is a common name.
  static bool atom_entry_root(const Name& n) {
    return n.local == "entry" && (n.uri == kAtom10 || n.uri == kAtom03);
  }

  /// Whether a name is Atom's: in an Atom namespace, or in none in an Atom document.
  bool in_atom(const Name& n) const {
    return n.uri == kAtom10 || n.uri == kAtom03 || (n.uri.empty() && atom_doc_);
  }

  /// Elements whose text is HTML, or that hold XHTML.
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

  /// Channel-level elements that change on every rebuild (lastBuildDate, generator, ...).
  bool volatile_field(const Name& n) const {
    if (n.uri == kDc) return n.local == "date";
    if (n.uri == kAdmin) return n.local == "generatorAgent";
    return n.local == "lastBuildDate" || n.local == "generator" ||
           (in_atom(n) && (n.local == "updated" || n.local == "modified"));
  }

 private:
  void assign(std::string_view uri, std::string_view prefix);

  std::string_view canon_prefix(std::string_view uri) const {
    for (const auto& c : canon_)
      if (c.first == uri) return c.second;
    return {};
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

  // Canonical prefixes append_qname found for document prefixes ("" when the name stays as
  // written), while the scope stays as it is: forgotten whenever it changes.
  struct PrefixMemo {
    std::string_view prefix, canon;
  };
  mutable std::array<PrefixMemo, 8> memo_{};
  mutable std::size_t memo_size_ = 0;

  pugi::xml_document& doc_;
  std::vector<std::pair<std::string, std::string>> canon_;  // uri, prefix
  std::vector<std::string> undeclared_;                     // prefixes used, never bound
  std::vector<std::pair<std::string_view, std::string_view>> scope_;
  std::vector<const void*> declaring_;  // elements that declare namespaces, sorted
  std::size_t estimate_ = 0;            // see canonical_estimate
  bool atom_doc_ = false;
  bool entry_doc_ = false;  // the root is an Atom entry (see atom_entry_root)
};

}  // namespace feeddiff::normalize_detail
