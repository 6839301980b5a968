// The extractor on Readability.js's test pages (../shared/corpus/article-pages-readability):
// the mean shingle F1 of the body against expected.html on the held-out split, and the
// title against expected-metadata.json. The split and the measure are bench/article/run's:
// pages sorted by name, every 4th (indexes 3, 7, ...) held out; token 4-gram shingles.
// The thresholds sit a little under what the extractor reaches (docs/article.md), so that
// a change that makes extraction worse fails here.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "feeddiff/article.h"
#include "support/process.h"

namespace feeddiff {
namespace {

namespace fs = std::filesystem;

// The text of expected.html: tags become spaces, the few entities Readability writes are
// decoded. A crude reading, enough for shingles of words.
std::string text_of_markup(std::string_view html) {
  std::string out;
  for (std::size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '<') {
      const std::size_t end = html.find('>', i);
      if (end == std::string_view::npos) break;
      out += ' ';
      i = end;
      continue;
    }
    if (html[i] == '&') {
      const std::size_t end = html.find(';', i);
      if (end != std::string_view::npos && end - i < 10) {
        const std::string_view entity = html.substr(i + 1, end - i - 1);
        if (entity == "amp") out += '&';
        if (entity == "lt") out += '<';
        if (entity == "gt") out += '>';
        if (entity == "quot") out += '"';
        if (entity == "nbsp" || entity == "#160") out += ' ';
        if (entity == "#39") out += '\'';
        i = end;
        continue;
      }
    }
    out += html[i];
  }
  return out;
}

// Lower-cased runs of letters and digits (any byte >= 0x80 counts as a letter).
std::vector<std::string> tokens(std::string_view text) {
  std::vector<std::string> out;
  std::string token;
  for (char c : text) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      (static_cast<unsigned char>(c) & 0x80);
    if (word) {
      token += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    } else if (!token.empty()) {
      out.push_back(std::move(token));
      token.clear();
    }
  }
  if (!token.empty()) out.push_back(std::move(token));
  return out;
}

std::set<std::string> shingles(std::string_view text) {
  const auto t = tokens(text);
  std::set<std::string> out;
  for (std::size_t i = 0; i + 4 <= t.size(); ++i)
    out.insert(t[i] + ' ' + t[i + 1] + ' ' + t[i + 2] + ' ' + t[i + 3]);
  return out;
}

double f1(std::string_view extracted, std::string_view expected) {
  const auto a = shingles(extracted);
  const auto e = shingles(expected);
  std::size_t both = 0;
  for (const auto& s : a) both += e.count(s);
  if (both == 0) return 0;
  const double p = static_cast<double>(both) / static_cast<double>(a.size());
  const double r = static_cast<double>(both) / static_cast<double>(e.size());
  return 2 * p * r / (p + r);
}

std::string collapse(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The "title" of expected-metadata.json, found by hand (one string field, JSON-escaped).
std::string expected_title(const std::string& json) {
  const std::size_t key = json.find("\"title\": \"");
  if (key == std::string::npos) return {};
  std::string out;
  for (std::size_t i = key + 10; i < json.size() && json[i] != '"'; ++i) {
    if (json[i] == '\\' && i + 1 < json.size()) {
      ++i;
      if (json[i] == 'u') {  // only \u00XX and BMP escapes appear; written as UTF-8
        const unsigned cp = static_cast<unsigned>(std::stoul(json.substr(i + 1, 4), nullptr, 16));
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
        i += 4;
        continue;
      }
    }
    out += json[i];
  }
  return out;
}

// What the extractor reaches (measured when these were set): test 0.937, tuning 0.972,
// titles 130 of 130. (bench/article/run reads expected.html with a real HTML parser and
// gets a little more: 0.958 and 0.988.)
constexpr double kTestFloor = 0.925;
constexpr double kTuningFloor = 0.96;
constexpr std::size_t kTitleFloor = 125;

struct Score {
  double tuning_f1 = 0;
  double test_f1 = 0;
  std::size_t tuning = 0;
  std::size_t test = 0;
  std::size_t titles = 0;
};

Score score_corpus() {
  const fs::path root = test::corpus_path("article-pages-readability");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  REQUIRE(names.size() == 130);
  Score score;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const fs::path dir = root / names[i];
    auto article = extract_article(test::slurp((dir / "source.html").string()));
    const std::string expected = text_of_markup(test::slurp((dir / "expected.html").string()));
    const double page_f1 = article ? f1(article->text(), expected) : 0;
    if (i % 4 == 3) {
      score.test_f1 += page_f1;
      ++score.test;
    } else {
      score.tuning_f1 += page_f1;
      ++score.tuning;
    }
    const std::string title =
        expected_title(test::slurp((dir / "expected-metadata.json").string()));
    if (article && collapse(article->title) == collapse(title)) ++score.titles;
  }
  score.tuning_f1 /= static_cast<double>(score.tuning);
  score.test_f1 /= static_cast<double>(score.test);
  return score;
}

TEST_CASE("Readability's test pages: held-out F1 and titles stay above their floors", "[article]") {
  const Score score = score_corpus();
  INFO("tuning F1 " << score.tuning_f1 << " over " << score.tuning << " pages, test F1 "
                    << score.test_f1 << " over " << score.test << ", titles " << score.titles);
  CHECK(score.test == 32);
  CHECK(score.test_f1 >= kTestFloor);
  CHECK(score.tuning_f1 >= kTuningFloor);
  CHECK(score.titles >= kTitleFloor);
}

}  // namespace
}  // namespace feeddiff
