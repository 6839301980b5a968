#pragma once
// The per-source index under .git/feeddiff/index/: for each source under raw/ (at raw/<name>/
// or, fanned out, raw/<hh>/<name>/), the commits of the branch's first-parent history that
// changed its files, so that `log NAME` reads the
// few commits it prints instead of diffing every commit of the history. A cache: it is
// checked against the branch on every use, caught up from the commits made since, rebuilt
// when it cannot be trusted, and declines (the caller walks) where it cannot answer.
// docs/index.md describes the files.

#include <git2.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::source_index {

/// The commits that changed raw/<name>/ on the first-parent chain ending at head, newest
/// first, at most limit (0: all), as `git log -- raw/<name>/` lists them. nullopt when the
/// index cannot answer (a merge on the chain, a name it cannot store): walk instead.
/// When it caught up with new commits or rebuilt, it writes what it learnt if may_write()
/// says so (a reader's takes the archive lock if no one holds it; false: answer only).
/// With depths, each commit's first-parent depth (the root is 1) goes there, in the same order.
Result<std::optional<std::vector<git_oid>>> commits_of(
    git_repository* repo, const std::string& dir, const git_oid& head, std::string_view name,
    std::size_t limit, const std::function<bool()>& may_write,
    std::vector<std::uint32_t>* depths = nullptr);

/// Brings the index up to head and writes it; the caller holds the archive lock.
Status update(git_repository* repo, const std::string& dir, const git_oid& head);

/// Commits a catch-up (a rebuild above all) reads and writes at a time: its memory is one
/// chunk of them and one id per chunk of the history, whatever the history's length. Tests
/// make it small.
inline std::size_t catch_up_chunk = 65536;

/// Commits a catch-up reads through libgit2 alone; from there on it reads through a
/// repository whose object database asks PackReader first (pack_reader.h). Tests move it.
inline std::size_t reader_after = 1024;

}  // namespace feeddiff::source_index
