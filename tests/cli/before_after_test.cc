// Changed items shown field by field, before and after, on recorded changes of the corpus
// histories: a title edit (anthropic-news) and an edit inside a long HTML article (the
// windsurf changelog), in every format, against checked-in pages.

#include <catch2/catch.hpp>

#include "cli/render_helpers.h"

using namespace feeddiff;
using namespace feeddiff::test;
using nlohmann::json;

namespace {

// An archive whose HEAD~1 records `old_file` of a corpus history and whose HEAD records
// `new_file`, at fixed times, so the commit ids are fixed.
std::string corpus_change_archive(const std::string& source, const std::string& history,
                                  const std::string& old_file, const std::string& new_file) {
  const std::string dir = make_temp_dir("before-after") + "/archive";
  auto archive = Archive::init(dir, *parse_iso8601("2025-06-01T00:00:00Z"));
  REQUIRE(archive);
  auto commit = [&](const std::string& file, const char* at) {
    const std::string body = slurp(corpus_path(history + "/" + file));
    CommitRequest request;
    request.message = source + ": changed (" + std::to_string(body.size()) +
                      " bytes, HTTP 200)\n\nSource: " + source + "\nObserved-At: " + at +
                      "\nStatus: 200\n";
    request.author_time = request.commit_time = *parse_iso8601(at);
    request.files.push_back({"raw/" + source + "/response.xml", body});
    REQUIRE(archive->commit(request));
  };
  commit(old_file, "2025-06-01T01:00:00.000Z");
  commit(new_file, "2025-06-01T02:00:00.000Z");
  return dir;
}

void check_every_format(const std::string& dir, const std::string& name) {
  const SchemaValidator validator = schema_validator("show.schema.json");
  for (const char* format : {"text", "markdown", "json", "html"}) {
    INFO(name << " " << format);
    auto shown = run_feeddiff({"-C", dir, "--color", "never", "show", "--format", format,
                               "--max-lines", "12", "--max-line-chars", "80"});
    INFO(shown.err);
    REQUIRE(shown.exit_code == 0);
    const std::string ext = std::string(format) == "markdown" ? "md"
                            : std::string(format) == "text"   ? "txt"
                                                              : format;
    check_render_golden(shown.out, "show/before-after/" + name + "." + ext);
    if (std::string(format) == "json") {
      const auto errors = validator.validate(json::parse(shown.out));
      CHECK(errors.empty());
      if (!errors.empty()) INFO(errors.front());
    }
  }
}

}  // namespace

TEST_CASE("a title edit is shown before and after in every format", "[cli]") {
  const std::string dir = corpus_change_archive("anthropic-news", "history-olshansk-anthropic-news",
                                                "0007.xml", "0008.xml");
  check_every_format(dir, "anthropic-news-title");
  auto doc = json::parse(run_feeddiff({"-C", dir, "show", "--format", "json"}).out);
  const json& change = doc["items"]["changes"][0];
  REQUIRE(change["field_changes"].size() == change["fields"].size());
  CHECK(change["field_changes"][0]["field"] == "title");
  CHECK(change["field_changes"][0]["old"] ==
        "Microsoft, NVIDIA and Anthropic announce strategic partnerships");
  CHECK(change["field_changes"][0]["new"] ==
        "Microsoft, NVIDIA, and Anthropic announce strategic partnerships");
}

TEST_CASE("an edit inside a long HTML article is shown as a word diff in every format", "[cli]") {
  const std::string dir = corpus_change_archive(
      "windsurf-changelog", "history-olshansk-windsurf-changelog", "0074.xml", "0075.xml");
  check_every_format(dir, "windsurf-article");
  auto text = run_feeddiff({"-C", dir, "--color", "never", "show"});
  CHECK(text.out.find("[-or contact support to enable it for their team-]{+if they have already "
                      "purchased Cognition Platform+}") != std::string::npos);
  // With colour, no brackets: the removed words red, the added ones green.
  auto colour = run_feeddiff({"-C", dir, "--color", "always", "show"});
  CHECK(colour.out.find("\x1b[31mor contact support to enable it for their team\x1b[0m\x1b[32mif "
                        "they have already purchased Cognition Platform\x1b[0m") !=
        std::string::npos);
  CHECK(colour.out.find("[-or contact") == std::string::npos);
}

TEST_CASE("before and after come from the summary cache as from a fresh comparison", "[cli]") {
  const std::string dir = corpus_change_archive(
      "windsurf-changelog", "history-olshansk-windsurf-changelog", "0074.xml", "0075.xml");
  auto first = run_feeddiff({"-C", dir, "show", "--format", "json"});   // computes, caches
  auto second = run_feeddiff({"-C", dir, "show", "--format", "json"});  // reads the cache
  REQUIRE(first.exit_code == 0);
  CHECK(second.out == first.out);
  CHECK(first.out.find("Cognition Platform") != std::string::npos);
}

TEST_CASE("diff A B writes show's JSON document and HTML page, before and after included",
          "[cli]") {
  const std::string dir = corpus_change_archive(
      "windsurf-changelog", "history-olshansk-windsurf-changelog", "0074.xml", "0075.xml");
  const SchemaValidator validator = schema_validator("show.schema.json");
  auto check_valid = [&validator](const json& doc) {
    const auto errors = validator.validate(doc);
    CHECK(errors.empty());
    if (!errors.empty()) INFO(errors.front());
  };

  // Two commits: the same items as show's page of the later one, and B's commit fields.
  auto commits = run_feeddiff({"-C", dir, "diff", "HEAD~1", "HEAD", "--format", "json"});
  INFO(commits.err);
  REQUIRE(commits.exit_code == 1);  // they differ
  const json by_commit = json::parse(commits.out);
  check_valid(by_commit);
  const json shown = json::parse(run_feeddiff({"-C", dir, "show", "--format", "json"}).out);
  CHECK(by_commit["id"] == shown["id"]);
  CHECK(by_commit["items"] == shown["items"]);
  CHECK(by_commit["path_status"] == "compared");

  // Two files: no commit.
  const std::string a = corpus_path("history-olshansk-windsurf-changelog/0074.xml");
  const std::string b = corpus_path("history-olshansk-windsurf-changelog/0075.xml");
  auto files = run_feeddiff({"diff", a, b, "--format", "json"});
  INFO(files.err);
  REQUIRE(files.exit_code == 1);
  const json by_file = json::parse(files.out);
  check_valid(by_file);
  CHECK(by_file["id"].is_null());
  CHECK(by_file["timestamp"].is_null());
  CHECK(by_file["items"]["changes"] == shown["items"]["changes"]);

  auto page = run_feeddiff({"diff", a, b, "--format", "html"});
  REQUIRE(page.exit_code == 1);
  CHECK(page.out.starts_with("<!DOCTYPE html>"));
  CHECK(page.out.find("<ins>if they have already purchased Cognition Platform</ins>") !=
        std::string::npos);
  CHECK(page.out.find("<h1 class=\"mono\"></h1>") == std::string::npos);

  // The same file twice: exit 0, still a valid document.
  auto same = run_feeddiff({"diff", a, a, "--format", "json"});
  REQUIRE(same.exit_code == 0);
  check_valid(json::parse(same.out));
}
