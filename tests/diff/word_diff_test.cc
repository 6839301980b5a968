// The word diff: its runs turn the old text into the new one, on crafted texts and on every
// changed item of real feed histories; its excerpt stays within its bounds and says what it
// held back.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"
#include "support/process.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

// Applies the runs to old_text: kept and removed runs must be old_text's next characters;
// kept and added runs make the result. Fails the test when a run does not fit.
std::string apply(std::string_view old_text, const std::vector<WordRun>& runs) {
  std::string out;
  std::size_t at = 0;
  for (const WordRun& run : runs) {
    REQUIRE_FALSE(run.text.empty());
    CHECK(run.skipped == 0);
    if (run.kind == WordRun::Kind::added) {
      out += run.text;
      continue;
    }
    REQUIRE(old_text.substr(at, run.text.size()) == run.text);
    at += run.text.size();
    if (run.kind == WordRun::Kind::kept) out += run.text;
  }
  CHECK(at == old_text.size());
  return out;
}

void check_round_trip(std::string_view a, std::string_view b) {
  INFO("old: " << a << "\nnew: " << b);
  const std::vector<WordRun> runs = diff_words(a, b);
  CHECK(apply(a, runs) == b);
  for (std::size_t i = 1; i < runs.size(); ++i) CHECK(runs[i].kind != runs[i - 1].kind);
}

std::string runs_as_wdiff(const std::vector<WordRun>& runs) {
  std::string out;
  for (const WordRun& r : runs)
    out += r.kind == WordRun::Kind::kept    ? r.text
           : r.kind == WordRun::Kind::added ? "{+" + r.text + "+}"
                                            : "[-" + r.text + "-]";
  return out;
}

std::size_t chars(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace

TEST_CASE("a word diff marks the words that changed and keeps the rest", "[diff]") {
  CHECK(runs_as_wdiff(
            diff_words("the model was trained on 12 GPUs", "the model was trained on 16 GPUs")) ==
        "the model was trained on [-12-]{+16+} GPUs");
  CHECK(runs_as_wdiff(diff_words("a b c d", "a x y d")) == "a [-b c-]{+x y+} d");
  CHECK(runs_as_wdiff(diff_words("", "new text")) == "{+new text+}");
  CHECK(runs_as_wdiff(diff_words("old text", "")) == "[-old text-]");
  CHECK(diff_words("same", "same").size() == 1);
  CHECK(diff_words("", "").empty());
  // Letters outside ASCII belong to their word; CJK characters are words of their own.
  CHECK(runs_as_wdiff(diff_words("Grüße aus Köln", "Grüße aus Bonn")) ==
        "Grüße aus [-Köln-]{+Bonn+}");
  CHECK(runs_as_wdiff(diff_words("今天天气很好", "今天天气不好")) == "今天天气[-很-]{+不+}好");
}

TEST_CASE("word diff runs applied to the old text give the new text", "[diff]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"a", ""},
      {"", "a"},
      {"one two three", "one  two\tthree\n"},
      {"x, y; z.", "x; y, z!"},
      {"a a a a b a a", "a b a a a a"},
      {"caf\xc3\xa9 \xff\xfe broken", "caf\xc3\xa9 \xfe\xff broken"},  // invalid UTF-8 too
      {"\xe2\x80\xae evil \x1b[31m", "\xe2\x80\xae good \x1b[32m"},
  };
  for (const auto& [a, b] : cases) {
    check_round_trip(a, b);
    check_round_trip(b, a);
  }
}

TEST_CASE("word diffs of every changed summary and content of every corpus history round-trip",
          "[diff]") {
  std::size_t pairs = 0, texts = 0, histories = 0;
  std::vector<std::filesystem::path> dirs;
  for (const auto& e : std::filesystem::directory_iterator(corpus_path("")))
    if (e.is_directory() && e.path().filename().string().starts_with("history-"))
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    ++histories;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".xml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::optional<Feed> previous;
    for (const auto& file : files) {
      auto doc = normalize(slurp(file.string()), NormalizeOptions{{}, true, false});
      if (!doc) {
        previous.reset();
        continue;
      }
      if (previous) {
        ++pairs;
        const ItemDiff d = diff_items(*previous, doc->feed);
        for (const ItemChange& ch : d.items) {
          if (ch.kind != ItemChange::Kind::changed) continue;
          const Item& a = previous->items[ch.old_index];
          const Item& b = doc->feed.items[ch.new_index];
          INFO(file.string() << " item " << ch.id);
          REQUIRE(ch.changes.size() == ch.fields.size());
          for (const FieldChange& c : ch.changes) {
            if (!c.text) continue;
            ++texts;
            const std::string old_text =
                readable_text(c.field == "summary" ? a.summary : a.content);
            const std::string new_text =
                readable_text(c.field == "summary" ? b.summary : b.content);
            check_round_trip(old_text, new_text);
          }
          check_round_trip(a.title, b.title);
        }
      }
      previous = std::move(doc->feed);
    }
  }
  CHECK(histories >= 8);  // SOURCES.md lists eight
  CHECK(pairs > 1000);
  CHECK(texts > 30);  // the histories do edit long texts
}

TEST_CASE("a word diff excerpt keeps to its bounds and counts what it held back", "[diff]") {
  // 300 words, every fifth one edited: far more than one excerpt shows.
  std::string a, b;
  std::size_t changed_words = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string word = "word" + std::to_string(i) + " ";
    a += word;
    b += i % 5 == 2 ? (++changed_words, "WORD" + std::to_string(i) + " ") : word;
  }
  const std::vector<WordRun> runs = diff_words(a, b);
  std::size_t changes = 0, change_chars = 0;
  for (const WordRun& r : runs)
    if (r.kind != WordRun::Kind::kept) ++changes, change_chars += chars(r.text);
  CHECK(changes == 2 * changed_words);

  const WordExcerpt ex = excerpt_words(runs, 40, 600, 40);
  CHECK(ex.runs.size() <= 40);
  std::size_t shown = 0, shown_changes = 0, shown_change_chars = 0;
  for (const WordRun& r : ex.runs) {
    shown += chars(r.text);
    if (r.kind != WordRun::Kind::kept) ++shown_changes, shown_change_chars += chars(r.text);
  }
  CHECK(shown <= 600);
  CHECK(ex.held_back_changes > 0);
  CHECK(shown_changes + ex.held_back_changes == changes);
  CHECK(shown_change_chars + ex.held_back_chars == change_chars);

  // One edit in a long text: the edit with some words around it, the rest skipped.
  std::string long_old(5000, 'x'), long_new;
  long_old = "";
  for (int i = 0; i < 800; ++i) long_old += "lorem ipsum ";
  long_new = long_old;
  long_new.replace(4800, 5, "LOREM");
  const WordExcerpt one = excerpt_words(diff_words(long_old, long_new));
  REQUIRE(one.runs.size() == 4);
  CHECK(one.runs[0].kind == WordRun::Kind::kept);
  CHECK(one.runs[0].skipped > 4000);
  CHECK(one.runs[1].text == "lorem");
  CHECK(one.runs[2].text == "LOREM");
  CHECK(one.runs[3].skipped == 0);
  CHECK(one.skipped_after > 4000);
  CHECK(one.held_back_changes == 0);
  CHECK(one.held_back_chars == 0);
  CHECK(chars(one.runs[0].text) <= 41);

  // One huge added run is cut, and the rest of it counted.
  const WordExcerpt huge = excerpt_words(diff_words("start", "start " + long_old));
  CHECK(huge.held_back_chars > 0);
  std::size_t huge_shown = 0;
  for (const WordRun& r : huge.runs) huge_shown += chars(r.text);
  CHECK(huge_shown <= 600);

  // Equal texts: nothing to show.
  CHECK(excerpt_words(diff_words("same text", "same text")).runs.empty());
}
