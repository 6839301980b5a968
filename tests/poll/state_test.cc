// The poll state file (.git/feeddiff/state.json): poll's own, kept beside the archive in
// .git/feeddiff and never committed.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/poll.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::make_temp_dir;
using feeddiff::test::run;

TEST_CASE("the state file round-trips and is replaced atomically", "[poll]") {
  const std::string dir = make_temp_dir("poll-state");
  auto archive = Archive::init(dir, now_ms());
  REQUIRE(archive);
  CHECK(load_state(*archive)->sources.empty());
  State s;
  s.sources["a"].etag = "W/\"abc\"";
  s.sources["a"].next_due = 123;
  s.sources["a"].disabled = true;
  REQUIRE(save_state(*archive, s));
  auto back = load_state(*archive);
  REQUIRE(back);
  CHECK(back->sources.at("a").etag == "W/\"abc\"");
  CHECK(back->sources.at("a").next_due == 123);
  CHECK(back->sources.at("a").disabled);
  // Nothing under .git/feeddiff reaches git's view of the work tree.
  CHECK(run({"git", "-C", dir, "status", "--porcelain"}).out.empty());
  test::spit(archive->private_dir() + "/state.json", "{not json");
  auto damaged = load_state(*archive);
  REQUIRE_FALSE(damaged);
  CHECK(damaged.error().code == Errc::bad_config);
}
