// A source's TimeMap (RFC 7089 section 5) in application/link-format (RFC 6690). Pure: the
// site decides which mementos a page holds and when it is sealed; the same values give the
// same bytes, so a sealed page written again is byte-identical.

#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/render.h"

namespace feeddiff {

namespace {

// A URI between < and >: every byte RFC 3986 does not allow in a URI (controls, space, <, >,
// ", {, }, |, \, ^, `, non-ASCII) is percent-encoded, so a URL from the config or a path can
// neither end the reference nor start a link of its own. '%' stays: a URL arrives encoded.
std::string timemap_uri(std::string_view uri) {
  static constexpr std::string_view kNotInUri = "<>\"{}|\\^`";
  std::string out;
  out.reserve(uri.size());
  for (const char ch : uri) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte <= 0x20 || byte >= 0x7f || kNotInUri.find(ch) != std::string_view::npos)
      out += fmt::format("%{:02X}", byte);
    else
      out += ch;
  }
  return out;
}

// RFC 7089's datetime (an RFC 1123 date, IMF-fixdate), to the second; "" when unreadable.
std::string timemap_date(std::string_view iso) {
  const auto t = parse_iso8601(iso);
  return t ? format_http_date(*t) : std::string();
}

// from/until of a span, each left out when not known.
std::string timemap_span(std::string_view from, std::string_view until) {
  std::string out;
  if (const std::string d = timemap_date(from); !d.empty()) out += fmt::format(";from=\"{}\"", d);
  if (const std::string d = timemap_date(until); !d.empty()) out += fmt::format(";until=\"{}\"", d);
  return out;
}

}  // namespace

std::string render_timemap(const TimeMapPage& page) {
  std::vector<std::string> links;
  if (!page.original.empty())
    links.push_back(fmt::format("<{}>;rel=\"original\"", timemap_uri(page.original)));
  links.push_back(fmt::format(
      "<{}>;rel=\"self\";type=\"application/link-format\"{}", timemap_uri(page.self),
      page.mementos.empty()
          ? std::string()
          : timemap_span(page.mementos.front().datetime, page.mementos.back().datetime)));
  for (const TimeMapLink& other : page.pages)
    links.push_back(fmt::format("<{}>;rel=\"timemap\";type=\"application/link-format\"{}",
                                timemap_uri(other.href), timemap_span(other.from, other.until)));
  for (std::size_t i = 0; i < page.mementos.size(); ++i) {
    const Memento& m = page.mementos[i];
    // rel values combine (RFC 7089's examples: "first memento", "last memento").
    std::string rel = "memento";
    if (i == 0 && page.holds_first) rel = "first " + rel;
    if (i + 1 == page.mementos.size() && page.holds_last) rel = "last " + rel;
    links.push_back(fmt::format("<{}>;rel=\"{}\";datetime=\"{}\"", timemap_uri(m.href), rel,
                                timemap_date(m.datetime)));
  }
  std::string out;
  for (std::size_t i = 0; i < links.size(); ++i) {
    out += links[i];
    out += i + 1 < links.size() ? ",\n" : "\n";
  }
  return out;
}

}  // namespace feeddiff
