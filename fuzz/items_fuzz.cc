// libFuzzer target: the item model of every format and the item diff between two versions.
// The input is split at its first 0xFF byte (or in half) into an old and a new version, so
// the diff sees related documents; each is also read as JSON when it is not (a '{' in front),
// so mutations of XML seeds reach the JSON Feed reader too.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"

namespace {

void check_pair(std::string_view before, std::string_view after) {
  const feeddiff::NormalizeOptions model_only{{}, true, false};
  const auto a = feeddiff::normalize(before, model_only);
  const auto b = feeddiff::normalize(after, model_only);
  if (!a || !b) return;
  const feeddiff::ItemDiff d = feeddiff::diff_items(a->feed, b->feed);
  const feeddiff::ItemDiff same = feeddiff::diff_items(b->feed, b->feed);
  if (!same.empty()) std::abort();  // a version never differs from itself
  const auto decoded = feeddiff::decode_item_diff(feeddiff::encode_item_diff(d));
  if (!decoded) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::size_t cut = bytes.find('\xFF');
  if (cut == std::string_view::npos) cut = size / 2;
  const std::string_view before = bytes.substr(0, cut);
  const std::string_view after = bytes.substr(cut < size ? cut + 1 : cut);
  check_pair(before, after);
  check_pair(after, before);
  if (!bytes.starts_with("{")) {
    const std::string json_before = "{" + std::string(before);
    const std::string json_after = "{" + std::string(after);
    check_pair(json_before, json_after);
  }
  return 0;
}
