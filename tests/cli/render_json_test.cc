// `show --format json` and `log --format json` through the binary: valid against the
// documented schemas, the same fields as the text page, stable bytes, limits reported.

#include <catch2/catch.hpp>
#include <sstream>

#include "cli/render_helpers.h"

using namespace feeddiff;
using namespace feeddiff::test;
using nlohmann::json;

namespace {

void require_valid(const SchemaValidator& validator, const json& document) {
  const auto errors = validator.validate(document);
  std::string all;
  for (const auto& e : errors) all += e + "\n";
  INFO(all);
  REQUIRE(errors.empty());
}

// The value after "label  " on a line of the text page.
std::string text_field(const std::string& page, const std::string& label) {
  std::istringstream lines(page);
  std::string line;
  while (std::getline(lines, line))
    if (line.starts_with(label + " ")) {
      auto value = line.substr(label.size());
      return value.substr(value.find_first_not_of(' '));
    }
  return "<missing " + label + ">";
}

}  // namespace

TEST_CASE("the schema validator rejects documents that break the schema", "[cli]") {
  const std::string dir = recorded_render_archive("json-validator");
  auto shown = run_feeddiff({"-C", dir, "show", "--format", "json"});
  REQUIRE(shown.exit_code == 0);
  const json good = json::parse(shown.out);
  const SchemaValidator validator = schema_validator("show.schema.json");
  require_valid(validator, good);

  json missing = good;
  missing.erase("lines_added");
  CHECK_FALSE(validator.validate(missing).empty());
  json wrong_type = good;
  wrong_type["stored_bytes"] = "53758";
  CHECK_FALSE(validator.validate(wrong_type).empty());
  json extra = good;
  extra["surprise"] = true;
  CHECK_FALSE(validator.validate(extra).empty());
  json bad_kind = good;
  bad_kind["diff"]["hunks"][0]["lines"][0]["kind"] = "changed";
  CHECK_FALSE(validator.validate(bad_kind).empty());
  json bad_id = good;
  bad_id["short_id"] = "XYZ";
  CHECK_FALSE(validator.validate(bad_id).empty());
}

TEST_CASE("show --format json is valid against docs/show.schema.json for each recorded change",
          "[cli]") {
  const std::string dir = recorded_render_archive("json-schema");
  const SchemaValidator validator = schema_validator("show.schema.json");
  for (const char* revision : {"HEAD", "HEAD~1"}) {
    for (const char* max_lines : {"400", "5"}) {
      INFO(revision << " --max-lines " << max_lines);
      auto shown = run_feeddiff({"-C", dir, "show", revision, "--format", "json", "--max-lines",
                                 max_lines, "--max-line-chars", "40"});
      INFO(shown.err);
      REQUIRE(shown.exit_code == 0);
      const json doc = json::parse(shown.out);
      require_valid(validator, doc);
      CHECK(doc["limits"]["max_lines"] == std::stoul(max_lines));
      CHECK(doc["limits"]["max_line_chars"] == 40);
      CHECK(doc["diff"]["lines_shown"].get<std::size_t>() <= std::stoul(max_lines));
    }
  }
}

TEST_CASE("show --format json carries every field of the text page", "[cli]") {
  const std::string dir = recorded_render_archive("json-fields");
  auto text = run_feeddiff({"-C", dir, "--color", "never", "show", "--max-lines", "12"});
  auto shown = run_feeddiff({"-C", dir, "show", "--format", "json", "--max-lines", "12"});
  REQUIRE(text.exit_code == 0);
  REQUIRE(shown.exit_code == 0);
  const json doc = json::parse(shown.out);
  const std::string id = doc["id"];
  CHECK(text.out.starts_with("Change " + doc["short_id"].get<std::string>() + "\n" + id + "\n"));
  CHECK(text.out.find(doc["title"].get<std::string>() + "\n") != std::string::npos);
  CHECK(text.out.find(doc["path"].get<std::string>() + " " + doc["path_status"].get<std::string>() +
                      "\n") != std::string::npos);
  CHECK(text_field(text.out, "Source") == doc["source"]);
  CHECK(text_field(text.out, "Lines added") == "+" + doc["lines_added"].dump());
  CHECK(text_field(text.out, "Lines removed") == "-" + doc["lines_removed"].dump());
  CHECK(text_field(text.out, "Stored bytes at this commit") ==
        with_thousands(doc["stored_bytes"].get<std::uint64_t>()));
  CHECK(text_field(text.out, "Timestamp") == doc["timestamp"]);
  CHECK(text_field(text.out, "Raw artifact at this commit") == doc["raw_artifact"]);
  REQUIRE(doc["headers"].size() == 14);
  // JSON keeps every row; the text page lists those the server sent.
  for (const auto& row : doc["headers"]) {
    const std::string name = row["name"];
    if (row["value"].is_null())
      CHECK(text.out.find("\n  " + name + " ") == std::string::npos);
    else
      CHECK(text_field(text.out, "  " + name) == row["value"].get<std::string>());
  }

  // The hunks shown are the text page's diff lines, within the same limit.
  std::string diff_lines;
  std::size_t shown_lines = 0;
  for (const auto& hunk : doc["diff"]["hunks"]) {
    diff_lines += hunk["header"].get<std::string>() + "\n";
    ++shown_lines;
    for (const auto& line : hunk["lines"]) {
      const std::string kind = line["kind"];
      diff_lines += (kind == "added"     ? "+"
                     : kind == "removed" ? "-"
                                         : " ") +
                    line["text"].get<std::string>() + (line["cut"] ? "…" : "") + "\n";
      ++shown_lines;
    }
  }
  CHECK(shown_lines == 12);
  CHECK(doc["diff"]["lines_shown"] == 12);
  CHECK(doc["diff"]["truncated"] == true);
  CHECK(text.out.find(diff_lines) != std::string::npos);
  REQUIRE(doc["diff"]["footer"].is_string());
  CHECK(text.out.find(doc["diff"]["footer"].get<std::string>()) != std::string::npos);
  if (!doc["items"].is_null())
    CHECK(text.out.find("Items: " + doc["items"]["summary"].get<std::string>()) !=
          std::string::npos);
}

TEST_CASE("the same commit always gives the same JSON bytes, keys in the documented order",
          "[cli]") {
  // Two archives built alike hold the same commit ids; their pages must match byte for byte.
  const std::string one = recorded_render_archive("json-stable-1");
  const std::string two = recorded_render_archive("json-stable-2");
  auto a = run_feeddiff({"-C", one, "show", "--format", "json"});
  auto b = run_feeddiff({"-C", two, "show", "--format", "json"});
  auto c = run_feeddiff({"-C", one, "show", "--format", "json"});
  REQUIRE(a.exit_code == 0);
  CHECK(a.out == b.out);
  CHECK(a.out == c.out);
  const json doc = json::parse(a.out);
  std::vector<std::string> keys;
  const auto ordered = nlohmann::ordered_json::parse(a.out);
  for (const auto& [key, value] : ordered.items()) keys.push_back(key);
  const std::vector<std::string> documented = {
      "feeddiff",      "version",      "id",          "short_id",     "title",
      "forge_url",     "path",         "path_status", "source",       "lines_added",
      "lines_removed", "stored_bytes", "timestamp",   "raw_artifact", "headers",
      "items",         "items_note",   "reverted_to", "diff",         "limits"};
  CHECK(keys == documented);
  CHECK(doc["version"] == 1);
}

TEST_CASE("log --format json is valid against docs/log.schema.json and lists every commit",
          "[cli]") {
  const std::string dir = recorded_render_archive("json-log");
  auto log = run_feeddiff({"-C", dir, "log", "--format", "json"});
  INFO(log.err);
  REQUIRE(log.exit_code == 0);
  const json doc = json::parse(log.out);
  require_valid(schema_validator("log.schema.json"), doc);
  auto ids = run({"git", "-C", dir, "log", "--format=%H"}).out;
  std::string listed;
  for (const auto& change : doc["changes"]) listed += change["id"].get<std::string>() + "\n";
  CHECK(listed == ids);
  CHECK(doc["changes"][0]["status"] == 200);
  CHECK(doc["changes"][0]["source"] == "openai-research");
  CHECK(doc["changes"][0]["observed_at"] == "2025-01-21T13:20:11.348Z");

  auto one = run_feeddiff({"-C", dir, "log", "openai-research", "-n", "1", "--format", "json"});
  REQUIRE(one.exit_code == 0);
  CHECK(json::parse(one.out)["changes"].size() == 1);
}

TEST_CASE("the JSON and HTML pages of recorded changes equal the expected files", "[cli]") {
  const std::string dir = recorded_render_archive("render-golden");
  // A known forge as origin: the pages link to the commit and the raw file there.
  REQUIRE(run({"git", "-C", dir, "remote", "add", "origin", "git@github.com:example/feeds.git"})
              .exit_code == 0);
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"show", "--format", "json", "--max-lines", "30", "--max-line-chars", "60"},
       "render/openai-research.json.expected"},
      {{"show", "HEAD~1", "--format", "json", "--max-lines", "8"},
       "render/openai-research-added.json.expected"},
      {{"show", "--format", "html", "--max-lines", "40", "--max-line-chars", "80"},
       "render/openai-research.html.expected"},
      {{"log", "--format", "json"}, "render/log.json.expected"},
  };
  for (const auto& c : cases) {
    INFO(c.expected);
    std::vector<std::string> args = {"-C", dir};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_feeddiff(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    check_render_golden(r.out, c.expected);
  }
}
