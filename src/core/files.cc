// Whole files: read at once, written atomically (durably or not), directories flushed.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "feeddiff/core.h"

namespace feeddiff {

namespace {

Error io_error(std::string_view what, const std::string& path) {
  return Error{Errc::io, fmt::format("{} {}: {}", what, path, std::strerror(errno))};
}

// The directory that holds path ("." for a bare file name).
std::string parent_dir(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? std::string(".") : parent;
}

}  // namespace

namespace {

// Opens the directory and flushes it with flush (fsync: its entries; syncfs: its file
// system), naming the directory in the error.
Status flush_directory(const std::string& path, int (*flush)(int), std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open directory", path);
  if (flush(fd) != 0) {
    Error e = io_error(what, path);
    ::close(fd);
    return e;
  }
  if (::close(fd) != 0) return io_error("cannot close directory", path);
  return Ok{};
}

}  // namespace

Status fsync_dir(const std::string& path) {
  // A rename is in the directory, not in either file: until the directory itself reaches the
  // disk, a power loss can bring back the old name (or no name at all) for a file whose
  // bytes were fsync'd.
  return flush_directory(path, ::fsync, "cannot flush directory");
}

namespace {

Status write_atomic(const std::string& path, std::string_view content, unsigned mode,
                    bool durable) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  // A fresh file, created with its final mode: the bytes are never in a file anyone else may
  // read, even for a moment, nor in one a stale temporary of the same name left open to
  // someone (O_TRUNC would write into that file, keeping its owner and mode).
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) return io_error("cannot remove", tmp);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) return io_error("cannot create", tmp);
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto e = io_error("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  if ((durable && ::fsync(fd) != 0) || ::close(fd) != 0) {
    auto e = io_error("cannot flush", tmp);
    ::unlink(tmp.c_str());
    return e;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto e = io_error("cannot replace", path);
    ::unlink(tmp.c_str());
    return e;
  }
  return durable ? fsync_dir(parent_dir(path)) : Status(Ok{});
}

}  // namespace

Status write_file_atomic(const std::string& path, std::string_view content, unsigned mode) {
  return write_atomic(path, content, mode, true);
}

Status write_file_replace(const std::string& path, std::string_view content) {
  return write_atomic(path, content, 0644, false);
}

Status write_file_new(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST)
      return Error{Errc::exists, fmt::format("cannot create {}: it exists", path)};
    if (errno == ENOENT)
      return Error{Errc::not_found, fmt::format("cannot create {}: no such directory", path)};
    return io_error("cannot create", path);
  }
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto e = io_error("cannot write", path);
      ::close(fd);
      ::unlink(path.c_str());
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    auto e = io_error("cannot close", path);
    ::unlink(path.c_str());
    return e;
  }
  return Ok{};
}

Status sync_filesystem(const std::string& path) {
  // One syncfs for the thousands of files a site run writes: an fsync per file and per
  // directory was an eighth of a first build's time.
  return flush_directory(path, ::syncfs, "cannot flush the file system of");
}

Result<std::string> read_file(const std::string& path) {
  // One buffer of the file's size (and a byte, so that the read that finds the end needs no
  // more room), filled by read(2). Streaming into an ostringstream grew its buffer by doubling
  // and copied it out again: for a 20 MB feed, ~100 MB of fresh pages and copies.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Error{Errc::not_found, fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  struct stat st {};
  const bool sized = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  std::string out;
  reserve_large(out, sized ? static_cast<std::size_t>(st.st_size) + 1 : std::size_t{1} << 16);
  out.resize(out.capacity());
  std::size_t used = 0;
  for (;;) {
    if (used == out.size()) out.resize(out.size() * 2);
    const ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Error e = io_error("cannot read", path);
      ::close(fd);
      return e;
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(used);
  return out;
}

}  // namespace feeddiff
