// The one UTF-8 decoder, the one character reference parser and the one SHA-1 every module
// uses. Expected values are written out by hand (code points from the Unicode tables, digests
// from FIPS 180 and `printf ... | sha1sum`), never computed by the code under test.

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/core.h"

using namespace feeddiff;

namespace {

// The size decode_utf8 gives the bytes at the start of s (0: not UTF-8).
std::size_t size_of(std::string_view s) {
  return decode_utf8(s, 0).size;
}

}  // namespace

TEST_CASE("the UTF-8 decoder reads each sequence length and its code point", "[core]") {
  CHECK(decode_utf8("A", 0).cp == U'A');
  CHECK(decode_utf8("A", 0).size == 1);
  CHECK(decode_utf8(std::string_view("\0", 1), 0).size == 1);
  CHECK(decode_utf8("\xc3\xa9", 0).cp == 0xE9);
  CHECK(decode_utf8("\xc3\xa9", 0).size == 2);
  CHECK(decode_utf8("\xe2\x82\xac", 0).cp == 0x20AC);
  CHECK(decode_utf8("\xe2\x82\xac", 0).size == 3);
  CHECK(decode_utf8("\xf0\x9f\x98\x80", 0).cp == 0x1F600);
  CHECK(decode_utf8("\xf0\x9f\x98\x80", 0).size == 4);
  // The limits of each length.
  CHECK(decode_utf8("\xc2\x80", 0).cp == 0x80);
  CHECK(decode_utf8("\xdf\xbf", 0).cp == 0x7FF);
  CHECK(decode_utf8("\xe0\xa0\x80", 0).cp == 0x800);
  CHECK(decode_utf8("\xef\xbf\xbf", 0).cp == 0xFFFF);
  CHECK(decode_utf8("\xf0\x90\x80\x80", 0).cp == 0x10000);
  CHECK(decode_utf8("\xf4\x8f\xbf\xbf", 0).cp == 0x10FFFF);
  CHECK(decode_utf8("\xed\x9f\xbf", 0).cp == 0xD7FF);
  CHECK(decode_utf8("\xee\x80\x80", 0).cp == 0xE000);
  // At an offset.
  CHECK(decode_utf8("ab\xc3\xa9", 2).cp == 0xE9);
  CHECK(decode_utf8("ab\xc3\xa9", 2).size == 2);
}

TEST_CASE("the UTF-8 decoder rejects overlong forms", "[core]") {
  CHECK(size_of("\xc0\xaf") == 0);              // '/' in two bytes
  CHECK(size_of("\xc1\xbf") == 0);              // U+007F in two bytes
  CHECK(size_of("\xe0\x80\xaf") == 0);          // '/' in three bytes
  CHECK(size_of("\xe0\x9f\xbf") == 0);          // U+07FF in three bytes
  CHECK(size_of("\xf0\x80\x80\xaf") == 0);      // '/' in four bytes
  CHECK(size_of("\xf0\x8f\xbf\xbf") == 0);      // U+FFFF in four bytes
  CHECK(size_of("\xf8\x88\x80\x80\x80") == 0);  // five-byte forms are not UTF-8 at all
}

TEST_CASE("the UTF-8 decoder rejects surrogates", "[core]") {
  CHECK(size_of("\xed\xa0\x80") == 0);  // U+D800
  CHECK(size_of("\xed\xad\xbf") == 0);  // U+DB7F
  CHECK(size_of("\xed\xb0\x80") == 0);  // U+DC00
  CHECK(size_of("\xed\xbf\xbf") == 0);  // U+DFFF
  // A surrogate pair written as two three-byte sequences (CESU-8) is no UTF-8 either.
  CHECK(size_of("\xed\xa0\xbd\xed\xb8\x80") == 0);
}

TEST_CASE("the UTF-8 decoder rejects code points past U+10FFFF", "[core]") {
  CHECK(size_of("\xf4\x90\x80\x80") == 0);  // U+110000
  CHECK(size_of("\xf5\x80\x80\x80") == 0);
  CHECK(size_of("\xf7\xbf\xbf\xbf") == 0);  // U+1FFFFF
  CHECK(size_of("\xfe") == 0);
  CHECK(size_of("\xff") == 0);
}

TEST_CASE("the UTF-8 decoder rejects truncated sequences and stray continuation bytes", "[core]") {
  CHECK(size_of("\xc3") == 0);          // cut by the end
  CHECK(size_of("\xe2\x82") == 0);      // cut by the end
  CHECK(size_of("\xf0\x9f\x98") == 0);  // cut by the end
  CHECK(size_of("\xc3"
                "A") == 0);  // cut by an ASCII byte
  CHECK(size_of("\xe2\x82"
                "A") == 0);                     // cut by an ASCII byte
  CHECK(size_of("\xf0\x9f\x98\xc3\xa9") == 0);  // cut by the next lead byte
  CHECK(size_of("\x80") == 0);
  CHECK(size_of("\xbf") == 0);
  // The end of the view counts, not a NUL or what lies beyond it.
  CHECK(decode_utf8(std::string_view("\xc3\xa9", 1), 0).size == 0);
}

TEST_CASE("code points are encoded as UTF-8 and invalid ones as U+FFFD", "[core]") {
  std::string out;
  for (char32_t cp : {U'A', char32_t{0xE9}, char32_t{0x20AC}, char32_t{0x1F600}})
    append_utf8(out, cp);
  CHECK(out == "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  out.clear();
  append_utf8(out, 0xD800);
  append_utf8(out, 0x110000);
  CHECK(out == "\xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("decimal character references give their number and length", "[core]") {
  auto r = parse_char_ref("&#233;");
  REQUIRE(r);
  CHECK(r->value == 233);
  CHECK(r->size == 6);
  r = parse_char_ref("&#65;rest");
  REQUIRE(r);
  CHECK(r->value == 65);
  CHECK(r->size == 5);
  r = parse_char_ref("&#0000000000000000065;");  // leading zeros, however many
  REQUIRE(r);
  CHECK(r->value == 65);
  CHECK(r->size == 22);
  CHECK_FALSE(parse_char_ref("&#12a;"));  // a hex digit in a decimal reference
  CHECK_FALSE(parse_char_ref("&#;"));
  CHECK_FALSE(parse_char_ref("&#x;"));
  CHECK_FALSE(parse_char_ref("&# 65;"));
  CHECK_FALSE(parse_char_ref("&amp;"));
  CHECK_FALSE(parse_char_ref("#65;"));
}

TEST_CASE("hexadecimal character references read either case of x and of the digits", "[core]") {
  auto r = parse_char_ref("&#xE9;");
  REQUIRE(r);
  CHECK(r->value == 0xE9);
  CHECK(r->size == 6);
  r = parse_char_ref("&#Xe9;");
  REQUIRE(r);
  CHECK(r->value == 0xE9);
  r = parse_char_ref("&#x1F600;");
  REQUIRE(r);
  CHECK(r->value == 0x1F600);
  CHECK(r->size == 9);
  CHECK_FALSE(parse_char_ref("&#xG1;"));
  CHECK_FALSE(parse_char_ref("&#x12g;"));
}

TEST_CASE("character references past U+10FFFF read as too large however long", "[core]") {
  auto r = parse_char_ref("&#x10FFFF;");
  REQUIRE(r);
  CHECK(r->value == 0x10FFFF);
  r = parse_char_ref("&#x110000;");
  REQUIRE(r);
  CHECK(r->value == kCharRefTooLarge);
  r = parse_char_ref("&#1114112;");  // 0x110000
  REQUIRE(r);
  CHECK(r->value == kCharRefTooLarge);
  // Numbers that overflow 32 and 64 bits do not wrap around to a valid character.
  r = parse_char_ref("&#x100000041;");
  REQUIRE(r);
  CHECK(r->value == kCharRefTooLarge);
  r = parse_char_ref("&#18446744073709551681;");  // 2^64 + 65
  REQUIRE(r);
  CHECK(r->value == kCharRefTooLarge);
  CHECK(r->size == 23);
}

TEST_CASE("character references to surrogates and to zero are returned as written", "[core]") {
  auto r = parse_char_ref("&#xD800;");
  REQUIRE(r);
  CHECK(r->value == 0xD800);
  r = parse_char_ref("&#57343;");  // U+DFFF
  REQUIRE(r);
  CHECK(r->value == 0xDFFF);
  r = parse_char_ref("&#0;");
  REQUIRE(r);
  CHECK(r->value == 0);
  CHECK(r->size == 4);
}

TEST_CASE("a character reference without its semicolon is no reference", "[core]") {
  CHECK_FALSE(parse_char_ref("&#65"));
  CHECK_FALSE(parse_char_ref("&#65 "));
  CHECK_FALSE(parse_char_ref("&#x41"));
  CHECK_FALSE(parse_char_ref("&#x41<"));
  CHECK_FALSE(parse_char_ref("&#"));
  CHECK_FALSE(parse_char_ref(""));
}

TEST_CASE("SHA-1 gives the standard digests, in one piece or many", "[core]") {
  // FIPS 180 examples and `printf 'abc\n' | sha1sum`.
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("abc\n") == "03cfd743661f07975fa2f1220c5194cbaff48451");
  CHECK(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  const std::string million(1000000, 'a');
  CHECK(sha1_hex(million) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  // The same digest fed in uneven pieces, across the 64-byte block boundaries.
  Sha1 pieces;
  for (std::size_t at = 0, step = 1; at < million.size(); at += step, step = step * 3 % 997 + 1)
    pieces.update(std::string_view(million).substr(at, step));
  const auto digest = pieces.finish();
  CHECK(digest == sha1(million));
  CHECK(digest[0] == 0x34);
  CHECK(digest[19] == 0x6f);
}

TEST_CASE("base32 gives RFC 4648's test vectors, padded", "[core]") {
  CHECK(base32_encode("") == "");
  CHECK(base32_encode("f") == "MY======");
  CHECK(base32_encode("fo") == "MZXQ====");
  CHECK(base32_encode("foo") == "MZXW6===");
  CHECK(base32_encode("foob") == "MZXW6YQ=");
  CHECK(base32_encode("fooba") == "MZXW6YTB");
  CHECK(base32_encode("foobar") == "MZXW6YTBOI======");
  // A SHA-1 as WARC writes it: 32 characters, no padding.
  const auto digest = sha1("abc");
  CHECK(base32_encode(std::string_view(reinterpret_cast<const char*>(digest.data()), 20)) ==
        "VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
}

TEST_CASE("SHA-256 gives the standard digests", "[core]") {
  // FIPS 180 examples.
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("a tab-separated cache line round-trips any field and rejects a bad escape", "[core]") {
  const std::vector<std::string> fields = {"plain",
                                           "",
                                           "tab\there",
                                           "new\nline",
                                           "back\\slash",
                                           "\\t literally",
                                           std::string("nul\0byte", 8)};
  std::string line = "v";
  for (const auto& f : fields) append_tab_field(line, f);
  CHECK(line.find('\n') == std::string::npos);
  std::vector<std::string> back;
  REQUIRE(split_tab_fields(line, back));
  REQUIRE(back.size() == fields.size() + 1);
  CHECK(back[0] == "v");
  for (std::size_t i = 0; i < fields.size(); ++i) CHECK(back[i + 1] == fields[i]);

  CHECK_FALSE(split_tab_fields("a\\q", back));
  CHECK_FALSE(split_tab_fields("ends in a backslash\\", back));
}

TEST_CASE("a source's directory in each layout, and back to its name", "[core][layout]") {
  // hashlib.sha1(b"alpha").hexdigest()[:2] == "be", as bench/scale/generate files it.
  CHECK(fanout_bucket("alpha") == "be");
  CHECK(source_dir("alpha", Layout::flat) == "raw/alpha/");
  CHECK(source_dir("alpha", Layout::fanout) == "raw/be/alpha/");
  CHECK(source_of_raw_path("raw/alpha/response.xml") == "alpha");
  CHECK(source_of_raw_path("raw/be/alpha/response.xml") == "alpha");
  // A flat source named like a bucket: its files sit one level up.
  CHECK(source_of_raw_path("raw/ab/response.xml") == "ab");
  CHECK_FALSE(source_of_raw_path("raw/alpha"));
  CHECK_FALSE(source_of_raw_path("raw/abc/alpha/response.xml"));
  CHECK_FALSE(source_of_raw_path("feeddiff.toml"));
  CHECK(parse_layout("fanout") == Layout::fanout);
  CHECK_FALSE(parse_layout("Fanout"));
}

TEST_CASE("typo_distance counts a swap of neighbours as one edit", "[core]") {
  CHECK(typo_distance("sync", "sync") == 0);
  CHECK(typo_distance("sycn", "sync") == 1);
  CHECK(typo_distance("synk", "sync") == 1);
  CHECK(typo_distance("syn", "sync") == 1);
  CHECK(typo_distance("", "log") == 3);
  CHECK(typo_distance("show", "log") == 3);  // drop s, h->l, w->g
}

TEST_CASE("nearest_words offers every candidate at the smallest distance within a third",
          "[core]") {
  const std::vector<std::string_view> commands = {"show", "status", "sync", "search", "site"};
  CHECK(nearest_words("sycn", commands, false) == std::vector<std::string_view>{"sync"});
  // "stat" is two edits from "site" (over the limit of one) but begins "status".
  CHECK(nearest_words("stat", commands, true) == std::vector<std::string_view>{"status"});
  CHECK(nearest_words("stat", commands, false).empty());
  CHECK(nearest_words("sit", commands, false) == std::vector<std::string_view>{"site"});
  CHECK(nearest_words("shwo", commands, false) == std::vector<std::string_view>{"show"});
  CHECK(nearest_words("zzzz", commands, true).empty());
}

TEST_CASE("parse_size reads binary and decimal units and refuses the rest", "[core]") {
  CHECK(*parse_size("1000") == 1000);
  CHECK(*parse_size("512KiB") == 512u << 10);
  CHECK(*parse_size("50MiB") == 50u << 20);
  CHECK(*parse_size("2G") == std::size_t{2} << 30);
  CHECK(*parse_size("1MB") == 1000000);
  for (const char* bad : {"", "MiB", "5 MiB", "5TB", "-1"}) {
    auto r = parse_size(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::usage);
  }
}

TEST_CASE("plural counts with thousands separators and picks the noun", "[core]") {
  CHECK(plural(1, "commit", "commits") == "1 commit");
  CHECK(plural(0, "commit", "commits") == "0 commits");
  CHECK(plural(1234, "item", "items") == "1,234 items");
}
