#pragma once
// Gathers one recorded change from the archive into what the renderers show.

#include <memory>
#include <optional>
#include <string>

#include "feeddiff/message.h"
#include "feeddiff/render.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

/// A change and the bodies its diff views; keep it alive while the view is used.
struct LoadedChange {
  std::string old_body;       ///< the artifact before (empty when added)
  std::string new_body;       ///< the artifact at the commit (empty when deleted)
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
/// cached for next time.
Result<std::unique_ptr<LoadedChange>> load_change(const Archive& archive, std::string_view revision,
                                                  std::string_view source, bool normalized = false,
                                                  bool compare = true);

/// Fills in the raw line diff of a change whose bodies are set and, with feed, its item
/// summary (and, with normalized, the canonical line diff) as add_feed_summary does; the two
/// versions are normalized on threads of their own while the raw bodies are diffed.
void compare_bodies(LoadedChange& change, bool feed, bool normalized,
                    const std::vector<std::string>& ignore);

/// Fills in the item summary (and, with normalized, the canonical line diff) of a change
/// whose bodies and view are set; ignore names fields whose changes count as cosmetic.
void add_feed_summary(LoadedChange& change, bool normalized,
                      const std::vector<std::string>& ignore);

/// The "Recorded headers" rows of a version's commit message, as the renderers take them.
std::vector<HeaderRow> recorded_rows(const CommitMessage& message);

/// The web page of a commit when the archive's origin is on GitHub, GitLab or Codeberg.
std::optional<std::string> forge_commit_url(const std::string& remote, const std::string& id);

}  // namespace feeddiff::cli
