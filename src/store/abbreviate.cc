// Short ids for log: Abbreviator, and Archive::abbreviate with the cache that lets `log NAME`
// look up in the pack indexes only what is new. A lookup in a large pack index costs about
// 20 us (a binary search over pages the process has not touched yet), so at 100,000 changes
// abbreviating was a third of `log NAME`; a short id only has to be checked again against the
// objects added since it was computed, and those are in new packs and loose files.
#include <dirent.h>
#include <git2/sys/odb_backend.h>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/store.h"
#include "store/abbreviator.h"
#include "store/archive_impl.h"
#include "store/git_handles.h"

namespace feeddiff {

Abbreviator::Abbreviator(git_repository* repo) {
  if (git_config* snapshot = nullptr; git_repository_config_snapshot(&snapshot, repo) == 0) {
    git::ConfigPtr config(snapshot);
    std::int32_t value = 0;
    if (git_config_get_int32(&value, snapshot, "core.abbrev") == 0 && value >= 4 && value <= 40)
      least_ = static_cast<std::size_t>(value);
  }
  if (git_odb* raw = nullptr; git_repository_odb(&raw, repo) == 0) odb_.reset(raw);
}

namespace {

// The first len hex digits of id, the rest zero, as git_odb_exists_prefix takes a prefix.
git_oid prefix_of(const git_oid& id, std::size_t len) {
  git_oid prefix{};
  std::memcpy(prefix.id, id.id, (len + 1) / 2);
  if (len & 1) prefix.id[len / 2] &= 0xf0;
  return prefix;
}

}  // namespace

std::size_t Abbreviator::length(const git_oid& id) const {
  std::size_t len = least_;
  for (; odb_ && len < GIT_OID_HEXSZ; ++len) {
    const git_oid prefix = prefix_of(id, len);
    if (git_odb_exists_prefix(nullptr, odb_.get(), &prefix, len) != GIT_EAMBIGUOUS) break;
    git_error_clear();
  }
  return len;
}

std::string Abbreviator::operator()(const git_oid& id) const {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &id);
  return std::string(hex, length(id));
}

namespace {

// What a cache entry says: the ids of a list that grows at its end, up to `last`, were
// abbreviated when the object database was these packs and the loose objects of the time.
// Only the short ids longer than `least` are written (one in thousands at 7 digits). Lines
// of tab-separated fields, as the cache's other records (append_tab_field):
//   feeddiff abbrev 1 <version>
//   least <n>
//   packs <pack-*.idx names, sorted>
//   covers <count> <the last id covered>
//   <id> <length>        one line per id whose short id is longer than least
struct Checked {
  std::size_t least = 0;
  std::vector<std::string> packs;
  std::size_t count = 0;
  std::string last;
  std::map<std::string, std::size_t> longer;
  bool operator==(const Checked&) const = default;
};

std::string header() {
  return fmt::format("feeddiff abbrev 1 {}\n", version());
}

std::string format_checked(const Checked& c) {
  std::string out = header() + "least";
  append_tab_field(out, std::to_string(c.least));
  out += "\npacks";
  for (const auto& p : c.packs) append_tab_field(out, p);
  out += "\ncovers";
  append_tab_field(out, std::to_string(c.count));
  append_tab_field(out, c.last);
  out += '\n';
  for (const auto& [id, len] : c.longer) {
    out += id;
    append_tab_field(out, std::to_string(len));
    out += '\n';
  }
  return out;
}

bool parse_size(std::string_view text, std::size_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

std::optional<Checked> parse_checked(std::string_view text) {
  const std::string head = header();
  if (!text.starts_with(head)) return std::nullopt;
  std::size_t at = head.size();
  std::vector<std::string> f;
  // The fields of the next line, which must end in a newline (a cut entry is not trusted).
  auto next = [&] {
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos || !split_tab_fields(text.substr(at, nl - at), f))
      return false;
    at = nl + 1;
    return true;
  };
  Checked c;
  if (!next() || f.size() != 2 || f[0] != "least" || !parse_size(f[1], c.least))
    return std::nullopt;
  if (!next() || f.empty() || f[0] != "packs") return std::nullopt;
  c.packs.assign(f.begin() + 1, f.end());
  if (!std::is_sorted(c.packs.begin(), c.packs.end())) return std::nullopt;
  if (!next() || f.size() != 3 || f[0] != "covers" || !parse_size(f[1], c.count))
    return std::nullopt;
  c.last = f[2];
  while (at < text.size()) {
    std::size_t len = 0;
    if (!next() || f.size() != 2 || f[0].size() != GIT_OID_HEXSZ || !parse_size(f[1], len) ||
        len <= c.least || len > GIT_OID_HEXSZ)
      return std::nullopt;
    c.longer.emplace(f[0], len);
  }
  return c;
}

// The pack indexes in objects/pack, sorted; nullopt when it cannot be read, or when the
// repository borrows objects (alternates), whose additions no listing here would show.
std::optional<std::vector<std::string>> pack_names(const std::string& objects_dir) {
  if (read_file(objects_dir + "/info/alternates")) return std::nullopt;
  DIR* dir = ::opendir((objects_dir + "/pack").c_str());
  if (!dir) return std::nullopt;
  std::vector<std::string> out;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name = e->d_name;
    if (name.starts_with("pack-") && name.ends_with(".idx")) out.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

// The objects added since a cache entry was written: the packs it did not list and every
// loose object (loose ones are few, and a listing of them would cost what it saves).
class Added {
 public:
  // nullopt when an added pack cannot be opened (then every id is looked up afresh).
  static std::optional<Added> open(const std::string& objects_dir,
                                   const std::vector<std::string>& packs) {
    Added out;
    git_odb* raw = nullptr;
    if (git_odb_new(&raw) != 0) return std::nullopt;
    out.odb_.reset(raw);
    int priority = 2;
    for (const auto& name : packs) {
      git_odb_backend* backend = nullptr;
      if (git_odb_backend_one_pack(&backend, (objects_dir + "/pack/" + name).c_str()) != 0 ||
          !out.add(backend, priority++))
        return std::nullopt;
      out.packs_ = true;
    }
    // Which objects/xx directories exist: most ids then need no directory read.
    bool any_loose = false;
    if (DIR* dir = ::opendir(objects_dir.c_str())) {
      while (const dirent* e = ::readdir(dir)) {
        unsigned byte = 0;
        const std::string_view name = e->d_name;
        auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), byte, 16);
        if (name.size() == 2 && ec == std::errc() && end == name.data() + 2) {
          out.loose_[byte] = true;
          any_loose = true;
        }
      }
      ::closedir(dir);
    } else {
      return std::nullopt;
    }
    if (any_loose) {
      git_odb_backend* backend = nullptr;
      if (git_odb_backend_loose(&backend, objects_dir.c_str(), -1, 0, 0, 0) != 0 ||
          !out.add(backend, 1))
        return std::nullopt;
    }
    return out;
  }

  // The least length from len on at which no added object other than id shares id's
  // prefix; nullopt when a lookup failed.
  std::optional<std::size_t> unique_length(const git_oid& id, std::size_t len) const {
    if (!packs_ && !loose_[id.id[0]]) return len;
    for (; len < GIT_OID_HEXSZ; ++len) {
      const git_oid prefix = prefix_of(id, len);
      git_oid found{};
      const int rc = git_odb_exists_prefix(&found, odb_.get(), &prefix, len);
      if (rc == GIT_ENOTFOUND || (rc == 0 && git_oid_equal(&found, &id))) break;
      git_error_clear();
      if (rc != 0 && rc != GIT_EAMBIGUOUS) return std::nullopt;
    }
    git_error_clear();
    return len;
  }

 private:
  bool add(git_odb_backend* backend, int priority) {
    if (git_odb_add_backend(odb_.get(), backend, priority) == 0) return true;
    backend->free(backend);
    return false;
  }
  git::OdbPtr odb_;
  bool packs_ = false;             // any pack is new
  std::array<bool, 256> loose_{};  // objects/xx exists, by xx
};

}  // namespace

Result<std::vector<std::string>> Archive::abbreviate(const std::vector<std::string>& ids,
                                                     std::string_view cache_name) const {
  std::vector<git_oid> oids(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i].size() != GIT_OID_HEXSZ || git_oid_fromstr(&oids[i], ids[i].c_str()) != 0)
      return Error{Errc::not_found, fmt::format("not a commit id: {}", ids[i])};
  git_repository* repo = impl_->repo.get();
  const std::string objects_dir = impl_->git_dir + "/objects";
  // Listed before any lookup: a pack that comes after is new to the next call.
  const auto packs = cache_name.empty() ? std::nullopt : pack_names(objects_dir);
  const Abbreviator full(repo);
  std::vector<std::size_t> lengths(ids.size(), full.least());
  std::optional<Checked> kept;
  if (packs)
    if (auto text = cache_read(cache_name)) kept = parse_checked(*text);
  // Trusted only for the same least length, the same list, and packs none of which is gone
  // (a repack or gc moved objects, and may have dropped some: then a shorter id may do).
  if (kept &&
      (kept->least != full.least() || kept->count > ids.size() ||
       (kept->count && ids[kept->count - 1] != kept->last) ||
       !std::includes(packs->begin(), packs->end(), kept->packs.begin(), kept->packs.end())))
    kept.reset();
  std::size_t from = 0;
  if (kept) {
    std::vector<std::string> added_packs;
    std::set_difference(packs->begin(), packs->end(), kept->packs.begin(), kept->packs.end(),
                        std::back_inserter(added_packs));
    if (auto added = Added::open(objects_dir, added_packs)) {
      from = kept->count;
      for (std::size_t i = 0; i < kept->count && from; ++i) {
        const auto longer = kept->longer.find(ids[i]);
        const auto len = added->unique_length(
            oids[i], longer == kept->longer.end() ? full.least() : longer->second);
        if (len)
          lengths[i] = *len;
        else
          from = 0;
      }
    }
  }
  if (from < ids.size()) {
    // A pack written since the repository was opened would not be searched otherwise.
    if (git_odb* odb = nullptr; git_repository_odb(&odb, repo) == 0) {
      git_odb_refresh(odb);
      git_odb_free(odb);
    }
    for (std::size_t i = from; i < ids.size(); ++i) lengths[i] = full.length(oids[i]);
  }
  if (packs && !ids.empty()) {
    Checked now{full.least(), *packs, ids.size(), ids.back(), {}};
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (lengths[i] > full.least()) now.longer.emplace(ids[i], lengths[i]);
    if (!kept || !(now == *kept)) cache_write(cache_name, format_checked(now));
  }
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) out.push_back(ids[i].substr(0, lengths[i]));
  return out;
}

}  // namespace feeddiff
