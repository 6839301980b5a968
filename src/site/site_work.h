#pragma once
// The working files of one `site` run, in DIR/.feeddiff-site.work/: the commits to render and
// the rows rendered go to disk, not to memory, so that a first build over millions of
// changes holds one round of them at a time (see build.cc). Both files are the run's
// own: made empty when it starts, removed when it ends.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/result.h"

namespace feeddiff::site {

/// An open file of the run's, closed when destroyed.
using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

/// Commit ids appended newest first (as the branch is walked), read back oldest first.
class CommitSpool {
 public:
  /// A new, empty spool at path (an old file there is replaced); Errc::io when it cannot be
  /// made.
  static Result<CommitSpool> create(const std::string& path);

  /// Appends the next id (older than every one before it).
  Status push(const Oid& id);
  /// How many ids were pushed.
  std::size_t size() const { return size_; }
  /// The ids [begin, end) counted from the oldest (0), oldest first.
  Result<std::vector<Oid>> oldest(std::size_t begin, std::size_t end);
  /// Calls visit with every id, in no promised order, reading a block at a time.
  Status each(const std::function<void(const Oid&)>& visit);

 private:
  CommitSpool(std::string path, FilePtr file) : path_(std::move(path)), file_(std::move(file)) {}
  Status read_records(std::size_t first, std::size_t count, std::vector<Oid>& out);
  std::string path_;
  FilePtr file_;
  std::size_t size_ = 0;
};

/// Rows of text, one line each, put in any order and read back by where they were put.
class RowSpool {
 public:
  /// A new, empty spool at path; Errc::io when it cannot be made.
  static Result<RowSpool> create(const std::string& path);

  /// Appends a line (without its line end, which must not be in it); returns where it is.
  Result<std::uint64_t> put(std::string_view line);
  /// The line put at offset.
  Result<std::string> get(std::uint64_t offset);
  /// Forgets every line (the file is emptied); offsets given before mean nothing after.
  Status clear();

 private:
  RowSpool(std::string path, FilePtr file) : path_(std::move(path)), file_(std::move(file)) {}
  std::string path_;
  FilePtr file_;
  std::uint64_t end_ = 0;  // bytes put
  bool reading_ = false;   // the last call read (a write must seek to the end first)
};

}  // namespace feeddiff::site
