// The JSON face of a search (`feeddiff search --format json`, docs/search.schema.json).

#include <nlohmann/json.hpp>

#include "feeddiff/search.h"

namespace feeddiff {

namespace {

nlohmann::json version_json(const SearchVersion& v) {
  return {{"commit", v.commit}, {"observed_at", format_iso8601_ms(v.observed)}};
}

}  // namespace

std::string search_json(std::string_view query, const SearchResult& result) {
  nlohmann::json hits = nlohmann::json::array();
  for (const SearchHit& hit : result.hits) {
    nlohmann::json snippet = nlohmann::json::array();
    for (const SnippetRun& run : hit.snippet)
      snippet.push_back({{"text", run.text}, {"match", run.match}});
    hits.push_back(
        {{"source", hit.source},
         {"item", {{"id", hit.item_id}, {"title", hit.title}}},
         {"first", version_json(hit.first)},
         {"last", version_json(hit.last)},
         {"versions", hit.versions},
         {"gone", hit.gone ? version_json(*hit.gone) : nlohmann::json(nullptr)},
         {"gone_because", hit.gone ? nlohmann::json(hit.edited_out ? "edited" : "removed")
                                   : nlohmann::json(nullptr)},
         {"snippet", snippet},
         {"article",
          hit.article_url ? nlohmann::json{{"url", *hit.article_url}} : nlohmann::json(nullptr)}});
  }
  nlohmann::json doc = {{"feeddiff", "search"}, {"version", 1},
                        {"query", query},       {"hits", hits},
                        {"more", result.more},  {"index", result.index.commit}};
  // Invalid UTF-8 from a feed is replaced rather than failing the whole answer.
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace feeddiff
