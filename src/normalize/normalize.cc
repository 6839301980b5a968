#include "feeddiff/normalize.h"

#include <string>
#include <string_view>

#include "normalize/internal.h"

namespace feeddiff {

Result<Document> normalize(std::string_view bytes, std::string_view charset_hint) {
  using namespace normalize_detail;
  Document doc;
  std::vector<Repair> repairs;
  RepairLog log(repairs);
  Decoded decoded = decode(bytes, charset_hint, log);
  doc.encoding = std::move(decoded.encoding);
  const std::string_view text = decoded.text();
  std::size_t first = 0;
  while (first < text.size() &&
         (text[first] == ' ' || text[first] == '\t' || text[first] == '\n' || text[first] == '\r'))
    ++first;
  const bool json = first < text.size() && (text[first] == '{' || text[first] == '[');
  Result<Document> r =
      json ? normalize_json(text, std::move(doc)) : normalize_xml(text, std::move(doc), log);
  if (r) {
    log.finish();
    r->repairs = std::move(repairs);
  }
  return r;
}

}  // namespace feeddiff
