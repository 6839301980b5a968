#pragma once
// Pieces of the normalizer shared between its files; not part of the contract.

#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/normalize.h"

namespace feeddiff::normalize_detail {

// ---- Whitespace: the one definition each of the normalizer's files uses ----

/// XML's whitespace (production S): space, tab, CR and LF, nothing else (no form feed, no
/// vertical tab, no non-ASCII space), so that text XML keeps is never trimmed away.
/// ASCII lowercase of one byte; other bytes as they are (names in markup are ASCII).
inline char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

[[gnu::always_inline]] inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
/// HTML's ASCII whitespace: XML's and form feed.
inline bool is_html_space(char c) {
  return is_space(c) || c == '\f';
}
/// s without XML whitespace (is_space) at either end. Inlined: split_html calls it for every
/// line it cuts.
[[gnu::always_inline]] inline std::string_view trim_space(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// ---- Limits: what a hostile document may not make the normalizer do (each an error) ----

/// Elements nested deeper than this are refused (the writer recurses).
inline constexpr int kMaxDepth = 1000;
/// JSON nested deeper than this is refused (nlohmann's dump recurses; JSON Feeds nest ~5).
inline constexpr std::size_t kMaxJsonDepth = 256;
/// At most this many attributes on one element.
inline constexpr std::size_t kMaxAttributes = 4096;
/// At most this many namespace URIs declared, and prefixes used undeclared, in a document.
inline constexpr std::size_t kMaxNamespaces = 1024;
/// At most this many items in the model (the model costs a few hundred bytes an item).
inline constexpr std::size_t kMaxItems = 100000;
/// At most this many fields (child elements, JSON keys) in one item or the channel.
inline constexpr std::size_t kMaxFields = 4096;
/// The canonical text may be at most this many times the input, plus kCanonicalSlack.
inline constexpr std::size_t kCanonicalGrowth = 8;
/// Bytes of canonical text every document may have whatever its size.
inline constexpr std::size_t kCanonicalSlack = std::size_t{1} << 20;
/// The most canonical text an input of this size may produce.
constexpr std::size_t canonical_budget(std::size_t input_size) {
  return input_size * kCanonicalGrowth + kCanonicalSlack;
}

// ---- Scanning for a few byte values, 16 bytes at a time (SSE2) or 8 (SWAR) ----

/// The first i >= from where table[s[i]] holds, or s.size(). The candidates looked at closely
/// are the bytes equal to one of kBytes and, with kBelowSpace, those below 0x20: `table` must
/// hold no other byte.
template <bool kBelowSpace, unsigned char... kBytes, class Table>
std::size_t find_byte(std::string_view s, std::size_t from, const Table& table) {
  const std::size_t n = s.size();
  const char* p = s.data();
  std::size_t i = from;
#if defined(__SSE2__)
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i m = _mm_setzero_si128();
    if constexpr (kBelowSpace) m = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
    ((m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(static_cast<char>(kBytes))))), ...);
    auto bits = static_cast<unsigned>(_mm_movemask_epi8(m));
    while (bits) {
      const std::size_t k = i + static_cast<std::size_t>(__builtin_ctz(bits));
      if (table[static_cast<unsigned char>(p[k])]) return k;
      bits &= bits - 1;
    }
    i += 16;
  }
#else
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  while (i + 8 <= n) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    // High bit of each byte that may match; the lowest one is exact.
    std::uint64_t m = 0;
    if constexpr (kBelowSpace) m = (w - kOnes * 0x20) & ~w & kHighs;
    ((m |= ((w ^ (kOnes * kBytes)) - kOnes) & ~(w ^ (kOnes * kBytes)) & kHighs), ...);
    if (!m) {
      i += 8;
      continue;
    }
    i += static_cast<std::size_t>(__builtin_ctzll(m)) >> 3;
    if (table[static_cast<unsigned char>(p[i])]) return i;
    ++i;
  }
#endif
  while (i < n && !table[static_cast<unsigned char>(p[i])]) ++i;
  return i;
}

/// The code point an HTML 4 entity name stands for, 0 when it names none.
std::uint32_t html_entity(std::string_view name);

/// Collects repairs with their line numbers, counting lines in `text` lazily.
///
/// A run of the same repair on one line (77 NUL bytes, a paragraph of Latin-1 read as UTF-8)
/// is one entry with a count, so one bad stretch cannot crowd every other repair out of the
/// list. Runs are not merged across lines: the list says where each line needs mending.
class RepairLog {
 public:
  static constexpr std::size_t kMaxListed = 100;
  explicit RepairLog(std::vector<Repair>& out) : out_(out) {}
  /// Records a repair at byte `offset` of `text` (the decoded input).
  void add(std::string_view text, std::size_t offset, std::string what);
  /// Records a repair at a known line.
  void add_line(std::size_t line, std::string what);
  /// Closes the last run and appends the "and N more" entry when some were not listed.
  void finish();

 private:
  // Writes the count of the run the last listed entry starts into its text.
  void close_run();

  std::vector<Repair>& out_;
  std::size_t counted_to_ = 0;
  std::size_t line_ = 1;
  std::size_t dropped_ = 0;
  std::size_t run_count_ = 0;  // how many times in a row the last listed entry was added
};

/// Decoded input: UTF-8 text and the name of what it was decoded from.
struct Decoded {
  std::string storage;    ///< the decoded text, when it is not the input itself
  std::string_view same;  ///< the input, when it was valid UTF-8 as it is
  bool borrowed = false;  ///< the text is `same`, not `storage`
  std::string_view text() const { return borrowed ? same : std::string_view(storage); }
  std::string encoding;
};

/// Decodes bytes to valid UTF-8 (BOM, then the hint, then the declaration, else UTF-8).
Decoded decode(std::string_view bytes, std::string_view charset_hint, RepairLog& log);

/// Maps offsets in repaired text back to offsets in the decoded text.
class OffsetMap {
 public:
  /// From `out` on, output offsets correspond to input offsets from `in` on.
  void mark(std::size_t out, std::size_t in) { points_.emplace_back(out, in); }
  std::size_t to_input(std::size_t out) const;

 private:
  std::vector<std::pair<std::size_t, std::size_t>> points_;
};

/// The XML text after the repairs that keep its meaning.
struct Repaired {
  std::string text;
  OffsetMap map;
};

/// Repairs decoded XML text before parsing.
Repaired repair_xml(std::string_view decoded, RepairLog& log);

/// "line L, column C" of a byte offset (columns count code points, 1-based).
std::string line_column(std::string_view text, std::size_t offset);

/// Splits HTML into lines: before opening and after closing block tags, at line ends; each
/// trimmed, empty ones dropped.
void split_html(std::string_view html, std::vector<std::string_view>& lines);

/// True for comments that page caches write and rewrite on every build.
bool is_volatile_comment(std::string_view comment);

/// Tags stripped, entities decoded, trimmed.
std::string html_to_text(std::string_view html);

/// Decodes base64 (whitespace ignored) into `out` as text, control characters other than tab
/// and line ends as spaces. False when `in` is no base64 or does not decode to UTF-8.
bool base64_decode(std::string_view in, std::string& out);

/// Fills in item ids that the feed did not give.
void assign_fallback_id(Item& item);

/// Canonical JSON and, for a JSON Feed and when `model`, its model. `decoded` is valid UTF-8.
Result<Document> normalize_json(std::string_view decoded, Document doc, bool model, bool text);

/// Canonical XML and, when `model`, its model. `decoded` is valid UTF-8.
Result<Document> normalize_xml(std::string_view decoded, Document doc, RepairLog& log, bool model,
                               bool text);

}  // namespace feeddiff::normalize_detail
