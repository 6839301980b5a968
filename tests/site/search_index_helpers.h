#pragma once
// Reading the site's search index back as a test sees it: the manifest, then every shard of
// every segment it lists, parsed with nlohmann-json and resolved to (term, change, kind) and
// the documents' fields.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "feeddiff/core.h"

namespace feeddiff::test {

/// A document as search/seg-N/d/K.json holds it.
struct IndexedDoc {
  std::string change, source, title, key, observed;
};

/// One posting resolved: the word, the document it names and whether it appeared or went.
struct IndexedPosting {
  std::string term;
  IndexedDoc doc;
  bool gone = false;
};

inline nlohmann::json read_json_file(const std::filesystem::path& path) {
  auto text = read_file(path.string());
  REQUIRE(text);
  auto value = nlohmann::json::parse(*text, nullptr, false);
  REQUIRE_FALSE(value.is_discarded());
  return value;
}

/// Every posting of the index in DIR/search, newest segment first.
inline std::vector<IndexedPosting> read_index(const std::string& site) {
  namespace fs = std::filesystem;
  const fs::path top = fs::path(site) / "search";
  const auto manifest = read_json_file(top / "manifest.json");
  REQUIRE(manifest.at("format") == 1);
  const std::size_t shard_docs = manifest.at("shard_docs").get<std::size_t>();
  std::vector<IndexedPosting> out;
  for (const auto& segment : manifest.at("segments")) {
    const fs::path dir = top / segment.at("dir").get<std::string>();
    const std::size_t docs = segment.at("docs").get<std::size_t>();
    std::vector<IndexedDoc> rows;
    for (std::size_t k = 0; k * shard_docs < docs; ++k) {
      const auto shard = read_json_file(dir / "d" / (std::to_string(k) + ".json"));
      REQUIRE(shard.is_array());
      for (const auto& row : shard) {
        REQUIRE(row.is_array());
        REQUIRE(row.size() == 5);
        for (const auto& cell : row) REQUIRE(cell.is_string());
        rows.push_back({row[0], row[1], row[2], row[3], row[4]});
      }
    }
    REQUIRE(rows.size() == docs);
    for (const auto& entry : fs::directory_iterator(dir / "t")) {
      const auto shard = read_json_file(entry.path());
      for (const auto& [term, postings] : shard.items()) {
        // The file a term is in: the hex of its first two bytes.
        CHECK(entry.path().stem().string() == hex_encode(term.substr(0, 2)));
        std::uint64_t last = 0;
        bool first = true;
        for (const auto& p : postings) {
          const auto value = p.get<std::uint64_t>();
          CHECK((first || value > last));  // ascending
          first = false;
          last = value;
          REQUIRE(value / 2 < rows.size());
          out.push_back({term, rows[value / 2], value % 2 == 1});
        }
      }
    }
  }
  return out;
}

/// What an index says, whatever its segments: each (term, change, item key, gone).
inline std::set<std::tuple<std::string, std::string, std::string, bool>> index_facts(
    const std::string& site) {
  std::set<std::tuple<std::string, std::string, std::string, bool>> out;
  for (const auto& p : read_index(site)) out.emplace(p.term, p.doc.change, p.doc.key, p.gone);
  return out;
}

}  // namespace feeddiff::test
