// Where a source's directory lies under raw/ (core.h's Layout).

#include <vector>

#include "feeddiff/core.h"

namespace feeddiff {

std::string_view layout_name(Layout layout) {
  return layout == Layout::fanout ? "fanout" : "flat";
}

std::optional<Layout> parse_layout(std::string_view text) {
  if (text == "flat") return Layout::flat;
  if (text == "fanout") return Layout::fanout;
  return std::nullopt;
}

std::string fanout_bucket(std::string_view name) {
  return sha1_hex(name).substr(0, 2);
}

std::string source_dir(std::string_view name, Layout layout) {
  if (layout == Layout::fanout) return "raw/" + fanout_bucket(name) + "/" + std::string(name) + "/";
  return "raw/" + std::string(name) + "/";
}

std::optional<std::string_view> source_of_raw_path(std::string_view path) {
  if (!path.starts_with("raw/")) return std::nullopt;
  std::vector<std::string_view> parts;
  std::size_t at = 4;
  for (;;) {
    const std::size_t slash = path.find('/', at);
    parts.push_back(path.substr(at, slash == std::string_view::npos ? slash : slash - at));
    if (slash == std::string_view::npos) break;
    at = slash + 1;
  }
  for (std::string_view p : parts)
    if (p.empty()) return std::nullopt;
  if (parts.size() == 2) return parts[0];
  if (parts.size() == 3 && parts[0].size() == 2) return parts[1];
  return std::nullopt;
}

bool is_not_a_feed_path(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash != std::string_view::npos && path.substr(slash + 1) == kNotAFeedFile &&
         source_of_raw_path(path).has_value();
}

}  // namespace feeddiff
