// The JSON face of an extracted article (`feeddiff article --json`, schema feeddiff.article/1).

#include <nlohmann/json.hpp>

#include "feeddiff/article.h"

namespace feeddiff {

std::string article_json(const Article& article) {
  nlohmann::ordered_json j;
  j["schema"] = "feeddiff.article/1";
  j["title"] = article.title;
  j["byline"] = article.byline;
  j["published"] = article.published;
  j["language"] = article.language;
  j["site_name"] = article.site_name;
  auto blocks = nlohmann::ordered_json::array();
  for (const Block& block : article.blocks) {
    nlohmann::ordered_json b;
    b["kind"] = std::string(block_kind_name(block.kind));
    if (block.kind == BlockKind::heading) b["level"] = block.level;
    b["text"] = block.text;
    blocks.push_back(std::move(b));
  }
  j["blocks"] = std::move(blocks);
  j["text"] = article.text();
  // The parser has made the page's text valid UTF-8; replace is the belt to those braces.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace feeddiff
