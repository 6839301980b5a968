// The word diff compares at most kMaxWordDiffBytes of what differs on each side (its search
// holds ~70 bytes a byte: 16 MB a side took 2 GB) and says how much it left.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "feeddiff/diff.h"

using namespace feeddiff;

namespace {

// `n` words "<stem>0000001 " and so on: ASCII, so characters are bytes.
std::string words(const std::string& stem, std::size_t n) {
  std::string out;
  out.reserve(n * (stem.size() + 8));
  for (std::size_t i = 0; i < n; ++i) out += stem + std::to_string(1'000'000 + i) + " ";
  return out;
}

struct Sides {
  std::string old_side, new_side;  // kept and removed runs; kept and added runs
};

Sides sides(const std::vector<WordRun>& runs) {
  Sides s;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i > 0) CHECK(runs[i].kind != runs[i - 1].kind);
    if (runs[i].kind != WordRun::Kind::added) s.old_side += runs[i].text;
    if (runs[i].kind != WordRun::Kind::removed) s.new_side += runs[i].text;
  }
  return s;
}

}  // namespace

TEST_CASE(
    "a word diff of texts that differ by megabytes compares the first MiB of each side "
    "and counts the rest as not compared",
    "[diff]") {
  const std::string intro = "The same first words. ";
  const std::string end = "The same last words.";
  const std::string old_text = intro + words("old", 300'000) + end;  // 3.3 MB
  const std::string new_text = intro + words("new", 250'000) + end;  // 2.8 MB
  std::size_t not_compared = 0;
  const std::vector<WordRun> runs = diff_words(old_text, new_text, &not_compared);
  const Sides s = sides(runs);
  // The runs are the beginning of each text, changed text at most kMaxWordDiffBytes of it.
  CHECK(old_text.starts_with(s.old_side));
  CHECK(new_text.starts_with(s.new_side));
  CHECK(s.old_side.size() <= intro.size() + kMaxWordDiffBytes);
  CHECK(s.new_side.size() <= intro.size() + kMaxWordDiffBytes);
  CHECK(s.old_side.size() > kMaxWordDiffBytes - 16);  // cut between words, close to the bound
  CHECK(s.new_side.size() > kMaxWordDiffBytes - 16);
  REQUIRE(runs.size() >= 2);
  CHECK(runs[0].kind == WordRun::Kind::kept);
  CHECK(runs[0].text == intro);
  // What the runs leave of both texts, the end they share included, is what was not compared.
  CHECK(not_compared ==
        (old_text.size() - s.old_side.size()) + (new_text.size() - s.new_side.size()));
  CHECK(not_compared > 3'900'000);  // 3.3 MB + 2.75 MB, less the MiB compared on each side
  // The excerpt of such runs stays within its own bounds.
  const WordExcerpt ex = excerpt_words(runs);
  CHECK(ex.runs.size() <= 40);
  CHECK(ex.held_back_changes + ex.held_back_chars > 0);
}

TEST_CASE("long texts with a short change between are word-diffed whole, with nothing left",
          "[diff]") {
  const std::string before = words("same", 200'000);  // 2.2 MB each side of the change
  const std::string after = " and" + words(" tail", 200'000);
  std::size_t not_compared = 1;
  const std::vector<WordRun> runs =
      diff_words(before + "old" + after, before + "new" + after, &not_compared);
  CHECK(not_compared == 0);
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].kind == WordRun::Kind::kept);
  CHECK(runs[0].text == before);
  CHECK(runs[1].kind == WordRun::Kind::removed);
  CHECK(runs[1].text == "old");
  CHECK(runs[2].kind == WordRun::Kind::added);
  CHECK(runs[2].text == "new");
  CHECK(runs[3].kind == WordRun::Kind::kept);
  CHECK(runs[3].text == after);
  // A word changed inside: the split is between words, as the whole diff's.
  const std::vector<WordRun> inside =
      diff_words(before + "prefixOLD" + after, before + "prefixNEW" + after, &not_compared);
  CHECK(not_compared == 0);
  REQUIRE(inside.size() == 4);
  CHECK(inside[1].text == "prefixOLD");
  CHECK(inside[2].text == "prefixNEW");
}

TEST_CASE("short texts are word-diffed as before, and report nothing left", "[diff]") {
  std::size_t not_compared = 7;
  const std::vector<WordRun> runs = diff_words("a b c", "a x c", &not_compared);
  CHECK(not_compared == 0);
  const Sides s = sides(runs);
  CHECK(s.old_side == "a b c");
  CHECK(s.new_side == "a x c");
}
