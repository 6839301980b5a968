#pragma once
// Failpoints: the named steps of a poll's commit sequence, in the one list below. A build
// made for tests (CMake option FEEDDIFF_FAILPOINTS, on in the dev, clang and asan presets)
// kills itself with SIGKILL at the step that the environment variable FEEDDIFF_FAILPOINT
// names, so that a test can stop a real `feeddiff poll` exactly between two writes and check
// what the next poll makes of it (tests/poll/poll_failpoint_test.cc). Any other build,
// release and installed ones included, never reads the variable: failpoint() does nothing.
//
// Shared by store (which writes packs, refs and the index) and poll (which writes the state
// and the item summary cache); core is the one module both see.

#include <array>
#include <cstddef>
#include <string_view>

namespace feeddiff {

/// A step of the commit sequence, in the order a poll that records a change reaches them.
enum class Failpoint {
  pack_written,     ///< the pack and its index written and fsync'd, under temporary names
  pack_renamed,     ///< the .pack renamed into objects/pack, its .idx not yet
  pack_in_place,    ///< pack and index in place; nothing names the new objects yet
  checkout_marked,  ///< the checkout marker written; the branch not moved yet
  branch_locked,    ///< the branch's lock file linked in (noted in the marker); not moved yet
  branch_moved,     ///< the branch names the new commit; index and work tree not updated
  checkout_done,    ///< index and work tree updated; the checkout marker still there
  flushed,          ///< the marker removed: the batch is complete; the state not saved yet
  index_appended,   ///< the source index's new records appended; its tip not replaced yet
  state_saved,      ///< state.json saved (new validators); no item summary derived yet
  summary_cached,   ///< the flushed changes' item summaries in the cache (one transaction)
  // Only when the poll leaves more packs than its limit (FEEDDIFF_PACK_LIMIT):
  consolidate_written,  ///< the rolled-up pack and its index in place; the old packs too
  consolidate_pruned,   ///< the first old pack deleted, the others not yet
  // Only in a poll that captures articles (docs/articles.md), between state-saved and the
  // consolidation:
  articles_committed,  ///< the article versions on the branch; the articles' books not saved
};

/// Each Failpoint's name (what FEEDDIFF_FAILPOINT takes), in the enum's order.
inline constexpr std::array<std::string_view, 14> kFailpointNames = {
    "pack-written",       "pack-renamed",       "pack-in-place",  "checkout-marked",
    "branch-locked",      "branch-moved",       "checkout-done",  "flushed",
    "index-appended",     "state-saved",        "summary-cached", "consolidate-written",
    "consolidate-pruned", "articles-committed",
};

static_assert(kFailpointNames.size() == static_cast<std::size_t>(Failpoint::articles_committed) + 1,
              "a name for every step, in the enum's order");

/// The step's name.
constexpr std::string_view failpoint_name(Failpoint step) {
  return kFailpointNames[static_cast<std::size_t>(step)];
}

/// True in a build made for tests, where failpoint() reads the environment.
bool failpoints_built();

/// In a build made for tests: appends the step's name to the file FEEDDIFF_FAILPOINT_TRACE
/// names (when set), then kills this process with SIGKILL, flushing nothing, when
/// FEEDDIFF_FAILPOINT names this step. Elsewhere: nothing.
void failpoint(Failpoint step);

}  // namespace feeddiff
