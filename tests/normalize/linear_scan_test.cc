// Scanners over feed text do work in proportion to the text: no search that runs to the end
// of the text once per match. A run of 4,000,000 '&' took minutes when each '&' looked for
// its ';' through the rest of the text; these tests give such work a minute (normalize/
// deadline.h) and check what it made.
#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/normalize.h"
#include "normalize/deadline.h"

using namespace feeddiff;
using feeddiff::test::run_bounded;

TEST_CASE("a run of 4,000,000 '&' with no ';' reads as itself, in linear time", "[normalize]") {
  // Quadratic, this is 8 * 10^12 bytes searched: minutes. Linear, milliseconds.
  const std::string amps(4'000'000, '&');
  CHECK(run_bounded([&] { return readable_text(amps) == amps; }) == "finished");
  // A reference after the run is still one: the last '&' and "amp;" read as one '&'.
  CHECK(run_bounded([&] { return readable_text(amps + "amp;") == amps; }) == "finished");
}

TEST_CASE("entities after a run of '&' still decode, as far as 32 bytes from their '&'",
          "[normalize]") {
  CHECK(readable_text(std::string(100, '&') + "eacute;") == std::string(99, '&') + "\xc3\xa9");
  CHECK(readable_text("&&amp;&lt;&hellip;&#233;&") == "&&<\xe2\x80\xa6\xc3\xa9&");
  // An unknown name stays as written, however close its ';'.
  CHECK(readable_text("&nosuchname;") == "&nosuchname;");
  CHECK(readable_text("&" + std::string(40, 'a') + ";") == "&" + std::string(40, 'a') + ";");
}

TEST_CASE("a DOCTYPE's entities are looked up by name, the first declaration of a name binding",
          "[normalize]") {
  // 1,000 names (the most that are kept), one declared twice, then references to each, to a
  // name past the limit and to an undeclared one.
  std::string doctype = "<!DOCTYPE rss [";
  for (int i = 0; i < 1000; ++i)
    doctype += "<!ENTITY e" + std::to_string(i) + " \"v" + std::to_string(i) + "\">";
  doctype += "<!ENTITY e7 \"second\"><!ENTITY e1000 \"past the limit\">]>";
  std::string refs;
  for (int i = 0; i < 1000; ++i) refs += "&e" + std::to_string(i) + ";";
  const std::string feed = doctype +
                           "<rss version=\"2.0\"><channel><title>t</title><item><guid>g</guid>"
                           "<title>" +
                           refs + "|&e1000;|&e7;|&nope;</title></item></channel></rss>";
  auto doc = normalize(feed);
  REQUIRE(doc);
  REQUIRE(doc->feed.items.size() == 1);
  std::string expected;
  for (int i = 0; i < 1000; ++i) expected += "v" + std::to_string(i);
  CHECK(doc->feed.items[0].title == expected + "|&e1000;|v7|&nope;");
}
