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
// fork() is used only when the process has one thread: a lock held by another thread at the
// fork (malloc's, libgit2's) would never be released in the child.

#include "store/source_index_split.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "store/git_handles.h"
#include "store/source_index_files.h"

namespace feeddiff::source_index {

namespace {

// What one step touched: its raw names (a version commit's believed when its tree agrees),
// then its article keys, escaped. nullopt: a name the index cannot store.
Result<std::optional<std::vector<std::string>>> step_names(git_repository* repo,
                                                           RawTreeComparer& comparer,
                                                           const Roots& previous,
                                                           const Step& step) {
  using Answer = std::optional<std::vector<std::string>>;
  std::vector<std::string> names;
  if (!git_oid_equal(&previous.raw, &step.roots.raw)) {
    const bool believed =
        !step.source.empty() && comparer.differs_only_in(previous.raw, step.roots.raw, step.source);
    if (believed) {
      names.push_back(step.source);
    } else {
      auto diff = raw_diff(repo, previous.raw, step.roots.raw);
      if (!diff) return diff.error();
      names = std::move(*diff);
    }
  }
  if (!git_oid_equal(&previous.articles, &step.roots.articles)) {
    auto diff = articles_diff(repo, previous.articles, step.roots.articles);
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
  const Roots* previous = &before;
  for (const Step& step : steps) {
    auto names = step_names(repo, comparer, *previous, step);
    if (!names) return names.error();
    if (!*names) return Answer{};
    out.push_back(std::move(**names));
    previous = &step.roots;
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

bool write_whole(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<std::string> read_whole(int fd) {
  std::string out;
  char buffer[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
}

bool one_thread() {
  std::error_code ec;
  std::size_t threads = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++threads;
  return !ec && threads == 1;
}

// In the forked child: the older half, from a repository of its own, into fd. Never returns.
[[noreturn]] void index_in_child(const std::string& git_dir, const Roots& before,
                                 std::span<const Step> steps, int fd) {
  int code = 1;
  git_repository* fresh = nullptr;
  if (!split_child_fails && git_repository_open(&fresh, git_dir.c_str()) == 0) {
    auto touched = touched_here(fresh, before, steps);
    if (touched && write_whole(fd, encode_touched(steps, *touched))) code = 0;
    git_repository_free(fresh);
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

Result<std::optional<Touched>> touched_by(git_repository* repo, const Roots& before,
                                          std::span<const Step> steps) {
  using Answer = std::optional<Touched>;
  if (split_min_steps == 0 || steps.size() < std::max<std::size_t>(split_min_steps, 2) ||
      !one_thread())
    return touched_here(repo, before, steps);
  const std::size_t half = steps.size() / 2;
  const auto older = steps.first(half);
  const auto newer = steps.subspan(half);
  const std::string git_dir = git_repository_path(repo);
  const int fd = ::memfd_create("feeddiff-index-half", MFD_CLOEXEC);
  if (fd < 0) return touched_here(repo, before, steps);
  const pid_t pid = ::fork();
  if (pid == 0) index_in_child(git_dir, before, older, fd);
  if (pid < 0) {
    ::close(fd);
    return touched_here(repo, before, steps);
  }
  auto mine = touched_here(repo, older.back().roots, newer);
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

}  // namespace feeddiff::source_index
