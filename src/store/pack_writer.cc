#include "store/pack_writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "feeddiff/core.h"
#include "feeddiff/failpoint.h"
#include "feeddiff/store.h"
#include "store/batch_backend.h"
#include "store/git_handles.h"
#include "store/pack_codec.h"
#include "store/precompressor.h"

namespace feeddiff::pack {

namespace {

namespace fs = std::filesystem;

// An object's bytes as write_pack reads them: in place where the batch holds them, else a
// copy libgit2 made.
struct PackInput {
  git_object_t type = GIT_OBJECT_INVALID;
  std::string_view data;
  git::SharedBytes shared;
  git::OdbObjectPtr read;
};

Result<PackInput> read_object(git_odb* odb, const git::BatchBackend* batch, const git_oid& id) {
  PackInput out;
  if (const git::BatchObject* held = batch ? batch->find(id) : nullptr) {
    out.type = held->type;
    out.shared = held->bytes;
    out.data = *out.shared;
    return out;
  }
  git_odb_object* raw = nullptr;
  if (git_odb_read(&raw, odb, &id) != 0) return git::last_error("reading an object to pack");
  out.read.reset(raw);
  out.type = git_odb_object_type(raw);
  out.data = std::string_view(static_cast<const char*>(git_odb_object_data(raw)),
                              git_odb_object_size(raw));
  return out;
}

constexpr int kOfsDelta = 6;
// Objects read, delta'd and compressed together; bounds the memory a window holds.
constexpr std::size_t kWindowObjects = 256;
constexpr std::size_t kWindowBytes = std::size_t{8} << 20;

Error io_error(std::string_view what, const std::string& path) {
  return Error{Errc::io, fmt::format("{} {}: {}", what, path, std::strerror(errno))};
}

// A file written through a buffer, fsync'd on close.
class OutFile {
 public:
  explicit OutFile(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
  }
  ~OutFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  bool ok() const { return fd_ >= 0; }
  void write(std::string_view data) {
    buf_.append(data);
    if (buf_.size() >= (1u << 20)) drain();
  }
  Status close() {
    drain();
    if (failed_) return io_error("cannot write", path_);
    if (::fsync(fd_) != 0) return io_error("cannot flush", path_);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return io_error("cannot close", path_);
    return Ok{};
  }

 private:
  void drain() {
    std::string_view rest = buf_;
    while (!rest.empty() && !failed_) {
      const ssize_t n = ::write(fd_, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        break;
      }
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    buf_.clear();
  }

  std::string path_;
  int fd_ = -1;
  std::string buf_;
  bool failed_ = false;
};

void put_be32(std::string& out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  out.append(b, 4);
}

// The entry header: type and size in a little-endian base-128 varint with 4 bits up front.
void put_entry_header(std::string& out, int type, std::size_t size) {
  unsigned char b = static_cast<unsigned char>((type << 4) | (size & 15));
  size >>= 4;
  while (size) {
    out.push_back(static_cast<char>(b | 0x80));
    b = size & 0x7f;
    size >>= 7;
  }
  out.push_back(static_cast<char>(b));
}

// An OFS_DELTA's distance back to its base, in git's big-endian "offset minus one" varint.
void put_ofs(std::string& out, std::uint64_t distance) {
  unsigned char buf[16];
  int pos = 15;
  buf[pos] = distance & 127;
  while (distance >>= 7) buf[--pos] = static_cast<unsigned char>(128 | (--distance & 127));
  out.append(reinterpret_cast<const char*>(buf + pos), static_cast<std::size_t>(16 - pos));
}

// Where a path's newest version went: its id, its position in the pack's order, its chain depth.
struct Base {
  git_oid id;
  std::size_t position;
  int depth;
};

}  // namespace

std::string hex(const std::array<unsigned char, 20>& digest) {
  return hex_encode(digest.data(), digest.size());
}

void remove_temporaries(const std::string& pack_dir) {
  std::error_code ec;
  fs::create_directories(pack_dir, ec);
  for (const auto& entry : fs::directory_iterator(pack_dir, ec))
    if (entry.path().filename().string().starts_with(kTempPrefix)) fs::remove(entry.path(), ec);
}

Status write_durably(const std::string& path, std::string_view bytes) {
  OutFile out(path);
  if (!out.ok()) return io_error("cannot create", path);
  out.write(bytes);
  return out.close();
}

std::string index_bytes(std::vector<IndexEntry>& written,
                        const std::array<unsigned char, 20>& pack_sum) {
  // The version 2 index: fan-out, sorted names, CRCs, offsets (large ones apart), checksums.
  std::sort(written.begin(), written.end(),
            [](const IndexEntry& a, const IndexEntry& b) { return git_oid_cmp(&a.id, &b.id) < 0; });
  std::string idx = "\377tOc";
  put_be32(idx, 2);
  std::uint32_t fanout[256] = {};
  for (const auto& w : written) ++fanout[w.id.id[0]];
  std::uint32_t running = 0;
  for (std::uint32_t count : fanout) put_be32(idx, running += count);
  for (const auto& w : written) idx.append(reinterpret_cast<const char*>(w.id.id), GIT_OID_RAWSZ);
  for (const auto& w : written) put_be32(idx, w.crc);
  std::vector<std::uint64_t> large;
  for (const auto& w : written) {
    if (w.offset < 0x80000000u) {
      put_be32(idx, static_cast<std::uint32_t>(w.offset));
    } else {
      put_be32(idx, 0x80000000u | static_cast<std::uint32_t>(large.size()));
      large.push_back(w.offset);
    }
  }
  for (std::uint64_t off : large) {
    put_be32(idx, static_cast<std::uint32_t>(off >> 32));
    put_be32(idx, static_cast<std::uint32_t>(off));
  }
  idx.append(reinterpret_cast<const char*>(pack_sum.data()), pack_sum.size());
  const auto idx_sum = sha1(idx);
  idx.append(reinterpret_cast<const char*>(idx_sum.data()), idx_sum.size());
  return idx;
}

Result<std::string> write_pack(git_odb* odb, const std::vector<PackObject>& objects,
                               const std::string& pack_dir, Precompressor* made,
                               const git::BatchBackend* batch) {
  remove_temporaries(pack_dir);

  // Each object once, in the order given (bases before the deltas made from them).
  std::vector<const PackObject*> order;
  std::vector<std::size_t> position_of(objects.size(), PackObject::kWhole);
  {
    std::unordered_set<std::string> seen;
    for (std::size_t k = 0; k < objects.size(); ++k)
      if (seen.insert(git::to_hex(objects[k].id)).second) {
        position_of[k] = order.size();
        order.push_back(&objects[k]);
      }
  }
  std::vector<int> depth_of(order.size(), 0);

  // No .pack or .idx suffix until the rename: git (fsck, gc) reads every *.idx in the
  // directory, and a poll killed while writing must not leave one half written.
  const std::string tmp_pack = fmt::format("{}/{}{}-pack", pack_dir, kTempPrefix, ::getpid());
  const std::string tmp_idx = fmt::format("{}/{}{}-idx", pack_dir, kTempPrefix, ::getpid());
  std::vector<IndexEntry> written;
  written.reserve(order.size());
  std::array<unsigned char, 20> pack_sum{};
  {
    OutFile out(tmp_pack);
    if (!out.ok()) return io_error("cannot create", tmp_pack);
    Sha1 sha;
    std::uint64_t offset = 0;
    auto emit = [&](std::string_view bytes) {
      sha.update(bytes);
      out.write(bytes);
      offset += bytes.size();
    };
    std::string header = "PACK";
    put_be32(header, 2);
    put_be32(header, static_cast<std::uint32_t>(order.size()));
    emit(header);

    // Objects go through in windows: read and delta'd in order on this thread, compressed
    // on every core at once (compression is most of a cold poll's packing time, and each
    // zlib stream depends on nothing but its own bytes), then written in order.
    struct Prepared {
      const PackObject* object;
      int type;              // kOfsDelta, or the object's type
      std::size_t size;      // the entry header's size: of the object or the delta
      std::size_t base = 0;  // for a delta: the base's position in `order`
      std::string payload;   // what is compressed: the delta, or the object's bytes
      std::string compressed;
    };
    std::map<std::string, Base> last_of_path;
    std::vector<std::uint64_t> offset_of(order.size(), 0);
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
    std::vector<Prepared> window;
    std::string entry;
    for (std::size_t first = 0; first < order.size();) {
      window.clear();
      std::size_t window_bytes = 0;
      for (; first < order.size() && window.size() < kWindowObjects && window_bytes < kWindowBytes;
           ++first) {
        const PackObject* o = order[first];
        auto obj = read_object(odb, batch, o->id);
        if (!obj) return obj.error();
        const std::string_view data = obj->data;
        Prepared item{o, static_cast<int>(obj->type), data.size(), 0, {}, {}};
        int depth = 0;
        std::optional<Base> base;
        if (o->base == PackObject::kPreviousOfPath) {
          if (auto it = o->path.empty() ? last_of_path.end() : last_of_path.find(o->path);
              it != last_of_path.end())
            base = it->second;
        } else if (o->base < objects.size() && position_of[o->base] < first) {
          base = Base{objects[o->base].id, position_of[o->base], depth_of[position_of[o->base]]};
        }
        if (base && base->depth < kMaxDepth) {
          if (auto base_obj = read_object(odb, batch, base->id)) {
            if (static_cast<int>(base_obj->type) == item.type) {
              const std::string_view base_data = base_obj->data;
              std::string delta = item.type == GIT_OBJECT_TREE
                                      ? tree_delta(base_data, data)
                                      : prefix_suffix_delta(base_data, data);
              if (!delta.empty()) {
                item.type = kOfsDelta;
                item.size = delta.size();
                item.base = base->position;
                item.payload = std::move(delta);
                depth = base->depth + 1;
              }
            }
          }
        }
        depth_of[first] = depth;
        if (item.type != kOfsDelta) {
          if (auto ready = made ? made->take(o->id) : std::nullopt)
            item.compressed = std::move(*ready);
          else
            item.payload.assign(data);
        }
        window_bytes += item.payload.size() + item.compressed.size();
        if (!o->path.empty()) last_of_path[o->path] = Base{o->id, first, depth};
        window.push_back(std::move(item));
      }

      // Each thread takes the next object left: a window interleaves trees, blobs and
      // commits in a fixed pattern, so dealing them out by position would hand every large
      // blob to one thread.
      std::atomic<std::size_t> next{0};
      auto compress_share = [&window, &next] {
        for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < window.size();) {
          if (!window[i].compressed.empty()) continue;  // the precompressor's
          zlib_compress(window[i].payload, window[i].compressed);
          std::string().swap(window[i].payload);
        }
      };
      if (threads > 1 && window.size() > 1) {
        std::vector<std::thread> workers;
        for (unsigned k = 1; k < threads; ++k) workers.emplace_back(compress_share);
        compress_share();
        for (auto& w : workers) w.join();
      } else {
        compress_share();
      }

      const std::size_t window_first = first - window.size();
      for (std::size_t i = 0; i < window.size(); ++i) {
        const Prepared& item = window[i];
        entry.clear();
        put_entry_header(entry, item.type, item.size);
        if (item.type == kOfsDelta) put_ofs(entry, offset - offset_of[item.base]);
        entry += item.compressed;
        offset_of[window_first + i] = offset;
        written.push_back({item.object->id, offset, crc32(0, entry)});
        emit(entry);
      }
    }
    pack_sum = sha.finish();
    out.write(std::string_view(reinterpret_cast<const char*>(pack_sum.data()), pack_sum.size()));
    if (auto ok = out.close(); !ok) return ok.error();
  }

  if (auto ok = write_durably(tmp_idx, index_bytes(written, pack_sum)); !ok) return ok.error();

  // The pack first: a reader only looks for a pack whose index it sees. Each rename is made
  // durable before the next step, so that after a power loss the directory never holds the
  // index without its pack, nor the caller's ref without either.
  failpoint(Failpoint::pack_written);
  const std::string name = fmt::format("{}/pack-{}", pack_dir, hex(pack_sum));
  if (::rename(tmp_pack.c_str(), (name + ".pack").c_str()) != 0)
    return io_error("cannot rename", tmp_pack);
  if (auto ok = fsync_dir(pack_dir); !ok) return ok.error();
  failpoint(Failpoint::pack_renamed);
  if (::rename(tmp_idx.c_str(), (name + ".idx").c_str()) != 0)
    return io_error("cannot rename", tmp_idx);
  if (auto ok = fsync_dir(pack_dir); !ok) return ok.error();
  return "pack-" + hex(pack_sum);
}

}  // namespace feeddiff::pack

namespace feeddiff::pack {

namespace {

std::uint32_t get_be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

Error corrupt(const std::string& path, std::string_view why) {
  return Error{Errc::git, fmt::format("cannot roll up {}: {}", path, why)};
}

// A version 2 pack index, parsed: its entries in pack order (by offset).
Result<std::vector<IndexEntry>> read_index(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  const auto* p = reinterpret_cast<const unsigned char*>(text->data());
  const std::size_t size = text->size();
  if (size < 8 + 1024 + 40 || std::memcmp(p, "\377tOc", 4) != 0 || get_be32(p + 4) != 2)
    return corrupt(path, "not a version 2 pack index");
  const std::size_t n = get_be32(p + 8 + 255 * 4);
  const std::size_t names = 8 + 1024, crcs = names + 20 * n, offsets = crcs + 4 * n,
                    large = offsets + 4 * n;
  if (size < large + 40) return corrupt(path, "truncated");
  std::vector<IndexEntry> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(out[i].id.id, p + names + 20 * i, GIT_OID_RAWSZ);
    out[i].crc = get_be32(p + crcs + 4 * i);
    std::uint64_t off = get_be32(p + offsets + 4 * i);
    if (off & 0x80000000u) {
      const std::size_t at = large + 8 * (off & 0x7fffffffu);
      if (at + 8 > size - 40) return corrupt(path, "bad large offset");
      off = (std::uint64_t{get_be32(p + at)} << 32) | get_be32(p + at + 4);
    }
    out[i].offset = off;
  }
  std::sort(out.begin(), out.end(),
            [](const IndexEntry& a, const IndexEntry& b) { return a.offset < b.offset; });
  return out;
}

// A file mapped read-only for as long as this lives.
class Mapped {
 public:
  explicit Mapped(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* m =
          ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (m != MAP_FAILED) {
        data_ = static_cast<const unsigned char*>(m);
        size_ = static_cast<std::size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~Mapped() {
    if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
  }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

std::optional<std::uint32_t> index_object_count(const std::string& idx_path) {
  const int fd = ::open(idx_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  unsigned char head[8 + 1024];
  const ssize_t n = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof head) || std::memcmp(head, "\377tOc", 4) != 0 ||
      get_be32(head + 4) != 2)
    return std::nullopt;
  return get_be32(head + 8 + 255 * 4);
}

Result<RolledUp> roll_up(const std::vector<std::string>& stems, const std::string& pack_dir) {
  remove_temporaries(pack_dir);
  std::vector<std::vector<IndexEntry>> indexes;
  std::unordered_map<git_oid, std::uint64_t, git::OidHash, git::OidEqual>
      placed;  // id -> new offset
  std::size_t unique = 0;
  {
    std::unordered_set<git_oid, git::OidHash, git::OidEqual> ids;
    for (const auto& stem : stems) {
      auto index = read_index(pack_dir + "/" + stem + ".idx");
      if (!index) return index.error();
      for (const auto& e : *index) ids.insert(e.id);
      indexes.push_back(std::move(*index));
    }
    unique = ids.size();
    placed.reserve(unique);
  }

  RolledUp out;
  out.tmp_pack = fmt::format("{}/{}{}-pack", pack_dir, kTempPrefix, ::getpid());
  out.tmp_idx = fmt::format("{}/{}{}-idx", pack_dir, kTempPrefix, ::getpid());
  out.objects = unique;
  std::vector<IndexEntry> written;
  written.reserve(unique);
  std::array<unsigned char, 20> pack_sum{};
  {
    OutFile file(out.tmp_pack);
    if (!file.ok()) return io_error("cannot create", out.tmp_pack);
    Sha1 sha;
    std::uint64_t offset = 0;
    auto emit = [&](std::string_view bytes) {
      sha.update(bytes);
      file.write(bytes);
      offset += bytes.size();
    };
    std::string header = "PACK";
    put_be32(header, 2);
    put_be32(header, static_cast<std::uint32_t>(unique));
    emit(header);
    std::string entry;
    for (std::size_t k = 0; k < stems.size(); ++k) {
      const std::string path = pack_dir + "/" + stems[k] + ".pack";
      const std::vector<IndexEntry>& index = indexes[k];
      Mapped pack(path);
      const unsigned char* data = pack.data();
      if (!data || pack.size() < 12 + 20 || std::memcmp(data, "PACK", 4) != 0 ||
          get_be32(data + 8) != index.size())
        return corrupt(path, "not the pack its index describes");
      const std::size_t end_of_entries = pack.size() - 20;
      std::vector<std::uint64_t> new_offset(index.size());
      for (std::size_t i = 0; i < index.size(); ++i) {
        const IndexEntry& e = index[i];
        const std::uint64_t end = i + 1 < index.size() ? index[i + 1].offset : end_of_entries;
        if (e.offset < 12 || end > end_of_entries || end <= e.offset)
          return corrupt(path, "an entry out of bounds");
        const std::string_view bytes(reinterpret_cast<const char*>(data + e.offset),
                                     static_cast<std::size_t>(end - e.offset));
        // Copying bytes unread would carry a damaged entry into the new pack; the CRC the
        // index holds is what git checks when it reuses an entry.
        if (crc32(0, bytes) != e.crc) return corrupt(path, "an entry fails its CRC-32");
        if (auto first = placed.find(e.id); first != placed.end()) {
          new_offset[i] = first->second;  // in an earlier pack: deltas here use that copy
          continue;
        }
        std::size_t pos = 0;
        auto next = [&]() -> int {
          return pos < bytes.size() ? static_cast<unsigned char>(bytes[pos++]) : -1;
        };
        int c = next();
        const int type = (c >> 4) & 7;
        while (c >= 0 && (c & 0x80)) c = next();
        if (c < 0 || type == 0 || type == 5) return corrupt(path, "a bad entry header");
        std::uint32_t crc = e.crc;
        std::string_view copy = bytes;
        if (type == kOfsDelta) {
          const std::size_t header_end = pos;
          c = next();
          if (c < 0) return corrupt(path, "a bad delta header");
          std::uint64_t distance = static_cast<std::uint64_t>(c & 127);
          while (c & 128) {
            c = next();
            if (c < 0 || distance >= (std::uint64_t{1} << 56))
              return corrupt(path, "a bad delta header");
            distance = ((distance + 1) << 7) | static_cast<std::uint64_t>(c & 127);
          }
          if (distance == 0 || distance > e.offset) return corrupt(path, "a bad delta base");
          const std::uint64_t base = e.offset - distance;
          auto it = std::lower_bound(
              index.begin(), index.begin() + static_cast<std::ptrdiff_t>(i), base,
              [](const IndexEntry& x, std::uint64_t off) { return x.offset < off; });
          if (it == index.begin() + static_cast<std::ptrdiff_t>(i) || it->offset != base)
            return corrupt(path, "a delta whose base is no entry");
          entry.assign(bytes.substr(0, header_end));
          put_ofs(entry, offset - new_offset[static_cast<std::size_t>(it - index.begin())]);
          entry.append(bytes.substr(pos));
          crc = crc32(0, entry);
          copy = entry;
        }
        new_offset[i] = offset;
        placed.emplace(e.id, offset);
        written.push_back({e.id, offset, crc});
        emit(copy);
      }
    }
    pack_sum = sha.finish();
    file.write(std::string_view(reinterpret_cast<const char*>(pack_sum.data()), pack_sum.size()));
    if (auto ok = file.close(); !ok) return ok.error();
  }
  if (auto ok = write_durably(out.tmp_idx, index_bytes(written, pack_sum)); !ok) return ok.error();
  out.name = "pack-" + hex(pack_sum);
  return out;
}

Status install(const RolledUp& rolled, const std::string& pack_dir) {
  const std::string name = pack_dir + "/" + rolled.name;
  if (::rename(rolled.tmp_pack.c_str(), (name + ".pack").c_str()) != 0)
    return io_error("cannot rename", rolled.tmp_pack);
  if (auto ok = fsync_dir(pack_dir); !ok) return ok;
  if (::rename(rolled.tmp_idx.c_str(), (name + ".idx").c_str()) != 0)
    return io_error("cannot rename", rolled.tmp_idx);
  return fsync_dir(pack_dir);
}

}  // namespace feeddiff::pack
