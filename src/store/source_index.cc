// The per-source index (source_index.h): caught up with the branch a chunk of commits at a
// time, and answering `log NAME` from its records. Its files and their format are
// source_index_files.cc's; which sources a commit touched, source_index_touched.cc's.
//
// When the tip is not an ancestor of head (a sync replayed the newest commits, a reset), the
// index rewinds to the merge base (rewind below) instead of rebuilding from the root.
//
// Only first-parent history is indexed: a merge on the chain makes the index decline and the
// caller walk.

#include "store/source_index.h"

#include <algorithm>
#include <cstdint>
#include <memory>

#include "feeddiff/core.h"
#include "store/git_handles.h"
#include "store/pack_reader.h"
#include "store/source_index_commit.h"
#include "store/source_index_files.h"
#include "store/source_index_split.h"
#include "store/source_index_touched.h"

namespace feeddiff::source_index {

namespace {

// The first-parent chain from head back to the tip (not included), or to the root when there
// is no tip or the tip is not on it, as a catch-up walks it first: newest first, keeping only
// every chunk-th id, so that it can be walked again a chunk at a time, oldest chunk first.
struct Chain {
  bool found = false;          // it reached the tip
  bool merge = false;          // it met a merge: the index cannot hold this history
  std::size_t count = 0;       // commits after the tip (all of them without it)
  std::vector<git_oid> marks;  // the commits at 0, chunk, 2 chunk, ... back from head
  Roots before_first;          // the tip's roots (zero for a rebuild: the root has none)
  // The newest chunk, newest first, as the scan read it: the last chunk indexed is not read
  // again (a catch-up of up to a chunk of commits reads each once), and its trees are
  // compared as the scan goes on (SplitWalk).
  std::unique_ptr<SplitWalk> newest;
  // The last chunk of commits the scan read after the newest chunk, by position modulo the
  // chunk: when the scan is over it holds the oldest chunk, which is then not read again
  // (at 100,000 commits, a third of them). One more chunk of memory, whatever the length.
  std::vector<Step> oldest;
  // What the walks read through: the caller's repository, or, once the walk is long, one
  // that reads packs with PackReader first (opened once reader_after commits are read).
  git_repository* reading = nullptr;
  git::RepositoryPtr fast;
  pack::PackReader* reader = nullptr;  // fast's, which commit_facts reads plain commits with
};

// From reader_after commits on, the chain is read through a repository of its own whose
// object database asks PackReader first (pack_reader.cc says why); a short catch-up, a
// poll's, does not pay for opening it. Objects the walk meets are on disk: the branch names
// none that a batch holds in memory before its pack is written.
void read_faster(git_repository* repo, Chain& chain) {
  auto fast = pack::open_with_reader(git_repository_path(repo));
  if (!fast) return;  // libgit2 alone reads it, as before
  chain.fast = std::move(*fast);
  chain.reading = chain.fast.get();
  chain.newest->read_from(chain.reading);
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, chain.reading) != 0) {
    git_error_clear();
    return;
  }
  chain.reader = pack::reader_of(odb);
  git_odb_free(odb);  // the repository holds it
}

Result<Chain> scan(git_repository* repo, const git_oid& head, const std::optional<Tip>& tip,
                   std::size_t chunk) {
  Chain chain;
  chain.newest = std::make_unique<SplitWalk>(repo, chunk);
  chain.reading = repo;
  git_oid id = head;
  for (;;) {
    if (chain.count == reader_after && !chain.fast) read_faster(repo, chain);
    auto facts = commit_facts(chain.reading, chain.reader, id);
    if (!facts) return facts.error();
    if (tip && git_oid_equal(&id, &tip->id)) {
      chain.found = true;
      chain.before_first = tree_roots(chain.reading, chain.reader, facts->tree);
      return chain;
    }
    if (facts->parents > 1) {
      chain.merge = true;
      return chain;
    }
    if (chain.count % chunk == 0) chain.marks.push_back(id);
    Step step{id, facts->tree, std::move(facts->source)};
    if (chain.count < chunk) {
      chain.newest->add(std::move(step));
    } else {
      const std::size_t at = (chain.count - chunk) % chunk;
      if (at == chain.oldest.size())
        chain.oldest.push_back(std::move(step));
      else
        chain.oldest[at] = std::move(step);
    }
    ++chain.count;
    if (facts->parents == 0) return chain;
    id = facts->parent;
  }
}

// Indexes the chain a chunk at a time, oldest chunk first: each but the newest and the
// oldest (which the scan kept) is walked again from its newest commit, and handed to sink, oldest
// commit first, with the depths following on. A chain of no commit makes one empty chunk. false:
// the index cannot hold this history (an unstorable name); the chunks before were handed on.
Result<bool> index_chain(Chain& chain, std::uint32_t base_depth, std::size_t chunk,
                         const std::function<Status(Pending&)>& sink) {
  if (chain.count == 0) {
    Pending p;
    p.base_depth = base_depth;
    if (auto ok = sink(p); !ok) return ok.error();
    return true;
  }
  git_repository* repo = chain.reading;
  Roots previous = chain.before_first;
  std::uint32_t depth = base_depth;
  for (std::size_t j = chain.marks.size(); j-- > 0;) {
    const std::size_t size = std::min(chunk, chain.count - j * chunk);
    std::vector<Step> seen;  // newest first, until reversed below
    Result<std::optional<Touched>> touched = std::optional<Touched>{};
    if (j == 0) {
      // Its trees have been compared since the scan read it.
      touched = chain.newest->finish(previous);
      seen = std::move(chain.newest->steps());
      std::reverse(seen.begin(), seen.end());
    } else if (j + 1 == chain.marks.size()) {
      // The scan read it last: commits j * chunk to count - 1, newest first.
      seen.reserve(size);
      for (std::size_t i = j * chunk; i < chain.count; ++i)
        seen.push_back(std::move(chain.oldest[(i - chunk) % chunk]));
      chain.oldest = {};
      std::reverse(seen.begin(), seen.end());
      touched = touched_by(repo, previous, seen);
    } else {
      seen.reserve(size);
      git_oid id = chain.marks[j];
      for (std::size_t k = 0; k < size; ++k) {
        auto facts = commit_facts(repo, chain.reader, id);
        if (!facts) return facts.error();
        seen.push_back({id, facts->tree, std::move(facts->source)});
        id = facts->parent;
      }
      std::reverse(seen.begin(), seen.end());
      touched = touched_by(repo, previous, seen);
    }
    if (!touched) return touched.error();
    if (!*touched) return false;
    Pending p;
    p.base_depth = depth;
    p.ids.reserve(size);
    for (const Step& step : seen) p.ids.push_back(step.id);
    p.touched = std::move(**touched);
    previous = tree_roots(repo, chain.reader, seen.back().tree);
    depth += static_cast<std::uint32_t>(size);
    if (auto ok = sink(p); !ok) return ok.error();
  }
  return true;
}

// When the tip is not an ancestor of head (a sync replayed the local commits onto the
// remote's, a `git reset`, an amend), the index up to the commit the tip's history and head
// share: its records whose depth is at most that commit's, found by binary search in each
// source's file. nullopt when no rewind applies (the tip is head or its ancestor) or none is
// possible (no shared commit, a merge, a garbled file), which leaves it to catch_up:
// a full rebuild when the tip is not on head's chain. The cost is the commits between the
// tip and the shared one and log2(records) reads per source, not the history.
std::optional<Tip> rewind(git_repository* repo, const std::string& dir, const Tip& tip,
                          const git_oid& head) {
  if (git_oid_equal(&tip.id, &head)) return std::nullopt;
  git_oid base{};
  if (git_merge_base(&base, repo, &tip.id, &head) != 0) {
    git_error_clear();
    return std::nullopt;
  }
  if (git_oid_equal(&base, &tip.id)) return std::nullopt;
  // base's depth: the tip's, less its distance down the tip's first-parent chain.
  std::uint32_t depth = tip.depth;
  for (git_oid id = tip.id; !git_oid_equal(&id, &base);) {
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) {
      git_error_clear();
      return std::nullopt;
    }
    git::CommitPtr owned(c);
    if (git_commit_parentcount(c) != 1 || depth <= 1) return std::nullopt;
    id = *git_commit_parent_id(c, 0);
    --depth;
  }
  Tip out;
  out.generation = tip.generation;
  out.id = base;
  out.depth = depth;
  const std::string gdir = generation_dir(dir, tip.generation);
  for (const auto& [name, count] : tip.counts) {
    const std::string path = gdir + "/" + name;
    // The first record deeper than base: records are in rising depth.
    std::uint64_t lo = 0, hi = count;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      auto r = read_bytes(path, mid, mid + 1);
      if (!r) return std::nullopt;
      const auto* rec = reinterpret_cast<const unsigned char*>(r->data());
      if (le32(rec + 24) != record_check(rec)) return std::nullopt;
      if (le32(rec + 20) <= depth)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo > 0) out.counts[name] = lo;
  }
  return out;
}

// What a catch-up did.
struct CaughtUp {
  bool rebuild = false;            // the tip was not on head's chain (or there was none)
  std::optional<Tip> written;      // the tip written last, when anything was
  std::optional<Error> unwritten;  // why a chunk could not be written (no later one was)
};

// Indexes head's chain after tip (all of it when tip is nullopt or not on the chain), a chunk
// of catch_up_chunk commits at a time: each chunk goes to seen, then, when write() allows
// (asked once, at the first chunk with anything to write), to the files, its tip last, so
// that a rebuild over millions of commits holds one chunk of them and leaves a valid index
// however far it got. copy: tip is rewound (see Pending::copy). nullopt when the index
// cannot hold this history.
Result<std::optional<CaughtUp>> catch_up(git_repository* repo, const std::string& dir,
                                         const git_oid& head, const std::optional<Tip>& tip,
                                         bool copy, const std::function<bool()>& write,
                                         const std::function<void(const Pending&)>& seen) {
  using Answer = std::optional<CaughtUp>;
  const std::size_t chunk = std::max<std::size_t>(catch_up_chunk, 1);
  auto chain = scan(repo, head, tip, chunk);
  if (!chain) return chain.error();
  if (chain->merge) return Answer{};
  CaughtUp out;
  out.rebuild = !chain->found;
  const std::uint32_t base = chain->found ? tip->depth : 0;
  if (base + std::uint64_t{chain->count} > UINT32_MAX) return Answer{};
  std::optional<Tip> current = tip;  // what the next chunk is appended after
  std::optional<bool> writing;
  bool first = true;
  auto held = index_chain(*chain, base, chunk, [&](Pending& p) -> Status {
    p.rebuild = out.rebuild && first;
    p.copy = copy && !out.rebuild && first;
    first = false;
    seen(p);
    if (out.unwritten || (p.ids.empty() && !p.rebuild && !p.copy)) return Ok{};
    if (!writing) writing = write();
    if (!*writing) return Ok{};
    auto written = persist(dir, current, p);
    if (!written) {
      out.unwritten = written.error();
      return Ok{};
    }
    current = *written;
    out.written = current;
    return Ok{};
  });
  if (!held) return held.error();
  if (!*held) return Answer{};
  return Answer(std::move(out));
}

}  // namespace

Result<std::optional<std::vector<git_oid>>> commits_of(git_repository* repo, const std::string& dir,
                                                       const git_oid& head, std::string_view name,
                                                       std::size_t limit,
                                                       const std::function<bool()>& may_write,
                                                       std::vector<std::uint32_t>* depths) {
  using Answer = std::optional<std::vector<git_oid>>;
  if (depths) depths->clear();
  const std::string key = escape(name);
  if (key.size() > kMaxFileName) return Answer{};
  // The common case, the index already at head: the tip checked whole but only this
  // source's line read, then its records, and no commit (a map of every source's count and a
  // look at head's trees were 1.5 of the 6.2 million instructions of `show HEAD` at 10,000
  // changes). The same answer as the catch-up below gives when it finds nothing to catch up;
  // anything else goes there.
  if (auto at = load_tip_of(dir, key); at && git_oid_equal(&at->tip.id, &head)) {
    const std::uint64_t want = limit ? std::min<std::uint64_t>(at->count, limit) : at->count;
    std::vector<std::uint32_t> record_depths;
    if (auto records =
            read_records(generation_dir(dir, at->tip.generation) + "/" + key, at->count - want,
                         at->count, at->tip.depth, depths ? &record_depths : nullptr)) {
      if (depths) depths->assign(record_depths.rbegin(), record_depths.rend());
      return Answer(std::vector<git_oid>(records->rbegin(), records->rend()));
    }
  }
  // Asked once: a reader takes the lock at the first write and keeps it.
  std::optional<bool> granted;
  const auto write = [&] {
    if (!granted) granted = may_write();
    return *granted;
  };
  std::optional<Tip> tip = load_tip(dir);
  const std::optional<Tip> rewound = tip ? rewind(repo, dir, *tip, head) : std::nullopt;
  if (rewound) tip = rewound;

  // The new commits touching the source, oldest first (a rebuild: all of them).
  std::vector<git_oid> fresh;
  std::vector<std::uint32_t> fresh_depths;
  const auto collect = [&](const Pending& p) {
    for (std::size_t i = 0; i < p.ids.size(); ++i)
      if (std::find(p.touched[i].begin(), p.touched[i].end(), key) != p.touched[i].end()) {
        fresh.push_back(p.ids[i]);
        fresh_depths.push_back(p.base_depth + static_cast<std::uint32_t>(i) + 1);
      }
  };
  const auto newest = [&](std::vector<git_oid>& out) {
    for (std::size_t k = fresh.size(); k-- > 0 && (!limit || out.size() < limit);) {
      out.push_back(fresh[k]);
      if (depths) depths->push_back(fresh_depths[k]);
    }
  };
  auto caught = catch_up(repo, dir, head, tip, rewound.has_value(), write, collect);
  if (!caught) return caught.error();
  if (!*caught) return Answer{};
  std::vector<git_oid> out;
  newest(out);
  bool rebuilt = (*caught)->rebuild;
  if (!rebuilt && (!limit || out.size() < limit)) {
    const std::uint64_t count = tip->counts.count(key) ? tip->counts.at(key) : 0;
    const std::uint64_t want = limit ? std::min<std::uint64_t>(count, limit - out.size()) : count;
    // The tip's records are where the catch-up left them: a rewind's copy moved them to a
    // new generation (the same records, first in each file).
    const unsigned generation =
        (*caught)->written ? (*caught)->written->generation : tip->generation;
    std::vector<std::uint32_t> record_depths;
    auto records = read_records(generation_dir(dir, generation) + "/" + key, count - want, count,
                                tip->depth, depths ? &record_depths : nullptr);
    if (!records) {
      // Truncated, garbled or missing: rebuild, and answer from the rebuild.
      fresh.clear();
      fresh_depths.clear();
      auto again = catch_up(repo, dir, head, std::nullopt, false, write, collect);
      if (!again) return again.error();
      if (!*again) return Answer{};
      out.clear();
      if (depths) depths->clear();
      newest(out);
      caught = std::move(again);
      rebuilt = true;
    } else {
      out.insert(out.end(), records->rbegin(), records->rend());
      if (depths) depths->insert(depths->end(), record_depths.rbegin(), record_depths.rend());
    }
  }
  if ((*caught)->unwritten && !rebuilt) {
    // Best effort: a file the tip's counts cannot trust is rebuilt (the lock is held: a
    // chunk was being written); a cache that cannot be written is answered from all the same.
    (void)catch_up(repo, dir, head, std::nullopt, false, write, [](const Pending&) {});
  }
  return Answer(std::move(out));
}

Status update(git_repository* repo, const std::string& dir, const git_oid& head) {
  std::optional<Tip> tip = load_tip(dir);
  const std::optional<Tip> rewound = tip ? rewind(repo, dir, *tip, head) : std::nullopt;
  if (rewound) tip = rewound;
  const auto always = [] { return true; };
  const auto nothing = [](const Pending&) {};
  auto caught = catch_up(repo, dir, head, tip, rewound.has_value(), always, nothing);
  if (!caught) return caught.error();
  if (!*caught) return Ok{};  // a history it cannot hold: readers walk
  if (!(*caught)->unwritten) return Ok{};
  if ((*caught)->rebuild) return *(*caught)->unwritten;
  // A file the tip's counts cannot trust: start again.
  auto rebuilt = catch_up(repo, dir, head, std::nullopt, false, always, nothing);
  if (!rebuilt) return rebuilt.error();
  if (!*rebuilt || !(*rebuilt)->unwritten) return Ok{};
  return *(*rebuilt)->unwritten;
}

}  // namespace feeddiff::source_index
