// `add` and `remove` edit the user's feeddiff.toml in place: a committed comment survives
// both, and an uncommitted hand edit makes them refuse and change nothing.

#include <catch2/catch.hpp>

#include "cli/cli_helpers.h"

namespace feeddiff::test {
namespace {

void commit_toml(const CliArchive& archive, const std::string& text) {
  spit(archive.dir() + "/feeddiff.toml", text);
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "by hand",
                    "feeddiff.toml"})
              .exit_code == 0);
}

TEST_CASE("a committed comment survives add and remove", "[cli]") {
  CliArchive archive("edit-keep");
  REQUIRE(archive({"add", "good", "https://good.example/feed"}).exit_code == 0);
  // The comment above the table, as a user writes it: moved there by hand.
  std::string text = slurp(archive.dir() + "/feeddiff.toml");
  const auto at = text.find("[sources.good]");
  REQUIRE(at != std::string::npos);
  text.insert(at, "# the one feed that works, do not remove\n");
  commit_toml(archive, text);

  auto added = archive({"add", "another", "https://another.example/rss", "--every", "30m"});
  INFO(added.out << added.err);
  REQUIRE(added.exit_code == 0);
  const std::string after_add = slurp(archive.dir() + "/feeddiff.toml");
  CHECK(after_add.starts_with(text));
  CHECK(archive.git({"show", "HEAD:feeddiff.toml"}).out == after_add);
  // The commit adds lines only.
  const std::string diff =
      archive.git({"show", "--format=", "-U0", "HEAD", "--", "feeddiff.toml"}).out;
  for (std::size_t i = diff.find("\n-"); i != std::string::npos; i = diff.find("\n-", i + 1))
    CHECK(diff.compare(i, 4, "\n---") == 0);  // only the "--- a/feeddiff.toml" header
  CHECK_THAT(diff, Catch::Contains("+[sources.another]"));
  auto listed = archive({"status", "another"});
  CHECK(listed.exit_code == 0);

  auto removed = archive({"remove", "another"});
  INFO(removed.out << removed.err);
  REQUIRE(removed.exit_code == 0);
  CHECK(slurp(archive.dir() + "/feeddiff.toml") == text);
}

TEST_CASE("add and remove refuse while feeddiff.toml has uncommitted edits and change nothing",
          "[cli]") {
  CliArchive archive("edit-dirty");
  REQUIRE(archive({"add", "good", "https://good.example/feed"}).exit_code == 0);
  const std::string head = archive.head();
  const std::string edited = slurp(archive.dir() + "/feeddiff.toml") +
                             "\n[sources.handadded]\nurl = \"https://hand.example/\"\n";
  spit(archive.dir() + "/feeddiff.toml", edited);

  auto add = archive({"add", "another", "https://another.example/rss"});
  CHECK(add.exit_code == 2);
  CHECK(add.err ==
        "feeddiff: error: feeddiff.toml has edits not committed; commit or undo them, then run "
        "add again (nothing was changed)\n");
  auto remove = archive({"remove", "good"});
  CHECK(remove.exit_code == 2);
  CHECK_THAT(remove.err, Catch::Contains("then run remove again (nothing was changed)"));

  CHECK(archive.head() == head);
  CHECK(slurp(archive.dir() + "/feeddiff.toml") == edited);
}

}  // namespace
}  // namespace feeddiff::test
