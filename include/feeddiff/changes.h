#pragma once
// changes: what the archive recorded, gathered for the commands that show it. One change
// loaded with its bodies, diff and item summary (show, diff, notify, the site); the versions
// of a source (which items it ever showed, which bodies it held); the life of a source's
// items through its versions (history, the site's item pages); the per-source record caches
// that let those read only what was recorded since; and the class of a change (log, the
// site). Nothing here prints: the commands render what these return.

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "feeddiff/diff.h"
#include "feeddiff/message.h"
#include "feeddiff/render.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

// ---- Object ids in 20 bytes rather than a 72-byte hex string: what a caller keeps one of
// per version of a whole history (the site's lists, the versions of a source).

/// A SHA-1 object id, as bytes.
using Oid = std::array<unsigned char, 20>;

/// Each byte's value as a lowercase hex digit, 0x10 for any other byte.
inline constexpr std::array<unsigned char, 256> kHexDigitValue = [] {
  std::array<unsigned char, 256> table{};
  table.fill(0x10);
  for (int c = '0'; c <= '9'; ++c)
    table[static_cast<std::size_t>(c)] = static_cast<unsigned char>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c)
    table[static_cast<std::size_t>(c)] = static_cast<unsigned char>(c - 'a' + 10);
  return table;
}();

/// Decodes the 2n lowercase hex digits at hex into n bytes at out; false when any other byte
/// is among them (out is then garbage).
inline bool decode_hex(const char* hex, unsigned char* out, std::size_t n) {
  // By table, the check once at the end: show HEAD decodes a source's every version id and
  // key (3,000 at 1M changes), and a branch per digit cost 150 ns an id.
  unsigned bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned high = kHexDigitValue[static_cast<unsigned char>(hex[2 * i])];
    const unsigned low = kHexDigitValue[static_cast<unsigned char>(hex[2 * i + 1])];
    bad |= high | low;
    out[i] = static_cast<unsigned char>(high << 4 | low);
  }
  return (bad & 0x10) == 0;
}

/// The id that 40 lowercase hex digits spell; nullopt for anything else.
inline std::optional<Oid> parse_oid(std::string_view hex) {
  Oid out{};
  if (hex.size() != 2 * out.size() || !decode_hex(hex.data(), out.data(), out.size()))
    return std::nullopt;
  return out;
}

/// The id of 40 hex digits the caller has checked (all zeros for anything else).
inline Oid to_oid(std::string_view hex) {
  return parse_oid(hex).value_or(Oid{});
}

/// The 40 lowercase hex digits of an id.
inline std::string to_hex(const Oid& oid) {
  return hex_encode(oid.data(), oid.size());
}

/// Hashes an id for unordered containers: its first bytes are already uniform.
struct OidHash {
  /// The id's first eight bytes.
  std::size_t operator()(const Oid& oid) const noexcept {
    std::size_t h;
    std::memcpy(&h, oid.data(), sizeof h);
    return h;
  }
};

// ---- What earlier versions of a source held: which item ids it has ever shown, and each
// version's raw blob. An item diff knows two versions only; this is what lets a page say
// that an added item reappeared, or that a version reverted to an earlier one.

/// The key an item id is remembered by: the first 16 bytes of its SHA-1. Two ids of one
/// source share a key only through a search of about 2^64 hashes, so no feed can make an
/// added item read as reappeared by choosing its ids (64 bits took about 2^32).
struct ItemIdKey {
  std::uint64_t high = 0;  ///< bytes 0-7 of the SHA-1, big-endian
  std::uint64_t low = 0;   ///< bytes 8-15
  /// Same key.
  bool operator==(const ItemIdKey&) const = default;
  /// Ordered as the hex is, for the cache's lines.
  auto operator<=>(const ItemIdKey&) const = default;
};

/// Hashes an ItemIdKey (its bits are a SHA-1's already).
struct ItemIdKeyHash {
  /// The high half.
  std::size_t operator()(const ItemIdKey& key) const noexcept {
    return static_cast<std::size_t>(key.high);
  }
};

/// The versions of one source, oldest first, as its commits in the source index list them,
/// with what the cache `.git/feeddiff/cache/versions/` knows of them. Reading an id of
/// version k means normalizing its body, once: the cache keeps, per version, its commit,
/// its raw blob and the ids it showed first, so a later call parses only versions recorded
/// since. A cache that no longer fits the history (rewritten, or another source's) is
/// dropped and rebuilt.
class SourceVersions {
 public:
  /// The source's commits from the index, and the cache; parses nothing yet.
  static Result<SourceVersions> load(const Archive& archive, const std::string& source);

  /// The position of a commit among the source's versions (0: the first), nullopt when it
  /// is not one of them.
  std::optional<std::size_t> ordinal(const std::string& commit) const;
  /// The commit of the version at ordinal (0: the first), "" past the last: the site's
  /// memento links name a change's earlier versions with it.
  std::string commit_at(std::size_t ordinal) const;
  /// Reads versions [known, n) that the cache lacks (n at most the count of versions), then
  /// writes the cache when it learnt something. Versions that do not parse show no ids.
  void learn(std::size_t n);
  /// Whether a version before `ordinal` showed the id (learn(ordinal) first).
  bool seen_before(const std::string& id, std::size_t ordinal) const;
  /// The newest version before ordinal - 1 whose raw blob is `blob`: the commit id a version
  /// byte-identical to an older one (not its parent) reverted to (learn(ordinal) first).
  /// The first question looks back along the versions; later ones use an index of the
  /// blobs, built then (show and notify ask one question, site one per version).
  std::optional<std::string> reverted_to(const std::string& blob, std::size_t ordinal);
  /// Writes the cache when this object learnt versions it does not hold yet (learn() writes
  /// it only as the versions known double, or on reaching the newest): call it before
  /// dropping an object that a later one, loaded from the cache, is to continue.
  void save();
  /// Reads through this archive from now on (the same repository, opened again).
  void use(const Archive& archive) { archive_ = &archive; }
  /// The source whose versions these are.
  const std::string& source() const { return source_; }
  /// Versions parsed by learn() in this process (for measuring).
  std::size_t parsed() const { return parsed_; }

 private:
  SourceVersions(const Archive& archive, std::string source)
      : archive_(&archive), source_(std::move(source)) {}
  void index_blobs();  // last_with_blob_ and previous_same_ up to the versions known
  // Ids in 20 bytes: `site` keeps one of these per source for a whole run.
  const Archive* archive_;
  std::string source_;
  std::vector<Oid> commits_;  // oldest first
  std::vector<Oid> blobs_;    // of versions [0, known): the raw blob, all zeros for none
  // Item ids by the first 16 bytes of their SHA-1 (ItemIdKey), not as strings: at 1M
  // changes that is still far less for site to hold. Every id the source ever showed is
  // here, as "reappeared" needs: as many as the history holds distinct ids, no more.
  std::unordered_map<ItemIdKey, std::uint32_t, ItemIdKeyHash> first_seen_;  // -> ordinal
  // Of versions [0, blobs_indexed_), once reverted_to was asked twice.
  std::unordered_map<Oid, std::uint32_t, OidHash> last_with_blob_;  // blob -> newest ordinal
  std::vector<std::uint32_t> previous_same_;  // per ordinal: the one before with its blob
  std::size_t blobs_indexed_ = 0;
  bool asked_ = false;       // reverted_to was asked once
  std::size_t written_ = 0;  // versions the cache held when last read or written
  // The keys first seen by versions [written_, known), one list per version: what save()
  // appends. The cache is rewritten whole only when it was missing, of another format, or
  // did not fit the history (rewrite_), so a save costs the versions learnt since the last.
  std::vector<std::vector<ItemIdKey>> pending_;
  bool rewrite_ = true;
  mutable std::size_t last_ordinal_ = ~std::size_t{0};  // ordinal()'s last answer
  std::size_t parsed_ = 0;
};

/// The name under .git/feeddiff/cache of a per-source value of this kind ("versions",
/// "history"): the source's name as hex (cut and hashed when long), as cache names allow.
std::string source_cache_name(std::string_view kind, std::string_view source);

// ---- A per-source cache of one record per commit of the source, oldest first, appended to
// as versions are recorded: what lets a command that reads every version of a source
// (history, the site's item pages, log NAME) read from git only the versions recorded since
// it last ran. The records live in .git/feeddiff/cache/<kind>/<source>; each names its
// commit, and a reader trusts them only up to the first that does not name the source's
// commit at its place (a reset or a sync rewrote the history there, or a crash cut the line).

/// The records of one source's commits that a cache holds, and those added since.
class SourceRecords {
 public:
  /// Reads the cache `kind` ("history", "log") of the source: the records, each a tag and
  /// the commit (its first two fields), that name the source's first commits in order
  /// (`commits`, oldest first). A cache written by another feeddiff version is not read.
  static SourceRecords load(const Archive& archive, std::string_view kind, std::string_view source,
                            const std::vector<std::string>& commits);

  /// The trusted records, oldest first: fields[0] the tag, fields[1] the commit.
  const std::vector<std::vector<std::string>>& records() const { return records_; }
  /// Trusts only the first n records (the caller found record n unusable).
  void keep(std::size_t n);
  /// Adds the record of the next commit (fields[1] must be it).
  void add(std::vector<std::string> fields);
  /// Writes what was added: appended when the file held only trusted records, else the file
  /// is written anew. Best effort, as every cache write.
  void save(const Archive& archive) const;

 private:
  SourceRecords(std::string name, std::string header)
      : name_(std::move(name)), header_(std::move(header)) {}
  std::string name_;    // the cache's name
  std::string header_;  // its first line, with the newline
  std::vector<std::vector<std::string>> records_;
  std::size_t on_disk_ = 0;  // records_[0, on_disk_) are the whole file
  bool whole_ = false;       // the file is exactly the header and records_[0, on_disk_)
};

// ---- One recorded change from the archive, gathered into what the renderers show.

/// A change and the bodies its diff views; keep it alive while the view is used.
struct LoadedChange {
  Blob old_body;              ///< the artifact before (empty when added)
  Blob new_body;              ///< the artifact at the commit (empty when deleted)
  std::string old_canonical;  ///< normalize(old_body), when it parsed and was asked for
  std::string new_canonical;  ///< normalize(new_body), when it parsed and was asked for
  CommitInfo commit;          ///< the commit
  ChangeView view;            ///< fields, headers and the line diff over the bodies above
};

/// A file at a commit on the forge, from the commit's page there (ChangeView::forge_url) and
/// the file's path: GitHub's, GitLab's or Codeberg's page of the file; nullopt for a URL
/// that is no commit page.
std::optional<std::string> forge_file_url(const std::string& commit_url, const std::string& path);

/// What load_change is to load: a commit, the source it is about, and how much of it.
struct ChangeRequest {
  std::string_view revision = {};  ///< the commit (anything Archive::resolve takes)
  std::string_view source = {};    ///< narrows the change to this source's file ("": the commit's)
  /// Diff the canonical documents instead of the raw bodies (falling back to the raw bodies
  /// when a version does not parse).
  bool normalized = false;
  /// False: only the commit's fields and headers are filled in; no body is read, nothing is
  /// diffed.
  bool compare = true;
  /// The versions of the change's source that an earlier call read, to be continued rather
  /// than read again (reappeared items, reverted_to); ignored when they are another source's.
  /// nullptr: they are read (see annotate_history).
  SourceVersions* known_versions = nullptr;
  /// The commit revision names, when the caller resolved it already (a site build reads each
  /// commit once, not twice); nullptr: resolved here.
  const CommitInfo* resolved = nullptr;
};

/// Loads the change a commit made to a source's raw artifact (or, when it touched no raw
/// file, to the first path it changed), as the request asks.
/// A feed's item summary is read from the archive's cache when it holds one for these two
/// blobs (and ignored fields); otherwise both versions are normalized and the summary is
/// cached for next time. Reappeared items and reverted_to are marked from the source's
/// versions (the request's known_versions when they are the source's).
Result<std::unique_ptr<LoadedChange>> load_change(const Archive& archive,
                                                  const ChangeRequest& request);

/// Fills in the raw line diff of a change whose bodies are set and, with feed, its item
/// summary (and, with normalized, the canonical line diff) as add_feed_summary does; the two
/// versions are normalized on threads of their own while the raw bodies are diffed.
void compare_bodies(LoadedChange& change, bool feed, bool normalized,
                    const std::vector<std::string>& ignore);

/// Fills in the item summary (and, with normalized, the canonical line diff) of a change
/// whose bodies and view are set; ignore names fields whose changes count as cosmetic.
void add_feed_summary(LoadedChange& change, bool normalized,
                      const std::vector<std::string>& ignore);

/// What a source's feeddiff.toml (at a commit) says of its item diffs.
struct FeedRules {
  std::vector<std::string> ignore;  ///< fields whose changes are cosmetic
  Insignificant insignificant;      ///< which changes are minor
};

/// The rules of a source as feeddiff.toml at that commit has them (none when it has no such
/// source or does not parse).
FeedRules feed_rules(const Archive& archive, const std::string& commit_id,
                     const std::string& source);

/// Whether feeddiff.toml at that commit names the source (false when it has no such file or
/// the file does not parse). Like feed_rules, answered from the cache once the file's version
/// has been read.
bool configures_source(const Archive& archive, const std::string& commit_id,
                       const std::string& source);

/// Marks an item diff of a source's version with what the earlier versions tell: added items
/// an earlier version held become reappeared, and a body byte-identical to an earlier version
/// (not the previous one) sets reverted_to. Without a SourceVersions, reads one and keeps it
/// for the next call about the same source (one source at a time: a process that goes through
/// many sources holds one source's versions, not every one's).
void annotate_history(const Archive& archive, const std::string& source,
                      const std::string& commit_id, const std::string& new_blob,
                      std::optional<ItemDiff>& items, std::optional<std::string>& reverted_to,
                      SourceVersions* versions = nullptr);

/// The item summary of a source's version at a commit and its reverted_to, from the cache
/// when it is there (else both versions are normalized and the summary cached); nullopt
/// when the commit did not change the source, or a version does not parse.
struct CommitItems {
  ItemDiff items;                          ///< the summary, reappeared items marked
  std::optional<std::string> reverted_to;  ///< see ChangeView::reverted_to
};
std::optional<CommitItems> load_items(const Archive& archive, const std::string& commit_id,
                                      const std::string& source, SourceVersions& versions);

/// The kinds of `--only added,changed`: comma-separated kind names (item_kind_name);
/// Errc::usage naming the known ones for an unknown word or an empty list.
Result<std::vector<ItemChange::Kind>> parse_only(std::string_view list);

/// The "Recorded headers" rows of a version's commit message, as the renderers take them.
std::vector<HeaderRow> recorded_rows(const CommitMessage& message);

// ---- One source's versions, oldest first, and its items followed through them: what
// `feeddiff history` and the site's item pages show.

/// A source's versions and the life of its items.
struct SourceHistory {
  std::vector<HistoryVersion> versions;  ///< oldest first (href left empty)
  std::vector<std::string> blobs;        ///< each version's blob id ("" when it was deleted)
  ItemTracker items;                     ///< every item's life, events indexed by version
  std::size_t parsed = 0;                ///< versions normalized (the others came from the cache)
};

/// Walks the commits of raw/<source>/ (from the source index), oldest first, and diffs each
/// version's items with the last readable version before it. Each diff comes from the
/// archive's item-summary cache when it holds one (poll and show write it), else both
/// versions are normalized (each at most once) and the summary is cached. The cache
/// history/<source> keeps what each version was (commit, time, blob, summary name), appended
/// to, so a later call reads from git only the versions recorded since; a record that no
/// longer names the source's commit at its place (a reset, a replay) ends what is trusted.
/// An empty history for a source that has no recorded change. With until, the history as it
/// stood then: the versions before the first one observed (Observed-At) after it; the later
/// ones are still read into the cache.
Result<SourceHistory> read_source_history(const Archive& archive, const std::string& source,
                                          std::optional<TimeMs> until = std::nullopt);

/// The id of an item whose link is `link`, looking in the newest version first, then older
/// ones; nullopt when no version has one.
Result<std::optional<std::string>> item_with_link(const Archive& archive,
                                                  const SourceHistory& history,
                                                  const std::string& link);

// ---- A source's changes as `log NAME` lists them, and what differs between two commits
// (`diff A B` without NAME).

/// Every change of a source, newest first, as archive.source_log(source, 0) lists them (each
/// with its title, times, the trailers log shows and the abbreviated id), read from the cache
/// log/<source>: one record per commit, so that a commit is read from git once, not on every
/// call, and what a call costs is what it prints. The short ids are checked against the
/// objects added since the last call (abbrev/<source>). A cache that no longer fits the
/// history is trusted up to where it does, as SourceRecords are.
Result<std::vector<CommitInfo>> source_changes(const Archive& archive, const std::string& source);

/// The change of source that was in force at moment: the newest of source_changes observed
/// at or before it. Observed is the Observed-At trailer (the poller's clock when the response
/// arrived), else the commit time; never Origin-Date, the server's claim. Answered from the
/// cache source_changes keeps (no history walk). Errc::not_found when the source has no
/// change recorded, or none observed by then (the message names the first one's time).
Result<CommitInfo> source_version_at(const Archive& archive, const std::string& source,
                                     TimeMs moment);

/// When a change was observed: its Observed-At trailer, else its commit time.
TimeMs observation_time(const CommitInfo& commit);

/// A source whose raw body differs between two commits: each side's blob id, "" where the
/// commit has none.
struct SourceDifference {
  std::string name;      ///< the source
  std::string old_blob;  ///< at the first commit
  std::string new_blob;  ///< at the second
};

/// The sources whose response.xml or response.json differ between two commits (either
/// layout; a source only moved between layouts does not differ), by name. Lists the two
/// commits' raw/ trees: the cost of the sources, not of the history between.
Result<std::vector<SourceDifference>> sources_between(const Archive& archive, const CommitInfo& a,
                                                      const CommitInfo& b);

/// The item summary of one source's difference (`1 added`, or why there is none: a side
/// without the source, a version that does not parse), under the rules of feeddiff.toml at
/// the second commit b; from the item-summary cache when it holds it, else computed and
/// cached.
std::string difference_summary(const Archive& archive, const CommitInfo& b,
                               const SourceDifference& d);

// ---- What kind of change a commit recorded (contract: the Change-Class, Item-Summary and
// Not-A-Feed trailers poll writes), as `log` and the site show it: read from the trailers,
// or, for a commit made before poll wrote them, from the item summary cache when it holds
// the change's summary. Never by normalizing: `log` lists thousands of commits, and what
// a listing costs must be what it prints.

/// A change's class and its one-line summary.
struct ChangeClass {
  /// first, items, minor, cosmetic, not-a-feed or restored (or what a newer feeddiff wrote).
  std::string name;
  /// The item summary (`3 added, 1 changed`, `cosmetic only: lastBuildDate`), or for a
  /// not-a-feed version why it is none; "" when there is nothing to say.
  std::string summary;
};

/// The class the commit's trailers record, nullopt when it has no Change-Class trailer.
std::optional<ChangeClass> class_from_trailers(const CommitInfo& commit);

/// Where the class of a source's version without trailers comes from: "first" for the
/// source's first version, else the name of its item summary in the cache (whether or not
/// the cache holds it yet); nullopt when the commit recorded no feed version of the source.
/// Costs a look at the commit's trees, so `log NAME` keeps it in its records.
std::optional<std::string> summary_key(const Archive& archive, const std::string& commit_id,
                                       const std::string& source);

/// The class of a commit: its trailers; else, for a commit that names a Source, from the
/// summary cache: through its "Summary-Key" (what `log NAME` records keep of summary_key)
/// when it has one, else by summary_key when `look` (a commit read from git, not a record)
/// and the cache holds any item summaries at all (an archive never summarized costs nothing).
std::optional<ChangeClass> change_class(const Archive& archive, const CommitInfo& commit,
                                        bool look = true);

/// The item cell of a change on the site: the summary as the site showed it, marked with the
/// class where the summary alone does not say it (minor, cosmetic, not a feed, restored).
/// items is the change's summary when it was computed.
std::string site_items_label(const CommitInfo& commit, const std::optional<ItemDiff>& items);

// ---- Backfill commits (docs/backfill.md): Change-Class backfill, under backfill/<source>/
// and never raw/: the publisher's archive, no feed version ----

/// Whether the commit records a walk of a publisher's archive rather than a feed version.
bool is_backfill_commit(const CommitInfo& commit);

/// What a backfill commit recorded: its pages (Backfill-Page trailers) and the items file at
/// the commit (count, oldest and newest dates). Errc::not_found for any other commit.
Result<BackfillView> load_backfill_change(const Archive& archive, std::string_view revision);

// ---- Article versions (docs/articles.md): commits of Change-Class article or
// article-uncertain, which change articles/<source>/... and never raw/ ----

/// Whether the commit records an article version rather than a feed's.
bool is_article_commit(const CommitInfo& commit);

/// The article version a commit recorded, with the last trusted text before it (its first
/// parent's article.txt): what `show` prints. Errc::not_found for any other commit.
Result<ArticleView> load_article_change(const Archive& archive, std::string_view revision);

/// The versions of the article an item of source links to, oldest first: the source's article
/// commits (from the source index) whose Item-Id is the item's.
Result<std::vector<HistoryArticle>> item_articles(const Archive& archive, std::string_view source,
                                                  std::string_view item_id);

/// A source's feed versions (newest first, as log NAME lists them) with its article versions
/// merged in by commit time, at most limit (0: all). The article commits (those that changed
/// articles/NAME/) come from the source index, as the feed versions do.
Result<std::vector<CommitInfo>> with_article_commits(const Archive& archive,
                                                     std::string_view source,
                                                     std::vector<CommitInfo> commits,
                                                     std::size_t limit);

// ---- What the commands look up before they show: a feed's bytes at a commit, the change a
// word names, an item named by id, link or title, the sources an export covers, and two
// versions compared.

/// A feed's bytes and what to call them in output.
struct FeedInput {
  std::string bytes;   ///< the raw body
  std::string label;   ///< the file name, or `<commit>:<path>`
  std::string commit;  ///< the commit it came from, "" for a file
  std::string source;  ///< the source it belongs to, "" for a file
};

/// A source as of a commit: the raw body at its response.xml or response.json in that
/// commit's tree, in the layout the commit keeps it in (a source moved between layouts, or
/// between XML and JSON, is found either way), whichever commit last changed it; nullopt
/// when the commit has no such file (the source was added later, or removed). With
/// last_response, the source's last response instead: raw/NAME/not-a-feed while that was no
/// feed (response.xml or .json then hold the last feed version).
Result<std::optional<FeedInput>> source_response_at(const Archive& archive,
                                                    const CommitInfo& commit,
                                                    std::string_view source,
                                                    bool last_response = false);

/// The feed a revision holds for source (or, with source empty, for the one source the
/// commit recorded): source_response_at, with an error that says what is missing.
Result<FeedInput> feed_input_at(const Archive& archive, std::string_view revision,
                                std::string_view source, bool last_response = false);

/// A commit and the source `show` is to show of it ("": the commit's own).
struct ShowTarget {
  std::string revision;  ///< anything Archive::resolve takes
  std::string source;    ///< "" for the commit's own change
};

/// What `show WORD` means: a revision when WORD resolves as one, else the source WORD (its
/// latest change); WORD both a revision and a source feeddiff.toml names is ambiguous, as in
/// git (Errc::usage), and a word that is neither is Errc::not_found.
Result<ShowTarget> resolve_show_word(const Archive& archive, const std::string& word);

/// The id of source's latest change at or before revision; Errc::not_found when it has none.
Result<std::string> source_change_at_or_before(const Archive& archive, const std::string& revision,
                                               const std::string& source);

/// The one item of a source's history that query names: its id exactly, else its link
/// exactly, else a piece of one of its titles (a whole title wins over pieces).
/// Errc::not_found when none matches, Errc::usage when several titles do.
Result<const ItemLife*> find_item(const Archive& archive, const SourceHistory& history,
                                  const std::string& source, const std::string& query);

/// The sources an export writes: names as given, each a configured source or one with
/// recorded changes (a removed source's history is still there to export; any other name is
/// a typo: Errc::not_found), or every configured source when names is empty.
Result<std::vector<std::string>> sources_to_export(const Archive& archive,
                                                   const std::vector<std::string>& names);

/// Two feeds compared as `diff` shows them: a is the before, b the after. When b came from
/// a commit, the page carries the fields and recorded headers of b's source's latest change
/// at or before that commit (archive must then be given); else it has none. The view's
/// title is `A -> B` by the inputs' labels.
Result<std::unique_ptr<LoadedChange>> compare_inputs(const Archive* archive, FeedInput a,
                                                     FeedInput b, bool normalized);

/// Source name as of commits a and b, whichever commits changed it: its body in each tree
/// (nothing where it is absent, labelled `<id>:(no NAME)`), compared as compare_inputs does;
/// Errc::not_found when neither commit has it.
Result<std::unique_ptr<LoadedChange>> compare_source(const Archive& archive, const CommitInfo& a,
                                                     const CommitInfo& b, const std::string& name,
                                                     bool normalized);

// ---- What `log` lists.

/// "2026-10-01 05:54": when a commit was observed (Observed-At, else its commit time), to the
/// minute, UTC.
std::string observed_minute(const CommitInfo& commit);

/// The commits `log` lists: with source, its feed versions (the newest limit, or all of its
/// cache with limit 0) and its article versions merged in; without, the branch's newest
/// limit commits (0: all).
Result<std::vector<CommitInfo>> change_log(const Archive& archive, const std::string& source,
                                           std::size_t limit);

/// A change as `log --format json` gives it; look as change_class takes it.
std::vector<LogEntry> log_entries(const Archive& archive, const std::vector<CommitInfo>& commits,
                                  bool look);

/// One line of `log --items`: an item change of a commit, or the commit's revert.
struct ItemLogLine {
  CommitInfo commit;   ///< the commit that made it
  std::string source;  ///< the commit's source
  std::string word;    ///< item_change_word, or "reverted"
  std::string title;   ///< the item's title (its id when untitled), or the id reverted to
  bool minor = false;  ///< a minor change (see Insignificant)
};

/// The item changes `log --items` lists, newest commit first and in page order within a
/// commit: one source's (source not empty) or every source's, at most limit lines (0: all).
/// Without source and with a limit, the history is read in growing batches until enough are
/// found, so a short listing reads a short stretch of it. Summaries come from the cache as
/// `show` keeps it; versions that were no feed, and article versions, have none.
Result<std::vector<ItemLogLine>> item_log(const Archive& archive, const std::string& source,
                                          std::size_t limit);

}  // namespace feeddiff
