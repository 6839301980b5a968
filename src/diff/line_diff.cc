// The line diff: dtl's O(NP) search on interned lines, after the reductions git makes, under a
// budget that keeps every input close to linear time.
//
//  1. Split both texts into lines that keep their '\n', so a last line that lost its line end
//     differs from the same line with one, as git counts it.
//  2. Trim the common prefix and suffix.
//  3. Intern the rest into ids and drop the lines git drops before its search (xdiff's
//     xdl_cleanup_records): a line absent from the other text is changed whatever the search
//     finds; a line that occurs very often in the other text (at least ~sqrt(lines) times) is
//     treated as changed too when it sits in a run of such lines among changed ones. The
//     first keeps the diff minimal; both shrink a typical feed change (edited lines are new
//     lines) to almost nothing, and they make our counts git's counts.
//  4. Search what is left with dtl, comparisons counted against a budget (max_edit_cost per
//     line). dtl cannot be stopped, so when the budget runs out the comparator lets only the
//     end diagonal match: the round in progress reaches the end and the search returns. Those
//     made-up matches are read back as replaced lines, so the script is still correct, only
//     longer.
//  5. A search that ran out is redone in parts: the region is cut at patience anchors (lines
//     unique on both sides, in the longest run increasing on both), or into even slices when
//     it has none, and each part, less its lines absent from the other side of that part, is
//     solved the same way with its share of what is left. The shorter script is kept.
//  6. Group the changes into hunks with context, merging groups whose context touches.

#include <dtl/dtl.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <utility>

#include "feeddiff/core.h"
#include "feeddiff/diff.h"

namespace feeddiff {

namespace {

using Id = std::uint32_t;
using Marks = std::vector<std::uint8_t>;  // 1 for a line removed (old) or added (new)

// dtl records one coordinate per step (snake) and, past 2,000,000 of them at the end of a
// round, restarts from where it got to, which would make the script longer than the shortest
// without telling us. Steps that compare nothing happen only in the last round, at most one
// per diagonal, so a call that may compare this many lines less the sequences' lengths stays
// under that. A call is also held to kMaxStepsPerCall, 24 MB of coordinates.
constexpr std::int64_t kMaxCoordinates = 2'000'000 - 1'000;
constexpr std::int64_t kMaxStepsPerCall = 1'000'000;
// Every diff may take this many steps, so small inputs are always searched to the end.
constexpr std::int64_t kBudgetFloor = 1 << 14;
// Above this many steps, dtl reserves its coordinate array at once (address space, touched as
// used) instead of growing it by copying, which costs more than the search.
constexpr std::int64_t kHugeCall = 1 << 14;
// xdiff's constants for lines with many matches.
constexpr std::size_t kMaxEqLimit = 1024;
constexpr std::size_t kSimScanWindow = 100;
constexpr std::size_t kKeepDiscardRun = 4;

// Lines with their line ends: the unit of comparison.
std::vector<std::string_view> split_with_ends(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  // Count with memchr, which skips a whole line per call: std::count over the bytes cost more
  // (4 instructions a byte, 7% of a 20 MB diff) than the split itself.
  std::size_t count = 1;
  for (const char* q = p; q < end; ++count) {
    const void* nl = std::memchr(q, '\n', static_cast<std::size_t>(end - q));
    if (!nl) break;
    q = static_cast<const char*>(nl) + 1;
  }
  std::vector<std::string_view> lines;
  reserve_large(lines, count);  // 16 bytes a line: megabytes for a 20 MB feed
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    const char* stop = nl ? static_cast<const char*>(nl) + 1 : end;
    lines.emplace_back(p, static_cast<std::size_t>(stop - p));
    p = stop;
  }
  return lines;
}

// Open-addressing intern table: equal lines get equal ids, so the search compares integers.
class LineTable {
 public:
  static constexpr Id kNone = ~Id{0};

  explicit LineTable(std::size_t expected) {
    std::size_t capacity = 64;
    while (capacity < expected * 2) capacity <<= 1;
    reserve_large(slots_, capacity);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    reserve_large(lines_, expected);
  }

  Id intern(std::string_view line) { return lookup(line, true); }
  Id find(std::string_view line) const { return const_cast<LineTable*>(this)->lookup(line, false); }
  std::size_t size() const { return lines_.size(); }

 private:
  struct Slot {
    Id id_plus_one = 0;
    std::uint32_t tag = 0;
  };

  Id lookup(std::string_view line, bool insert) {
    const std::uint64_t h = TextHash{}(line);  // keyed: a feed cannot make lines collide
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.id_plus_one == 0) {
        if (!insert) return kNone;
        lines_.push_back(line);
        slot = Slot{static_cast<Id>(lines_.size()), tag};
        return static_cast<Id>(lines_.size() - 1);
      }
      if (slot.tag == tag && lines_[slot.id_plus_one - 1] == line) return slot.id_plus_one - 1;
    }
  }

  std::vector<Slot> slots_;
  std::vector<std::string_view> lines_;
  std::size_t mask_ = 0;
};

// dtl's sequences hold positions; this compares the ids at those positions while the budget
// lasts. Past it only the end diagonal (where both sequences end together) matches, so dtl
// finishes the round it is in and returns; the caller checks every match it reports.
class CountingCompare final : public dtl::Compare<Id> {
 public:
  CountingCompare(const Id* a, const Id* b, std::int64_t end_diagonal, std::int64_t* left)
      : a_(a), b_(b), end_diagonal_(end_diagonal), left_(left) {}

  // dtl passes the element of the first sequence first, also when it swaps them internally.
  // *left goes below zero once a comparison was refused.
  bool impl(const Id& i, const Id& j) const override {
    if (--*left_ >= 0) return a_[i] == b_[j];
    return static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i) == end_diagonal_;
  }

 private:
  const Id* a_;
  const Id* b_;
  std::int64_t end_diagonal_;
  std::int64_t* left_;
};

std::size_t count_marked(const Marks& marks) {
  return static_cast<std::size_t>(std::count(marks.begin(), marks.end(), std::uint8_t{1}));
}

// Where dtl's edit script is read back into: the common lines are unmarked.
struct Unmark {
  const Id* a;
  const Id* b;
  std::uint8_t* changed_a;
  std::uint8_t* changed_b;
};

// Reads one element of dtl's edit script (with its own Storage interface, which copies the
// script once where getSes().getSequence() copies it twice).
template <typename SesElem, typename Stored>
class UnmarkCommon final : public dtl::Storage<SesElem, Stored> {
 public:
  explicit UnmarkCommon(Stored& stored) : dtl::Storage<SesElem, Stored>(stored) {}

  void operator()(const SesElem& element) const override {
    const dtl::elemInfo& info = element.second;
    if (info.type != dtl::SES_COMMON) return;
    const auto i = static_cast<std::size_t>(info.beforeIdx - 1);
    const auto j = static_cast<std::size_t>(info.afterIdx - 1);
    Stored& out = this->storedData_;
    // A match made up after the budget ran out is a replaced line.
    if (out.a[i] == out.b[j]) out.changed_a[i] = 0, out.changed_b[j] = 0;
  }
};

// Searches a against b with dtl and marks what a shortest edit script removes and adds, or,
// past `steps` comparisons, what a correct longer one does. Adds the comparisons made to
// *used; returns false when it gave up.
bool search(const Id* a, std::size_t m, const Id* b, std::size_t n, std::uint8_t* changed_a,
            std::uint8_t* changed_b, std::int64_t steps, std::int64_t* used) {
  while (m > 0 && n > 0 && a[0] == b[0]) ++a, ++b, ++changed_a, ++changed_b, --m, --n;
  while (m > 0 && n > 0 && a[m - 1] == b[n - 1]) --m, --n;
  std::fill(changed_a, changed_a + m, 1);
  std::fill(changed_b, changed_b + n, 1);
  if (m == 0 || n == 0) return true;
  if (m == 1 || n == 1) {
    // A side of one line keeps it if the other side has it anywhere.
    const Id* hit = m == 1 ? std::find(b, b + n, a[0]) : std::find(a, a + m, b[0]);
    *used += static_cast<std::int64_t>(std::max(m, n));
    if (m == 1 && hit != b + n) changed_a[0] = 0, changed_b[hit - b] = 0;
    if (m != 1 && hit != a + m) changed_b[0] = 0, changed_a[hit - a] = 0;
    return true;
  }

  const auto lines = static_cast<std::int64_t>(m + n + 1);
  std::int64_t left = std::min({steps, kMaxStepsPerCall, kMaxCoordinates - lines});
  // A budget that does not cover one pass over the lines (or sequences too long for one call)
  // buys nothing: every line is changed, and the caller may cut the region smaller.
  if (left <= lines) return false;
  const std::int64_t start = left;
  std::vector<Id> seq_a(m), seq_b(n);
  std::iota(seq_a.begin(), seq_a.end(), Id{0});
  std::iota(seq_b.begin(), seq_b.end(), Id{0});
  CountingCompare compare(a, b, static_cast<std::int64_t>(n) - static_cast<std::int64_t>(m), &left);
  dtl::Diff<Id, std::vector<Id>, CountingCompare> diff(seq_a, seq_b, compare);
  // The steps it may take: its budget, and never more than about m * n. A budget alone
  // (every diff gets kBudgetFloor) made two small feeds reserve 48 MB of coordinates, and
  // unmapping them cost a site build a TLB shootdown per change.
  if (std::min(start, static_cast<std::int64_t>(m) * static_cast<std::int64_t>(n)) > kHugeCall)
    diff.onHuge();
  diff.compose();
  *used += start - std::max<std::int64_t>(left, 0);

  Unmark unmark{a, b, changed_a, changed_b};
  diff.storeSES<Unmark, UnmarkCommon>(unmark);
  return left >= 0;
}

// Finds a short edit script of two id sequences within a budget of dtl steps. A region whose
// search surely fits its share goes to dtl whole. A larger one gets dtl with three quarters
// of its share; when that runs out, the region is cut at patience anchors (lines unique on
// both sides, in the longest run increasing on both), or into even slices when it has none,
// and each part, less its lines absent from the other side of that part, is solved the same
// way with its share of what is left. The shorter of the two scripts is kept.
class Searcher {
 public:
  Searcher(std::size_t ids, std::size_t slice) : ids_(ids), slice_(slice) {}

  // Marks what changes between a[0,m) and b[0,n), whose marks start at 0. False when some
  // search ran out of budget, so that the script may be longer than the shortest.
  bool solve(const Id* a, std::size_t m, const Id* b, std::size_t n, std::uint8_t* changed_a,
             std::uint8_t* changed_b, std::int64_t share, int depth = 0) {
    while (m > 0 && n > 0 && a[0] == b[0]) ++a, ++b, ++changed_a, ++changed_b, --m, --n;
    while (m > 0 && n > 0 && a[m - 1] == b[n - 1]) --m, --n;
    std::fill(changed_a, changed_a + m, 1);
    std::fill(changed_b, changed_b + n, 1);
    if (m == 0 || n == 0) return true;
    if (depth == 0) {
      // The caller has dropped the lines absent from the other text.
      std::fill(changed_a, changed_a + m, 0);
      std::fill(changed_b, changed_b + n, 0);
      return solve_shared(a, m, b, n, changed_a, changed_b, share, depth);
    }

    // A line absent from the other side of this region is changed; the rest is solved.
    if (count_a_.empty()) count_a_.assign(ids_, 0), count_b_.assign(ids_, 0);
    for (std::size_t i = 0; i < m; ++i) ++count_a_[a[i]];
    for (std::size_t j = 0; j < n; ++j) ++count_b_[b[j]];
    std::vector<Id> ra, rb;
    std::vector<std::size_t> wa, wb;
    for (std::size_t i = 0; i < m; ++i)
      if (count_b_[a[i]] > 0) ra.push_back(a[i]), wa.push_back(i);
    for (std::size_t j = 0; j < n; ++j)
      if (count_a_[b[j]] > 0) rb.push_back(b[j]), wb.push_back(j);
    for (std::size_t i = 0; i < m; ++i) count_a_[a[i]] = 0;
    for (std::size_t j = 0; j < n; ++j) count_b_[b[j]] = 0;
    if (ra.empty() || rb.empty()) return true;

    Marks ca(ra.size(), 0), cb(rb.size(), 0);
    const bool exact = solve_shared(ra.data(), ra.size(), rb.data(), rb.size(), ca.data(),
                                    cb.data(), share, depth);
    for (std::size_t i = 0; i < ra.size(); ++i) changed_a[wa[i]] = ca[i];
    for (std::size_t j = 0; j < rb.size(); ++j) changed_b[wb[j]] = cb[j];
    return exact;
  }

 private:
  // How many times a region may be cut into smaller ones.
  static constexpr int kMaxDepth = 8;
  // A region of at most this many cells (lines times lines) is searched whole, whatever its
  // share of the budget.
  static constexpr std::int64_t kSmallRegion = 64 * 64;

  // Where a region is cut: before a[i] and b[j]; an anchor is a matched pair, skipped.
  struct Cut {
    std::size_t i, j;
    bool anchor;
  };

  // solve() for sequences whose every line occurs on the other side.
  bool solve_shared(const Id* a, std::size_t m, const Id* b, std::size_t n, std::uint8_t* ca,
                    std::uint8_t* cb, std::int64_t share, int depth) {
    // dtl's O(NP) search takes at most about m*n steps.
    const std::int64_t sure = std::max(share, kSmallRegion);
    if (static_cast<std::int64_t>(m) <= sure / static_cast<std::int64_t>(n) || depth >= kMaxDepth)
      return search(a, m, b, n, ca, cb, sure, &used_);
    // Where to cut if the search runs out; a region that cannot be cut gets all its share.
    std::vector<Cut> cuts;
    for (const auto& [i, j] : patience_anchors(a, m, b, n)) cuts.push_back(Cut{i, j, true});
    const std::size_t slices = cuts.empty() ? std::max(m, n) / slice_ : 0;
    for (std::size_t k = 1; k < slices; ++k)
      cuts.push_back(Cut{m * k / slices, n * k / slices, false});
    if (cuts.empty()) return search(a, m, b, n, ca, cb, share, &used_);
    const std::int64_t start = used_;
    if (search(a, m, b, n, ca, cb, share / 4 * 3, &used_)) return true;

    const double left = static_cast<double>(std::max<std::int64_t>(share - (used_ - start), 0));
    Marks pa(m, 0), pb(n, 0);
    std::size_t i0 = 0, j0 = 0;
    for (std::size_t k = 0; k <= cuts.size(); ++k) {
      const Cut cut = k < cuts.size() ? cuts[k] : Cut{m, n, false};
      const double part = static_cast<double>(cut.i - i0 + cut.j - j0) / static_cast<double>(m + n);
      solve(a + i0, cut.i - i0, b + j0, cut.j - j0, pa.data() + i0, pb.data() + j0,
            static_cast<std::int64_t>(left * part), depth + 1);
      i0 = cut.i + cut.anchor;
      j0 = cut.j + cut.anchor;
    }
    if (std::count(pa.begin(), pa.end(), 1) + std::count(pb.begin(), pb.end(), 1) <
        std::count(ca, ca + m, 1) + std::count(cb, cb + n, 1)) {
      std::copy(pa.begin(), pa.end(), ca);
      std::copy(pb.begin(), pb.end(), cb);
    }
    return false;
  }

  // Lines unique on both sides, paired, in the longest run increasing on both sides.
  std::vector<std::pair<std::size_t, std::size_t>> patience_anchors(const Id* a, std::size_t m,
                                                                    const Id* b, std::size_t n) {
    if (count_a_.empty()) count_a_.assign(ids_, 0), count_b_.assign(ids_, 0);
    if (where_b_.empty()) where_b_.assign(ids_, 0);
    for (std::size_t i = 0; i < m; ++i) ++count_a_[a[i]];
    for (std::size_t j = 0; j < n; ++j) ++count_b_[b[j]], where_b_[b[j]] = static_cast<Id>(j);
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < m; ++i)
      if (count_a_[a[i]] == 1 && count_b_[a[i]] == 1) pairs.emplace_back(i, where_b_[a[i]]);
    for (std::size_t i = 0; i < m; ++i) count_a_[a[i]] = 0;
    for (std::size_t j = 0; j < n; ++j) count_b_[b[j]] = 0;

    // Longest increasing subsequence of the b positions, with back links.
    std::vector<std::size_t> tails;  // per length, the pair ending the best run so far
    std::vector<std::size_t> back(pairs.size(), pairs.size());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      auto pos =
          std::lower_bound(tails.begin(), tails.end(), pairs[k].second,
                           [&](std::size_t t, std::size_t j) { return pairs[t].second < j; });
      if (pos != tails.begin()) back[k] = *(pos - 1);
      if (pos == tails.end())
        tails.push_back(k);
      else
        *pos = k;
    }
    std::vector<std::pair<std::size_t, std::size_t>> anchors;
    for (std::size_t k = tails.empty() ? pairs.size() : tails.back(); k < pairs.size(); k = back[k])
      anchors.push_back(pairs[k]);
    std::reverse(anchors.begin(), anchors.end());
    return anchors;
  }

  std::size_t ids_;
  std::size_t slice_;
  std::int64_t used_ = 0;
  // Per id, zero between uses, made when first needed: occurrences in a region's two sides,
  // a position in b.
  std::vector<Id> count_a_, count_b_, where_b_;
};

// xdiff's xdl_bogosqrt: a power of two near the square root.
std::size_t bogosqrt(std::size_t n) {
  std::size_t i = 1;
  for (; n > 0; n >>= 2) i <<= 1;
  return i;
}

// What xdiff's xdl_cleanup_records decides for one side: 0 for a line absent from the other
// text, 2 for one that occurs there often, 1 otherwise.
enum : std::uint8_t { kNoMatch = 0, kMatch = 1, kManyMatches = 2 };

// xdiff's xdl_clean_mmatch: drop a line with many matches when it sits in a run of lines
// without a match or with many, and the lines without a match dominate that run.
bool drop_many_matches(const Marks& kind, std::size_t i) {
  const std::size_t s = i > kSimScanWindow ? i - kSimScanWindow : 0;
  const std::size_t e = std::min(kind.size() - 1, i + kSimScanWindow);
  std::size_t no_before = 0, many_before = 1;
  for (std::size_t r = i; r-- > s;) {
    if (kind[r] == kNoMatch)
      ++no_before;
    else if (kind[r] == kManyMatches)
      ++many_before;
    else
      break;
  }
  if (no_before == 0) return false;
  std::size_t no_after = 0, many_after = 1;
  for (std::size_t r = i + 1; r <= e; ++r) {
    if (kind[r] == kNoMatch)
      ++no_after;
    else if (kind[r] == kManyMatches)
      ++many_after;
    else
      break;
  }
  if (no_after == 0) return false;
  const std::size_t many = many_before + many_after, none = no_before + no_after;
  return many * kKeepDiscardRun < many + none;
}

// A run of changed lines: old [i1, i2) replaced by new [j1, j2).
struct Change {
  std::size_t i1, i2, j1, j2;
};

DiffLine make_line(LineKind kind, std::string_view full) {
  DiffLine line;
  line.kind = kind;
  line.no_newline = full.back() != '\n';
  line.text = line.no_newline ? full : full.substr(0, full.size() - 1);
  return line;
}

std::vector<Hunk> build_hunks(const std::vector<std::string_view>& old_lines,
                              const std::vector<std::string_view>& new_lines,
                              const Marks& changed_old, const Marks& changed_new,
                              std::size_t context) {
  const std::size_t m = old_lines.size(), n = new_lines.size();
  std::vector<Change> changes;
  for (std::size_t i = 0, j = 0; i < m || j < n;) {
    if ((i < m && changed_old[i]) || (j < n && changed_new[j])) {
      Change c{i, i, j, j};
      while (c.i2 < m && changed_old[c.i2]) ++c.i2;
      while (c.j2 < n && changed_new[c.j2]) ++c.j2;
      changes.push_back(c);
      i = c.i2;
      j = c.j2;
    } else {
      ++i, ++j;
    }
  }

  std::vector<Hunk> hunks;
  for (std::size_t k = 0; k < changes.size();) {
    // Changes whose context would touch or overlap share a hunk.
    std::size_t last = k;
    while (last + 1 < changes.size() && changes[last + 1].i1 - changes[last].i2 <= 2 * context)
      ++last;
    const Change& first = changes[k];
    const Change& end = changes[last];
    // Unchanged lines pair up one to one, so the context is as long on both sides.
    const std::size_t before = std::min(context, first.i1 - (k > 0 ? changes[k - 1].i2 : 0));
    const std::size_t after = std::min(context, m - end.i2);
    const std::size_t old_begin = first.i1 - before, new_begin = first.j1 - before;
    Hunk hunk;
    hunk.old_count = end.i2 + after - old_begin;
    hunk.new_count = end.j2 + after - new_begin;
    // As GNU diff and git: an empty side names the line before it.
    hunk.old_start = hunk.old_count == 0 ? old_begin : old_begin + 1;
    hunk.new_start = hunk.new_count == 0 ? new_begin : new_begin + 1;
    reserve_large(hunk.lines, hunk.old_count + hunk.new_count);
    std::size_t i = old_begin;
    for (std::size_t c = k; c <= last; ++c) {
      for (; i < changes[c].i1; ++i)
        hunk.lines.push_back(make_line(LineKind::context, old_lines[i]));
      for (std::size_t r = changes[c].i1; r < changes[c].i2; ++r)
        hunk.lines.push_back(make_line(LineKind::removed, old_lines[r]));
      for (std::size_t a = changes[c].j1; a < changes[c].j2; ++a)
        hunk.lines.push_back(make_line(LineKind::added, new_lines[a]));
      i = changes[c].i2;
    }
    for (; i < end.i2 + after; ++i)
      hunk.lines.push_back(make_line(LineKind::context, old_lines[i]));
    hunks.push_back(std::move(hunk));
    k = last + 1;
  }
  return hunks;
}

}  // namespace

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines = split_with_ends(text);
  for (auto& line : lines)
    if (line.back() == '\n') line.remove_suffix(1);
  return lines;
}

LineDiff diff_lines(std::string_view old_text, std::string_view new_text,
                    const DiffOptions& options) {
  LineDiff result;
  const std::vector<std::string_view> old_lines = split_with_ends(old_text);
  const std::vector<std::string_view> new_lines = split_with_ends(new_text);
  const std::size_t m = old_lines.size(), n = new_lines.size();

  std::size_t prefix = 0;
  while (prefix < m && prefix < n && old_lines[prefix] == new_lines[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < m - prefix && suffix < n - prefix &&
         old_lines[m - 1 - suffix] == new_lines[n - 1 - suffix])
    ++suffix;
  if (prefix == m && prefix == n) return result;

  // Intern the middle; count each line over the whole of each text, as xdiff does.
  const std::size_t mid_m = m - prefix - suffix, mid_n = n - prefix - suffix;
  LineTable table(mid_m + mid_n);
  std::vector<Id> ids_old(mid_m), ids_new(mid_n);
  for (std::size_t i = 0; i < mid_m; ++i) ids_old[i] = table.intern(old_lines[prefix + i]);
  for (std::size_t j = 0; j < mid_n; ++j) ids_new[j] = table.intern(new_lines[prefix + j]);
  std::vector<std::uint32_t> count_old(table.size(), 0), count_new(table.size(), 0);
  for (Id id : ids_old) ++count_old[id];
  for (Id id : ids_new) ++count_new[id];
  // Only a line as long as some middle line can be in the table: the lengths sift out most of
  // a long common prefix and suffix without hashing them.
  std::vector<bool> middle_length(4096, false);
  auto length_slot = [](std::string_view line) { return line.size() & 4095; };
  for (std::size_t i = 0; i < mid_m; ++i) middle_length[length_slot(old_lines[prefix + i])] = true;
  for (std::size_t j = 0; j < mid_n; ++j) middle_length[length_slot(new_lines[prefix + j])] = true;
  auto count_ends = [&](std::string_view line) {
    if (!middle_length[length_slot(line)]) return;
    if (const Id id = table.find(line); id != LineTable::kNone) ++count_old[id], ++count_new[id];
  };
  for (std::size_t i = 0; i < prefix; ++i) count_ends(old_lines[i]);
  for (std::size_t i = m - suffix; i < m; ++i) count_ends(old_lines[i]);

  // What xdiff drops before its search is changed; the rest is searched.
  Marks changed_old(m, 0), changed_new(n, 0);
  auto reduce = [&](const std::vector<Id>& ids, const std::vector<std::uint32_t>& other_count,
                    std::size_t lines, Marks& changed, std::vector<Id>& kept,
                    std::vector<std::size_t>& where) {
    const std::size_t many = std::min(bogosqrt(lines), kMaxEqLimit);
    Marks kind(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::uint32_t c = other_count[ids[i]];
      kind[i] = c == 0 ? kNoMatch : c >= many ? kManyMatches : kMatch;
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (kind[i] == kMatch || (kind[i] == kManyMatches && !drop_many_matches(kind, i))) {
        kept.push_back(ids[i]);
        where.push_back(prefix + i);
      } else {
        changed[prefix + i] = 1;
      }
    }
  };
  std::vector<Id> kept_old, kept_new;
  std::vector<std::size_t> where_old, where_new;
  reduce(ids_old, count_new, m, changed_old, kept_old, where_old);
  reduce(ids_new, count_old, n, changed_new, kept_new, where_new);

  const auto steps_per_line =
      static_cast<std::int64_t>(std::min<std::size_t>(options.max_edit_cost, std::size_t{1} << 20));
  const auto searched = static_cast<std::int64_t>(kept_old.size() + kept_new.size());
  // Slices short enough that a search of random-like lines fits their share.
  const std::size_t slice = std::clamp<std::size_t>(2 * options.max_edit_cost, 32, 4096);
  Searcher searcher(table.size(), slice);
  Marks searched_old(kept_old.size(), 0), searched_new(kept_new.size(), 0);
  result.approximate = !searcher.solve(kept_old.data(), kept_old.size(), kept_new.data(),
                                       kept_new.size(), searched_old.data(), searched_new.data(),
                                       kBudgetFloor + steps_per_line * searched);
  for (std::size_t i = 0; i < kept_old.size(); ++i)
    if (searched_old[i]) changed_old[where_old[i]] = 1;
  for (std::size_t j = 0; j < kept_new.size(); ++j)
    if (searched_new[j]) changed_new[where_new[j]] = 1;

  result.removed = count_marked(changed_old);
  result.added = count_marked(changed_new);
  result.hunks = build_hunks(old_lines, new_lines, changed_old, changed_new, options.context);
  return result;
}

}  // namespace feeddiff
