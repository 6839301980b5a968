// Line diff: hunk shapes and headers against GNU diff/git semantics, counts against real
// `git diff --numstat` on recorded feed histories, every diff applied back to the old text,
// and the bounded worst case.

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/diff.h"
#include "support/process.h"

namespace feeddiff {
namespace {

// Applies the hunks to the old text, checking every context and removed line against it, and
// returns the result; a diff is right when that is the new text.
std::string patch(std::string_view old_text, const LineDiff& diff) {
  std::vector<std::string_view> lines;  // with their line ends
  for (std::size_t p = 0; p < old_text.size();) {
    const std::size_t nl = old_text.find('\n', p);
    const std::size_t end = nl == std::string_view::npos ? old_text.size() : nl + 1;
    lines.push_back(old_text.substr(p, end - p));
    p = end;
  }
  auto full = [](const DiffLine& line) {
    return std::string(line.text) + (line.no_newline ? "" : "\n");
  };
  std::string out;
  std::size_t next = 0;  // first old line not yet copied
  std::size_t last_old_end = 0;
  for (const Hunk& hunk : diff.hunks) {
    const std::size_t begin = hunk.old_count == 0 ? hunk.old_start : hunk.old_start - 1;
    REQUIRE(begin >= next);
    REQUIRE(begin >= last_old_end);
    for (; next < begin; ++next) out += lines.at(next);
    std::size_t old_seen = 0, new_seen = 0;
    for (const DiffLine& line : hunk.lines) {
      if (line.kind != LineKind::added) {
        REQUIRE(next < lines.size());
        REQUIRE(lines[next] == full(line));
        ++next;
        ++old_seen;
      }
      if (line.kind != LineKind::removed) {
        out += full(line);
        ++new_seen;
      }
    }
    REQUIRE(old_seen == hunk.old_count);
    REQUIRE(new_seen == hunk.new_count);
    last_old_end = next;
  }
  for (; next < lines.size(); ++next) out += lines[next];
  return out;
}

std::size_t count_kind(const LineDiff& diff, LineKind kind) {
  std::size_t n = 0;
  for (const Hunk& hunk : diff.hunks)
    for (const DiffLine& line : hunk.lines) n += line.kind == kind;
  return n;
}

// The headers as git prints them.
std::vector<std::string> headers(const LineDiff& diff) {
  auto range = [](std::size_t start, std::size_t count) {
    return std::to_string(start) + (count == 1 ? "" : "," + std::to_string(count));
  };
  std::vector<std::string> out;
  for (const Hunk& hunk : diff.hunks)
    out.push_back("@@ -" + range(hunk.old_start, hunk.old_count) + " +" +
                  range(hunk.new_start, hunk.new_count) + " @@");
  return out;
}

// git, knowing nothing of the user's configuration.
test::RunResult git_diff(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"git",        "diff",          "--no-index",
                                "--no-color", "--no-ext-diff", "--diff-algorithm=myers"};
  argv.insert(argv.end(), args.begin(), args.end());
  const test::Env env{{"GIT_CONFIG_NOSYSTEM", "1"}, {"GIT_CONFIG_GLOBAL", "/dev/null"}};
  test::RunResult r = test::run(argv, env);
  INFO(r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));
  return r;
}

// `git diff --numstat` of two files: lines added, lines removed.
std::pair<std::size_t, std::size_t> git_numstat(const std::string& a, const std::string& b) {
  const test::RunResult r = git_diff({"--numstat", a, b});
  if (r.out.empty()) return {0, 0};
  const std::size_t tab = r.out.find('\t');
  REQUIRE(tab != std::string::npos);
  return {std::stoul(r.out.substr(0, tab)), std::stoul(r.out.substr(tab + 1))};
}

// The @@ lines git prints for two texts.
std::vector<std::string> git_headers(const std::string& old_text, const std::string& new_text,
                                     int context) {
  const std::string dir = test::make_temp_dir("line-diff");
  test::spit(dir + "/a", old_text);
  test::spit(dir + "/b", new_text);
  const test::RunResult r = git_diff({"-U" + std::to_string(context), dir + "/a", dir + "/b"});
  std::vector<std::string> out;
  for (std::size_t p = 0; p < r.out.size();) {
    std::size_t nl = r.out.find('\n', p);
    if (nl == std::string::npos) nl = r.out.size();
    const std::string line = r.out.substr(p, nl - p);
    if (line.rfind("@@ ", 0) == 0) out.push_back(line.substr(0, line.find(" @@") + 3));
    p = nl + 1;
  }
  return out;
}

std::string numbered(int from, int to, std::string_view tag = "line") {
  std::string out;
  for (int i = from; i <= to; ++i) out += std::string(tag) + " " + std::to_string(i) + "\n";
  return out;
}

TEST_CASE("identical texts give no hunks and no counts", "[diff]") {
  const std::string text = numbered(1, 50);
  const LineDiff diff = diff_lines(text, text);
  CHECK(diff.empty());
  CHECK(diff.added == 0);
  CHECK(diff.removed == 0);
  CHECK_FALSE(diff.approximate);
  CHECK(diff_lines("", "").empty());
}

TEST_CASE("split_lines drops the line ends and keeps a last line without one", "[diff]") {
  CHECK(split_lines("").empty());
  CHECK(split_lines("a\nb\n") == std::vector<std::string_view>{"a", "b"});
  CHECK(split_lines("a\n\nb") == std::vector<std::string_view>{"a", "", "b"});
  CHECK(split_lines("\n") == std::vector<std::string_view>{""});
  CHECK(split_lines("x\r\n") == std::vector<std::string_view>{"x\r"});
}

TEST_CASE("an empty old text against a non-empty one adds every line", "[diff]") {
  const std::string text = numbered(1, 5);
  const LineDiff diff = diff_lines("", text);
  REQUIRE(diff.hunks.size() == 1);
  CHECK(headers(diff) == std::vector<std::string>{"@@ -0,0 +1,5 @@"});
  CHECK(headers(diff) == git_headers("", text, 3));
  CHECK(diff.added == 5);
  CHECK(diff.removed == 0);
  CHECK(patch("", diff) == text);

  const LineDiff back = diff_lines(text, "");
  CHECK(headers(back) == std::vector<std::string>{"@@ -1,5 +0,0 @@"});
  CHECK(back.removed == 5);
  CHECK(back.added == 0);
  CHECK(patch(text, back).empty());
}

TEST_CASE("a last line that lost its newline counts as changed, as git counts it", "[diff]") {
  const std::string dir = test::make_temp_dir("line-diff-eol");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"a\nb\nc\n", "a\nb\nc"},      // the new text lost it
      {"a\nb\nc", "a\nb\nc\n"},      // the new text gained it
      {"a\nb\nc", "a\nb\nd"},        // neither has one, the last line changed
      {"a\nb\nc", "a\nx\nc"},        // neither has one, the last line is context
      {"only", "only\n"},            // one line
      {"a\nb\nc", "a\nb\nc\nd\ne"},  // lines added after a last line without one
  };
  for (const auto& [old_text, new_text] : cases) {
    INFO("old: " << old_text << " | new: " << new_text);
    const LineDiff diff = diff_lines(old_text, new_text);
    test::spit(dir + "/a", old_text);
    test::spit(dir + "/b", new_text);
    CHECK(std::pair(diff.added, diff.removed) == git_numstat(dir + "/a", dir + "/b"));
    CHECK(headers(diff) == git_headers(old_text, new_text, 3));
    CHECK(patch(old_text, diff) == new_text);
  }

  const LineDiff lost = diff_lines("a\nb\n", "a\nb");
  REQUIRE(lost.hunks.size() == 1);
  const auto& lines = lost.hunks[0].lines;
  REQUIRE(lines.size() == 3);
  CHECK(lines[1].kind == LineKind::removed);
  CHECK(lines[1].text == "b");
  CHECK_FALSE(lines[1].no_newline);
  CHECK(lines[2].kind == LineKind::added);
  CHECK(lines[2].text == "b");
  CHECK(lines[2].no_newline);

  const LineDiff context = diff_lines("a\nb\nc", "a\nx\nc");
  REQUIRE(context.hunks.size() == 1);
  CHECK(context.hunks[0].lines.back().kind == LineKind::context);
  CHECK(context.hunks[0].lines.back().no_newline);
  CHECK(context.added == 1);
  CHECK(context.removed == 1);
}

TEST_CASE("changes whose context touches share a hunk, farther ones do not", "[diff]") {
  const std::string old_text = numbered(1, 30);
  auto edit = [&](std::vector<int> lines) {
    std::string out;
    for (int i = 1; i <= 30; ++i) {
      const bool changed = std::find(lines.begin(), lines.end(), i) != lines.end();
      out += std::string(changed ? "edited " : "line ") + std::to_string(i) + "\n";
    }
    return out;
  };
  // Six unchanged lines between the changes: the two contexts of three meet.
  const std::string touching = edit({10, 17});
  const LineDiff merged = diff_lines(old_text, touching);
  CHECK(merged.hunks.size() == 1);
  CHECK(headers(merged) == std::vector<std::string>{"@@ -7,14 +7,14 @@"});
  CHECK(headers(merged) == git_headers(old_text, touching, 3));

  // Seven: two hunks.
  const std::string apart = edit({10, 18});
  const LineDiff split = diff_lines(old_text, apart);
  CHECK(split.hunks.size() == 2);
  CHECK(headers(split) == std::vector<std::string>{"@@ -7,7 +7,7 @@", "@@ -15,7 +15,7 @@"});
  CHECK(headers(split) == git_headers(old_text, apart, 3));

  // Other context lengths, as git -U.
  for (int context : {0, 1, 2, 5}) {
    DiffOptions options;
    options.context = static_cast<std::size_t>(context);
    for (const std::string& text : {touching, apart, edit({1, 2, 9, 20, 30})}) {
      const LineDiff diff = diff_lines(old_text, text, options);
      CHECK(headers(diff) == git_headers(old_text, text, context));
      CHECK(patch(old_text, diff) == text);
    }
  }
}

TEST_CASE("context stops at the start and the end of the text", "[diff]") {
  const std::string old_text = numbered(1, 10);
  std::string new_text = old_text;
  new_text.replace(0, 6, "LINE 1");  // "line 1" -> "LINE 1"
  new_text.replace(new_text.rfind("line 10"), 7, "LINE 10");
  const LineDiff diff = diff_lines(old_text, new_text);
  CHECK(headers(diff) == std::vector<std::string>{"@@ -1,4 +1,4 @@", "@@ -7,4 +7,4 @@"});
  CHECK(headers(diff) == git_headers(old_text, new_text, 3));
  REQUIRE(diff.hunks.size() == 2);
  CHECK(diff.hunks[0].lines.front().kind == LineKind::removed);
  CHECK(diff.hunks[1].lines.back().kind == LineKind::added);
  CHECK(patch(old_text, diff) == new_text);
}

TEST_CASE("a pure insertion or deletion names the line before it", "[diff]") {
  const std::string old_text = numbered(1, 10);
  const std::string inserted = numbered(1, 5) + "new a\nnew b\n" + numbered(6, 10);
  DiffOptions no_context;
  no_context.context = 0;
  const LineDiff diff = diff_lines(old_text, inserted, no_context);
  CHECK(headers(diff) == std::vector<std::string>{"@@ -5,0 +6,2 @@"});
  CHECK(headers(diff) == git_headers(old_text, inserted, 0));
  const LineDiff back = diff_lines(inserted, old_text, no_context);
  CHECK(headers(back) == std::vector<std::string>{"@@ -6,2 +5,0 @@"});
  CHECK(headers(back) == git_headers(inserted, old_text, 0));
  // At the very start the line before is 0.
  const std::string at_start = "first\n" + old_text;
  CHECK(headers(diff_lines(old_text, at_start, no_context)) ==
        std::vector<std::string>{"@@ -0,0 +1 @@"});
  CHECK(headers(diff_lines(old_text, at_start, no_context)) == git_headers(old_text, at_start, 0));
}

// Consecutive recorded versions of real feeds: their diffs need no search limit.
const std::vector<std::pair<std::string, std::string>> kCorpusPairs{
    {"history-olshansk-openai-research/0001.xml", "history-olshansk-openai-research/0002.xml"},
    {"history-olshansk-openai-research/0007.xml", "history-olshansk-openai-research/0008.xml"},
    {"history-olshansk-openai-research/0020.xml", "history-olshansk-openai-research/0021.xml"},
    {"history-olshansk-openai-research/0021.xml", "history-olshansk-openai-research/0022.xml"},
    {"history-olshansk-openai-research/0024.xml", "history-olshansk-openai-research/0025.xml"},
    {"history-otc-markets/0003.xml", "history-otc-markets/0004.xml"},
    {"history-otc-markets/0009.xml", "history-otc-markets/0010.xml"},
    {"history-otc-markets/0020.xml", "history-otc-markets/0021.xml"},
    {"history-otc-markets/0039.xml", "history-otc-markets/0040.xml"},
    {"history-olshansk-the-batch/0021.xml", "history-olshansk-the-batch/0022.xml"},
    {"history-olshansk-the-batch/0027.xml", "history-olshansk-the-batch/0028.xml"},
    // A daily feed whose items all change: many repeated lines, a real search.
    {"history-otc-markets-daily/0002.xml", "history-otc-markets-daily/0003.xml"},
    {"history-otc-markets-daily/0038.xml", "history-otc-markets-daily/0039.xml"},
};

TEST_CASE("counts equal git diff --numstat on consecutive versions of real feeds", "[diff]") {
  for (const auto& [a, b] : kCorpusPairs) {
    const std::string old_path = test::corpus_path(a), new_path = test::corpus_path(b);
    const std::string old_text = test::slurp(old_path), new_text = test::slurp(new_path);
    INFO(a << " -> " << b);
    const LineDiff diff = diff_lines(old_text, new_text);
    CHECK_FALSE(diff.approximate);
    CHECK(std::pair(diff.added, diff.removed) == git_numstat(old_path, new_path));
    CHECK(count_kind(diff, LineKind::added) == diff.added);
    CHECK(count_kind(diff, LineKind::removed) == diff.removed);
    CHECK(patch(old_text, diff) == new_text);
  }
}

TEST_CASE("lines git sets aside before its search are changed, as git counts them", "[diff]") {
  // Items of eight lines of their own between <item> and </item>, all items replaced: the
  // item tags occur often on both sides and sit among lines with no match, so git counts them
  // as changed although a shortest diff would keep them.
  auto feed = [](char tag) {
    std::string out;
    for (int k = 0; k < 50; ++k) {
      out += "<item>\n";
      for (int f = 0; f < 8; ++f) out += std::string(1, tag) + std::to_string(k * 8 + f) + "\n";
      out += "</item>\n";
    }
    return out;
  };
  const std::string old_text = feed('a'), new_text = feed('b');
  const std::string dir = test::make_temp_dir("line-diff-many");
  test::spit(dir + "/a", old_text);
  test::spit(dir + "/b", new_text);
  const LineDiff diff = diff_lines(old_text, new_text);
  CHECK(std::pair(diff.added, diff.removed) == git_numstat(dir + "/a", dir + "/b"));
  CHECK(diff.removed > 400);  // more than the 400 item lines a shortest diff replaces
  CHECK_FALSE(diff.approximate);
  CHECK(patch(old_text, diff) == new_text);
}

TEST_CASE("hunks applied to the old text give the new text", "[diff]") {
  // Random edits of a real feed: lines replaced, inserted, deleted, duplicated, and the last
  // line end dropped now and then.
  const std::string base = test::slurp(test::corpus_path("history-otc-markets/0020.xml"));
  const std::vector<std::string_view> lines = split_lines(base);
  std::mt19937 rng(20260601);
  const std::string dir = test::make_temp_dir("line-diff-random");
  for (int trial = 0; trial < 40; ++trial) {
    std::string old_text, new_text;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string line = std::string(lines[i]) + "\n";
      old_text += line;
      switch (rng() % 40) {
        case 0:  // replaced
          new_text += "replaced " + std::to_string(rng()) + "\n";
          break;
        case 1:  // deleted
          break;
        case 2:  // inserted before
          new_text += "inserted " + std::to_string(rng() % 5) + "\n" + line;
          break;
        case 3:  // repeated from elsewhere
          new_text += std::string(lines[rng() % lines.size()]) + "\n";
          break;
        default:
          new_text += line;
      }
    }
    if (trial % 3 == 1) old_text.pop_back();
    if (trial % 4 == 2 && !new_text.empty()) new_text.pop_back();
    DiffOptions options;
    options.context = static_cast<std::size_t>(trial % 5);
    INFO("trial " << trial);
    const LineDiff diff = diff_lines(old_text, new_text, options);
    CHECK(patch(old_text, diff) == new_text);
    CHECK(patch(new_text, diff_lines(new_text, old_text, options)) == old_text);
    if (trial % 4 == 0) {
      test::spit(dir + "/a", old_text);
      test::spit(dir + "/b", new_text);
      CHECK(std::pair(diff.added, diff.removed) == git_numstat(dir + "/a", dir + "/b"));
    }
  }
  // And the real pairs again, with every context length.
  for (const auto& [a, b] : kCorpusPairs) {
    const std::string old_text = test::slurp(test::corpus_path(a));
    const std::string new_text = test::slurp(test::corpus_path(b));
    for (std::size_t context : {0u, 1u, 7u}) {
      DiffOptions options;
      options.context = context;
      INFO(a << " -> " << b << " context " << context);
      CHECK(patch(old_text, diff_lines(old_text, new_text, options)) == new_text);
    }
  }
}

// Longest common subsequence by dynamic programming, for small inputs.
std::size_t lcs(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  std::vector<std::size_t> row(b.size() + 1, 0), next(b.size() + 1, 0);
  for (std::size_t i = a.size(); i-- > 0;) {
    for (std::size_t j = b.size(); j-- > 0;)
      next[j] = a[i] == b[j] ? row[j + 1] + 1 : std::max(row[j], next[j + 1]);
    std::swap(row, next);
  }
  return row[0];
}

std::string random_lines(std::mt19937& rng, std::size_t count, std::size_t alphabet) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i)
    out += "<v>" + std::to_string(rng() % alphabet) + "</v>\n";
  return out;
}

TEST_CASE("within its budget the diff is a shortest one", "[diff]") {
  // Few distinct lines, all on both sides: nothing is set aside, the search does it all.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    const std::string a = random_lines(rng, 300 + rng() % 200, 2 + trial);
    const std::string b = random_lines(rng, 300 + rng() % 200, 2 + trial);
    DiffOptions options;
    options.max_edit_cost = 1u << 20;
    const LineDiff diff = diff_lines(a, b, options);
    const auto la = split_lines(a), lb = split_lines(b);
    const std::size_t common = lcs(la, lb);
    INFO("trial " << trial);
    CHECK_FALSE(diff.approximate);
    CHECK(diff.removed == la.size() - common);
    CHECK(diff.added == lb.size() - common);
    CHECK(patch(a, diff) == b);
  }
}

TEST_CASE("two texts of a megabyte with no common line finish, exact", "[diff]") {
  std::string a, b;
  for (int i = 0; a.size() < (1u << 20); ++i) a += "<old id=\"" + std::to_string(i) + "\"/>\n";
  for (int i = 0; b.size() < (1u << 20); ++i) b += "<new id=\"" + std::to_string(i) + "\"/>\n";
  const LineDiff diff = diff_lines(a, b);
  CHECK_FALSE(diff.approximate);  // no line in common: nothing to search
  CHECK(diff.removed == split_lines(a).size());
  CHECK(diff.added == split_lines(b).size());
  REQUIRE(diff.hunks.size() == 1);
  CHECK(diff.hunks[0].old_start == 1);
  CHECK(diff.hunks[0].new_start == 1);
  CHECK(patch(a, diff) == b);
}

TEST_CASE("a search past its budget is flagged approximate and still correct", "[diff]") {
  // Lines drawn from eight: every line is on both sides in another order, the worst case of
  // an O(NP) search.
  std::mt19937 rng(11);
  const std::string a = random_lines(rng, 30000, 8), b = random_lines(rng, 30000, 8);
  const LineDiff diff = diff_lines(a, b);
  CHECK(diff.approximate);
  CHECK(patch(a, diff) == b);
  CHECK(count_kind(diff, LineKind::added) == diff.added);
  CHECK(count_kind(diff, LineKind::removed) == diff.removed);
  // Correct, if not minimal: no worse than replacing everything.
  CHECK(diff.removed <= split_lines(a).size());
  CHECK(diff.added + split_lines(a).size() == diff.removed + split_lines(b).size());

  // The same kind of input, small enough for the budget: exact.
  const std::string small_a = random_lines(rng, 60, 8), small_b = random_lines(rng, 60, 8);
  const LineDiff small = diff_lines(small_a, small_b);
  CHECK_FALSE(small.approximate);
  CHECK(small.removed == 60 - lcs(split_lines(small_a), split_lines(small_b)));

  // A bigger budget turns the flag off where the default sets it.
  const std::string mid_a = random_lines(rng, 700, 4), mid_b = random_lines(rng, 700, 4);
  DiffOptions tight;
  tight.max_edit_cost = 0;
  DiffOptions roomy;
  roomy.max_edit_cost = 1u << 16;
  const LineDiff cut = diff_lines(mid_a, mid_b, tight);
  const LineDiff full = diff_lines(mid_a, mid_b, roomy);
  CHECK(cut.approximate);
  CHECK_FALSE(full.approximate);
  CHECK(full.removed == 700 - lcs(split_lines(mid_a), split_lines(mid_b)));
  CHECK(cut.removed >= full.removed);
  CHECK(patch(mid_a, cut) == mid_b);
  CHECK(patch(mid_a, full) == mid_b);
}

// Known to fail, hence [!shouldfail] (it turns red once the product meets it): with the
// default budget the search runs out on this pair and the fallback in parts gives 1075 added
// lines where git gives 876; an exact search needs about 512 steps a line, ten times the
// default. The fallback (line_diff.cc, step 5) has to do better.
TEST_CASE("reordered feed items are diffed within the budget", "[diff][!shouldfail]") {
  // A real feed whose items were re-sorted: git's own search gives up on it too.
  const std::string old_path = test::corpus_path("history-olshansk-anthropic-news/0026.xml");
  const std::string new_path = test::corpus_path("history-olshansk-anthropic-news/0027.xml");
  const std::string old_text = test::slurp(old_path), new_text = test::slurp(new_path);
  const LineDiff diff = diff_lines(old_text, new_text);
  const auto [git_added, git_removed] = git_numstat(old_path, new_path);
  CHECK_FALSE(diff.approximate);
  CHECK(diff.added <= git_added);
}

TEST_CASE("reordered feed items get a correct diff, as short as git's with a larger budget",
          "[diff]") {
  const std::string old_path = test::corpus_path("history-olshansk-anthropic-news/0026.xml");
  const std::string new_path = test::corpus_path("history-olshansk-anthropic-news/0027.xml");
  const std::string old_text = test::slurp(old_path), new_text = test::slurp(new_path);
  const auto [git_added, git_removed] = git_numstat(old_path, new_path);
  const LineDiff diff = diff_lines(old_text, new_text);
  CHECK(patch(old_text, diff) == new_text);
  CHECK(diff.added + git_removed == diff.removed + git_added);
  DiffOptions roomy;
  roomy.max_edit_cost = 1u << 12;
  const LineDiff full = diff_lines(old_text, new_text, roomy);
  CHECK_FALSE(full.approximate);
  CHECK(full.added <= git_added);
  CHECK(full.added <= diff.added);
  CHECK(patch(old_text, full) == new_text);
}

}  // namespace
}  // namespace feeddiff
