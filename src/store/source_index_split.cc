// What each commit of a run touched (source_index_split.h), by two processes when the run is
// long. A rebuild at 100,000 commits spends most of its time reading and comparing each
// commit's `raw` tree; two threads, each with its own repository, were slower than one,
// because libgit2's pack windows and delta-base cache sit behind process-wide locks. A forked
// child shares none of that at run time: it opens the repository afresh, indexes the older
// half of the run, and writes its answer to an anonymous file the parent reads once the child
// has exited. The child never writes the index and holds no lock of its own; whatever goes
// wrong with it (killed, a read error, a short answer), the parent indexes that half itself,
// so the answer never depends on the child.
//
// fork() is used only when the process has one thread (a lock held by another thread at the
// fork, malloc's or libgit2's, would never be released in the child) and two CPUs or more.

#include "store/source_index_split.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <new>

#include "feeddiff/process.h"
#include "store/git_handles.h"
#include "store/pack_reader.h"
#include "store/source_index_commit.h"
#include "store/source_index_files.h"

namespace feeddiff::source_index {

namespace {

// What one step touched: its raw names (a version commit's believed when its tree agrees),
// then its article keys, escaped. nullopt: a name the index cannot store.
Result<std::optional<std::vector<std::string>>> step_names(git_repository* repo,
                                                           RawTreeComparer& comparer,
                                                           const Roots& previous,
                                                           const Roots& roots, const Step& step) {
  using Answer = std::optional<std::vector<std::string>>;
  std::vector<std::string> names;
  if (!git_oid_equal(&previous.raw, &roots.raw)) {
    const bool believed =
        !step.source.empty() && comparer.differs_only_in(previous.raw, roots.raw, step.source);
    if (believed) {
      names.push_back(step.source);
    } else {
      auto diff = raw_diff(repo, previous.raw, roots.raw);
      if (!diff) return diff.error();
      names = std::move(*diff);
    }
  }
  if (!git_oid_equal(&previous.articles, &roots.articles)) {
    auto diff = articles_diff(repo, previous.articles, roots.articles);
    if (!diff) return diff.error();
    names.insert(names.end(), diff->begin(), diff->end());
  }
  for (auto& n : names) {
    n = escape(n);
    if (n.size() > kMaxFileName) return Answer{};
  }
  return Answer(std::move(names));
}

// touched_by in this process alone.
Result<std::optional<Touched>> touched_here(git_repository* repo, const Roots& before,
                                            std::span<const Step> steps) {
  using Answer = std::optional<Touched>;
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo) != 0) return git::last_error("opening the object database");
  git::OdbPtr odb_owned(odb);
  RawTreeComparer comparer(odb);
  Touched out;
  out.reserve(steps.size());
  Roots previous = before;
  for (const Step& step : steps) {
    const Roots roots = tree_roots(repo, comparer.reader(), step.tree);
    auto names = step_names(repo, comparer, previous, roots, step);
    if (!names) return names.error();
    if (!*names) return Answer{};
    out.push_back(std::move(**names));
    previous = roots;
  }
  return Answer(std::move(out));
}

// The child's answer, in its anonymous file: kSplitDeclined alone when a name cannot be
// stored; otherwise kSplitOk, then per step its commit id (20 bytes: the parent checks they
// are its steps), a count of names and each name, counts and lengths as 4 bytes little-endian.
constexpr unsigned char kSplitOk = 'k';
constexpr unsigned char kSplitDeclined = 'd';

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::optional<std::uint32_t> take_u32(std::string_view& in) {
  if (in.size() < 4) return std::nullopt;
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  in.remove_prefix(4);
  return v;
}

std::string encode_touched(std::span<const Step> steps, const std::optional<Touched>& touched) {
  std::string out;
  if (!touched) return std::string(1, static_cast<char>(kSplitDeclined));
  out += static_cast<char>(kSplitOk);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    out.append(reinterpret_cast<const char*>(steps[i].id.id), GIT_OID_RAWSZ);
    put_u32(out, static_cast<std::uint32_t>((*touched)[i].size()));
    for (const auto& name : (*touched)[i]) {
      put_u32(out, static_cast<std::uint32_t>(name.size()));
      out += name;
    }
  }
  return out;
}

// The child's answer decoded; nullopt when it is not exactly an answer for steps.
std::optional<std::optional<Touched>> decode_touched(std::string_view in,
                                                     std::span<const Step> steps) {
  if (in.size() == 1 && static_cast<unsigned char>(in[0]) == kSplitDeclined)
    return std::optional<Touched>{};
  if (in.empty() || static_cast<unsigned char>(in[0]) != kSplitOk) return std::nullopt;
  in.remove_prefix(1);
  Touched out;
  out.reserve(steps.size());
  for (const Step& step : steps) {
    if (in.size() < GIT_OID_RAWSZ || std::memcmp(in.data(), step.id.id, GIT_OID_RAWSZ) != 0)
      return std::nullopt;
    in.remove_prefix(GIT_OID_RAWSZ);
    const auto count = take_u32(in);
    if (!count || *count > in.size()) return std::nullopt;
    std::vector<std::string> names;
    for (std::uint32_t k = 0; k < *count; ++k) {
      const auto size = take_u32(in);
      if (!size || *size > in.size()) return std::nullopt;
      names.emplace_back(in.substr(0, *size));
      in.remove_prefix(*size);
    }
    out.push_back(std::move(names));
  }
  if (!in.empty()) return std::nullopt;
  return std::optional<Touched>(std::move(out));
}

// In the forked child: the older half, from a repository of its own, into fd. Never returns.
[[noreturn]] void index_in_child(const std::string& git_dir, const Roots& before,
                                 std::span<const Step> steps, int fd) {
  int code = 1;
  if (!split_child_fails) {
    if (auto fresh = pack::open_with_reader(git_dir)) {
      auto touched = touched_here(fresh->get(), before, steps);
      if (touched && write_whole(fd, encode_touched(steps, *touched))) code = 0;
    }
  }
  // No destructors, no atexit handlers, no stdio flush: those are the parent's.
  ::_exit(code);
}

// The child's half, once it has exited: nullopt when it failed in any way.
std::optional<std::optional<Touched>> child_answer(pid_t pid, int fd, std::span<const Step> steps) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return std::nullopt;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  auto bytes = read_whole(fd);
  if (!bytes) return std::nullopt;
  return decode_touched(*bytes, steps);
}

}  // namespace

Roots step_roots(git_repository* repo, const Step& step) {
  git_odb* odb = nullptr;
  pack::PackReader* reader = nullptr;
  if (git_repository_odb(&odb, repo) == 0) {
    reader = pack::reader_of(odb);
    git_odb_free(odb);  // the repository holds it
  } else {
    git_error_clear();
  }
  return tree_roots(repo, reader, step.tree);
}

Result<std::optional<Touched>> touched_by(git_repository* repo, const Roots& before,
                                          std::span<const Step> steps) {
  using Answer = std::optional<Touched>;
  if (split_min_steps == 0 || steps.size() < std::max<std::size_t>(split_min_steps, 2) ||
      !may_fork_helper())
    return touched_here(repo, before, steps);
  const std::size_t half = steps.size() / 2;
  const auto older = steps.first(half);
  const auto newer = steps.subspan(half);
  const std::string git_dir = git_repository_path(repo);
  const int fd = ::memfd_create("feeddiff-index-half", MFD_CLOEXEC);
  if (fd < 0) return touched_here(repo, before, steps);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    die_with_parent(parent);
    index_in_child(git_dir, before, older, fd);
  }
  if (pid < 0) {
    ::close(fd);
    return touched_here(repo, before, steps);
  }
  auto mine = touched_here(repo, step_roots(repo, older.back()), newer);
  auto theirs = child_answer(pid, fd, older);
  ::close(fd);
  if (!mine) return mine.error();
  if (!theirs) {
    auto again = touched_here(repo, before, older);
    if (!again) return again.error();
    theirs = std::move(*again);
  } else {
    ++split_runs;
  }
  if (!*theirs || !*mine) return Answer{};
  Touched out = std::move(**theirs);
  out.reserve(steps.size());
  for (auto& names : **mine) out.push_back(std::move(names));
  return Answer(std::move(out));
}

// SplitWalk's memory, shared with its child (an anonymous shared mapping made before the
// fork): the steps as the walk publishes them, and one word of claims. Pair i compares step
// i (newest first) with step i+1, the last one with `before`. The child claims pairs upward
// from 0, this process downward from the last; claims holds the child's end in its high half
// and this process's start in its low half, so that each range goes to one of them.
namespace {

constexpr std::size_t kHintMax = 127;       // longer Source names are handed to this process
constexpr std::uint32_t kNotStarted = ~0u;  // this process has claimed nothing yet
constexpr std::uint32_t kClaim = 512;       // pairs claimed at a time
constexpr std::uint32_t kDeclined = ~0u;    // in the child's answer: a name it cannot store

struct SharedStep {
  git_oid id;
  git_oid tree;
  std::uint8_t source_size;  // kHintMax + 1: too long to share
  char source[kHintMax];
};

std::uint64_t claims_of(std::uint32_t child_end, std::uint32_t parent_start) {
  return (std::uint64_t{child_end} << 32) | parent_start;
}

}  // namespace

struct SplitWalk::Shared {
  std::atomic<std::uint64_t> claims{claims_of(0, kNotStarted)};
  std::atomic<std::uint32_t> published{0};  // steps written
  std::atomic<std::uint32_t> total{0};      // set with done: every step
  std::atomic<bool> done{false};            // the walk is over, before is set
  Roots before;

  // published of them follow, in a mapping that holds capacity.
  SharedStep* steps() { return reinterpret_cast<SharedStep*>(this + 1); }

  static std::size_t size_for(std::size_t capacity) {
    return sizeof(Shared) + capacity * sizeof(SharedStep);
  }
};

namespace {

void share_step(SharedStep& out, const Step& step) {
  out.id = step.id;
  out.tree = step.tree;
  if (step.source.size() > kHintMax) {
    out.source_size = kHintMax + 1;
    return;
  }
  out.source_size = static_cast<std::uint8_t>(step.source.size());
  std::memcpy(out.source, step.source.data(), step.source.size());
}

// The child of a SplitWalk: claims pairs from the newest as the walk publishes them and
// writes, per pair, its index and what it touched to fd. Each claim is compared oldest pair
// first, as RawTreeComparer reads a chain once (and was measured faster than newest first:
// 2.7 against 3.0 s of CPU at 100,000). Never returns.
[[noreturn]] void walk_in_child(const std::string& git_dir, std::atomic<std::uint64_t>& claims,
                                std::atomic<std::uint32_t>& published,
                                std::atomic<std::uint32_t>& total, std::atomic<bool>& done,
                                const Roots& before, const SharedStep* steps, int fd) {
  if (split_child_fails) ::_exit(1);
  auto opened = pack::open_with_reader(git_dir);
  if (!opened) ::_exit(1);
  git_repository* fresh = opened->release();  // never freed: the child ends in _exit
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, fresh) != 0) ::_exit(1);
  RawTreeComparer comparer(odb);
  std::string out;
  std::uint32_t pos = 0;
  for (;;) {
    const bool over = done.load(std::memory_order_acquire);
    const std::uint32_t known = over ? total.load() : published.load(std::memory_order_acquire);
    // Pair i needs step i + 1, or before for the last one.
    const std::uint32_t ready = over ? known : (known > 0 ? known - 1 : 0);
    if (pos >= ready) {
      if (over) break;
      const timespec nap{0, 50'000};
      ::nanosleep(&nap, nullptr);
      continue;
    }
    std::uint64_t seen = claims.load();
    std::uint32_t end = 0;
    do {
      const auto parent_start = static_cast<std::uint32_t>(seen);
      end = std::min({pos + kClaim, ready, parent_start});
      if (end <= pos) break;
    } while (!claims.compare_exchange_weak(seen, claims_of(end, static_cast<std::uint32_t>(seen))));
    if (end <= pos) break;  // the parent has the rest
    Roots previous = end < known ? tree_roots(fresh, comparer.reader(), steps[end].tree) : before;
    for (std::uint32_t i = end; i-- > pos;) {
      const SharedStep& at = steps[i];
      if (at.source_size > kHintMax) ::_exit(1);
      Step step{at.id, at.tree, std::string(at.source, at.source_size)};
      const Roots roots = tree_roots(fresh, comparer.reader(), step.tree);
      auto names = step_names(fresh, comparer, previous, roots, step);
      previous = roots;
      if (!names) ::_exit(1);
      put_u32(out, i);
      if (!*names) {
        put_u32(out, kDeclined);
        continue;
      }
      put_u32(out, static_cast<std::uint32_t>((*names)->size()));
      for (const auto& name : **names) {
        put_u32(out, static_cast<std::uint32_t>(name.size()));
        out += name;
      }
    }
    if (out.size() > (1 << 20)) {
      if (!write_whole(fd, out)) ::_exit(1);
      out.clear();
    }
    pos = end;
  }
  if (!write_whole(fd, out)) ::_exit(1);
  ::_exit(0);
}

// The bytes a child wrote to fd, once it has exited well; nullopt when it did not.
std::optional<std::string> child_bytes(pid_t pid, int fd) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return std::nullopt;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return read_whole(fd);
}

// The child's answer read into touched (indexed newest first); false when it is not a whole
// answer for pairs [0, end).
bool read_child_pairs(std::string_view in, std::uint32_t end, std::vector<bool>& filled,
                      Touched& touched, bool& declined) {
  std::uint32_t count_filled = 0;
  while (!in.empty()) {
    const auto i = take_u32(in);
    const auto count = take_u32(in);
    if (!i || !count || *i >= end || filled[*i]) return false;
    filled[*i] = true;
    ++count_filled;
    if (*count == kDeclined) {
      declined = true;
      continue;
    }
    if (*count > in.size()) return false;
    std::vector<std::string> names;
    for (std::uint32_t k = 0; k < *count; ++k) {
      const auto size = take_u32(in);
      if (!size || *size > in.size()) return false;
      names.emplace_back(in.substr(0, *size));
      in.remove_prefix(*size);
    }
    touched[*i] = std::move(names);
  }
  return count_filled == end;
}

}  // namespace

SplitWalk::SplitWalk(git_repository* repo, std::size_t capacity)
    : repo_(repo), capacity_(capacity) {}

SplitWalk::~SplitWalk() {
  stop_child();
}

void SplitWalk::stop_child() {
  if (child_ > 0) {
    ::kill(child_, SIGKILL);
    int status = 0;
    while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
    child_ = -1;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (shared_) ::munmap(shared_, shared_size_);
  shared_ = nullptr;
}

void SplitWalk::start_child() {
  shared_size_ = Shared::size_for(capacity_);
  void* map =
      ::mmap(nullptr, shared_size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return;
  shared_ = new (map) Shared();
  fd_ = ::memfd_create("feeddiff-index-walk", MFD_CLOEXEC);
  if (fd_ < 0) return stop_child();
  for (std::size_t i = 0; i < steps_.size(); ++i) share_step(shared_->steps()[i], steps_[i]);
  shared_->published.store(static_cast<std::uint32_t>(steps_.size()), std::memory_order_release);
  const std::string git_dir = git_repository_path(repo_);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) die_with_parent(parent);
  if (pid == 0)
    walk_in_child(git_dir, shared_->claims, shared_->published, shared_->total, shared_->done,
                  shared_->before, shared_->steps(), fd_);
  if (pid < 0) return stop_child();
  child_ = pid;
}

void SplitWalk::add(Step step) {
  steps_.push_back(std::move(step));
  const std::size_t n = steps_.size();
  if (shared_) {
    if (n <= capacity_) {
      share_step(shared_->steps()[n - 1], steps_.back());
      shared_->published.store(static_cast<std::uint32_t>(n), std::memory_order_release);
    }
  } else if (split_min_steps > 0 && n == std::max<std::size_t>(split_min_steps, 2) &&
             n <= capacity_ && capacity_ < kNotStarted && may_fork_helper()) {
    start_child();
  }
}

Result<std::optional<Touched>> SplitWalk::finish(const Roots& before) {
  using Answer = std::optional<Touched>;
  const auto n = static_cast<std::uint32_t>(steps_.size());
  if (!shared_ || child_ <= 0 || n > capacity_) {
    stop_child();
    std::vector<Step> oldest_first(steps_.rbegin(), steps_.rend());
    return touched_here(repo_, before, oldest_first);
  }
  shared_->before = before;
  shared_->total.store(n);
  shared_->done.store(true, std::memory_order_release);
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo_) != 0) return git::last_error("opening the object database");
  git::OdbPtr odb_owned(odb);
  RawTreeComparer comparer(odb);
  Touched touched(n);  // newest first until the end
  bool declined = false;
  // This process's pairs [from, i) of a claim, oldest first.
  const auto index_here = [&](std::uint32_t from, std::uint32_t to) -> Status {
    Roots previous = to < n ? tree_roots(repo_, comparer.reader(), steps_[to].tree) : before;
    for (std::uint32_t i = to; i-- > from;) {
      const Roots roots = tree_roots(repo_, comparer.reader(), steps_[i].tree);
      auto names = step_names(repo_, comparer, previous, roots, steps_[i]);
      previous = roots;
      if (!names) return names.error();
      if (!*names)
        declined = true;
      else
        touched[i] = std::move(**names);
    }
    return Ok{};
  };
  std::uint64_t seen = shared_->claims.load();
  for (;;) {
    const auto child_end = static_cast<std::uint32_t>(seen >> 32);
    const auto start = static_cast<std::uint32_t>(seen);
    const std::uint32_t parent_start = start == kNotStarted ? n : start;
    if (parent_start <= child_end) break;
    const std::uint32_t from =
        std::max(child_end, parent_start > kClaim ? parent_start - kClaim : 0);
    if (!shared_->claims.compare_exchange_weak(seen, claims_of(child_end, from))) continue;
    if (auto ok = index_here(from, parent_start); !ok) return ok.error();
    seen = shared_->claims.load();
  }
  const auto child_end = static_cast<std::uint32_t>(shared_->claims.load() >> 32);
  auto answer = child_bytes(child_, fd_);
  child_ = -1;
  bool whole = false, child_declined = false;
  if (answer) {
    std::vector<bool> filled(child_end, false);
    whole = read_child_pairs(*answer, child_end, filled, touched, child_declined);
  }
  if (whole) {
    declined = declined || child_declined;
    ++split_runs;
  } else if (auto ok = index_here(0, child_end); !ok) {
    return ok.error();
  }
  stop_child();
  if (declined) return Answer{};
  std::reverse(touched.begin(), touched.end());
  return Answer(std::move(touched));
}

}  // namespace feeddiff::source_index
