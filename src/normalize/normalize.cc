#include "feeddiff/normalize.h"

#include <string>
#include <string_view>

#include "normalize/internal.h"

namespace feeddiff {

Result<Document> normalize(std::string_view bytes, std::string_view charset_hint) {
  return normalize(bytes, NormalizeOptions{charset_hint, true, true});
}

Result<Document> normalize(std::string_view bytes, const NormalizeOptions& options) {
  using namespace normalize_detail;
  const std::string_view charset_hint = options.charset_hint;
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
  Result<Document> r = json ? normalize_json(text, std::move(doc), options.items, options.text)
                            : normalize_xml(text, std::move(doc), log, options.items, options.text);
  if (r) {
    log.finish();
    r->repairs = std::move(repairs);
  }
  return r;
}

}  // namespace feeddiff
