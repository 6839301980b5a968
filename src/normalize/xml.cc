// normalize_xml: repairs and parses the decoded text, then hands the tree to the canonical
// writer (xml_canonical.cc) and the feed model (xml_model.cc).

#include <algorithm>
#include <cstddef>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "normalize/xml_model.h"

namespace feeddiff::normalize_detail {

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
  XmlTree tree(xml);
  if (std::string limit = tree.collect_namespaces(repaired.text.size()); !limit.empty())
    return Error{Errc::unsupported, "a document with " + limit};
  // With a model, the writer keeps the inline markup the model reads again.
  CanonicalWriter writer(tree, doc.text, model);
  if (text) {
    // Reserved at what the text may grow to, so that it is never reallocated: growing it
    // would hold the old and the new buffer at once (three times the text, beside the tree).
    // Pages reserved and never written are never resident.
    reserve_large(doc.text,
                  repaired.text.size() + repaired.text.size() / 8 + tree.canonical_estimate());
    writer.write_document();
  }
  if (model) {
    FeedModel reader(tree, writer);
    doc.feed = reader.extract();
    if (reader.too_many_items())
      return Error{Errc::unsupported,
                   "a feed of more than " + std::to_string(kMaxItems) + " items"};
    if (reader.too_many_fields())
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
