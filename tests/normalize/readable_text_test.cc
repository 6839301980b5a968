// readable_text: an item's HTML as the words a reader sees, for the word diff.
#include <catch2/catch.hpp>

#include "feeddiff/normalize.h"

using namespace feeddiff;

TEST_CASE("readable text drops tags, comments, scripts and styles and decodes entities",
          "[normalize]") {
  CHECK(readable_text("<p>One <b>bold</b> word.</p><p>Two&nbsp;&amp; three</p>") ==
        "One bold word. Two\xc2\xa0& three");
  CHECK(readable_text("a<br>b<li>c</li>d") == "a b c d");
  CHECK(readable_text("before<!-- a <p> comment -->after") == "before after");
  CHECK(readable_text("x<script type=\"t\">alert('<p>')</script>y<STYLE>p{}</STYLE>z") == "x y z");
  CHECK(readable_text("<noscript>enable js</noscript>text<template><p>t</p></template>") == "text");
  CHECK(readable_text("plain   text\n with  spaces ") == "plain text with spaces");
  // A tag that only starts like a hidden one is kept as markup.
  CHECK(readable_text("<scripted>a</scripted> <styles>b</styles>") == "a b");
  // Unclosed: the rest is hidden, as a browser hides it.
  CHECK(readable_text("shown<script>never closed") == "shown");
  CHECK(readable_text("shown<!-- never closed") == "shown");
  CHECK(readable_text("").empty());
}
