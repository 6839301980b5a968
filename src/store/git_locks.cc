// git's lock files, taken so that feeddiff's own can be told from a live git's (see
// git_locks.h). libgit2 offers no way to learn which lock file it created, so the branch goes
// through a git_transaction (the lock exists, ours, between lock_ref and commit) and the index
// is written by libgit2 beside, in .git/feeddiff, then linked in as index.lock: link(2) fails
// when the name is taken, as git's O_EXCL does, and the file's identity is known before.

#include "store/git_locks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

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

}  // namespace

bool is_lock_line(const std::string& line) {
  return line.starts_with(":lock ") || line.starts_with(":unlock ");
}

Status move_branch(git_repository* repo, const Places& places, const std::string& branch,
                   const git_oid* expected, const git_oid& target, const std::string& message) {
  git_transaction* tx_raw = nullptr;
  if (git_transaction_new(&tx_raw, repo) != 0) return git::last_error("moving the branch");
  std::unique_ptr<git_transaction, decltype(&git_transaction_free)> tx(tx_raw,
                                                                       &git_transaction_free);
  const std::string name = branch + ".lock";
  const std::string path = places.git_dir + "/" + name;
  if (git_transaction_lock_ref(tx.get(), branch.c_str()) != 0) {
    if (fs::exists(path)) return held_elsewhere(places, name);
    return git::last_error("locking the branch");
  }
  // The lock file is ours from here until the transaction ends; noted at once.
  if (auto ok = note(places.marker, fmt::format(":lock {} {}", name, identity(path))); !ok)
    return ok;
  auto unlock = [&] {
    tx.reset();  // removes the lock file unless committed
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
  if (git_transaction_set_target(tx.get(), branch.c_str(), &target, nullptr, message.c_str()) !=
          0 ||
      git_transaction_commit(tx.get()) != 0) {
    Error e = git::last_error("moving the branch");
    (void)unlock();
    return e;
  }
  return unlock();
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
