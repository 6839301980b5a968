#include <catch2/catch.hpp>

#include "feeddiff/render.h"

using namespace feeddiff;

TEST_CASE("lines are cut at a number of characters, never inside one", "[render]") {
  bool cut = false;
  CHECK(cut_chars("abcdef", 3, &cut) == "abc");
  CHECK(cut);
  CHECK(cut_chars("abc", 3, &cut) == "abc");
  CHECK_FALSE(cut);
  // Three characters of two bytes each, and a four-byte one.
  CHECK(cut_chars("\xc3\xa9\xc3\xa9\xc3\xa9\xf0\x9f\x98\x80", 4, &cut) ==
        "\xc3\xa9\xc3\xa9\xc3\xa9\xf0\x9f\x98\x80");
  CHECK_FALSE(cut);
  CHECK(cut_chars("\xc3\xa9\xc3\xa9\xc3\xa9\xf0\x9f\x98\x80", 2, &cut) == "\xc3\xa9\xc3\xa9");
  CHECK(cut);
}

TEST_CASE("the text page stops the diff at the line limit and says what it held back", "[render]") {
  std::string old_text, new_text;
  for (int i = 0; i < 50; ++i) {
    old_text += "line " + std::to_string(i) + std::string(400, 'y') + "\n";
    new_text += "LINE " + std::to_string(i) + std::string(400, 'x') + "\n";
  }
  ChangeView view;
  view.commit_id = std::string(40, 'a');
  view.title = "s: changed (1 bytes, HTTP 200)";
  view.diff_label = "raw";
  view.diff = diff_lines(old_text, new_text);
  REQUIRE(view.diff.added == 50);
  RenderOptions options;
  options.max_lines = 20;
  options.max_line_chars = 30;
  const std::string page = render_text(view, options);
  CHECK(page.find("Lines added                  +50") != std::string::npos);
  CHECK(page.find("Diff display stops at 20 lines (101 in all). The line counts above are from "
                  "the whole diff. 19 lines shown were cut at 30 characters.") !=
        std::string::npos);
  CHECK(page.find(std::string(31, 'y')) == std::string::npos);
  CHECK(page.find("\n-line 0" + std::string(24, 'y') + "…\n") != std::string::npos);
  CHECK(page.find("LINE") == std::string::npos);  // the added lines come after the limit
}

TEST_CASE("colour appears only when asked for", "[render]") {
  ChangeView view;
  view.commit_id = std::string(40, 'b');
  view.diff_label = "raw";
  view.diff = diff_lines("a\n", "b\n");
  RenderOptions options;
  CHECK(render_text(view, options).find('\x1b') == std::string::npos);
  options.color = true;
  CHECK(render_text(view, options).find("\x1b[32m+b\x1b[0m") != std::string::npos);
}
