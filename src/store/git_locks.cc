// git's lock files, taken so that feeddiff's own can be told from a live git's (see
// git_locks.h). libgit2 offers no way to learn which lock file it created, so feeddiff makes
// both itself: the branch's new value and the index are written beside, in .git/feeddiff,
// noted, then linked in as the lock (link(2) fails when the name is taken, as git's O_EXCL
// does), so the file's identity is known before it can exist.

#include "store/git_locks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

#include "feeddiff/failpoint.h"
#include "store/git_handles.h"

namespace feeddiff::locks {

namespace {

namespace fs = std::filesystem;

// Device, inode and birth time: a lock file deleted and another created under the same name
// (even on the same inode, reused) does not match. Empty when the file cannot be read.
std::string identity(const std::string& path) {
  struct statx st {};
  if (::statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_BTIME, &st) != 0)
    return "";
  std::string id = fmt::format("{}:{} {}", st.stx_dev_major, st.stx_dev_minor, st.stx_ino);
  if (st.stx_mask & STATX_BTIME)
    id += fmt::format(" {}.{:09}", st.stx_btime.tv_sec, st.stx_btime.tv_nsec);
  return id;
}

// One line appended to the marker. Not fsync'd: it guards against a killed process, and after
// a crash of the machine the boot's lock files are no one's either way.
Status note(const std::string& marker, const std::string& line) {
  const int fd = ::open(marker.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    return Error{Errc::io, fmt::format("cannot open {}: {}", marker, std::strerror(errno))};
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Error e{Errc::io, fmt::format("cannot write {}: {}", marker, std::strerror(errno))};
      ::close(fd);
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return Ok{};
}

Error held_elsewhere(const Places& places, const std::string& name) {
  return Error{Errc::locked,
               fmt::format("{}/{} exists: another git process may be running in this archive "
                           "(feeddiff did not create it and leaves it alone; if no git process "
                           "is running, remove it)",
                           places.git_dir, name)};
}

// Whether a ref update writes a reflog entry, as libgit2 and git decide it: always when the
// ref has a reflog; else unless core.logAllRefUpdates is false, for branches and HEAD.
bool wants_reflog(git_repository* repo, const std::string& branch, const std::string& log) {
  std::error_code ec;
  if (fs::exists(log, ec)) return true;
  if (!branch.starts_with("refs/heads/") && branch != "HEAD") return false;
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, repo) != 0) return true;
  int all = 1;
  if (git_config_get_bool(&all, config, "core.logallrefupdates") != 0) all = 1;
  git_config_free(config);
  return all != 0;
}

// One reflog entry as git writes it: old and new ids, who, when, a one-line message.
Result<std::string> reflog_line(git_repository* repo, const git_oid* old, const git_oid& now,
                                const std::string& message) {
  git_signature* who = nullptr;
  if (git_signature_default(&who, repo) != 0 && git_signature_now(&who, "unknown", "unknown") != 0)
    return git::last_error("making the reflog entry");
  git::SignaturePtr owned(who);
  const int offset = who->when.offset;
  std::string text = message;
  for (char& c : text)
    if (c == '\n') c = ' ';
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return fmt::format("{} {} {} <{}> {} {}{:02}{:02}\t{}\n",
                     old ? git::to_hex(*old) : std::string(GIT_OID_HEXSZ, '0'), git::to_hex(now),
                     who->name, who->email, static_cast<long long>(who->when.time),
                     offset < 0 ? '-' : '+', std::abs(offset) / 60, std::abs(offset) % 60, text);
}

// Writes text to path (opened with flags besides O_WRONLY), durably when sync.
Status write_synced(const std::string& path, const std::string& line, int flags, bool sync = true) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | flags, 0644);
  if (fd < 0) return Error{Errc::io, fmt::format("cannot open {}: {}", path, std::strerror(errno))};
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    done += static_cast<std::size_t>(n);
  }
  const bool ok = done == line.size() && (!sync || ::fsync(fd) == 0);
  const int err = errno;
  ::close(fd);
  if (!ok) return Error{Errc::io, fmt::format("cannot write {}: {}", path, std::strerror(err))};
  return Ok{};
}

// Appends line to a reflog, durably (git's own way: O_APPEND, no lock).
Status append_reflog(const std::string& path, const std::string& line) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  return write_synced(path, line, O_APPEND | O_CREAT);
}

Status sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error{Errc::io, fmt::format("cannot open {}: {}", dir, std::strerror(errno))};
  const bool ok = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return Error{Errc::io, fmt::format("cannot sync {}: {}", dir, std::strerror(err))};
  return Ok{};
}

}  // namespace

bool is_lock_line(const std::string& line) {
  return line.starts_with(":lock ") || line.starts_with(":unlock ");
}

// The branch is moved as git moves a ref, by hand rather than through libgit2's
// git_transaction: libgit2 creates the lock file itself, so there was a moment between its
// creation and the marker's note of it, and a writer killed in that moment left a
// refs/heads/main.lock no later feeddiff could tell from a live git's: every poll after
// stopped on it (tests/poll/poll_crash_test.cc met it). Now the new value is written to a
// file of feeddiff's own, noted, and linked in as the lock (link(2) fails when the name is
// taken, as git's O_EXCL does), like the index.
Status move_branch(git_repository* repo, const Places& places, const std::string& branch,
                   const git_oid* expected, const git_oid& target, const std::string& message) {
  const std::string name = branch + ".lock";
  const std::string lock = places.git_dir + "/" + name;
  const std::string ref = places.git_dir + "/" + branch;
  const std::string mine = places.private_dir + "/branch.next";
  std::error_code ec;
  // A killed writer's, in feeddiff's own directory, under the archive lock the caller holds.
  fs::remove(mine, ec);
  // Empty for now: its bytes go in through the lock's own name, once it is ours.
  if (auto ok = write_synced(mine, "", O_CREAT | O_EXCL, false); !ok) return ok;
  fs::create_directories(fs::path(lock).parent_path(), ec);
  // Noted before the lock file exists: whatever moment this process dies at, a branch lock it
  // leaves is one the marker names.
  if (auto ok = note(places.marker, fmt::format(":lock {} {}", name, identity(mine))); !ok) {
    fs::remove(mine, ec);
    return ok;
  }
  const int linked = ::link(mine.c_str(), lock.c_str());
  const int link_error = errno;
  fs::remove(mine, ec);
  if (linked != 0) {
    (void)note(places.marker, ":unlock " + name);
    if (link_error == EEXIST) return held_elsewhere(places, name);
    return Error{Errc::io, fmt::format("cannot create {}: {}", lock, std::strerror(link_error))};
  }
  failpoint(Failpoint::branch_locked);
  auto unlock = [&] {
    ::unlink(lock.c_str());
    return note(places.marker, ":unlock " + name);
  };
  git_oid current{};
  const int rc = git_reference_name_to_id(&current, repo, branch.c_str());
  if (rc != 0 && rc != GIT_ENOTFOUND) {
    Error e = git::last_error("reading the branch");
    (void)unlock();
    return e;
  }
  // Compare-and-swap under the lock: a writer that moved the branch since it was read is not
  // overwritten.
  if (expected ? rc != 0 || !git_oid_equal(&current, expected) : rc == 0) {
    (void)unlock();
    return Error{Errc::git, fmt::format("moving the branch: {} moved meanwhile (another writer "
                                        "committed); nothing was overwritten",
                                        branch)};
  }
  if (auto ok = write_synced(lock, git::to_hex(target) + "\n", O_TRUNC); !ok) {
    (void)unlock();
    return ok;
  }
  // The reflog first, as git writes it: an entry for a move a crash then lost is git's way too.
  const std::string log = places.git_dir + "/logs/" + branch;
  if (wants_reflog(repo, branch, log)) {
    auto line = reflog_line(repo, rc == 0 ? &current : nullptr, target, message);
    Status logged = line ? append_reflog(log, *line) : Status(line.error());
    // HEAD's reflog too when HEAD names the branch (libgit2 and git keep both).
    if (logged && branch != "HEAD") {
      git_reference* head = nullptr;
      if (git_reference_lookup(&head, repo, "HEAD") == 0) {
        git::ReferencePtr head_owned(head);
        const char* points = git_reference_symbolic_target(head);
        if (points && branch == points)
          logged = append_reflog(places.git_dir + "/logs/HEAD", *line);
      }
    }
    if (!logged) {
      (void)unlock();
      return logged;
    }
  }
  if (::rename(lock.c_str(), ref.c_str()) != 0) {
    Error e{Errc::io, fmt::format("cannot replace {}: {}", ref, std::strerror(errno))};
    (void)unlock();
    return e;
  }
  if (auto ok = sync_directory(fs::path(ref).parent_path().string()); !ok) return ok;
  return note(places.marker, ":unlock " + name);
}

Status write_index(git_repository* repo, const Places& places) {
  git_index* index_raw = nullptr;
  if (git_repository_index(&index_raw, repo) != 0) return git::last_error("reading the index");
  git::IndexPtr index(index_raw);
  const std::string copy = places.private_dir + "/index.next";
  const std::string lock = places.git_dir + "/index.lock";
  std::error_code ec;
  // A killed writer's, in feeddiff's own directory, under the archive lock the caller holds.
  fs::remove(copy, ec);
  fs::remove(copy + ".lock", ec);
  {
    git_index* out_raw = nullptr;
    if (git_index_open(&out_raw, copy.c_str()) != 0) return git::last_error("writing the index");
    git::IndexPtr out(out_raw);
    // Entry by entry, stat data and all (libgit2 1.5 has no git_index_read_index).
    for (std::size_t i = 0; i < git_index_entrycount(index.get()); ++i)
      if (git_index_add(out.get(), git_index_get_byindex(index.get(), i)) != 0)
        return git::last_error("writing the index");
    if (git_index_write(out.get()) != 0) return git::last_error("writing the index");
  }
  // Noted before the lock file exists: whatever moment this process dies at, an index.lock it
  // leaves is one the marker names.
  if (auto ok = note(places.marker, ":lock index.lock " + identity(copy)); !ok) return ok;
  if (::link(copy.c_str(), lock.c_str()) != 0) {
    const int err = errno;
    fs::remove(copy, ec);
    (void)note(places.marker, ":unlock index.lock");
    if (err == EEXIST) return held_elsewhere(places, "index.lock");
    return Error{Errc::io, fmt::format("cannot create {}: {}", lock, std::strerror(err))};
  }
  if (::rename(lock.c_str(), (places.git_dir + "/index").c_str()) != 0) {
    Error e{Errc::io,
            fmt::format("cannot replace {}/index: {}", places.git_dir, std::strerror(errno))};
    ::unlink(lock.c_str());
    fs::remove(copy, ec);
    (void)note(places.marker, ":unlock index.lock");
    return e;
  }
  fs::remove(copy, ec);
  if (auto ok = note(places.marker, ":unlock index.lock"); !ok) return ok;
  // What is on disk is what libgit2 holds; it reads it back so that it knows the file.
  if (git_index_read(index.get(), 1) != 0) return git::last_error("reading the index");
  return Ok{};
}

Status clear_own_locks(const Places& places, const std::string& marker_text,
                       const std::vector<std::string>& candidates) {
  std::map<std::string, std::string> taken;  // name -> identity, those not released
  std::istringstream lines(marker_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(":lock ")) {
      const std::string rest = line.substr(6);
      const auto space = rest.find(' ');
      if (space == std::string::npos) continue;  // no identity: nothing can be shown ours
      taken[rest.substr(0, space)] = rest.substr(space + 1);
    } else if (line.starts_with(":unlock ")) {
      taken.erase(line.substr(8));
    }
  }
  std::error_code ec;
  for (const auto& [name, id] : taken) {
    if (!name.ends_with(".lock") || name.find("..") != std::string::npos || name.starts_with("/"))
      continue;
    const std::string path = places.git_dir + "/" + name;
    if (!id.empty() && identity(path) == id) fs::remove(path, ec);
  }
  for (const auto& name : candidates)
    if (fs::exists(places.git_dir + "/" + name, ec)) return held_elsewhere(places, name);
  return Ok{};
}

}  // namespace feeddiff::locks
