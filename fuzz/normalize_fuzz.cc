// libFuzzer target: normalize (decoding, repairs, canonical form, item model) on any bytes,
// then the canonical form again, which must come back unchanged.

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
  if (!first) return 0;
  const auto second = feeddiff::normalize(first->text);
  if (!second || second->text != first->text) std::abort();  // not idempotent
  (void)feeddiff::diff_items(first->feed, second->feed);
  return 0;
}
