#include <catch2/catch.hpp>

#include "feeddiff/config.h"

using namespace feeddiff;

TEST_CASE("a config round-trips through its TOML text", "[config]") {
  Config c;
  c.sources.push_back({"zeta", "https://example.com/z.xml", 900'000, {"channel/ttl"}, true});
  c.sources.push_back({"alpha.feed", "http://example.org/a?x=\"1\"", kDefaultInterval, {}, false});
  const std::string text = format_config(c);
  auto back = parse_config(text);
  REQUIRE(back);
  REQUIRE(back->sources.size() == 2);
  CHECK(back->sources[0].name == "alpha.feed");  // sorted by name
  CHECK(back->sources[0].url == "http://example.org/a?x=\"1\"");
  CHECK(back->sources[0].every == kDefaultInterval);
  CHECK(back->sources[1].every == 900'000);
  CHECK(back->sources[1].ignore == std::vector<std::string>{"channel/ttl"});
  CHECK(back->sources[1].skip_cosmetic);
  CHECK(format_config(*back) == text);
}

TEST_CASE("a broken config names its line and the problem", "[config]") {
  auto r = parse_config("[sources.a]\nurl = \"http://x/\"\nevery = \"soon\"\n");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::bad_config);
  CHECK(r.error().message.find("line 3") != std::string::npos);

  auto unknown = parse_config("[sources.a]\nurl = \"http://x/\"\ncolour = 1\n");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("unknown key 'colour'") != std::string::npos);

  auto bad_name = parse_config("[sources.\"../x\"]\nurl = \"http://x/\"\n");
  REQUIRE_FALSE(bad_name);
  CHECK(bad_name.error().code == Errc::bad_config);

  auto syntax = parse_config("[sources.a\n");
  REQUIRE_FALSE(syntax);
  CHECK(syntax.error().message.find("line 1") != std::string::npos);

  auto too_often = parse_config("[sources.a]\nurl = \"http://x/\"\nevery = \"5s\"\n");
  REQUIRE_FALSE(too_often);
}

TEST_CASE("an every in seconds past 100 years is refused, not wrapped", "[config]") {
  CHECK(parse_config("[sources.a]\nurl = \"http://x/\"\nevery = 3153600000\n"));
  // 18446744073709612 s is 60.384 s once the ms wrap past 2^64.
  for (const char* every : {"3153600001", "18446744073709612", "9223372036854775807",
                            "-9223372036854775808", "59", "-1"}) {
    INFO(every);
    auto r = parse_config(std::string("[sources.a]\nurl = \"http://x/\"\nevery = ") + every + "\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::bad_config);
  }
}

TEST_CASE("credentials are split out of a URL and put back only for fetching", "[config]") {
  auto s = split_credentials("https://me:s3cret@example.com:8443/feed?x=1");
  CHECK(s.url == "https://example.com:8443/feed?x=1");
  CHECK(s.credentials == "me:s3cret");
  CHECK(join_credentials(s.url, s.credentials) == "https://me:s3cret@example.com:8443/feed?x=1");
  auto plain = split_credentials("https://example.com/a@b");
  CHECK(plain.url == "https://example.com/a@b");
  CHECK(plain.credentials.empty());
}

TEST_CASE("setting a source's url edits that one value and keeps every other byte", "[config]") {
  const std::string url = "https://new.example/feed?a=\"b\"";
  const std::string quoted = "\"https://new.example/feed?a=\\\"b\\\"\"";
  struct Case {
    std::string before, after;
  };
  const Case cases[] = {
      // Comments, odd spacing, another source with the same url, CRLF line ends.
      {"# mine\r\n[sources.b]\r\nurl='http://old/'\r\n\r\n[sources.a] # first\r\n  url   =   "
       "\"http://old/\"   # the feed\r\nevery = 3600\r\n",
       "# mine\r\n[sources.b]\r\nurl='http://old/'\r\n\r\n[sources.a] # first\r\n  url   =   " +
           quoted + "   # the feed\r\nevery = 3600\r\n"},
      // Dotted keys, multi-byte characters before the value on its line.
      {"sources.a.every = \"2h\" # ünïcödé\nsources.a.url = 'http://old/ü'\n",
       "sources.a.every = \"2h\" # ünïcödé\nsources.a.url = " + quoted + "\n"},
      // An inline table, a literal multi-line string.
      {"[sources]\na = { ignore = [\"ü\"], url = '''\nhttp://old/''', every = \"1h\" }\n",
       "[sources]\na = { ignore = [\"ü\"], url = " + quoted + ", every = \"1h\" }\n"},
  };
  for (const Case& c : cases) {
    INFO(c.before);
    auto edited = set_source_url(c.before, "a", url);
    REQUIRE(edited);
    CHECK(*edited == c.after);
    auto config = parse_config(*edited);
    REQUIRE(config);
    CHECK(config->find("a")->url == url);
  }
  auto missing = set_source_url("[sources.a]\nurl = \"http://x/\"\n", "b", url);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::bad_config);
  CHECK_FALSE(set_source_url("[sources.a\n", "a", url));
}

TEST_CASE("[notify] and a source's notify table round-trip, the source's keys over the global",
          "[config]") {
  const std::string text =
      "[notify]\nexec = \"mail -s \\\"feeddiff: $FEEDDIFF_SOURCE\\\" me@example.com\"\n"
      "timeout = \"45s\"\n\n"
      "[sources.quiet]\nurl = \"https://example.com/q.xml\"\n\n"
      "[sources.quiet.notify]\nexec = \"\"\nwebhook = \"https://hooks.example.com/x\"\n"
      "cosmetic = true\n\n"
      "[sources.loud]\nurl = \"https://example.com/l.xml\"\n";
  auto c = parse_config(text);
  INFO((c ? "" : c.error().message));
  REQUIRE(c);
  CHECK(c->notify.exec == "mail -s \"feeddiff: $FEEDDIFF_SOURCE\" me@example.com");
  CHECK(c->notify.timeout == 45'000);
  CHECK_FALSE(c->notify.webhook);

  const NotifySettings loud = notify_settings(*c, *c->find("loud"));
  CHECK(loud.exec == *c->notify.exec);
  CHECK(loud.webhook.empty());
  CHECK(loud.timeout == 45'000);
  CHECK_FALSE(loud.cosmetic);
  CHECK(loud.any());

  const NotifySettings quiet = notify_settings(*c, *c->find("quiet"));
  CHECK(quiet.exec.empty());  // "" turns the global command off for this source
  CHECK(quiet.webhook == "https://hooks.example.com/x");
  CHECK(quiet.timeout == 45'000);
  CHECK(quiet.cosmetic);

  const std::string formatted = format_config(*c);
  auto back = parse_config(formatted);
  REQUIRE(back);
  CHECK(back->notify == c->notify);
  CHECK(back->find("quiet")->notify == c->find("quiet")->notify);
  CHECK(back->find("loud")->notify.empty());
  CHECK(format_config(*back) == formatted);

  // Without [notify], nothing runs.
  auto none = parse_config("[sources.a]\nurl = \"http://x/\"\n");
  REQUIRE(none);
  CHECK_FALSE(notify_settings(*none, none->sources[0]).any());
  CHECK(format_config(*none).find("notify") == std::string::npos);
}

TEST_CASE("a wrong [notify] table names its line and the problem", "[config]") {
  auto check = [](const std::string& text, const std::string& says) {
    auto r = parse_config(text);
    REQUIRE_FALSE(r);
    INFO(r.error().message);
    CHECK(r.error().code == Errc::bad_config);
    CHECK(r.error().message.find(says) != std::string::npos);
  };
  check("[notify]\nexec = 1\n", "line 2: exec must be a string");
  check("[notify]\nwebhook = \"ftp://user:pw@host/x\"\n", "webhook must be an http");
  check("[notify]\ntimeout = \"0s\"\n", "timeout must be between 1s and 1h");
  check("[notify]\ntimeout = \"2h\"\n", "timeout must be between 1s and 1h");
  check("[notify]\ncosmetic = \"yes\"\n", "cosmetic must be true or false");
  check("[notify]\nmail = \"me\"\n", "'notify' has an unknown key 'mail'");
  check("notify = 3\n", "'notify' must be a table");
  check("[sources.a]\nurl = \"http://x/\"\n[sources.a.notify]\nexex = \"x\"\n",
        "'sources.a.notify' has an unknown key 'exex'");
  // A webhook's URL (it may carry a token) is never echoed.
  auto r = parse_config("[notify]\nwebhook = \"gopher://user:s3cret@host/x\"\n");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("s3cret") == std::string::npos);
}

TEST_CASE("insignificant tables round-trip, inline or not, the source's keys over the global",
          "[config]") {
  const std::string text =
      "[insignificant]\nwhitespace = true\nmin_words = 3\n\n"
      "[sources.a]\nurl = \"https://example.com/a.xml\"\n"
      "insignificant = { punctuation = true, fields = [\"updated\"], min_words = 0 }\n\n"
      "[sources.b]\nurl = \"https://example.com/b.xml\"\n\n"
      "[notify]\nexec = \"true\"\nminor = true\n";
  auto c = parse_config(text);
  INFO((c ? "" : c.error().message));
  REQUIRE(c);
  const InsignificantRules a = insignificant_rules(*c, *c->find("a"));
  CHECK(a.whitespace);
  CHECK(a.punctuation);
  CHECK(a.fields == std::vector<std::string>{"updated"});
  CHECK(a.min_words == 0);  // the source turns the global rule off
  const InsignificantRules b = insignificant_rules(*c, *c->find("b"));
  CHECK(b.whitespace);
  CHECK_FALSE(b.punctuation);
  CHECK(b.fields.empty());
  CHECK(b.min_words == 3);
  CHECK(notify_settings(*c, *c->find("b")).minor);

  const std::string formatted = format_config(*c);
  auto back = parse_config(formatted);
  REQUIRE(back);
  CHECK(back->insignificant == c->insignificant);
  CHECK(back->find("a")->insignificant == c->find("a")->insignificant);
  CHECK(back->notify == c->notify);
  CHECK(format_config(*back) == formatted);

  for (const char* bad :
       {"[insignificant]\nwords = 3\n", "[insignificant]\nmin_words = -1\n",
        "[insignificant]\nwhitespace = \"yes\"\n", "[insignificant]\nfields = \"updated\"\n",
        "[sources.a]\nurl = \"http://x/\"\ninsignificant = 3\n"}) {
    auto r = parse_config(bad);
    INFO(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("line") != std::string::npos);
  }
}

TEST_CASE("layout is flat unless feeddiff.toml says fanout, and round-trips", "[config][layout]") {
  auto none = parse_config("[sources.a]\nurl = \"http://x/\"\n");
  REQUIRE(none);
  CHECK(none->layout == Layout::flat);
  CHECK(format_config(*none).find("layout") == std::string::npos);
  auto fan = parse_config("layout = \"fanout\"\n[sources.a]\nurl = \"http://x/\"\n");
  REQUIRE(fan);
  CHECK(fan->layout == Layout::fanout);
  auto back = parse_config(format_config(*fan));
  REQUIRE(back);
  CHECK(back->layout == Layout::fanout);
  auto bad = parse_config("layout = 1\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "feeddiff.toml line 1: layout must be \"flat\" or \"fanout\"");
}

TEST_CASE("set_layout edits the key in place and keeps every other byte", "[config][layout]") {
  const std::string text = "# my feeds\n# two lines\n\n[sources.a] # first\nurl = \"http://x/\"\n";
  auto added = set_layout(text, Layout::fanout);
  REQUIRE(added);
  CHECK(*added ==
        "# my feeds\n# two lines\nlayout = \"fanout\"\n\n[sources.a] # first\nurl = "
        "\"http://x/\"\n");
  auto flat = set_layout(*added, Layout::flat);
  REQUIRE(flat);
  CHECK(*flat ==
        "# my feeds\n# two lines\nlayout = \"flat\"\n\n[sources.a] # first\nurl = "
        "\"http://x/\"\n");
  REQUIRE(parse_config(*flat));
  CHECK(parse_config(*flat)->layout == Layout::flat);
}
