// site_text: a site run's report as `feeddiff site` prints it, beside the service whose
// values it prints (the command only parses and prints).

#include <fmt/format.h>

#include "feeddiff/core.h"
#include "feeddiff/site.h"

namespace feeddiff {

std::string site_text(const SiteReport& r) {
  std::string out;
  if (r.refused)
    out += fmt::format(
        "site: did not publish {} whose name feeddiff never writes (only response.xml and "
        "response.json are published), first {}\n",
        plural(r.refused, "raw artifact", "raw artifacts"), r.first_refused);
  if (r.ignored)
    out += fmt::format("site: ignored {} in {}\n",
                       plural(r.ignored, "malformed row", "malformed rows"), r.state_dir);
  out += fmt::format(
      "site: {}, {}; rendered {}{}; wrote {}, {} unchanged{}{} ({})\n",
      plural(r.changes, "change", "changes"), plural(r.sources, "source", "sources"),
      plural(r.rendered, "change", "changes"), r.full_build ? " (full build)" : "",
      plural(r.written, "file", "files"), with_thousands(r.unchanged),
      r.removed ? fmt::format(", {} removed", with_thousands(r.removed)) : "",
      r.indexed ? fmt::format("; {} for search", plural(r.indexed, "item change", "item changes"))
                : "",
      r.index);
  return out;
}

}  // namespace feeddiff
