// The archive lock (.git/feeddiff/lock). The file helpers it once shared a file with are
// core's (src/core/files.cc).

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "feeddiff/core.h"
#include "feeddiff/store.h"

namespace feeddiff {

namespace {

Error io_error(std::string_view what, const std::string& path) {
  return Error{Errc::io, fmt::format("{} {}: {}", what, path, std::strerror(errno))};
}

}  // namespace

Result<ArchiveLock> ArchiveLock::acquire(const Archive& archive, bool wait) {
  const std::string path = archive.private_dir() + "/lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot open", path);
  // flock, not a lock file: the kernel drops it when the holder dies, even by SIGKILL.
  while (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    ::close(fd);
    if (errno == EWOULDBLOCK)
      return Error{Errc::locked,
                   "another feeddiff process is writing this archive (retry later, or pass "
                   "--wait)"};
    return io_error("cannot lock", path);
  }
  ArchiveLock lock(fd);
  // Temporary files of a writer that was killed (write_file_atomic's, under the lock too).
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(archive.private_dir(), ec))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos)
      std::filesystem::remove(entry.path(), ec);
  if (auto ok = archive.finish_checkout(); !ok) return ok.error();
  return lock;
}

ArchiveLock::ArchiveLock(ArchiveLock&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

ArchiveLock& ArchiveLock::operator=(ArchiveLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

ArchiveLock::~ArchiveLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace feeddiff
