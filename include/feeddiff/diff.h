#pragma once
// diff: pure. Lines in, unified hunks out (dtl, with the common prefix and suffix trimmed
// and the worst case bounded); items in, an item-level summary out.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/normalize.h"

namespace feeddiff {

/// Which side a diff line belongs to.
enum class LineKind : char { context = ' ', added = '+', removed = '-' };

/// One line of a hunk. `text` views the input given to diff_lines, without its '\n'.
struct DiffLine {
  LineKind kind = LineKind::context;  ///< context, added or removed
  std::string_view text;              ///< the line, without its line end
  bool no_newline = false;            ///< the input's last line, with no '\n' after it
};

/// `@@ -old_start,old_count +new_start,new_count @@` and its lines.
struct Hunk {
  /// 1-based first line in the old text; when old_count is 0, the line after which the hunk
  /// goes (0: before the first line), as GNU diff and git print it.
  std::size_t old_start = 0;
  std::size_t old_count = 0;    ///< lines of the old text the hunk covers
  std::size_t new_start = 0;    ///< as old_start, in the new text
  std::size_t new_count = 0;    ///< lines of the new text the hunk covers
  std::vector<DiffLine> lines;  ///< context, removed and added lines in order
};

/// The hash diff's tables use for text that comes from feeds (item ids, field names, words,
/// lines): SipHash-1-3 under a key drawn at random once per process. libstdc++'s std::hash
/// has a fixed seed and admits collisions whatever the seed, so a feed could choose ids that
/// all collide and make matching quadratic. The tables are only looked up, never walked in
/// their order, so what diff returns does not depend on the key.
struct TextHash {
  using is_transparent = void;  ///< hashes std::string and std::string_view alike
  /// The hash of the bytes of `text`.
  std::size_t operator()(std::string_view text) const noexcept;
};

/// Knobs of the line diff.
struct DiffOptions {
  std::size_t context = 3;  ///< context lines around each change, as `diff -U3`
  /// Budget of the search for a shortest diff, in dtl steps (one line comparison each) per
  /// line left to search once the common prefix and suffix and the lines git sets aside
  /// (those absent from the other text, and very common lines among them) are gone. Within it
  /// the diff is as short as git's or shorter; past it, what is left is cut into smaller
  /// regions or reported as replaced, and `approximate` is set. This keeps any input's diff
  /// near linear time: the default keeps it within 1.5x the time of `git diff`.
  std::size_t max_edit_cost = 48;
};

/// A unified diff of two texts.
struct LineDiff {
  std::vector<Hunk> hunks;  ///< in order, with context
  std::size_t added = 0;    ///< lines added in the whole diff
  std::size_t removed = 0;  ///< lines removed in the whole diff
  /// The search ran out of max_edit_cost: the hunks are correct (they turn the old text into
  /// the new one) but may remove and add more lines than needed.
  bool approximate = false;
  /// True when the texts are equal.
  bool empty() const { return hunks.empty(); }
};

/// Splits at '\n'; each view keeps no line end. A final line without '\n' is kept; an empty
/// text has no lines.
std::vector<std::string_view> split_lines(std::string_view text);

/// Unified line diff of two texts. Lines compare with their line ends, so a last line that
/// lost its '\n' counts as changed, as git counts it; `added` and `removed` are what
/// `git diff --numstat` says, except where git's own search cuts a costly change short (ours
/// are then smaller) or `approximate` is set. The result views both inputs: keep them alive
/// while it is used.
LineDiff diff_lines(std::string_view old_text, std::string_view new_text,
                    const DiffOptions& options = {});

// ===========================================================================================
// Word diff: what a reader sees change inside a long text (an article's summary or content).
// ===========================================================================================

/// A stretch of a word diff: text both versions have, or only the new or only the old one.
struct WordRun {
  /// kept: in both texts; added: only in the new one; removed: only in the old one.
  enum class Kind { kept, added, removed };
  Kind kind = Kind::kept;  ///< see Kind
  std::string text;        ///< the stretch, as it is in its text
  /// In an excerpt (excerpt_words): characters (code points) of unchanged text left out just
  /// before this run; always 0 in a whole diff.
  std::size_t skipped = 0;
};

/// "kept", "added" or "removed", as the JSON page and the summary cache write a run's kind.
const char* word_kind_name(WordRun::Kind kind);

/// Bytes of each text that diff_words compares word by word once the beginning and the end
/// the two texts share are set aside (1 MiB). The search holds about 70 bytes for each byte
/// it compares (~150 MB and a second at this bound), so a longer change is compared this far
/// and the rest is reported as not compared (WordExcerpt::not_compared_chars).
inline constexpr std::size_t kMaxWordDiffBytes = std::size_t{1} << 20;

/// Word-level diff of two texts, in text order: kept and removed runs, concatenated, give
/// old_text; kept and added runs give new_text. Words are runs of letters and digits (any
/// non-ASCII character counts as a letter), every other character is a token of its own, and
/// whitespace runs are one token. Within one changed stretch the removed run comes first;
/// adjacent runs never share a kind. The search is the line diff's (diff_lines), so its time
/// stays near linear whatever the texts. When what differs (the texts less the beginning and
/// end they share) is longer than kMaxWordDiffBytes on either side, only its first
/// kMaxWordDiffBytes (about, cut between words) on each side are compared: the runs stop
/// there, and `*not_compared` (when given) is set to the characters (code points) of the two
/// texts after them, added together; it is 0 when the runs cover both texts.
std::vector<WordRun> diff_words(std::string_view old_text, std::string_view new_text,
                                std::size_t* not_compared = nullptr);

/// A word diff cut down for display: each change with a little unchanged text around it, at
/// most max_runs runs and about max_chars characters, and what was held back.
struct WordExcerpt {
  std::vector<WordRun> runs;      ///< shown runs; `skipped` says where unchanged text is left out
  std::size_t skipped_after = 0;  ///< characters of unchanged text left out after the last run
  std::size_t held_back_changes = 0;  ///< added and removed runs not shown at all
  /// Characters of added and removed text not shown: that of the runs held back, and the end
  /// of a changed run cut short (then the last shown run is that run's beginning).
  std::size_t held_back_chars = 0;
  /// Characters of the two texts (added together) that the word diff did not compare, as
  /// diff_words reports them: 0 unless what differs is longer than kMaxWordDiffBytes. The
  /// runs then stop where the comparison stopped.
  std::size_t not_compared_chars = 0;
};

/// The excerpt of a whole word diff (diff_words) that a page shows. Unchanged text keeps
/// `context` characters (about, cut at a space) next to each change, the rest is skipped.
WordExcerpt excerpt_words(const std::vector<WordRun>& runs, std::size_t max_runs = 40,
                          std::size_t max_chars = 600, std::size_t context = 40);

// ===========================================================================================
// Item diff: two feed models in, what happened to their items and channel fields out.
// ===========================================================================================

/// One changed field of a changed item, before and after.
struct FieldChange {
  std::string field;  ///< as in ItemChange::fields
  /// False for short fields (title, link, dates, authors, categories, enclosures, extra
  /// fields): old_value and new_value hold the values. True for long text (summary,
  /// content): `words` holds the excerpt of the word diff of their text with markup stripped
  /// (readable_text), and the values are empty.
  bool text = false;
  /// The value before and after, at most kMaxFieldValueChars characters each (`cut` says when
  /// one was cut); lists (authors, categories, a repeated extra field) are joined with ", ",
  /// an enclosure is written `URL (LENGTH bytes, TYPE)`, several joined with "; ".
  std::string old_value, new_value;
  bool cut = false;   ///< old_value or new_value was cut at kMaxFieldValueChars
  WordExcerpt words;  ///< for text fields: the word diff excerpt (no runs: the text reads the same)
};

/// Characters of a short field's value that an item summary keeps, before and after each.
inline constexpr std::size_t kMaxFieldValueChars = 300;

/// What happened to one item between two versions of a feed.
struct ItemChange {
  /// added: only in the new feed; removed: only in the old; changed: in both, some field
  /// differs (it may also have moved); moved: in both, equal, but its order relative to the
  /// other common items changed; reappeared: only in the new feed, but an earlier version of
  /// the source held it (diff_items never says so: it knows two versions only, and
  /// mark_reappeared turns an added item into it); duplicate: an extra occurrence of an id
  /// that its version already holds, which appeared (new_index set) or went (old_index set,
  /// the id itself stays).
  enum class Kind { added, removed, changed, moved, reappeared, duplicate };
  Kind kind = Kind::changed;  ///< see Kind
  std::string id;             ///< the item's identity (Item::id)
  std::string title;          ///< its title in the new feed (the old one when removed)
  /// For changed: the fields that differ, in Item order ("title", "link", "published",
  /// "updated", "authors", "categories", "summary", "content", "enclosures"), then the
  /// names of differing Item::extra fields in order of appearance.
  std::vector<std::string> fields;
  /// For changed: each field of `fields`, before and after, in the same order.
  std::vector<FieldChange> changes;
  bool moved = false;  ///< also moved (always true for Kind::moved)
  /// For removed: the item aged out of the feed's window (it fell off the end as newer items
  /// arrived) rather than being pulled while older items stay; see diff_items for the rule.
  bool aged_out = false;
  /// For changed: every changed field matched an `Insignificant` rule (or too few words
  /// changed); the change is kept and shown, marked minor.
  bool minor = false;
  std::size_t old_index = static_cast<std::size_t>(-1);  ///< position in the old feed, if any
  std::size_t new_index = static_cast<std::size_t>(-1);  ///< position in the new feed, if any
};

/// "added", "removed", "changed", "moved", "reappeared" or "duplicate": a kind as the JSON
/// page and the summary cache write it.
const char* item_kind_name(ItemChange::Kind kind);
/// The word the pages and `history` show for an item change: "aged out" for a removal that
/// aged out of the window, else item_kind_name.
const char* item_change_word(const ItemChange& change);
/// The kind item_kind_name names; nullopt for any other word.
std::optional<ItemChange::Kind> item_kind_from_name(std::string_view name);
/// Every kind, in the order the pages count them.
inline constexpr ItemChange::Kind kItemKinds[] = {
    ItemChange::Kind::added, ItemChange::Kind::removed,    ItemChange::Kind::changed,
    ItemChange::Kind::moved, ItemChange::Kind::reappeared, ItemChange::Kind::duplicate};

/// Rules under which a change counts as minor: it is still committed and shown, marked
/// minor, but hooks leave it alone (feeddiff.toml's `insignificant`).
struct Insignificant {
  bool whitespace = false;          ///< a field whose values differ in whitespace only
  bool punctuation = false;         ///< ... in punctuation and whitespace only
  std::vector<std::string> fields;  ///< item or channel fields whose changes are minor
  /// An item whose other changed fields change fewer words than this, all told (0: off).
  std::size_t min_words = 0;
  /// Whether any rule is set.
  bool any() const { return whitespace || punctuation || !fields.empty() || min_words > 0; }
};

/// The item-level summary of a change.
struct ItemDiff {
  /// Added, changed and moved items in new-feed order, then removed items in old-feed order.
  std::vector<ItemChange> items;
  /// Names of channel fields whose values differ (a name repeated in the feed compares as
  /// the list of its values), volatile ones included, in order of appearance.
  std::vector<std::string> channel_fields;
  /// Something changed, and nothing but volatile channel fields (lastBuildDate, generator,
  /// cache comments, ...) and fields named in `ignore`.
  bool cosmetic_only = false;
  /// True when nothing at all differs.
  bool empty() const { return items.empty() && channel_fields.empty() && !ignored_changes; }
  /// Changes that `ignore` left out of `items` (fields of items that are in both).
  bool ignored_changes = false;
  /// Not cosmetic only, but every change matched an `Insignificant` rule: changed items are
  /// all minor, channel fields volatile, ignored or insignificant, nothing added or removed.
  bool minor = false;
};

/// Compares two feed models item by item. Items match by identity; an identity repeated
/// within a feed matches occurrence by occurrence, and an occurrence left over beyond the
/// first is a duplicate, not an added or removed item. Moved items are the common items
/// outside one longest run that kept its relative order. `ignore` names item or channel
/// fields (e.g. "updated", "lastBuildDate", "itunes:duration") whose changes count as
/// cosmetic. Without `field_values`, ItemChange::changes stays empty: the word diffs are
/// skipped for callers that only need the kinds and field names (poll's cosmetic test).
/// `insignificant` marks changed items (and the whole diff) minor.
///
/// A feed's date (RFC 3339 as Atom, JSON Feed and dc:date write it, or RFC 822 as RSS
/// pubDate does) as milliseconds since 1970, UTC; nullopt for anything else. The reading
/// diff_items orders items by.
std::optional<TimeMs> feed_date(std::string_view text);

/// A removed item is aged out (ItemChange::aged_out) when every item older than it in its
/// run of the old feed is gone too: it fell off the end of the window, where an item pulled
/// while older ones stay is just removed. The old end is the last item (feeds list newest
/// first), the first when more dated neighbours rise than fall (old feed, else new; dates:
/// published, else updated, RFC 822 or RFC 3339). Read from that end, a dated item older
/// than the dated one before it starts another run: a feed of sections, each its own window,
/// ages out at the end of each. Newer items arrived, or some item stayed: a feed emptied,
/// nothing new in it, is removals, not a window moving on; a tail dropped with nothing new
/// (a window of days, not of items) is aging out. See docs/json.md.
ItemDiff diff_items(const Feed& old_feed, const Feed& new_feed,
                    const std::vector<std::string>& ignore = {}, bool field_values = true,
                    const Insignificant& insignificant = {});

/// A feed's date as seconds since 1970, read as diff_items reads them (for aged-out items):
/// RFC 3339 (a date alone too) or RFC 822 (the weekday optional, two-digit years, the US
/// zone names); nullopt for anything else.
std::optional<std::int64_t> parse_feed_date(std::string_view text);

/// The class of a change between two feed versions, as the Change-Class trailer and `log`
/// name it: "items" when an item was added, removed (aged out included), reappeared,
/// duplicated or changed other than minor; "cosmetic" when nothing but volatile or ignored
/// fields changed (or nothing at all); else "minor".
const char* item_diff_class(const ItemDiff& diff);

/// Turns each added item whose id `seen_before` says an earlier version held into
/// reappeared; true when it turned any.
template <typename SeenBefore>
bool mark_reappeared(ItemDiff& diff, const SeenBefore& seen_before) {
  bool any = false;
  for (ItemChange& c : diff.items)
    if (c.kind == ItemChange::Kind::added && seen_before(c.id)) {
      c.kind = ItemChange::Kind::reappeared;
      any = true;
    }
  return any;
}

/// An ItemDiff as text that decode_item_diff reads back, for caching summaries: a version
/// line, one record a line, an end line.
std::string encode_item_diff(const ItemDiff& diff);
/// The ItemDiff that encode_item_diff wrote; nullopt for anything else (another format
/// version, a file cut short, garbage).
std::optional<ItemDiff> decode_item_diff(std::string_view text);
/// The name (for Archive::cache_write) of the item summary of the change from one blob to
/// another (full hex ids, empty for none) with these ignored fields and insignificant rules:
/// it also names the summary's format and feeddiff's version, so that a newer feeddiff
/// recomputes.
std::string item_diff_cache_name(std::string_view old_blob, std::string_view new_blob,
                                 const std::vector<std::string>& ignore,
                                 const Insignificant& insignificant = {});

// ===========================================================================================
// Item history: a source's item diffs, oldest first, in; the life of each item out.
// ===========================================================================================

/// Something that happened to an item in one version of its source.
struct ItemEvent {
  /// first_seen: in the feed for the first time; changed: some field differs from the version
  /// before (it may also have moved); moved: equal, but reordered; removed: gone from the
  /// feed (change.aged_out: it aged out of the window, see diff_items); reappeared: in the
  /// feed again after it was removed.
  enum class Kind { first_seen, changed, moved, removed, reappeared };
  Kind kind = Kind::first_seen;  ///< see Kind
  std::size_t version = 0;       ///< the version it happened in, as ItemTracker::add numbers it
  /// The item change as diff_items gave it: the title (the old one when removed), for changed
  /// the fields with their before and after, moved, and the positions in the two feeds.
  ItemChange change;
};

/// "first_seen", "changed", "moved", "removed" or "reappeared", as JSON writes an event.
const char* item_event_name(ItemEvent::Kind kind);

/// One item's life across the versions of its source.
struct ItemLife {
  std::string id;                           ///< the item's identity (Item::id)
  std::string title;                        ///< its newest title
  std::vector<std::string> titles;          ///< every title it had, oldest first, each once
  std::vector<ItemEvent> events;            ///< what happened to it, oldest first
  std::size_t first_seen = 0;               ///< the version it was first seen in
  std::optional<std::size_t> last_changed;  ///< the version of its last edit, if any
  std::size_t edits = 0;                    ///< its changed events
  /// Times it is in the newest version: 0 once removed; more than 1 when its id is repeated
  /// in the feed (each occurrence is diffed on its own, as diff_items matches them).
  std::size_t occurrences = 0;
  /// Whether it is in the newest version.
  bool present() const { return occurrences > 0; }
};

/// Follows every item of a source through its versions: give it the item diff of each
/// version against the version before (the first against an empty feed, a deleted source's
/// as its feed against an empty one), oldest first. Pure; what it keeps grows with the
/// item changes, not with the versions.
class ItemTracker {
 public:
  /// Adds what happened in a version; version numbers must grow (a version that could not
  /// be read is skipped, and the next diff is against the last one that could).
  void add(std::size_t version, ItemDiff diff);
  /// Every item seen, in order of first appearance.
  const std::vector<ItemLife>& lives() const { return lives_; }
  /// The item with this id, or nullptr.
  const ItemLife* find(std::string_view id) const;
  /// The items one of whose titles holds needle, ASCII letters compared without case.
  std::vector<const ItemLife*> with_title(std::string_view needle) const;

 private:
  ItemLife& life_of(const ItemChange& change, std::size_t version);
  std::vector<ItemLife> lives_;
  std::map<std::string, std::size_t, std::less<>> index_;  // id -> its place in lives_
};

}  // namespace feeddiff
