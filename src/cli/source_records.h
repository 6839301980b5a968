#pragma once
// A per-source cache of one record per commit of the source, oldest first, appended to as
// versions are recorded: what lets a command that reads every version of a source (history,
// the site's item pages, log NAME) read from git only the versions recorded since it last
// ran. The records live in .git/feeddiff/cache/<kind>/<source>; each names its commit, and a
// reader trusts them only up to the first that does not name the source's commit at its
// place (a reset or a sync rewrote the history there, or a crash cut the line).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/store.h"

namespace feeddiff::cli {

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

}  // namespace feeddiff::cli
