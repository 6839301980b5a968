// The word diff of two texts: tokens interned into ids written one a line, so that the line
// diff (with its reductions and its budget) does the search, then read back into runs of
// text. dtl alone would do the search too, but without the line diff's bound on its time.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "feeddiff/diff.h"

namespace feeddiff {

namespace {

bool is_blank(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
bool is_word(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Length of the UTF-8 sequence starting with `lead` (1 for a stray byte), and whether the
// character is one of the scripts written without spaces (CJK from U+2E80 on: a lead byte of
// E2 BA.. and above), where each character is a word of its own.
std::size_t sequence_size(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (i + n > s.size()) return 1;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  return n;
}
bool spaceless_script(std::string_view s, std::size_t i, std::size_t n) {
  if (n < 3) return false;
  const auto c0 = static_cast<unsigned char>(s[i]), c1 = static_cast<unsigned char>(s[i + 1]);
  return c0 > 0xE2 || (c0 == 0xE2 && c1 >= 0xBA);
}

// Where the token that starts at i ends. Tokens are words (ASCII letters, digits, '_' and
// non-ASCII letters), whitespace runs, and every other character on its own.
std::size_t token_end(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t j = i;
  if (is_blank(c)) {
    while (j < s.size() && is_blank(static_cast<unsigned char>(s[j]))) ++j;
  } else if (is_word(c) || c >= 0x80) {
    while (j < s.size()) {
      const auto d = static_cast<unsigned char>(s[j]);
      if (is_word(d)) {
        ++j;
        continue;
      }
      if (d < 0x80) break;
      const std::size_t n = sequence_size(s, j);
      if (spaceless_script(s, j, n)) {
        if (j == i) j += n;  // a word of one character
        break;
      }
      j += n;
    }
  } else {
    j = i + 1;
  }
  return j;
}

std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t j = token_end(s, i);
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string join(const std::vector<std::string_view>& toks, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t k = from; k < to; ++k) out.append(toks[k]);
  return out;
}

bool all_blank(std::string_view s) {
  for (char c : s)
    if (!is_blank(static_cast<unsigned char>(c))) return false;
  return !s.empty();
}

// A changed stretch and the unchanged text before it.
struct Stretch {
  std::string kept_before, removed, added;
};

std::size_t chars(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Unchanged text shorter than this is shown whole rather than skipped.
constexpr std::size_t kMinSkip = 24;

// The first `n` characters of s.
std::string_view first_chars(std::string_view s, std::size_t n) {
  std::size_t i = 0;
  for (std::size_t k = 0; k < n && i < s.size(); ++k) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return s.substr(0, i);
}

// The last `n` characters of s.
std::string_view last_chars(std::string_view s, std::size_t n) {
  std::size_t i = s.size();
  for (std::size_t k = 0; k < n && i > 0; ++k) {
    --i;
    while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  }
  return s.substr(i);
}

// About `n` characters of the start of s, cut after a space when there is one.
std::string_view head(std::string_view s, std::size_t n) {
  const std::string_view h = first_chars(s, n);
  if (h.size() == s.size()) return h;
  const std::size_t space = h.find_last_of(' ');
  return space == std::string_view::npos || space == 0 ? h : h.substr(0, space + 1);
}

// About `n` characters of the end of s, cut before a space when there is one.
std::string_view tail(std::string_view s, std::size_t n) {
  const std::string_view t = last_chars(s, n);
  if (t.size() == s.size()) return t;
  const std::size_t space = t.find(' ');
  return space == std::string_view::npos || space + 1 == t.size() ? t : t.substr(space);
}

}  // namespace

const char* word_kind_name(WordRun::Kind kind) {
  switch (kind) {
    case WordRun::Kind::kept:
      return "kept";
    case WordRun::Kind::added:
      return "added";
    case WordRun::Kind::removed:
      return "removed";
  }
  return "kept";
}

namespace {

// The whole word diff, with no bound on the texts.
std::vector<WordRun> diff_all(std::string_view old_text, std::string_view new_text) {
  const std::vector<std::string_view> a = tokens(old_text), b = tokens(new_text);
  std::unordered_map<std::string_view, std::uint32_t, TextHash> ids;
  auto as_lines = [&ids](const std::vector<std::string_view>& toks) {
    std::string lines;
    lines.reserve(toks.size() * 4);
    for (std::string_view t : toks) {
      const auto id = ids.try_emplace(t, static_cast<std::uint32_t>(ids.size())).first->second;
      fmt::format_to(std::back_inserter(lines), "{}\n", id);
    }
    return lines;
  };
  const std::string old_lines = as_lines(a), new_lines = as_lines(b);
  DiffOptions options;
  options.context = 0;
  const LineDiff d = diff_lines(old_lines, new_lines, options);

  // Hunk starts are 1-based; one that removes (adds) nothing names the line after which.
  std::vector<Stretch> stretches;
  std::size_t at_old = 0;
  for (const Hunk& h : d.hunks) {
    const std::size_t old_begin = h.old_count ? h.old_start - 1 : h.old_start;
    const std::size_t new_begin = h.new_count ? h.new_start - 1 : h.new_start;
    stretches.push_back({join(a, at_old, old_begin), join(a, old_begin, old_begin + h.old_count),
                         join(b, new_begin, new_begin + h.new_count)});
    at_old = old_begin + h.old_count;
  }
  const std::string kept_after = join(a, at_old, a.size());

  // Blank text between two changes reads better inside them: "[-a b-]{+c d+}", not
  // "[-a-]{+c+} [-b-]{+d+}".
  std::vector<Stretch> merged;
  for (Stretch& s : stretches) {
    if (!merged.empty() && all_blank(s.kept_before)) {
      Stretch& m = merged.back();
      m.removed += s.kept_before + s.removed;
      m.added += s.kept_before + s.added;
      continue;
    }
    merged.push_back(std::move(s));
  }

  std::vector<WordRun> runs;
  auto push = [&runs](WordRun::Kind kind, std::string text) {
    if (!text.empty()) runs.push_back({kind, std::move(text), 0});
  };
  for (Stretch& s : merged) {
    push(WordRun::Kind::kept, std::move(s.kept_before));
    push(WordRun::Kind::removed, std::move(s.removed));
    push(WordRun::Kind::added, std::move(s.added));
  }
  push(WordRun::Kind::kept, kept_after);
  return runs;
}

// Appends a run, joined to the last one when it has the same kind.
void append_run(std::vector<WordRun>& runs, WordRun::Kind kind, std::string_view text) {
  if (text.empty()) return;
  if (!runs.empty() && runs.back().kind == kind) {
    runs.back().text.append(text);
    return;
  }
  runs.push_back({kind, std::string(text), 0});
}

// The end of the last token of s that ends within its first `bytes` bytes; when the first
// token alone is longer, `bytes` backed off to the start of a UTF-8 sequence.
std::size_t cut_between_words(std::string_view s, std::size_t bytes) {
  if (s.size() <= bytes) return s.size();
  std::size_t end = 0;
  while (end < s.size()) {
    const std::size_t next = token_end(s, end);
    if (next > bytes) break;
    end = next;
  }
  if (end > 0) return end;
  end = bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return end;
}

}  // namespace

std::vector<WordRun> diff_words(std::string_view old_text, std::string_view new_text,
                                std::size_t* not_compared) {
  if (not_compared) *not_compared = 0;
  if (old_text.size() <= kMaxWordDiffBytes && new_text.size() <= kMaxWordDiffBytes)
    return diff_all(old_text, new_text);

  // Long texts: the words both begin with (token by token, so the split is the one the whole
  // diff makes), and the bytes both end with, from a token start both share: a non-blank
  // byte after a blank one.
  std::size_t prefix = 0;
  while (prefix < old_text.size() && prefix < new_text.size()) {
    const std::size_t end = token_end(old_text, prefix);
    if (token_end(new_text, prefix) != end ||
        old_text.substr(prefix, end - prefix) != new_text.substr(prefix, end - prefix))
      break;
    prefix = end;
  }
  const std::size_t room = std::min(old_text.size(), new_text.size()) - prefix;
  std::size_t common_end = 0;
  while (common_end < room &&
         old_text[old_text.size() - 1 - common_end] == new_text[new_text.size() - 1 - common_end])
    ++common_end;
  std::size_t suffix = common_end;
  while (suffix > 0) {
    const std::size_t at = old_text.size() - suffix;  // the suffix's first byte
    if (suffix < common_end && is_blank(static_cast<unsigned char>(old_text[at - 1])) &&
        !is_blank(static_cast<unsigned char>(old_text[at])))
      break;
    --suffix;
  }
  const std::string_view old_middle = old_text.substr(prefix, old_text.size() - suffix - prefix);
  const std::string_view new_middle = new_text.substr(prefix, new_text.size() - suffix - prefix);

  std::vector<WordRun> runs;
  append_run(runs, WordRun::Kind::kept, old_text.substr(0, prefix));
  if (old_middle.size() <= kMaxWordDiffBytes && new_middle.size() <= kMaxWordDiffBytes) {
    for (WordRun& run : diff_all(old_middle, new_middle)) append_run(runs, run.kind, run.text);
    append_run(runs, WordRun::Kind::kept, old_text.substr(old_text.size() - suffix));
    return runs;
  }
  // Too long to compare whole: the first kMaxWordDiffBytes of each side are.
  const std::size_t old_cut = cut_between_words(old_middle, kMaxWordDiffBytes);
  const std::size_t new_cut = cut_between_words(new_middle, kMaxWordDiffBytes);
  for (WordRun& run : diff_all(old_middle.substr(0, old_cut), new_middle.substr(0, new_cut)))
    append_run(runs, run.kind, run.text);
  if (not_compared)
    *not_compared =
        chars(old_text.substr(prefix + old_cut)) + chars(new_text.substr(prefix + new_cut));
  return runs;
}

WordExcerpt excerpt_words(const std::vector<WordRun>& runs, std::size_t max_runs,
                          std::size_t max_chars, std::size_t context) {
  WordExcerpt ex;
  bool changed = false;
  for (const WordRun& r : runs) changed = changed || r.kind != WordRun::Kind::kept;
  if (!changed) return ex;  // the texts are equal: nothing to show

  std::size_t shown = 0;
  bool stop = false;
  auto push = [&](WordRun::Kind kind, std::string_view text, std::size_t skipped) {
    shown += chars(text);
    ex.runs.push_back({kind, std::string(text), skipped});
  };
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const WordRun& r = runs[i];
    if (stop) {
      if (r.kind != WordRun::Kind::kept) {
        ++ex.held_back_changes;
        ex.held_back_chars += chars(r.text);
      }
      continue;
    }
    if (r.kind == WordRun::Kind::kept) {
      const bool before = i > 0, after = i + 1 < runs.size();
      // The next change must fit (its removed and added runs, this context and a little of
      // its text).
      const std::size_t len = chars(r.text);
      const std::size_t context_chars = std::min(len, 2 * context + kMinSkip);
      const bool next_fits =
          after && ex.runs.size() + 3 <= max_runs && shown + context_chars + 8 < max_chars;
      const std::string_view h = before ? head(r.text, context) : std::string_view();
      const std::string_view t = next_fits ? tail(r.text, context) : std::string_view();
      const std::size_t skipped = len - chars(h) - chars(t);
      // Leaving out a few words saves nothing: show them.
      if ((before || next_fits) && skipped < kMinSkip) {
        push(r.kind, r.text, 0);
        if (after && !next_fits) stop = true;
        continue;
      }
      if (!h.empty()) push(r.kind, h, 0);
      if (!t.empty())
        push(r.kind, t, skipped);
      else
        ex.skipped_after = skipped;
      if (after && !next_fits) stop = true;
      continue;
    }
    const std::size_t left = shown < max_chars ? max_chars - shown : 0;
    const std::size_t len = chars(r.text);
    if (left == 0 || ex.runs.size() >= max_runs) {
      stop = true;
      ++ex.held_back_changes;
      ex.held_back_chars += len;
      continue;
    }
    if (len > left) {
      push(r.kind, first_chars(r.text, left), 0);
      ex.held_back_chars += len - left;
      stop = true;
      continue;
    }
    push(r.kind, r.text, 0);
  }
  return ex;
}

}  // namespace feeddiff
