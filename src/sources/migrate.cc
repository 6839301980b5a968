// migrate: every source's raw files moved to the other layout of raw/ in one commit.

#include <fmt/format.h>

#include <set>
#include <utility>

#include "feeddiff/core.h"
#include "feeddiff/sources.h"

namespace feeddiff {

namespace {

// The moves of every source's files that are not in layout `to` yet (by blob id: nothing is
// read or stored again), added to request; the sources moved.
Result<std::set<std::string>> add_moves(const Archive& archive, const std::string& commit,
                                        Layout to, CommitRequest& request) {
  auto files = archive.files_under(commit, "raw/");
  if (!files) return files.error();
  std::set<std::string> moved;
  for (const PathChange& file : *files) {
    const auto owner = source_of_raw_path(file.path);
    if (!owner) continue;  // not a source's (a hand-made file): left where it is
    const std::string to_path = source_dir(*owner, to) + file.path.substr(file.path.rfind('/') + 1);
    if (to_path == file.path) continue;
    request.files.push_back({to_path, std::nullopt, file.new_blob});
    request.files.push_back({file.path, std::nullopt});
    moved.emplace(*owner);
  }
  return moved;
}

// HEAD's commit and its feeddiff.toml, refused while the work tree's copy has edits not
// committed.
Result<std::pair<std::string, std::string>> head_config(const Archive& archive) {
  // The committed file is edited, not the work tree's: an edit not committed yet would
  // otherwise be committed under this commit's title (and checking the file out would lose
  // it), so it is refused.
  auto dirty = archive.uncommitted("feeddiff.toml");
  if (!dirty) return dirty.error();
  if (*dirty)
    return Error{Errc::conflict,
                 "feeddiff.toml has edits not committed; commit or discard them, then migrate"};
  auto head = archive.resolve("HEAD");
  if (!head) return head.error();
  auto text = archive.read(head->id, "feeddiff.toml");
  if (!text) return text.error();
  if (!*text) return Error{Errc::not_an_archive, "HEAD has no feeddiff.toml"};
  return std::pair{head->id, std::move(**text)};
}

}  // namespace

Result<MigrateReport> migrate_layout(Archive& archive, const ArchiveLock&, Layout to,
                                     const CommitClock& clock) {
  auto head = head_config(archive);
  if (!head) return head.error();
  const auto& [commit, text] = *head;
  auto config = parse_config(text);
  if (!config) return config.error();
  CommitRequest request;
  auto moved = add_moves(archive, commit, to, request);
  if (!moved) return moved.error();
  MigrateReport report;
  report.moved = moved->size();
  if (moved->empty() && config->layout == to) return report;
  if (config->layout != to) {
    auto edited = set_layout(text, to);
    if (!edited) return edited.error();
    request.files.push_back({"feeddiff.toml", std::move(*edited)});
  }
  auto now = clock();
  if (!now) return now.error();
  request.author_time = request.commit_time = *now;
  // No Source trailer: the commit records no response. Layout marks it for readers that list
  // changes (`site` makes no page of it).
  request.message = fmt::format("migrate: raw/ to the {} layout\n\nLayout: {}\n",
                                to == Layout::fanout ? "fan-out" : "flat", layout_name(to));
  auto committed = archive.commit(request);
  if (!committed) return committed.error();
  if (!*committed) return report;
  report.changed = true;
  report.commit = **committed;
  return report;
}

}  // namespace feeddiff
