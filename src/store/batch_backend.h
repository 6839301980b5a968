#pragma once
// The object database backend a batch of commits writes into (Archive::begin_batch): every
// object in memory until the batch's flush packs them. It does what libgit2's mempack does,
// and one thing more: a blob's bytes can be handed in shared (the poll's response body,
// moved rather than copied), and the compressing thread, the pack writer and the work tree
// read them in place. A cold poll of bench/poll's 500 feeds copied each body four times on
// its way to the pack (into the commit request, the mempack, the compressing thread's queue,
// and out again for the pack writer): 35 MB each, most of its 17,800 page faults.

#include <git2.h>
#include <git2/sys/odb_backend.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "store/git_handles.h"

namespace feeddiff::git {

/// An object's bytes, shared.
using SharedBytes = std::shared_ptr<const std::string>;

/// An object the batch holds.
struct BatchObject {
  git_object_t type = GIT_OBJECT_INVALID;  ///< blob, tree or commit
  SharedBytes bytes;                       ///< its content, without git's header
};

/// The batch's objects, readable by libgit2 through backend().
class BatchBackend {
 public:
  /// Makes one and adds it to odb at priority (the highest there: writes land here). The odb
  /// owns it: it lives until the odb is freed (or the repository that holds it).
  static BatchBackend* add_to(git_odb* odb, int priority);

  /// libgit2's view of it (its write() copies the bytes, as mempack's does).
  git_odb_backend* backend();
  /// Stores bytes under id without copying them; the id must be theirs.
  void put(const git_oid& id, git_object_t type, SharedBytes bytes);
  /// The object stored under id, if any.
  const BatchObject* find(const git_oid& id) const;
  /// Drops every object (after a flush has packed them).
  void reset();

 private:
  struct Backend;  // what libgit2 holds: its git_odb_backend first
  explicit BatchBackend(Backend* owner) : owner_(owner) {}
  friend struct Backend;

  Backend* owner_;
  std::unordered_map<git_oid, BatchObject, OidHash, OidEqual> objects_;
};

}  // namespace feeddiff::git
