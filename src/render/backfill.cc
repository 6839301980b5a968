// A backfill commit (docs/backfill.md) as text and as JSON: the pages of the publisher's
// archive walked, and the items recorded with their own dates. Every URL came from a feed.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/page.h"

namespace feeddiff {

namespace {

using Json = nlohmann::ordered_json;

}  // namespace

std::string render_backfill_text(const BackfillView& v, const RenderOptions& options) {
  const char* bold = options.color ? "\x1b[1m" : "";
  const char* reset = options.color ? "\x1b[0m" : "";
  std::string out;
  out += fmt::format("{}Backfill {}{}\n{}\n", bold, v.commit_id.substr(0, 7), reset, v.commit_id);
  out += fmt::format("{}{}{}\n\n", bold, escape_terminal(v.title), reset);
  out += fmt::format("{:<10}  {}\n", "Source", escape_terminal(v.source));
  out += fmt::format("{:<10}  {}\n", "Walked", escape_terminal(v.observed_at));
  out += fmt::format("{:<10}  {}\n", "Stopped",
                     v.stop.empty() ? "(not recorded)" : escape_terminal(v.stop));
  // Why these are not versions: a reader of this page should not count them as such.
  out +=
      "\nThe publisher's own archive of the feed, as its links led to it: not versions "
      "feeddiff\nobserved, and not changes of the feed.\n";
  out += fmt::format("\n{}Pages{} ({}; page 1, the current document, is the feed's version)\n",
                     bold, reset, v.pages.size());
  for (const BackfillPageView& p : v.pages)
    out += fmt::format("  {:>4}  {:<9}  {:<12}  {}\n", p.number, escape_terminal(p.result),
                       escape_terminal(p.via), escape_terminal(p.url));
  out += fmt::format("\n{}{:<10}{}  {}\n", bold, "Items", reset, with_thousands(v.items));
  if (!v.oldest.empty()) {
    out += fmt::format("{:<10}  {}\n", "Oldest", v.oldest);
    out += fmt::format("{:<10}  {}\n", "Newest", v.newest);
  }
  return out;
}

std::string render_backfill_json(const BackfillView& v) {
  Json pages = Json::array();
  for (const BackfillPageView& p : v.pages)
    pages.push_back({{"page", p.number}, {"result", p.result}, {"via", p.via}, {"url", p.url}});
  Json doc = {
      {"schema_version", kJsonSchemaVersion},
      {"kind", "backfill"},
      {"commit", v.commit_id},
      {"title", v.title},
      {"source", v.source},
      {"observed_at", v.observed_at},
      {"summary", v.summary},
      {"stop", v.stop},
      {"pages", pages},
      {"items", v.items},
      {"oldest", v.oldest.empty() ? Json(nullptr) : Json(v.oldest)},
      {"newest", v.newest.empty() ? Json(nullptr) : Json(v.newest)},
  };
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace feeddiff
