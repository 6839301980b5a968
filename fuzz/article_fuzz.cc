// libFuzzer target: extract_article on any bytes, with the default limits and (when the
// first byte says so) with small ones, so that the limit paths are reached by small inputs.
// The article must be the same twice (extraction is deterministic), have no empty block, a
// heading level only on headings, and text() must hold every block's text.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "feeddiff/article.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  feeddiff::ArticleOptions options;
  if (size > 0 && data[0] % 4 == 0) {
    options.max_bytes = 4096;
    options.max_tags = 64;
    options.max_depth = 16;
  }
  const auto first = feeddiff::extract_article(bytes, options);
  const auto second = feeddiff::extract_article(bytes, options);
  if (static_cast<bool>(first) != static_cast<bool>(second)) std::abort();
  if (!first) {
    if (first.error().message != second.error().message) std::abort();
    if (first.error().message.empty()) std::abort();
    return 0;
  }
  if (first->blocks.empty() || first->title != second->title ||
      first->blocks.size() != second->blocks.size())
    std::abort();
  const std::string text = first->text();
  for (std::size_t i = 0; i < first->blocks.size(); ++i) {
    const feeddiff::Block& block = first->blocks[i];
    if (block.text.empty() || block.text != second->blocks[i].text) std::abort();
    if ((block.kind == feeddiff::BlockKind::heading) != (block.level != 0)) std::abort();
    if (block.level < 0 || block.level > 6) std::abort();
    if (block.kind == feeddiff::BlockKind::paragraph && text.find(block.text) == std::string::npos)
      std::abort();
  }
  return 0;
}
