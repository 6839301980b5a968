#pragma once
// The sources each commit of a run of the first-parent chain touched, for the source index,
// computed by two processes when the run is long (source_index_split.cc says why processes).
// Internal to store.

#include <git2.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "feeddiff/result.h"
#include "store/source_index_touched.h"

namespace feeddiff::source_index {

/// A commit of the first-parent chain, as a walk read it.
struct Step {
  git_oid id{};        ///< the commit
  git_oid tree{};      ///< its root tree: its roots are read where its trees are compared
  std::string source;  ///< set when it is a version commit feeddiff wrote (version_source)
};

/// A step's `raw` and `articles` subtrees, read through repo (its PackReader first, if it has
/// one).
Roots step_roots(git_repository* repo, const Step& step);

/// The escaped names (escape) each step touched, in the steps' order.
using Touched = std::vector<std::vector<std::string>>;

/// What each of steps (oldest first, each the first-parent child of the one before; the
/// first one's parent has the roots before) touched. nullopt when a name cannot be stored
/// (longer than kMaxFileName escaped): the index declines. A run of at least
/// split_min_steps steps in a process with one thread, on two CPUs or more, is split in two at its
/// middle, the older half indexed by a forked child; the answer is the one a single process gives,
/// and the parent indexes the child's half itself when the child fails in any way.
Result<std::optional<Touched>> touched_by(git_repository* repo, const Roots& before,
                                          std::span<const Step> steps);

/// What each step of a walk touched, computed while the walk goes on: the steps are added
/// newest first, and once split_min_steps of them are known (in a process with one thread, on two
/// CPUs or more) a forked child compares their trees, a claim of them at a time from the newest, as
/// they come, while this process goes on walking; when the walk is over this process takes the
/// oldest steps, until the two meet. The answer is the one touched_here gives, whatever the child
/// does (its part is redone here when it fails in any way).
class SplitWalk {
 public:
  /// Up to capacity steps, read from repo.
  SplitWalk(git_repository* repo, std::size_t capacity);
  /// Stops and reaps a child still running (the walk was abandoned).
  ~SplitWalk();
  SplitWalk(const SplitWalk&) = delete;
  SplitWalk& operator=(const SplitWalk&) = delete;

  /// Reads through repo from now on (before a child starts: it opens its own).
  void read_from(git_repository* repo) { repo_ = repo; }
  /// The walk's next step (the parent of the last one); at most capacity of them.
  void add(Step step);
  /// The steps so far, newest first.
  std::vector<Step>& steps() { return steps_; }
  /// The walk is over, the oldest step's parent has the roots before: what each step
  /// touched, oldest first (nullopt: a name the index cannot store).
  Result<std::optional<Touched>> finish(const Roots& before);

 private:
  struct Shared;
  void start_child();
  void stop_child();
  git_repository* repo_;
  std::size_t capacity_;
  std::vector<Step> steps_;
  Shared* shared_ = nullptr;
  std::size_t shared_size_ = 0;
  int fd_ = -1;
  int child_ = -1;
};

/// The shortest run touched_by splits; tests make it small (0: never split).
inline std::size_t split_min_steps = 8192;

/// How many runs touched_by or SplitWalk has had a child index part of, in this process (tests read
/// it).
inline std::size_t split_runs = 0;

/// Tests set it: the child exits at once with a failure, as a killed or failing one would.
inline bool split_child_fails = false;

}  // namespace feeddiff::source_index
