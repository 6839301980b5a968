#pragma once
// What several normalize tests ask of a document: that it normalizes, and which lines its
// canonical text holds.

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "feeddiff/normalize.h"

namespace feeddiff::test {

/// normalize(bytes, hint), which must succeed; its error is shown when it does not.
inline Document must_normalize(std::string_view bytes, std::string_view hint = {}) {
  Result<Document> r = normalize(bytes, hint);
  INFO(r.description());
  REQUIRE(r.ok());
  return std::move(r).value();
}

/// Whether one of text's lines is exactly line.
inline bool has_line(const std::string& text, std::string_view line) {
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (std::string_view(text).substr(pos, end - pos) == line) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace feeddiff::test
