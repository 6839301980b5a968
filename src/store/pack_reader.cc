// Reading objects straight from the packs (pack_reader.h), written by hand rather than left
// to libgit2 because the source index's rebuild is mostly object reads, and libgit2's were
// measured the larger part of it: at 100,000 changes (bench/scale) git_odb_read was 69% of
// the samples, half of that zlib (a fresh inflate stream, with its tables and window, for
// each of the hundreds of thousands of small objects and deltas it reads) and the rest the
// index search and delta code behind its locks and caches. libgit2 reads packs with its own zlib
// and offers no other way in; this reader inflates with libdeflate (one decompressor, reused: the
// pack header gives each object's exact size, which is what libdeflate asks), applies deltas
// itself, and keeps the last objects it made, so that a chain of `raw` trees read oldest first
// costs one small inflate and one delta each. With it alone, that rebuild went from 2.5 to 1.6 s of
// CPU (user + sys, both processes) and its main process from 1.4 to 0.85 s; docs/index.md has the
// measurements.
//
// It answers only what it is sure of and declines the rest (nullopt): an object in no pack
// it reads (a loose one, one of a pack written since), a pack whose index is not version 2
// or does not match its pack, a header, size, zlib checksum or delta that does not add up,
// a delta whose base it cannot read. libgit2 then reads the object, so a declined read
// costs time, never a wrong answer. The pack format is git's (gitformat-pack(5)).

#include "store/pack_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <git2/sys/odb_backend.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <tuple>

namespace feeddiff::pack {

namespace {

constexpr std::size_t kIdxHeader = 8 + 256 * 4;  // magic, version, fanout
constexpr std::size_t kPackHeader = 12;          // "PACK", version, count
constexpr std::size_t kMaxObject = std::size_t{1} << 30;
// Deeper chains (and a REF_DELTA cycle in a broken pack) go to libgit2: git packs no deeper
// than 4,095 (pack.depth's ceiling), and each level here is a frame of the recursion.
constexpr unsigned kMaxChain = 4'095;
// The pack is mapped in windows, the least recently used unmapped first, as libgit2 does it
// (git_runtime.cc): a rebuild at 1,000,000 changes touched all of a 1.3 GB pack mapped whole,
// and its resident memory grew to match.
constexpr std::uint64_t kWindow = std::uint64_t{32} << 20;
constexpr std::size_t kWindows = 3;
// The cache: enough for a chain of 50 `raw` trees of 10,000 sources each (about 360 KB).
constexpr std::size_t kCacheBytes = std::size_t{32} << 20;
constexpr std::size_t kCacheEntries = 96;

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

std::uint64_t be64(const unsigned char* p) {
  return (std::uint64_t{be32(p)} << 32) | be32(p + 4);
}

// How many interpolation probes a lookup in a pack index makes before it bisects.
constexpr int kInterpolationProbes = 4;

}  // namespace

// A read-only mapping of a whole file; empty when it cannot be made.
struct PackReader::Mapping {
  const unsigned char* data = nullptr;
  std::size_t size = 0;

  bool map(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
      ::close(fd);
      return false;
    }
    void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) return false;
    data = static_cast<const unsigned char*>(p);
    size = static_cast<std::size_t>(st.st_size);
    return true;
  }
  ~Mapping() {
    if (data) ::munmap(const_cast<unsigned char*>(data), size);
  }
};

namespace {

// A delta's size header: 7 bits a byte, least significant first.
bool delta_size(const unsigned char*& p, const unsigned char* end, std::uint64_t& out) {
  out = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const unsigned char c = *p++;
    out |= std::uint64_t{c & 0x7fu} << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

// base with delta applied into a new buffer of exactly the size the delta names; nullopt
// when the delta does not fit base or does not fill its result exactly.
std::optional<ReadObject> apply_delta(const ReadObject& base, std::string_view delta) {
  const auto* p = reinterpret_cast<const unsigned char*>(delta.data());
  const unsigned char* end = p + delta.size();
  std::uint64_t base_size = 0, result_size = 0;
  if (!delta_size(p, end, base_size) || base_size != base.size) return std::nullopt;
  if (!delta_size(p, end, result_size) || result_size > kMaxObject) return std::nullopt;
  ReadObject out;
  out.type = base.type;
  out.size = static_cast<std::size_t>(result_size);
  auto buffer = std::make_shared_for_overwrite<char[]>(out.size ? out.size : 1);
  char* const start = buffer.get();
  char* at = start;
  char* const stop = at + out.size;
  const char* from = base.data.get();
  // The copies that keep the base's first bytes where they were, and the run of copies that
  // ends at both ends: what the result shares with its base for certain (shared_ends).
  bool head_open = true;
  std::uint64_t tail_start = 0, tail_end = 0;  // a run aligned with both ends, in the result
  bool tail_open = false;
  while (p < end) {
    const unsigned char op = *p++;
    if (op & 0x80) {
      std::uint64_t offset = 0, size = 0;
      for (unsigned i = 0; i < 4; ++i)
        if (op & (1u << i)) {
          if (p == end) return std::nullopt;
          offset |= std::uint64_t{*p++} << (8 * i);
        }
      for (unsigned i = 0; i < 3; ++i)
        if (op & (0x10u << i)) {
          if (p == end) return std::nullopt;
          size |= std::uint64_t{*p++} << (8 * i);
        }
      if (size == 0) size = 0x10000;
      if (offset > base.size || size > base.size - offset ||
          size > static_cast<std::uint64_t>(stop - at))
        return std::nullopt;
      std::memcpy(at, from + offset, size);
      const auto pos = static_cast<std::uint64_t>(at - start);
      if (head_open && offset == pos)
        out.same_head += static_cast<std::size_t>(size);
      else
        head_open = false;
      // Aligned with both ends: pos - offset is result_size - base_size.
      if (pos + base_size != offset + result_size) {
        tail_open = false;
      } else if (!tail_open || tail_end != pos) {
        tail_open = true;
        tail_start = pos;
      }
      tail_end = pos + size;
      at += size;
    } else if (op != 0) {
      head_open = tail_open = false;
      if (op > end - p || op > stop - at) return std::nullopt;
      std::memcpy(at, p, op);
      at += op;
      p += op;
    } else {
      return std::nullopt;  // reserved
    }
  }
  if (at != stop) return std::nullopt;
  if (tail_open && tail_end == result_size)
    out.same_tail = static_cast<std::size_t>(result_size - tail_start);
  out.data = std::move(buffer);
  return out;
}

}  // namespace

struct PackReader::Pack {
  Mapping idx;
  int fd = -1;             // the pack, read through windows
  std::uint64_t size = 0;  // its length
  ~Pack() {
    if (fd >= 0) ::close(fd);
  }

  bool open_pack(const std::string& path) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size <= 0) return false;
    size = static_cast<std::uint64_t>(st.st_size);
    return true;
  }
  std::uint32_t count = 0;
  const unsigned char* ids = nullptr;      // count ids of 20 bytes, sorted
  const unsigned char* offsets = nullptr;  // count big-endian offsets of 4 bytes
  const unsigned char* large = nullptr;    // the 8-byte ones the 4-byte ones point into
  std::size_t large_count = 0;

  // Whether idx is a version 2 index of pack, down to the pack's checksum.
  bool check() {
    if (idx.size < kIdxHeader + 40 || size < kPackHeader + 20) return false;
    static constexpr unsigned char kMagic[4] = {0xff, 't', 'O', 'c'};
    if (std::memcmp(idx.data, kMagic, 4) != 0 || be32(idx.data + 4) != 2) return false;
    const unsigned char* fanout = idx.data + 8;
    for (int i = 1; i < 256; ++i)
      if (be32(fanout + 4 * i) < be32(fanout + 4 * (i - 1))) return false;
    count = be32(fanout + 4 * 255);
    const std::size_t fixed = kIdxHeader + std::size_t{count} * 28 + 40;
    if (idx.size < fixed || (idx.size - fixed) % 8 != 0) return false;
    ids = idx.data + kIdxHeader;
    offsets = ids + std::size_t{count} * 24;  // after the ids and the CRCs
    large = offsets + std::size_t{count} * 4;
    large_count = (idx.size - fixed) / 8;
    unsigned char header[kPackHeader], trailer[20];
    if (::pread(fd, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) ||
        ::pread(fd, trailer, sizeof trailer, static_cast<off_t>(size - 20)) !=
            static_cast<ssize_t>(sizeof trailer))
      return false;
    if (std::memcmp(header, "PACK", 4) != 0) return false;
    const std::uint32_t version = be32(header + 4);
    if ((version != 2 && version != 3) || be32(header + 8) != count) return false;
    // The index names its pack by the pack's trailing checksum.
    return std::memcmp(idx.data + idx.size - 40, trailer, 20) == 0;
  }

  // The position of id in the index: its fanout bucket, then a few interpolation probes on
  // the ids' first 8 bytes (ids are uniform, so a key says about where it is: each probe
  // narrows a bucket of n to about sqrt(n)), then a binary search of what is left, the ids
  // compared whole only where their first 8 bytes tie. A binary search alone touched 11
  // pages of a 500,000-object index per lookup; one interpolation, then a binary search of
  // its window, made about 10 calls of memcmp (with the search, 15% of the CPU of a rebuild's
  // walk, which is its critical path). The probes are capped: ids made to crowd together
  // cost a binary search, no more.
  std::optional<std::uint32_t> position(const git_oid& id) const {
    const unsigned char* fanout = idx.data + 8;
    const unsigned first = id.id[0];
    std::uint32_t lo = first == 0 ? 0 : be32(fanout + 4 * (first - 1));
    std::uint32_t hi = be32(fanout + 4 * first);
    const std::uint64_t key = be64(id.id);
    // Every id in [lo, hi) has its key in [lo_key, hi_key].
    std::uint64_t lo_key = std::uint64_t{first} << 56;
    std::uint64_t hi_key = lo_key | 0x00ffffffffffffffu;
    const auto compare = [&](std::uint32_t at) {
      const unsigned char* p = ids + std::size_t{at} * 20;
      const std::uint64_t k = be64(p);
      if (k != key) return k < key ? -1 : 1;
      return std::memcmp(p + 8, id.id + 8, 12);
    };
    for (int probe = 0; probe < kInterpolationProbes && hi - lo > 16; ++probe) {
      const double fraction = double(key - lo_key) / (double(hi_key - lo_key) + 1.0);
      const std::uint32_t mid =
          lo + std::min(hi - lo - 1, static_cast<std::uint32_t>(fraction * double(hi - lo)));
      const int c = compare(mid);
      if (c == 0) return mid;
      const std::uint64_t k = be64(ids + std::size_t{mid} * 20);
      if (c < 0) {
        lo = mid + 1;
        lo_key = k;
      } else {
        hi = mid;
        hi_key = k;
      }
    }
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      const int c = compare(mid);
      if (c == 0) return mid;
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    return std::nullopt;
  }

  // The offset of the object at position i; nullopt when it lies outside the pack.
  std::optional<std::uint64_t> offset_of(std::uint32_t i) const {
    std::uint64_t offset = be32(offsets + std::size_t{i} * 4);
    if (offset & 0x80000000u) {
      const std::size_t k = offset & 0x7fffffffu;
      if (k >= large_count) return std::nullopt;
      const unsigned char* p = large + k * 8;
      offset = (std::uint64_t{be32(p)} << 32) | be32(p + 4);
    }
    if (offset < kPackHeader || offset >= size - 20) return std::nullopt;
    return offset;
  }
};

struct PackReader::Decompressor {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  ~Decompressor() {
    if (d) libdeflate_free_decompressor(d);
  }
};

PackReader::PackReader(const std::string& objects_dir) : inflater_(new Decompressor) {
  const std::string dir = objects_dir + "/pack";
  DIR* listing = ::opendir(dir.c_str());
  if (!listing || !inflater_->d) {
    if (listing) ::closedir(listing);
    return;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(listing)) {
    const std::string_view name(e->d_name);
    if (name.size() > 9 && name.starts_with("pack-") && name.ends_with(".idx"))
      names.emplace_back(name.substr(0, name.size() - 4));
  }
  ::closedir(listing);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    auto pack = std::make_unique<Pack>();
    if (pack->idx.map(dir + "/" + name + ".idx") && pack->open_pack(dir + "/" + name + ".pack") &&
        pack->check())
      packs_.push_back(std::move(pack));
  }
}

PackReader::~PackReader() {
  for (const Window& w : windows_) unmap(w);
}

void PackReader::unmap(const Window& w) {
  ::munmap(const_cast<unsigned char*>(w.data), w.length);
}

// Pack k's bytes from offset, at least want of them where the pack has them (up to its
// trailer), through a window that stays mapped until the next call; {nullptr, nullptr} when
// none can be mapped.
std::pair<const unsigned char*, const unsigned char*> PackReader::bytes_at(std::size_t k,
                                                                           std::uint64_t offset,
                                                                           std::uint64_t want) {
  const std::uint64_t limit = packs_[k]->size - 20;
  const std::uint64_t until = std::min(limit, offset + want);
  const auto inside = [&](const Window& w) {
    return w.pack == k && w.start <= offset && w.start + w.length >= until;
  };
  auto it = std::find_if(windows_.begin(), windows_.end(), inside);
  if (it == windows_.end()) {
    if (windows_.size() >= kWindows) {
      it = std::min_element(windows_.begin(), windows_.end(),
                            [](const Window& a, const Window& b) { return a.used < b.used; });
      unmap(*it);
      windows_.erase(it);
    }
    // Around offset: a walk goes through a pack backwards as often as forwards.
    const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    std::uint64_t start = offset > kWindow / 2 ? offset - kWindow / 2 : 0;
    start -= start % page;
    const std::uint64_t end = std::min(packs_[k]->size, std::max(start + kWindow, until));
    void* p = ::mmap(nullptr, end - start, PROT_READ, MAP_PRIVATE, packs_[k]->fd,
                     static_cast<off_t>(start));
    if (p == MAP_FAILED) return {nullptr, nullptr};
    windows_.push_back({k, start, end - start, static_cast<const unsigned char*>(p), 0});
    it = windows_.end() - 1;
  }
  it->used = ++clock_;
  const std::uint64_t stop = std::min(limit, it->start + it->length);
  return {it->data + (offset - it->start), it->data + (stop - it->start)};
}

std::optional<std::pair<std::size_t, std::uint64_t>> PackReader::find(const git_oid& id) const {
  for (std::size_t k = 0; k < packs_.size(); ++k)
    if (auto i = packs_[k]->position(id)) {
      auto offset = packs_[k]->offset_of(*i);
      if (!offset) return std::nullopt;
      return std::pair{k, *offset};
    }
  return std::nullopt;
}

std::optional<ReadObject> PackReader::read(const git_oid& id) {
  auto at = find(id);
  if (!at) return std::nullopt;
  auto object = read_at(at->first, at->second, 0);
  if (!object) ++declined_;
  return object;
}

void PackReader::remember(std::uint64_t key, const ReadObject& object) {
  if (object.size > kCacheBytes / 4) return;
  while (!cache_.empty() &&
         (cache_.size() >= kCacheEntries || cached_bytes_ + object.size > kCacheBytes)) {
    auto oldest =
        std::min_element(cache_.begin(), cache_.end(),
                         [](const Cached& a, const Cached& b) { return a.used < b.used; });
    cached_bytes_ -= oldest->object.size;
    *oldest = std::move(cache_.back());
    cache_.pop_back();
  }
  cache_.push_back({key, ++clock_, object});
  cached_bytes_ += object.size;
}

std::pair<std::size_t, std::size_t> shared_ends(const ReadObject& a, const ReadObject& b) {
  if (a.key == 0 || b.key == 0) return {0, 0};
  if (a.base_key == b.key) return {a.same_head, a.same_tail};
  if (b.base_key == a.key) return {b.same_head, b.same_tail};
  return {0, 0};
}

// The object at offset of pack k. A delta's base is read first (from the cache when it was
// made lately), and what a delta makes is kept as the likely base of the next one.
std::optional<ReadObject> PackReader::read_at(std::size_t k, std::uint64_t offset, unsigned depth) {
  if (depth > kMaxChain) return std::nullopt;
  const std::uint64_t key = (std::uint64_t{k} << 48) | offset;
  for (Cached& c : cache_)
    if (c.key == key) {
      c.used = ++clock_;
      return c.object;
    }
  // The header: type, size, and a delta's base (at most 10 + 10 or 20 bytes).
  auto [p, end] = bytes_at(k, offset, 64);
  if (!p || p == end) return std::nullopt;
  const unsigned char* const header = p;
  unsigned char c = *p++;
  const unsigned type = (c >> 4) & 7;
  std::uint64_t size = c & 15;
  for (unsigned shift = 4; c & 0x80; shift += 7) {
    if (p == end || shift > 57) return std::nullopt;
    c = *p++;
    size |= std::uint64_t{c & 0x7fu} << shift;
  }
  if (size > kMaxObject) return std::nullopt;
  std::optional<ReadObject> base;
  if (type == GIT_OBJECT_OFS_DELTA) {
    if (p == end) return std::nullopt;
    c = *p++;
    std::uint64_t back = c & 0x7f;
    while (c & 0x80) {
      if (p == end || back > (offset >> 7)) return std::nullopt;
      c = *p++;
      back = ((back + 1) << 7) | (c & 0x7f);
    }
    if (back == 0 || back >= offset) return std::nullopt;
    const std::uint64_t data = offset + static_cast<std::uint64_t>(p - header);
    base = read_at(k, offset - back, depth + 1);
    // The base's read may have moved the windows.
    std::tie(p, end) = bytes_at(k, data, size + size / 8 + 1024);
  } else if (type == GIT_OBJECT_REF_DELTA) {
    if (end - p < GIT_OID_RAWSZ) return std::nullopt;
    git_oid base_id{};
    git_oid_fromraw(&base_id, p);
    p += GIT_OID_RAWSZ;
    if (auto at = find(base_id)) {
      const std::uint64_t data = offset + static_cast<std::uint64_t>(p - header);
      base = read_at(at->first, at->second, depth + 1);
      std::tie(p, end) = bytes_at(k, data, size + size / 8 + 1024);
    }
  } else if (type < GIT_OBJECT_COMMIT || type > GIT_OBJECT_TAG) {
    return std::nullopt;
  }
  const bool delta = type == GIT_OBJECT_OFS_DELTA || type == GIT_OBJECT_REF_DELTA;
  if (delta && !base) return std::nullopt;
  if (!delta)
    std::tie(p, end) =
        bytes_at(k, offset + static_cast<std::uint64_t>(p - header), size + size / 8 + 1024);
  if (!p) return std::nullopt;
  // The stream's end is not recorded: libdeflate finds it, and checks its Adler-32.
  auto buffer = std::make_shared_for_overwrite<char[]>(size ? size : 1);
  std::size_t used = 0;
  if (libdeflate_zlib_decompress_ex(inflater_->d, p, static_cast<std::size_t>(end - p),
                                    buffer.get(), static_cast<std::size_t>(size), &used,
                                    nullptr) != LIBDEFLATE_SUCCESS)
    return std::nullopt;
  ReadObject object;
  if (delta) {
    auto made = apply_delta(*base, {buffer.get(), static_cast<std::size_t>(size)});
    if (!made) return std::nullopt;
    object = std::move(*made);
    object.base_key = base->key;
  } else {
    object.type = static_cast<git_object_t>(type);
    object.data = std::move(buffer);
    object.size = static_cast<std::size_t>(size);
  }
  object.key = key;
  // Bases and the objects deltas make are what the next reads along a chain ask again; a
  // whole commit read at the top seldom is.
  if (depth > 0 || delta || object.type != GIT_OBJECT_COMMIT) remember(key, object);
  return object;
}

namespace {

// The backend add_reader_backend puts in an object database.
struct ReaderBackend {
  git_odb_backend parent;  // first: libgit2 hands back a pointer to it
  std::unique_ptr<PackReader> reader;
};

int backend_read(void** data, std::size_t* size, git_object_t* type, git_odb_backend* backend,
                 const git_oid* id) {
  auto* self = reinterpret_cast<ReaderBackend*>(backend);
  auto object = self->reader->read(*id);
  if (!object) return GIT_PASSTHROUGH;
  void* out = git_odb_backend_data_alloc(backend, object->size ? object->size : 1);
  if (!out) return -1;
  std::memcpy(out, object->data.get(), object->size);
  *data = out;
  *size = object->size;
  *type = object->type;
  return 0;
}

void backend_free(git_odb_backend* backend) {
  delete reinterpret_cast<ReaderBackend*>(backend);
}

}  // namespace

Status add_reader_backend(git_odb* odb, const std::string& objects_dir, int priority) {
  auto* backend = new ReaderBackend{};
  if (git_odb_init_backend(&backend->parent, GIT_ODB_BACKEND_VERSION) != 0) {
    delete backend;
    return git::last_error("starting a pack reader");
  }
  backend->parent.read = &backend_read;
  backend->parent.free = &backend_free;
  backend->reader = std::make_unique<PackReader>(objects_dir);
  if (git_odb_add_backend(odb, &backend->parent, priority) != 0) {
    delete backend;
    return git::last_error("adding a pack reader");
  }
  return Ok{};
}

PackReader* reader_of(git_odb* odb) {
  for (std::size_t i = 0, n = git_odb_num_backends(odb); i < n; ++i) {
    git_odb_backend* b = nullptr;
    if (git_odb_get_backend(&b, odb, i) == 0 && b && b->read == &backend_read)
      return reinterpret_cast<ReaderBackend*>(b)->reader.get();
  }
  return nullptr;
}

Result<git::RepositoryPtr> open_with_reader(const std::string& git_dir) {
  git::ensure_initialized();
  git_repository* repo = nullptr;
  if (git_repository_open(&repo, git_dir.c_str()) != 0)
    return git::last_error("opening the repository");
  git::RepositoryPtr owned(repo);
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo) != 0) return git::last_error("opening the object database");
  git::OdbPtr odb_owned(odb);
  // Above libgit2's own pack and loose backends (priorities 1 and 2).
  if (auto ok = add_reader_backend(odb, git_dir + "/objects", 10); !ok) return ok.error();
  return owned;
}

}  // namespace feeddiff::pack
