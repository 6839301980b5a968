#include "site/site_work.h"

#include <fmt/format.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace feeddiff::site {

namespace {

constexpr std::size_t kOidBytes = sizeof(Oid);
// Ids read per block by each(): 80 KB.
constexpr std::size_t kBlock = 4096;

Error io_error(const std::string& what, const std::string& path) {
  return Error{Errc::io, fmt::format("{} {}: {}", what, path, std::strerror(errno))};
}

Result<FilePtr> open_new(const std::string& path) {
  // "w+": created or emptied, read and written through one buffer.
  FilePtr file(std::fopen(path.c_str(), "w+be"), &std::fclose);
  if (!file) return io_error("cannot create", path);
  return file;
}

}  // namespace

Result<CommitSpool> CommitSpool::create(const std::string& path) {
  auto file = open_new(path);
  if (!file) return file.error();
  return CommitSpool(path, std::move(*file));
}

Status CommitSpool::push(const Oid& id) {
  if (std::fwrite(id.data(), 1, kOidBytes, file_.get()) != kOidBytes)
    return io_error("cannot write", path_);
  ++size_;
  return Ok{};
}

Status CommitSpool::read_records(std::size_t first, std::size_t count, std::vector<Oid>& out) {
  out.resize(count);
  if (count == 0) return Ok{};
  if (std::fflush(file_.get()) != 0 ||
      fseeko(file_.get(), static_cast<off_t>(first * kOidBytes), SEEK_SET) != 0)
    return io_error("cannot read", path_);
  if (std::fread(out.data(), kOidBytes, count, file_.get()) != count)
    return Error{Errc::io, fmt::format("cannot read {}: it is shorter than written", path_)};
  // Appending again starts at the end.
  if (fseeko(file_.get(), 0, SEEK_END) != 0) return io_error("cannot seek in", path_);
  return Ok{};
}

Result<std::vector<Oid>> CommitSpool::oldest(std::size_t begin, std::size_t end) {
  end = std::min(end, size_);
  begin = std::min(begin, end);
  // Record r holds the id at position size - 1 - r: positions [begin, end) are the records
  // [size - end, size - begin), newest first.
  std::vector<Oid> ids;
  if (auto ok = read_records(size_ - end, end - begin, ids); !ok) return ok.error();
  std::reverse(ids.begin(), ids.end());
  return ids;
}

Status CommitSpool::each(const std::function<void(const Oid&)>& visit) {
  std::vector<Oid> block;
  for (std::size_t first = 0; first < size_; first += kBlock) {
    if (auto ok = read_records(first, std::min(kBlock, size_ - first), block); !ok) return ok;
    for (const Oid& id : block) visit(id);
  }
  return Ok{};
}

Result<RowSpool> RowSpool::create(const std::string& path) {
  auto file = open_new(path);
  if (!file) return file.error();
  return RowSpool(path, std::move(*file));
}

Result<std::uint64_t> RowSpool::put(std::string_view line) {
  // stdio asks for a seek between a read and a write on one stream.
  if (reading_ && fseeko(file_.get(), static_cast<off_t>(end_), SEEK_SET) != 0)
    return io_error("cannot seek in", path_);
  reading_ = false;
  const std::uint64_t at = end_;
  if (std::fwrite(line.data(), 1, line.size(), file_.get()) != line.size() ||
      std::fputc('\n', file_.get()) == EOF)
    return io_error("cannot write", path_);
  end_ += line.size() + 1;
  return at;
}

Result<std::string> RowSpool::get(std::uint64_t offset) {
  if (offset >= end_) return Error{Errc::io, fmt::format("no row at {} in {}", offset, path_)};
  if ((!reading_ && std::fflush(file_.get()) != 0) ||
      fseeko(file_.get(), static_cast<off_t>(offset), SEEK_SET) != 0)
    return io_error("cannot read", path_);
  reading_ = true;
  std::string line;
  for (int c; (c = getc_unlocked(file_.get())) != '\n';) {
    if (c == EOF) return io_error("cannot read", path_);
    line += static_cast<char>(c);
  }
  return line;
}

Status RowSpool::clear() {
  if (std::fflush(file_.get()) != 0 || ftruncate(fileno(file_.get()), 0) != 0 ||
      fseeko(file_.get(), 0, SEEK_SET) != 0)
    return io_error("cannot empty", path_);
  end_ = 0;
  reading_ = false;
  return Ok{};
}

}  // namespace feeddiff::site
