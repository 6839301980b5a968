// The change page of a recorded change equals the checked-in expected page.

#include <catch2/catch.hpp>
#include <cstdlib>

#include "cli/cli_helpers.h"
#include "feeddiff/store.h"
#include "support/golden.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

// An archive holding the recorded change, with fixed times, so its commit ids are fixed.
std::string recorded_archive() {
  const std::string dir = make_temp_dir("golden") + "/archive";
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

}  // namespace

TEST_CASE("the markdown page of a recorded change equals the expected file", "[cli]") {
  const std::string dir = recorded_archive();
  auto md = run_feeddiff({"-C", dir, "show", "--format", "markdown", "--max-lines", "40"});
  INFO(md.err);
  REQUIRE(md.exit_code == 0);
  check_golden(md.out, fixture_path("show/openai-research.md"));
}

TEST_CASE("the text page of a recorded change equals the expected file", "[cli]") {
  const std::string dir = recorded_archive();
  auto text = run_feeddiff({"-C", dir, "--color", "never", "show", "HEAD", "--max-lines", "40",
                            "--max-line-chars", "60"});
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  check_golden(text.out, fixture_path("show/openai-research.txt"));
}
