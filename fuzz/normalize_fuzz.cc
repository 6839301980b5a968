// libFuzzer target: normalize (decoding, repairs, canonical form, item model) on any bytes,
// then the canonical form again, which must come back unchanged; the model-only and text-only
// paths must fail and succeed exactly as the full one does; and the item summary of the two
// must survive the summary cache's encoding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The first byte picks a charset hint now and then, to reach the iconv paths.
  static constexpr std::string_view kHints[] = {"",           "",       "",       "",
                                                "iso-8859-1", "gb2312", "utf-16", "shift_jis"};
  const std::string_view hint = size > 0 ? kHints[data[0] % 8] : "";
  const auto first = feeddiff::normalize(bytes, hint);
  const auto model_only = feeddiff::normalize(bytes, feeddiff::NormalizeOptions{hint, true, false});
  if (static_cast<bool>(model_only) != static_cast<bool>(first)) std::abort();
  if (!first) return 0;
  if (model_only->feed.items.size() != first->feed.items.size()) std::abort();
  const auto text_only = feeddiff::normalize(bytes, feeddiff::NormalizeOptions{hint, false, true});
  if (!text_only || text_only->text != first->text) std::abort();
  const auto second = feeddiff::normalize(first->text);
  if (!second || second->text != first->text) std::abort();  // not idempotent
  const feeddiff::ItemDiff d = feeddiff::diff_items(first->feed, second->feed);
  const auto decoded = feeddiff::decode_item_diff(feeddiff::encode_item_diff(d));
  if (!decoded || feeddiff::encode_item_diff(*decoded) != feeddiff::encode_item_diff(d))
    std::abort();
  return 0;
}
