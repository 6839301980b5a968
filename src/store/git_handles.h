#pragma once
// RAII wrappers for libgit2 handles, and the one place libgit2 errors become Errors.

#include <git2.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "feeddiff/result.h"

namespace feeddiff::git {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};

using RepositoryPtr = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using ObjectPtr = std::unique_ptr<git_object, Deleter<git_object, git_object_free>>;
using CommitPtr = std::unique_ptr<git_commit, Deleter<git_commit, git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using TreeEntryPtr = std::unique_ptr<git_tree_entry, Deleter<git_tree_entry, git_tree_entry_free>>;
using BlobPtr = std::unique_ptr<git_blob, Deleter<git_blob, git_blob_free>>;
using SignaturePtr = std::unique_ptr<git_signature, Deleter<git_signature, git_signature_free>>;
using RevwalkPtr = std::unique_ptr<git_revwalk, Deleter<git_revwalk, git_revwalk_free>>;
using DiffPtr = std::unique_ptr<git_diff, Deleter<git_diff, git_diff_free>>;
using ConfigPtr = std::unique_ptr<git_config, Deleter<git_config, git_config_free>>;
using IndexPtr = std::unique_ptr<git_index, Deleter<git_index, git_index_free>>;
using ReferencePtr = std::unique_ptr<git_reference, Deleter<git_reference, git_reference_free>>;
using OdbPtr = std::unique_ptr<git_odb, Deleter<git_odb, git_odb_free>>;
using OdbObjectPtr = std::unique_ptr<git_odb_object, Deleter<git_odb_object, git_odb_object_free>>;

/// An object id as a key of an unordered container: its first bytes, already a uniform hash.
struct OidHash {
  std::size_t operator()(const git_oid& id) const noexcept {
    std::size_t h = 0;
    std::memcpy(&h, id.id, sizeof h);
    return h;
  }
};
/// Object ids compared as keys of an unordered container.
struct OidEqual {
  bool operator()(const git_oid& a, const git_oid& b) const noexcept {
    return git_oid_equal(&a, &b) != 0;
  }
};

/// Initializes libgit2 once per process.
void ensure_initialized();

/// An Error from libgit2's last error, prefixed with what we were doing.
Error last_error(std::string_view what, Errc code = Errc::git);

/// The hex form of an object id.
std::string to_hex(const git_oid& oid);

}  // namespace feeddiff::git
