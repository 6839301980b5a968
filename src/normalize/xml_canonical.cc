// The canonical document: what normalize() prints for XML, written from the parsed tree one
// element a line (normalize.h lists the rules).

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "normalize/xml_canonical.h"

namespace feeddiff::normalize_detail {
namespace {

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

}  // namespace

void CanonicalWriter::write_document() {
  std::string_view version = "1.0", standalone;
  for (pugi::xml_node n = tree_.doc().first_child(); n; n = n.next_sibling()) {
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
  for (pugi::xml_node n = tree_.doc().first_child(); n; n = n.next_sibling()) {
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

// write_inline_children(e), as write_element made it (the namespace scope is the same when
// the model is extracted), else made now.
const std::string& CanonicalWriter::inline_markup(pugi::xml_node e) {
  if (auto it = inline_cache_.find(e.internal_object()); it != inline_cache_.end())
    return it->second;
  scratch_.clear();
  write_inline_children(scratch_, e);
  return scratch_;
}

// Appended from a run of spaces (one memcpy) rather than filled a character at a time.
void CanonicalWriter::indent(int depth) {
  static constexpr std::string_view kSpaces =
      "                                                                "
      "                                                                ";
  std::size_t n = static_cast<std::size_t>(depth) * 2;
  for (; n > kSpaces.size(); n -= kSpaces.size()) out_ += kSpaces;
  out_.append(kSpaces.data(), n);
}

// `<name attrs` with attributes sorted and namespace declarations moved to the root.
// Returns the size of the name written.
std::size_t CanonicalWriter::open_tag(std::string& out, pugi::xml_node e, bool root) {
  out += '<';
  const std::size_t name_at = out.size();
  tree_.append_qname(out, sv(e.name()));
  const std::size_t name_size = out.size() - name_at;
  const pugi::xml_attribute first = e.first_attribute();
  if (!first && (!root || tree_.canonical_namespaces().empty())) return name_size;
  attrs_.clear();
  for (pugi::xml_attribute a = first; a; a = a.next_attribute()) {
    const std::string_view name = sv(a.name());
    if (name.starts_with("xmlns:")) continue;
    std::string cn;
    tree_.append_qname(cn, name);
    attrs_.emplace_back(std::move(cn), sv(a.value()));
  }
  if (root)
    for (const auto& c : tree_.canonical_namespaces())
      attrs_.emplace_back("xmlns:" + c.second, c.first);
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

void CanonicalWriter::write_misc(pugi::xml_node n, int depth) {
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
pugi::xml_node CanonicalWriter::write_inline_text(std::string& buf, pugi::xml_node first) {
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
void CanonicalWriter::write_inline_children(std::string& buf, pugi::xml_node n) {
  for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
    switch (c.type()) {
      case pugi::node_pcdata:
      case pugi::node_cdata:
        c = write_inline_text(buf, c);
        break;
      case pugi::node_element: {
        const std::size_t pushed = tree_.push_scope(c);
        open_tag(buf, c, false);
        if (c.first_child()) {
          buf += '>';
          write_inline_children(buf, c);
          buf += "</";
          tree_.append_qname(buf, sv(c.name()));
          buf += '>';
        } else {
          buf += "/>";
        }
        tree_.pop_scope(pushed);
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

void CanonicalWriter::write_lines(const std::vector<std::string_view>& lines, int depth,
                                  bool escaped) {
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
void CanonicalWriter::close_tag(std::size_t name_at, std::size_t name_size) {
  out_ += "</";
  out_.append(out_, name_at, name_size);
  out_ += '>';
}

void CanonicalWriter::write_element(pugi::xml_node e, int depth, bool channel_ctx, bool root) {
  const std::size_t pushed = tree_.push_scope(e);
  const Name n = tree_.name_of(e);
  if (root) tree_.set_root(n);
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
  const bool is_html = tree_.html_field(e, n);
  const bool is_volatile = channel_ctx && tree_.volatile_field(n);
  indent(depth);
  const std::size_t name_at = out_.size() + 1;  // after the '<'
  const std::size_t name_size = open_tag(out_, e, root);
  if ((has_elem || has_other) && (has_text || is_html)) {
    // Kept for extract() when there is a model, else the same buffer serves every element.
    std::string own;
    std::string& buf = keep_inline_ && has_elem ? own : inline_buf_;
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
    if (has_elem && keep_inline_) inline_cache_.emplace(e.internal_object(), std::move(own));
  } else if (has_elem || has_other) {
    out_ += ">\n";
    // An entry document's source element holds the fields of the feed it came from.
    const bool child_channel =
        (root && n.local == "feed") || (depth == 1 && n.local == "channel") ||
        (depth == 1 && tree_.entry_doc() && n.local == "source" && tree_.in_atom(n));
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
      const bool cdata = cdata_safe(text) || std::all_of(lines_.begin(), lines_.end(), cdata_safe);
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
  tree_.pop_scope(pushed);
}

}  // namespace feeddiff::normalize_detail
