// The directories read ahead, the newest in memory and all in an unnamed file (ahead_dirs.h).

#include "store/ahead_dirs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace feeddiff {

namespace {

// A record of the file: commit id, directory id, layout, three bytes of padding. The name is
// the block's (AheadDirs::blocks_).
constexpr std::size_t kRecord = 44;

// All of size bytes at offset at, written (pwrite) or read (pread), retrying on EINTR.
template <typename Data, typename Call>
bool whole(int fd, Data* data, std::size_t size, std::uint64_t at, Call call) {
  while (size > 0) {
    const ssize_t n = call(fd, data, size, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
    at += static_cast<std::uint64_t>(n);
  }
  return true;
}

// A file with no name in dir, gone when the last descriptor closes (a run killed leaves
// nothing behind); where the file system has no O_TMPFILE, a named one unlinked at once.
int unnamed_file(const std::string& dir) {
  ::mkdir(dir.c_str(), 0777);
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string path = dir + "/ahead-XXXXXX";
  const int named = ::mkostemp(path.data(), O_CLOEXEC);
  if (named >= 0) ::unlink(path.c_str());
  return named;
}

}  // namespace

AheadDirs::~AheadDirs() {
  if (fd_ >= 0) ::close(fd_);
}

bool AheadDirs::by_commit(const Entry& a, const Entry& b) {
  return git_oid_cmp(&a.commit, &b.commit) < 0;
}

std::uint32_t AheadDirs::name_id(std::string_view name) {
  auto [at, added] =
      name_ids_.try_emplace(std::string(name), static_cast<std::uint32_t>(blocks_.size()));
  if (added) blocks_.emplace_back();
  return at->second;
}

void AheadDirs::add(const std::vector<Read>& batch) {
  if (batch.empty()) return;
  std::vector<Entry> entries;
  entries.reserve(batch.size());
  for (const Read& r : batch)
    entries.push_back({r.commit, r.dir.id, name_id(r.name), r.dir.layout});
  count_ += entries.size();
  if (spilling_ && !spill(entries)) spilling_ = false;
  // On disk, the older ones need not stay: memory holds the newest batches only.
  if (spilling_ && memory_.size() + entries.size() > kInMemory) memory_.clear();
  const std::size_t before = memory_.size();
  memory_.insert(memory_.end(), entries.begin(), entries.end());
  const auto middle = memory_.begin() + static_cast<std::ptrdiff_t>(before);
  std::sort(middle, memory_.end(), by_commit);
  std::inplace_merge(memory_.begin(), middle, memory_.end(), by_commit);
}

bool AheadDirs::spill(const std::vector<Entry>& batch) {
  if (fd_ < 0) fd_ = unnamed_file(dir_);
  if (fd_ < 0) return false;
  // Each name's records together, in the batch's order (the history's).
  std::vector<std::size_t> order(batch.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return batch[a].name < batch[b].name; });
  std::string bytes(order.size() * kRecord, '\0');
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Entry& e = batch[order[k]];
    char* r = bytes.data() + k * kRecord;
    std::memcpy(r, e.commit.id, GIT_OID_RAWSZ);
    std::memcpy(r + 20, e.dir.id, GIT_OID_RAWSZ);
    r[40] = e.layout == Layout::fanout ? 1 : 0;
  }
  if (!whole(fd_, bytes.data(), bytes.size(), records_ * kRecord, ::pwrite)) return false;
  for (std::size_t k = 0; k < order.size();) {
    const std::uint32_t name = batch[order[k]].name;
    std::size_t end = k;
    while (end < order.size() && batch[order[end]].name == name) ++end;
    blocks_[name].push_back({records_ + k, static_cast<std::uint32_t>(end - k)});
    if (name == loaded_name_) loaded_name_ = UINT32_MAX;  // read back without these
    k = end;
  }
  records_ += order.size();
  return true;
}

bool AheadDirs::load(std::uint32_t name) {
  ++reads_back;
  loaded_name_ = UINT32_MAX;
  loaded_.clear();
  std::string bytes;
  for (const Block& b : blocks_[name]) {
    bytes.resize(std::size_t{b.count} * kRecord);
    if (!whole(fd_, bytes.data(), bytes.size(), b.offset * kRecord, ::pread)) {
      loaded_.clear();
      return false;
    }
    for (std::size_t k = 0; k < b.count; ++k) {
      const char* r = bytes.data() + k * kRecord;
      Entry e;
      std::memcpy(e.commit.id, r, GIT_OID_RAWSZ);
      std::memcpy(e.dir.id, r + 20, GIT_OID_RAWSZ);
      e.name = name;
      e.layout = r[40] == 1 ? Layout::fanout : Layout::flat;
      loaded_.push_back(e);
    }
  }
  std::sort(loaded_.begin(), loaded_.end(), by_commit);
  loaded_name_ = name;
  return true;
}

bool AheadDirs::search(const std::vector<Entry>& in, const git_oid& commit, std::uint32_t name,
                       Dir& out) {
  Entry key;
  key.commit = commit;
  for (auto at = std::lower_bound(in.begin(), in.end(), key, by_commit);
       at != in.end() && git_oid_equal(&at->commit, &commit); ++at)
    if (at->name == name) {
      out.id = at->dir;
      out.layout = at->layout;
      return true;
    }
  return false;
}

bool AheadDirs::in_memory(const git_oid& commit, std::string_view name) const {
  const auto at = name_ids_.find(std::string(name));
  Dir unused;
  return at != name_ids_.end() && search(memory_, commit, at->second, unused);
}

bool AheadDirs::find(const git_oid& commit, std::string_view name, Dir& out) {
  const auto at = name_ids_.find(std::string(name));
  if (at == name_ids_.end()) return false;
  const std::uint32_t id = at->second;
  if (search(memory_, commit, id, out)) return true;
  if (blocks_[id].empty() || fd_ < 0) return false;
  if (loaded_name_ != id && !load(id)) return false;
  return search(loaded_, commit, id, out);
}

void AheadDirs::clear() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  spilling_ = true;
  records_ = 0;
  count_ = 0;
  memory_ = {};
  name_ids_ = {};
  blocks_ = {};
  loaded_name_ = UINT32_MAX;
  loaded_ = {};
}

void AheadDirs::copy_from(const AheadDirs& other) {
  clear();
  fd_ = other.fd_ >= 0 ? ::fcntl(other.fd_, F_DUPFD_CLOEXEC, 0) : -1;
  spilling_ = other.spilling_ && (other.fd_ < 0 || fd_ >= 0);
  records_ = other.records_;
  count_ = other.count_;
  memory_ = other.memory_;
  name_ids_ = other.name_ids_;
  blocks_ = other.blocks_;
  if (other.fd_ >= 0 && fd_ < 0) blocks_.assign(blocks_.size(), {});  // no file to read
}

}  // namespace feeddiff
