#pragma once
// Shared by the render end-to-end tests: a recorded archive with fixed commit ids, golden
// files, and a validator for the subset of JSON Schema (2020-12) that docs/*.schema.json use.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "cli/cli_helpers.h"
#include "feeddiff/core.h"
#include "feeddiff/store.h"
#include "support/golden.h"

namespace feeddiff::test {

/// An archive holding the recorded openai-research change (fixtures/show/) at fixed times,
/// so its commit ids are fixed: HEAD~1 added the source's first version, HEAD changed it.
inline std::string recorded_render_archive(const std::string& hint) {
  const std::string dir = make_temp_dir(hint) + "/archive";
  auto archive = Archive::init(dir, *parse_iso8601("2025-01-12T18:00:00Z"));
  REQUIRE(archive);
  CommitRequest added;
  added.message =
      "openai-research: added (53758 bytes, HTTP 200)\n\nSource: openai-research\n"
      "Observed-At: 2025-01-12T18:03:00.000Z\nStatus: 200\n"
      "Final-URL: https://raw.githubusercontent.com/Olshansk/rss-feeds/main/feeds/"
      "feed_openai_research.xml\n";
  added.author_time = added.commit_time = *parse_iso8601("2025-01-12T18:03:00Z");
  added.files.push_back(
      {"raw/openai-research/response.xml", slurp(fixture_path("feeds/openai-research/0001.xml"))});
  REQUIRE(archive->commit(added));
  CommitRequest changed;
  changed.message = slurp(fixture_path("show/openai-research.v2.message"));
  changed.author_time = *parse_iso8601("2025-01-21T13:18:40Z");
  changed.commit_time = *parse_iso8601("2025-01-21T13:20:11.348Z");
  changed.files.push_back(
      {"raw/openai-research/response.xml", slurp(fixture_path("feeds/openai-research/0002.xml"))});
  REQUIRE(archive->commit(changed));
  return dir;
}

/// Compares with fixtures/<expected_file> (see support/golden.h for FEEDDIFF_UPDATE_GOLDEN).
inline void check_render_golden(const std::string& actual, const std::string& expected_file) {
  check_golden(actual, fixture_path(expected_file));
}

/// Validates a JSON value against a schema using: type (one or a list), const, enum,
/// properties, required, additionalProperties (boolean), items (a schema), $ref to
/// "#/$defs/...", oneOf, pattern, minLength, minimum, maximum. Any other keyword fails the
/// validation, so a schema cannot silently use more than is checked.
class SchemaValidator {
 public:
  explicit SchemaValidator(nlohmann::json root) : root_(std::move(root)) {}

  /// The violations found, each "path: what"; empty when the value is valid.
  std::vector<std::string> validate(const nlohmann::json& value) const {
    std::vector<std::string> errors;
    check(root_, value, "$", errors);
    return errors;
  }

 private:
  static bool has_type(const nlohmann::json& value, const std::string& type) {
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "integer") return value.is_number_integer();
    if (type == "number") return value.is_number();
    if (type == "boolean") return value.is_boolean();
    if (type == "null") return value.is_null();
    return false;
  }

  void check(const nlohmann::json& schema, const nlohmann::json& value, const std::string& at,
             std::vector<std::string>& errors) const {
    static const std::vector<std::string> kAnnotations = {"$schema", "$id", "title", "description",
                                                          "$defs"};
    for (const auto& [keyword, arg] : schema.items()) {
      if (std::find(kAnnotations.begin(), kAnnotations.end(), keyword) != kAnnotations.end())
        continue;
      if (keyword == "$ref") {
        const std::string ref = arg.get<std::string>();
        REQUIRE(ref.starts_with("#/$defs/"));
        check(root_.at("$defs").at(ref.substr(8)), value, at, errors);
      } else if (keyword == "type") {
        bool ok = false;
        if (arg.is_string()) ok = has_type(value, arg.get<std::string>());
        for (const auto& t : arg.is_array() ? arg : nlohmann::json::array())
          ok = ok || has_type(value, t.get<std::string>());
        if (!ok) errors.push_back(at + ": not of type " + arg.dump());
      } else if (keyword == "const") {
        if (value != arg) errors.push_back(at + ": is not " + arg.dump());
      } else if (keyword == "enum") {
        if (std::find(arg.begin(), arg.end(), value) == arg.end())
          errors.push_back(at + ": " + value.dump() + " not in " + arg.dump());
      } else if (keyword == "required") {
        if (value.is_object())
          for (const auto& name : arg)
            if (!value.contains(name.get<std::string>()))
              errors.push_back(at + ": lacks " + name.get<std::string>());
      } else if (keyword == "properties") {
        if (value.is_object())
          for (const auto& [name, sub] : arg.items())
            if (value.contains(name)) check(sub, value.at(name), at + "." + name, errors);
      } else if (keyword == "additionalProperties") {
        REQUIRE(arg.is_boolean());
        if (value.is_object() && !arg.get<bool>())
          for (const auto& [name, sub] : value.items())
            if (!schema.contains("properties") || !schema.at("properties").contains(name))
              errors.push_back(at + ": unexpected " + name);
      } else if (keyword == "items") {
        if (value.is_array())
          for (std::size_t i = 0; i < value.size(); ++i)
            check(arg, value[i], at + "[" + std::to_string(i) + "]", errors);
      } else if (keyword == "oneOf") {
        int matches = 0;
        for (const auto& sub : arg) {
          std::vector<std::string> sub_errors;
          check(sub, value, at, sub_errors);
          if (sub_errors.empty()) ++matches;
        }
        if (matches != 1)
          errors.push_back(at + ": matches " + std::to_string(matches) + " of oneOf");
      } else if (keyword == "pattern") {
        if (value.is_string() &&
            !std::regex_search(value.get<std::string>(), std::regex(arg.get<std::string>())))
          errors.push_back(at + ": does not match " + arg.get<std::string>());
      } else if (keyword == "minLength") {
        // Characters, not bytes: count the bytes that start a UTF-8 sequence.
        if (value.is_string()) {
          std::size_t chars = 0;
          for (unsigned char c : value.get<std::string>()) chars += (c & 0xC0) != 0x80;
          if (chars < arg.get<std::size_t>()) errors.push_back(at + ": too short");
        }
      } else if (keyword == "minimum") {
        if (value.is_number() && value.get<double>() < arg.get<double>())
          errors.push_back(at + ": below " + arg.dump());
      } else if (keyword == "maximum") {
        if (value.is_number() && value.get<double>() > arg.get<double>())
          errors.push_back(at + ": above " + arg.dump());
      } else {
        FAIL("the schema uses a keyword the validator does not check: " << keyword);
      }
    }
  }

  nlohmann::json root_;
};

/// A validator for docs/<name>.
inline SchemaValidator schema_validator(const std::string& name) {
  return SchemaValidator(
      nlohmann::json::parse(slurp(std::string(FEEDDIFF_SOURCE_DIR) + "/docs/" + name)));
}

}  // namespace feeddiff::test

namespace feeddiff::test {

/// Feed text that tries to run script or inject markup in a page: each payload, if it ran,
/// would set a data-pwned attribute on the document element.
inline constexpr const char* kHostileTitle =
    "<script>document.documentElement.setAttribute('data-pwned','1')</script></style>"
    "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','2')\">";

/// The start of kHostileTitle that item lists show before they cut a title (at 100
/// characters): a script element and a style end tag.
inline constexpr std::string_view kHostileTitleStart =
    "<script>document.documentElement.setAttribute('data-pwned','1')</script></style>";

/// An archive whose HEAD records a feed full of markup (script tags, javascript: links,
/// onerror= attributes, a </style> in a title) that parses as a feed, and whose response
/// headers carry markup too; HEAD~1 is the calm first version.
inline std::string hostile_html_archive(const std::string& hint) {
  const std::string dir = make_temp_dir(hint) + "/archive";
  auto archive = Archive::init(dir, *parse_iso8601("2026-01-01T00:00:00Z"));
  REQUIRE(archive);
  const std::string head =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel>\n"
      "<title>Hostile &lt;/title&gt;&lt;script&gt;alert(0)&lt;/script&gt;</title>\n"
      "<link>https://example.com/</link>\n<description>d</description>\n";
  const std::string calm =
      "<item>\n<title>Calm</title>\n<link>https://example.com/calm</link>\n<guid>calm</guid>\n"
      "<description>plain</description>\n</item>\n";
  auto escape_xml = [](std::string_view s) {
    std::string out;
    for (char c : s) {
      if (c == '<')
        out += "&lt;";
      else if (c == '>')
        out += "&gt;";
      else if (c == '&')
        out += "&amp;";
      else if (c == '"')
        out += "&quot;";
      else
        out += c;
    }
    return out;
  };
  const std::string evil =
      "<item>\n<title>" + escape_xml(kHostileTitle) +
      "</title>\n"
      "<link>javascript:document.documentElement.setAttribute('data-pwned','3')</link>\n"
      "<guid>evil</guid>\n"
      "<description><![CDATA[<a href=\"javascript:alert(4)\">click</a>"
      "<img src=x onerror=alert(5)><script>alert(6)</script></style>]]></description>\n"
      "</item>\n";
  const std::string tail = "</channel>\n</rss>\n";
  auto commit = [&](const std::string& title, const std::string& trailers, const std::string& body,
                    const char* at) {
    CommitRequest request;
    request.message =
        title + "\n\nSource: hostile\nObserved-At: " + at + "\nStatus: 200\n" + trailers;
    request.author_time = request.commit_time = *parse_iso8601(at);
    request.files.push_back({"raw/hostile/response.xml", body});
    REQUIRE(archive->commit(request));
  };
  commit("hostile: added (200 bytes, HTTP 200)", "Final-URL: https://example.com/feed\n",
         head + calm + tail, "2026-01-01T01:00:00.000Z");
  commit("hostile: changed (900 bytes, HTTP 200)",
         "Final-URL: javascript:alert(7)\n"
         "Response-Header: etag: \"\"><script>alert(8)</script>\"\n"
         "Response-Header: cache-control: </style><style>body{display:none}</style>\n",
         head + evil + calm + tail, "2026-01-01T02:00:00.000Z");
  return dir;
}

}  // namespace feeddiff::test
