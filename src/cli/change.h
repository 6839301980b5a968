#pragma once
// Gathers one recorded change from the archive into what the renderers show.

#include <memory>
#include <optional>
#include <string>

#include "cli/versions.h"
#include "feeddiff/message.h"
#include "feeddiff/render.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

/// A change and the bodies its diff views; keep it alive while the view is used.
struct LoadedChange {
  Blob old_body;              ///< the artifact before (empty when added)
  Blob new_body;              ///< the artifact at the commit (empty when deleted)
  std::string old_canonical;  ///< normalize(old_body), when it parsed and was asked for
  std::string new_canonical;  ///< normalize(new_body), when it parsed and was asked for
  CommitInfo commit;          ///< the commit
  ChangeView view;            ///< fields, headers and the line diff over the bodies above
};

/// Loads the change a commit made to a source's raw artifact (or, when it touched no raw
/// file, to the first path it changed). source narrows it to one source's file. With
/// normalized, the line diff compares the canonical documents instead of the raw bodies
/// (falling back to the raw bodies when a version does not parse). With compare false, only
/// the commit's fields and headers are filled in: no body is read, nothing is diffed.
/// A feed's item summary is read from the archive's cache when it holds one for these two
/// blobs (and ignored fields); otherwise both versions are normalized and the summary is
/// cached for next time. versions, when it is the source's, marks reappeared items and
/// reverted_to (else the versions are read: see annotate_history).
Result<std::unique_ptr<LoadedChange>> load_change(const Archive& archive, std::string_view revision,
                                                  std::string_view source, bool normalized = false,
                                                  bool compare = true,
                                                  SourceVersions* versions = nullptr);

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

/// The web page of a commit when the archive's origin is on GitHub, GitLab or Codeberg.
std::optional<std::string> forge_commit_url(const std::string& remote, const std::string& id);

}  // namespace feeddiff::cli
