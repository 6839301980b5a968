// The primitives written once for every module: hex, FNV-1a, markup and terminal escaping.
// Expected values are written out by hand (FNV-1a's from the published test vectors), never
// computed by the code under test: cache file names on disk depend on them.

#include <array>
#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/core.h"

using namespace feeddiff;

TEST_CASE("hex encoding writes two lower-case digits per byte", "[core]") {
  CHECK(hex_encode("") == "");
  CHECK(hex_encode(std::string("\x00\x1f\xab\xff", 4)) == "001fabff");
  CHECK(hex_encode("Az") == "417a");
  const std::array<unsigned char, 3> bytes{0xde, 0xad, 0x01};
  CHECK(hex_encode(bytes.data(), bytes.size()) == "dead01");
  CHECK(hex_u64(0) == "0000000000000000");
  CHECK(hex_u64(0xaf63dc4c8601ec8cull) == "af63dc4c8601ec8c");
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
}

TEST_CASE("FNV-1a gives the published 64-bit values and can be continued", "[core]") {
  CHECK(fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ull);
  CHECK(fnv1a64("bar", fnv1a64("foo")) == fnv1a64("foobar"));
}

TEST_CASE("markup escaping turns the five special characters into entities", "[core]") {
  std::string out;
  append_markup_escaped(out, "a&b<c>d\"e'f");
  CHECK(out == "a&amp;b&lt;c&gt;d&quot;e'f");
  out.clear();
  append_markup_escaped(out, "it's <\xc3\xa9>", /*apostrophe=*/true);
  CHECK(out == "it&#39;s &lt;\xc3\xa9&gt;");
}

TEST_CASE("terminal escaping makes every control and bidi character visible", "[core]") {
  CHECK(escape_terminal("plain tab\there") == "plain tab\there");
  CHECK(escape_terminal("\x1b[31mred\x07\r") == "\\x1b[31mred\\x07\\x0d");
  CHECK(escape_terminal("a\xc2\x85z") == "a\\u0085z");  // C1 NEL
  CHECK(escape_terminal("\xe2\x80\xae"
                        "evil") == "\\u202eevil");  // RIGHT-TO-LEFT OVERRIDE
  CHECK(escape_terminal("\xe2\x81\xa6x\xe2\x81\xa9") == "\\u2066x\\u2069");
  CHECK(escape_terminal("caf\xc3\xa9 \xe4\xb8\xad") == "caf\xc3\xa9 \xe4\xb8\xad");
  CHECK(escape_terminal("bad\xff\xc3") == "bad\\xff\\xc3");  // invalid UTF-8
  CHECK(escape_terminal("\xc0\xaf") == "\\xc0\\xaf");        // overlong '/'
  CHECK(escape_terminal(std::string("nul\0x", 5)) == "nul\\x00x");
}
