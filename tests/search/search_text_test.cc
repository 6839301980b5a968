// search's text face called as a library: what a terminal gets for hits and for none.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/search.h"

using namespace feeddiff;

TEST_CASE("search_text escapes feed text, marks the match and says when the text was gone",
          "[search]") {
  SearchResult result;
  SearchHit hit;
  hit.source = "news";
  hit.item_id = "id-\x1b]0;x\x07";
  hit.title = "Title \xe2\x80\xae reversed";
  hit.first = {"0123456789abcdef", 0};
  hit.last = {"fedcba9876543210", 60'000};
  hit.versions = 2;
  hit.gone = SearchVersion{"aaaaaaaaaaaaaaaa", 120'000};
  hit.edited_out = true;
  hit.snippet = {{"before ", false}, {"open\nweights", true}, {" after", false}};
  result.hits.push_back(hit);

  const std::string plain = search_text(result, false);
  CHECK(plain.find("news: Title \\u202e reversed\n") != std::string::npos);
  CHECK(plain.find("\x1b") == std::string::npos);
  CHECK(plain.find("matched  1970-01-01T00:00:00.000Z (0123456) to 1970-01-01T00:01:00.000Z "
                   "(fedcba9), 2 versions") != std::string::npos);
  CHECK(plain.find("gone     1970-01-01T00:02:00.000Z (aaaaaaa): the item's text changed") !=
        std::string::npos);
  CHECK(plain.find("  before **open weights** after\n") != std::string::npos);
  CHECK(plain.ends_with("1 hit.\n"));

  const std::string colored = search_text(result, true);
  CHECK(colored.find("\x1b[1mopen weights\x1b[0m") != std::string::npos);

  result.more = true;
  CHECK(search_text(result, false).ends_with("1 hit shown; more with --limit.\n"));
  CHECK(search_text(SearchResult{}, false) == "No match.\n");
}
