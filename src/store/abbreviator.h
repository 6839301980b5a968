#pragma once
// Short ids as git_object_short_id makes them (the shortest prefix, at least core.abbrev or 7
// digits, that names no other object), but from the object database alone: that function
// needs the object read, and `log NAME` prints ids of commits it no longer reads.

#include <git2.h>

#include <cstddef>
#include <string>

#include "store/git_handles.h"

namespace feeddiff {

/// Abbreviates ids against one repository's objects; one per listing, so the config is read
/// once.
class Abbreviator {
 public:
  /// Reads core.abbrev and opens the object database of repo.
  explicit Abbreviator(git_repository* repo);
  /// The shortest prefix of id, at least least() digits, that names no other object.
  std::string operator()(const git_oid& id) const;
  /// The length of that prefix.
  std::size_t length(const git_oid& id) const;
  /// core.abbrev, or 7 when unset or out of range.
  std::size_t least() const { return least_; }

 private:
  std::size_t least_ = 7;
  git::OdbPtr odb_;
};

}  // namespace feeddiff
