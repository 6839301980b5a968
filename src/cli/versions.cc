#include "cli/versions.h"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>

#include "feeddiff/core.h"
#include "feeddiff/normalize.h"

namespace feeddiff::cli {

// The cache holds only lowercase letters, digits and '-': the name as hex, cut and hashed
// when long (names are at most 100 characters, cache names 200).
std::string source_cache_name(std::string_view kind, std::string_view source) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : source.substr(0, 80)) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  if (source.size() > 80) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : source) h = (h ^ c) * 1099511628211ull;
    hex += fmt::format("-{:016x}", h);
  }
  return std::string(kind) + "/" + hex;
}

std::uint64_t item_id_key(std::string_view id) {
  const auto digest = sha1(id);
  std::uint64_t key = 0;
  for (std::size_t i = 0; i < 8; ++i) key = (key << 8) | digest[i];
  return key;
}

namespace {

constexpr std::uint32_t kNoVersion = ~std::uint32_t{0};

std::optional<std::uint64_t> parse_key(std::string_view hex) {
  std::uint64_t key = 0;
  auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), key, 16);
  if (hex.size() != 16 || ec != std::errc() || end != hex.data() + hex.size()) return std::nullopt;
  return key;
}

}  // namespace

void SourceVersions::add_known(const Oid& blob) {
  const auto k = static_cast<std::uint32_t>(blobs_.size());
  blobs_.push_back(blob);
  std::uint32_t previous = kNoVersion;
  if (blob != Oid{}) {
    auto [it, added] = last_with_blob_.try_emplace(blob, k);
    if (!added) previous = std::exchange(it->second, k);
  }
  previous_same_.push_back(previous);
}

Result<SourceVersions> SourceVersions::load(const Archive& archive, const std::string& source) {
  SourceVersions out(archive, source);
  auto commits = archive.source_commit_ids(source);
  if (!commits) return commits.error();
  out.commits_.reserve(commits->size());
  for (auto it = commits->rbegin(); it != commits->rend(); ++it)
    out.commits_.push_back(to_oid(*it));

  auto text = archive.cache_read(source_cache_name("versions", source));
  if (!text) return out;
  // A complete, well-formed cache, read up to the first version line whose commit is not the
  // history's at its position; a torn or garbled one is not used at all.
  std::vector<Oid> blobs;
  std::unordered_map<std::uint64_t, std::uint32_t> first_seen;
  std::vector<std::string> fields;
  std::size_t at = 0;
  bool header = false, complete = false;
  while (at < text->size() && !complete) {
    const std::size_t nl = text->find('\n', at);
    if (nl == std::string::npos) return out;
    const std::string_view line = std::string_view(*text).substr(at, nl - at);
    at = nl + 1;
    if (!header) {
      if (line != kVersionsCacheHeader) return out;
      header = true;
      continue;
    }
    if (line == "end") {
      complete = at == text->size();
      break;
    }
    if (!split_tab_fields(line, fields) || fields.size() < 3 || fields[0] != "v") return out;
    const std::size_t k = blobs.size();
    if (k >= out.commits_.size() || parse_oid(fields[1]) != out.commits_[k]) {
      // The history was rewritten from here (a sync replayed the newest versions, a reset):
      // what the versions before showed still holds, and only the rest is read again.
      complete = true;
      break;
    }
    const auto blob = fields[2].empty() ? std::optional<Oid>(Oid{}) : parse_oid(fields[2]);
    if (!blob) return out;
    for (std::size_t i = 3; i < fields.size(); ++i) {
      const auto key = parse_key(fields[i]);
      if (!key) return out;
      first_seen.emplace(*key, static_cast<std::uint32_t>(k));
    }
    blobs.push_back(*blob);
  }
  if (!complete) return out;
  out.first_seen_ = std::move(first_seen);
  for (const Oid& blob : blobs) out.add_known(blob);
  out.written_ = out.blobs_.size();
  return out;
}

std::optional<std::size_t> SourceVersions::ordinal(const std::string& commit) const {
  const auto id = parse_oid(commit);
  if (!id) return std::nullopt;
  // The one after the last answer first (site asks for a source's versions in order), then
  // newest first: the change asked about is nearly always a recent one.
  if (last_ordinal_ + 1 < commits_.size() && commits_[last_ordinal_ + 1] == *id)
    return ++last_ordinal_;
  for (std::size_t k = commits_.size(); k-- > 0;)
    if (commits_[k] == *id) return last_ordinal_ = k;
  return std::nullopt;
}

void SourceVersions::learn(std::size_t n) {
  n = std::min(n, commits_.size());
  if (blobs_.size() >= n) return;
  const NormalizeOptions model_only{{}, true, false};
  while (blobs_.size() < n) {
    const std::size_t k = blobs_.size();
    std::string blob;
    if (auto changes = archive_->source_changes(to_hex(commits_[k]), source_))
      for (const PathChange& c : *changes)
        if (!c.new_blob.empty()) blob = c.new_blob;
    if (!blob.empty())
      if (auto body = archive_->read_blob(blob)) {
        ++parsed_;
        if (auto doc = normalize(*body, model_only))
          for (const Item& item : doc->feed.items)
            first_seen_.emplace(item_id_key(item.id), static_cast<std::uint32_t>(k));
      }
    add_known(to_oid(blob));
  }
  // Rewritten whole, so written when the versions known have doubled, or when the caller
  // asked for every version before the newest (show or notify of the latest change, the
  // common path, which then finds them all cached next time): a first build that learns a
  // source's versions one at a time writes O(versions) bytes, not their square. A process
  // that stops between writes leaves less learnt, not wrong.
  if (n + 1 < commits_.size() && blobs_.size() < 2 * written_ + 16) return;
  save();
}

void SourceVersions::save() {
  if (written_ == blobs_.size()) return;
  written_ = blobs_.size();
  // Rewritten whole: ids are listed under the version that showed them first.
  std::vector<std::vector<std::uint64_t>> ids(blobs_.size());
  for (const auto& [key, k] : first_seen_)
    if (k < ids.size()) ids[k].push_back(key);
  std::string text = kVersionsCacheHeader;
  text += '\n';
  for (std::size_t k = 0; k < blobs_.size(); ++k) {
    text += 'v';
    append_tab_field(text, to_hex(commits_[k]));
    append_tab_field(text, blobs_[k] == Oid{} ? std::string() : to_hex(blobs_[k]));
    std::sort(ids[k].begin(), ids[k].end());
    for (const std::uint64_t key : ids[k]) text += fmt::format("\t{:016x}", key);
    text += '\n';
  }
  text += "end\n";
  archive_->cache_write(source_cache_name("versions", source_), text);
}

bool SourceVersions::seen_before(const std::string& id, std::size_t ordinal) const {
  const auto it = first_seen_.find(item_id_key(id));
  return it != first_seen_.end() && it->second < ordinal;
}

std::optional<std::string> SourceVersions::reverted_to(const std::string& blob,
                                                       std::size_t ordinal) const {
  if (ordinal < 2) return std::nullopt;
  const auto id = parse_oid(blob);
  if (!id) return std::nullopt;
  const auto it = last_with_blob_.find(*id);
  if (it == last_with_blob_.end()) return std::nullopt;
  // The newest version before ordinal - 1 (the parent) with those bytes: back along the
  // versions that had them, from the newest known.
  const std::size_t limit = std::min(ordinal - 1, blobs_.size());
  std::uint32_t k = it->second;
  while (k != kNoVersion && k >= limit) k = previous_same_[k];
  if (k == kNoVersion) return std::nullopt;
  return to_hex(commits_[k]);
}

}  // namespace feeddiff::cli
