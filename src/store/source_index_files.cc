// The source index's files (source_index_files.h). Under .git/feeddiff/index/:
//
//   tip          text, replaced atomically and always last: the format, the generation, the
//                commit the index is complete up to with its first-parent depth (root = 1),
//                each source's record count, and a checksum of all of it.
//   g<N>/<name>  one per source (name escaped to [a-z0-9._%-]), append-only, oldest first:
//                28-byte records of commit id (20), depth (4, little-endian) and a checksum
//                of both (4).
//
// Why this shape: `log NAME -n 5` reads the tip and the last 5 records of one file, then 5
// commits; nothing grows with the history but the tip's one line per source. Fixed-size
// checksummed records make a torn or garbled tail visible. Records are appended before the
// tip is replaced, so a writer killed in between leaves records past the tip's counts, which
// readers ignore and the next writer truncates; a tip whose counts the file cannot cover
// (a truncated file, a lost write after a power cut: the records are not fsync'd, the tip
// is) makes the index rebuilt. A rebuild writes a new generation directory and then the tip
// naming it, so a reader that loaded the old tip never reads half-rewritten files.

#include "store/source_index_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <set>

#include "feeddiff/core.h"
#include "feeddiff/failpoint.h"
#include "store/git_handles.h"

namespace feeddiff::source_index {

namespace fs = std::filesystem;

namespace {

// 2: names are sources in either layout (raw/NAME/ or raw/hh/NAME/), where 1 took every
// entry of raw/ for a source; a fan-out archive's index of format 1 would name its buckets.
// 3: also a source's article versions, as "articles/NAME" (an index of format 2 has none of
// them, so it is rebuilt once).
constexpr std::string_view kMagic = "feeddiff-source-index 3";
constexpr std::size_t kRecord = 28;

// The unsigned decimal number at the start of field into value, field left after it; false
// when there is none or it overflows value's type.
template <typename Number>
bool parse_number(std::string_view& field, Number& value) {
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end == field.data()) return false;
  field.remove_prefix(static_cast<std::size_t>(end - field.data()));
  return true;
}

std::string format_tip(const Tip& tip) {
  std::string out = fmt::format("{}\ngeneration {}\ntip {} {}\n", kMagic, tip.generation,
                                git::to_hex(tip.id), tip.depth);
  for (const auto& [name, count] : tip.counts) out += fmt::format("source {} {}\n", count, name);
  out += fmt::format("check {:016x}\n", fnv1a64(out));
  return out;
}

void append_record(std::string& out, const git_oid& id, std::uint32_t depth) {
  unsigned char r[kRecord];
  std::memcpy(r, id.id, 20);
  for (int i = 0; i < 4; ++i) r[20 + i] = static_cast<unsigned char>(depth >> (8 * i));
  const std::uint32_t check = record_check(r);
  for (int i = 0; i < 4; ++i) r[24 + i] = static_cast<unsigned char>(check >> (8 * i));
  out.append(reinterpret_cast<const char*>(r), kRecord);
}

Status write_all(const std::string& path, std::string_view bytes, int flags) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd < 0) return Error{Errc::io, fmt::format("cannot open {}: {}", path, std::strerror(errno))};
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error e{Errc::io, fmt::format("cannot write {}: {}", path, std::strerror(errno))};
      ::close(fd);
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0)
    return Error{Errc::io, fmt::format("cannot write {}: {}", path, std::strerror(errno))};
  return Ok{};
}

}  // namespace

std::uint32_t record_check(const unsigned char* bytes) {
  const std::uint64_t h = fnv1a64({reinterpret_cast<const char*>(bytes), 24});
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

std::string escape(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
        (c == '.' && i > 0))
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

namespace {

// The tip's text checked and split: the header's fields into tip, rest left at the first
// source line. False when the file is not exactly what format_tip writes (its checksum
// covers every line, so a garbled source line anywhere fails here).
bool parse_tip_header(const std::string& text, Tip& tip, std::string_view& rest) {
  const auto check_at = text.rfind("check ");
  if (check_at == std::string::npos || text.back() != '\n') return false;
  if (fmt::format("check {:016x}\n", fnv1a64(std::string_view(text).substr(0, check_at))) !=
      std::string_view(text).substr(check_at))
    return false;
  rest = std::string_view(text).substr(0, check_at);
  const auto line = [&rest]() -> std::optional<std::string_view> {
    const std::size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;
    const std::string_view out = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    return out;
  };
  const auto first = line();
  if (!first || *first != kMagic) return false;
  auto generation = line();
  if (!generation || !generation->starts_with("generation ")) return false;
  generation->remove_prefix(11);
  if (!parse_number(*generation, tip.generation) || !generation->empty()) return false;
  auto at = line();
  if (!at || !at->starts_with("tip ") || at->size() < 4 + GIT_OID_HEXSZ + 2 ||
      (*at)[4 + GIT_OID_HEXSZ] != ' ')
    return false;
  const std::string hex(at->substr(4, GIT_OID_HEXSZ));
  at->remove_prefix(5 + GIT_OID_HEXSZ);
  return git_oid_fromstr(&tip.id, hex.c_str()) == 0 && parse_number(*at, tip.depth) &&
         at->empty() && tip.depth != 0;
}

// A source line's count and escaped name ("source COUNT NAME"); nullopt when it is not one
// format_tip writes under a tip of this depth.
std::optional<std::pair<std::uint64_t, std::string_view>> parse_source_line(std::string_view line,
                                                                            std::uint32_t depth) {
  std::uint64_t count = 0;
  if (!line.starts_with("source ")) return std::nullopt;
  line.remove_prefix(7);
  if (!parse_number(line, count) || line.size() < 2 || line[0] != ' ' || count == 0 ||
      count > depth)
    return std::nullopt;
  line.remove_prefix(1);
  if (line.find_first_of(" \t\r\v\f") != std::string_view::npos) return std::nullopt;
  return std::pair{count, line};
}

}  // namespace

std::optional<Tip> load_tip(const std::string& dir) {
  auto text = read_file(dir + "/tip");
  if (!text) return std::nullopt;
  // Line by line, exactly as format_tip writes it: `show` and `log` read it on every call, and
  // an istringstream over its 1,000 lines cost 4% of a `show HEAD` at 100,000 changes.
  Tip tip;
  std::string_view rest;
  if (!parse_tip_header(*text, tip, rest)) return std::nullopt;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;
    const auto source = parse_source_line(rest.substr(0, nl), tip.depth);
    rest.remove_prefix(nl + 1);
    if (!source) return std::nullopt;
    tip.counts.emplace_hint(tip.counts.end(), std::string(source->second), source->first);
  }
  return tip;
}

std::optional<TipOf> load_tip_of(const std::string& dir, std::string_view name) {
  auto text = read_file(dir + "/tip");
  if (!text) return std::nullopt;
  TipOf out;
  std::string_view rest;
  if (!parse_tip_header(*text, out.tip, rest)) return std::nullopt;
  // The checksum held: every line is as written. Only the one that names the source is read,
  // found by its end (" NAME\n": no name holds a space, and the header is not searched).
  const std::string end = " " + std::string(name) + "\n";
  // memmem, not string_view::find: find stops at each of the lines' 2,000 spaces.
  const void* found = ::memmem(rest.data(), rest.size(), end.data(), end.size());
  if (!found) return out;
  const auto hit = static_cast<std::size_t>(static_cast<const char*>(found) - rest.data());
  const std::size_t nl = rest.rfind('\n', hit);
  const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
  const auto source =
      parse_source_line(rest.substr(begin, hit + end.size() - 1 - begin), out.tip.depth);
  if (!source || source->second != name) return std::nullopt;
  out.count = source->first;
  return out;
}

std::string generation_dir(const std::string& dir, unsigned generation) {
  return fmt::format("{}/g{}", dir, generation);
}

std::optional<std::string> read_bytes(const std::string& path, std::uint64_t from,
                                      std::uint64_t to) {
  std::string bytes((to - from) * kRecord, '\0');
  if (bytes.empty()) return bytes;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done,
                              static_cast<off_t>(from * kRecord + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done != bytes.size()) return std::nullopt;
  return bytes;
}

std::uint32_t le32(const unsigned char* r) {
  return r[0] | (r[1] << 8) | (r[2] << 16) | (static_cast<std::uint32_t>(r[3]) << 24);
}

std::optional<std::vector<git_oid>> read_records(const std::string& path, std::uint64_t from,
                                                 std::uint64_t to, std::uint32_t max_depth,
                                                 std::vector<std::uint32_t>* depths) {
  std::vector<git_oid> out;
  if (from >= to) return out;
  auto bytes = read_bytes(path, from, to);
  if (!bytes) return std::nullopt;
  std::uint32_t last_depth = 0;
  for (std::size_t i = 0; i < to - from; ++i) {
    const auto* r = reinterpret_cast<const unsigned char*>(bytes->data() + i * kRecord);
    const std::uint32_t depth = le32(r + 20);
    if (le32(r + 24) != record_check(r) || depth <= last_depth || depth > max_depth)
      return std::nullopt;
    last_depth = depth;
    git_oid id;
    std::memcpy(id.id, r, 20);
    out.push_back(id);
    if (depths) depths->push_back(depth);
  }
  return out;
}

// Writes what a catch-up learnt: the records first (appended, or a whole new generation for
// a rebuild), then the tip. The records are not fsync'd: after a power cut, a tip whose
// records did not reach the disk fails its count check and the index is rebuilt.
// Returns the tip it wrote.
Result<Tip> persist(const std::string& dir, const std::optional<Tip>& old_tip, const Pending& p) {
  if (p.ids.empty() && !p.rebuild && !p.copy) return old_tip.value_or(Tip{});
  std::error_code ec;
  fs::create_directories(dir, ec);
  Tip tip;
  std::map<std::string, std::string> appended;  // escaped name -> records
  for (std::size_t i = 0; i < p.ids.size(); ++i)
    for (const auto& name : p.touched[i])
      append_record(appended[name], p.ids[i], p.base_depth + static_cast<std::uint32_t>(i) + 1);
  if (p.rebuild || p.copy) {
    unsigned generation = old_tip ? old_tip->generation + 1 : 1;
    // Past any generation a killed rebuild left behind.
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string f = entry.path().filename().string();
      if (f.size() > 1 && f.size() < 10 && f[0] == 'g' &&
          f.find_first_not_of("0123456789", 1) == std::string::npos)
        generation = std::max(generation, static_cast<unsigned>(std::stoul(f.substr(1))) + 1);
    }
    tip.generation = generation;
    const std::string gdir = generation_dir(dir, generation);
    fs::create_directories(gdir, ec);
    if (ec) return Error{Errc::io, fmt::format("cannot create {}: {}", gdir, ec.message())};
    std::set<std::string> linked;
    if (p.copy && !p.rebuild)
      for (const auto& [name, count] : old_tip->counts) {
        const std::string from = generation_dir(dir, old_tip->generation) + "/" + name;
        // A file the rewind keeps whole is linked, not copied (most sources: a replay
        // rewrites the few newest commits). Appending to it is safe: a reader of the old
        // tip ignores records past its count, as after any append.
        struct stat st {};
        if (::stat(from.c_str(), &st) == 0 &&
            static_cast<std::uint64_t>(st.st_size) == count * kRecord &&
            ::link(from.c_str(), (gdir + "/" + name).c_str()) == 0) {
          linked.insert(name);
          tip.counts[name] = count;
          continue;
        }
        // The kept records, then the new ones.
        auto kept = read_bytes(from, 0, count);
        if (!kept) return Error{Errc::io, fmt::format("cannot read the index's {}", name)};
        appended[name].insert(0, *kept);
      }
    for (const auto& [name, bytes] : appended) {
      const bool append = linked.contains(name);
      if (auto ok = write_all(gdir + "/" + name, bytes, append ? O_APPEND : O_TRUNC); !ok)
        return ok.error();
      tip.counts[name] = (append ? tip.counts[name] : 0) + bytes.size() / kRecord;
    }
  } else {
    tip.generation = old_tip->generation;
    tip.counts = old_tip->counts;
    const std::string gdir = generation_dir(dir, tip.generation);
    for (const auto& [name, bytes] : appended) {
      const std::string path = gdir + "/" + name;
      const std::uint64_t count = tip.counts.count(name) ? tip.counts[name] : 0;
      struct stat st {};
      const bool exists = ::stat(path.c_str(), &st) == 0;
      if (static_cast<std::uint64_t>(exists ? st.st_size : 0) < count * kRecord)
        return Error{Errc::io, fmt::format("{} is shorter than the index's tip says", path)};
      // Records past the tip's count are a killed writer's: they go.
      if (exists && ::truncate(path.c_str(), static_cast<off_t>(count * kRecord)) != 0)
        return Error{Errc::io, fmt::format("cannot truncate {}: {}", path, std::strerror(errno))};
      if (auto ok = write_all(path, bytes, O_APPEND); !ok) return ok.error();
      tip.counts[name] = count + bytes.size() / kRecord;
    }
  }
  failpoint(Failpoint::index_appended);
  tip.id = p.ids.empty() ? old_tip->id : p.ids.back();
  tip.depth = p.base_depth + static_cast<std::uint32_t>(p.ids.size());
  if (auto ok = write_file_atomic(dir + "/tip", format_tip(tip)); !ok) return ok.error();
  // Older generations, and temporaries of a killed writer.
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string f = entry.path().filename().string();
    if ((f.size() > 1 && f[0] == 'g' && f != fmt::format("g{}", tip.generation)) ||
        f.find(".tmp.") != std::string::npos)
      stale.push_back(entry.path());
  }
  for (const auto& path : stale) fs::remove_all(path, ec);
  return tip;
}

}  // namespace feeddiff::source_index
