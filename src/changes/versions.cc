#include "feeddiff/changes.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>

#include "changes/changes_internal.h"
#include "feeddiff/core.h"
#include "feeddiff/normalize.h"

namespace feeddiff {

// The cache holds only lowercase letters, digits and '-': the name as hex, cut and hashed
// when long (names are at most 100 characters, cache names 200).
std::string source_cache_name(std::string_view kind, std::string_view source) {
  std::string hex = hex_encode(source.substr(0, 80));
  if (source.size() > 80) hex += fmt::format("-{:016x}", fnv1a64(source));
  return std::string(kind) + "/" + hex;
}

ItemIdKey item_id_key(std::string_view id) {
  const auto digest = sha1(id);
  ItemIdKey key;
  for (std::size_t i = 0; i < 8; ++i) key.high = (key.high << 8) | digest[i];
  for (std::size_t i = 8; i < 16; ++i) key.low = (key.low << 8) | digest[i];
  return key;
}

namespace {

constexpr std::uint32_t kNoVersion = ~std::uint32_t{0};

// A version line exactly as save() writes it: "v", the commit (which must be `commit`), the
// raw blob or nothing, then the keys the version showed first, each field after a tab, all
// lowercase hex. Read in one pass, no field split out: `show` reads a source's every line
// (1,000 at 1M changes), and splitting them and parsing each field apart was two thirds of
// that. False for any other line (cut short by a crash, garbled, another history's).
bool parse_version_line(std::string_view line, const Oid& commit, Oid& blob,
                        std::vector<ItemIdKey>& keys) {
  constexpr std::size_t kId = 40, kKey = 32;
  keys.clear();
  if (line.size() < 3 + kId || line[0] != 'v' || line[1] != '\t' || line[2 + kId] != '\t')
    return false;
  Oid id;
  if (!decode_hex(line.data() + 2, id.data(), id.size()) || id != commit) return false;
  std::size_t at = 3 + kId;
  blob = Oid{};
  if (at < line.size() && line[at] != '\t') {
    if (line.size() < at + kId || !decode_hex(line.data() + at, blob.data(), blob.size()))
      return false;
    at += kId;
  }
  while (at < line.size()) {
    unsigned char bytes[kKey / 2];
    if (line[at] != '\t' || line.size() < at + 1 + kKey ||
        !decode_hex(line.data() + at + 1, bytes, sizeof bytes))
      return false;
    ItemIdKey key;
    for (std::size_t i = 0; i < 8; ++i) key.high = (key.high << 8) | bytes[i];
    for (std::size_t i = 8; i < 16; ++i) key.low = (key.low << 8) | bytes[i];
    keys.push_back(key);
    at += 1 + kKey;
  }
  return true;
}

}  // namespace

void SourceVersions::index_blobs() {
  for (; blobs_indexed_ < blobs_.size(); ++blobs_indexed_) {
    const Oid& blob = blobs_[blobs_indexed_];
    const auto k = static_cast<std::uint32_t>(blobs_indexed_);
    std::uint32_t previous = kNoVersion;
    if (blob != Oid{}) {
      auto [it, added] = last_with_blob_.try_emplace(blob, k);
      if (!added) previous = std::exchange(it->second, k);
    }
    previous_same_.push_back(previous);
  }
}

Result<SourceVersions> SourceVersions::load(const Archive& archive, const std::string& source) {
  SourceVersions out(archive, source);
  auto commits = archive.source_commit_oids(source);
  if (!commits) return commits.error();
  out.commits_.assign(commits->rbegin(), commits->rend());

  auto text = archive.cache_read(source_cache_name("versions", source));
  if (!text) return out;
  // The complete, well-formed version lines whose commits are the history's, up to the first
  // that is not: a line cut short by a crash, garbled, or past a rewrite of the history (a
  // sync replayed the newest versions, a reset). What the versions before showed still
  // holds; the rest is read again, and the next save rewrites the file.
  std::vector<Oid> blobs;
  blobs.reserve(out.commits_.size());
  std::unordered_map<ItemIdKey, std::uint32_t, ItemIdKeyHash> first_seen;
  // Show reads this file whole for one change: at 1,000 versions a source's is ~120 KB.
  first_seen.reserve(text->size() / 40);
  std::vector<ItemIdKey> keys;
  std::size_t at = 0;
  bool header = false, whole = true;
  while (at < text->size()) {
    const std::size_t nl = text->find('\n', at);
    if (nl == std::string::npos) {
      whole = false;
      break;
    }
    const std::string_view line = std::string_view(*text).substr(at, nl - at);
    at = nl + 1;
    if (!header) {
      if (line != kVersionsCacheHeader) return out;
      header = true;
      continue;
    }
    const std::size_t k = blobs.size();
    Oid blob;
    if (k >= out.commits_.size() || !parse_version_line(line, out.commits_[k], blob, keys)) {
      whole = false;
      break;
    }
    for (const ItemIdKey& key : keys) first_seen.emplace(key, static_cast<std::uint32_t>(k));
    blobs.push_back(blob);
  }
  if (!header) return out;
  out.first_seen_ = std::move(first_seen);
  out.blobs_ = std::move(blobs);
  out.written_ = out.blobs_.size();
  out.rewrite_ = !whole;
  return out;
}

std::string SourceVersions::commit_at(std::size_t ordinal) const {
  return ordinal < commits_.size() ? to_hex(commits_[ordinal]) : std::string();
}

std::optional<std::size_t> SourceVersions::ordinal(const std::string& commit) const {
  const auto id = parse_oid(commit);
  if (!id) return std::nullopt;
  // The one after the last answer first (site asks for a source's versions in order), then
  // newest first: the change asked about is nearly always a recent one.
  if (last_ordinal_ + 1 < commits_.size() && commits_[last_ordinal_ + 1] == *id)
    return ++last_ordinal_;
  if (last_ordinal_ < commits_.size() && commits_[last_ordinal_] == *id) return last_ordinal_;
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
    if (!rewrite_) pending_.emplace_back();
    std::string blob;
    if (auto changes = archive_->source_changes(to_hex(commits_[k]), source_,
                                                k > 0 ? to_hex(commits_[k - 1]) : std::string()))
      for (const PathChange& c : *changes)
        // A response that was not a feed shows no items (raw/NAME/not-a-feed).
        if (!c.new_blob.empty() && !is_not_a_feed_path(c.path)) blob = c.new_blob;
    if (!blob.empty())
      if (auto body = archive_->read_blob(blob)) {
        ++parsed_;
        if (auto doc = normalize(*body, model_only))
          for (const Item& item : doc->feed.items) {
            const ItemIdKey key = item_id_key(item.id);
            if (first_seen_.emplace(key, static_cast<std::uint32_t>(k)).second && !rewrite_)
              pending_.back().push_back(key);
          }
      }
    blobs_.push_back(to_oid(blob));
  }
  // Written when the versions known have doubled, or when the caller asked for every version
  // before the newest (show or notify of the latest change, the common path, which then finds
  // them all cached next time): a first build that learns a source's versions one at a time
  // makes few writes. A process that stops between writes leaves less learnt, not wrong.
  if (n + 1 < commits_.size() && blobs_.size() < 2 * written_ + 16) return;
  save();
}

void SourceVersions::save() {
  if (!rewrite_ && written_ == blobs_.size()) return;
  std::string text;
  std::size_t from = written_;
  if (rewrite_) {
    // Every version's line again: ids are listed under the version that showed them first.
    from = 0;
    pending_.assign(blobs_.size(), {});
    for (const auto& [key, k] : first_seen_)
      if (k < pending_.size()) pending_[k].push_back(key);
    text = kVersionsCacheHeader;
    text += '\n';
  }
  for (std::size_t k = from; k < blobs_.size(); ++k) {
    std::vector<ItemIdKey>& keys = pending_[k - from];
    std::sort(keys.begin(), keys.end());
    text += 'v';
    append_tab_field(text, to_hex(commits_[k]));
    append_tab_field(text, blobs_[k] == Oid{} ? std::string() : to_hex(blobs_[k]));
    for (const ItemIdKey& key : keys) text += fmt::format("\t{:016x}{:016x}", key.high, key.low);
    text += '\n';
  }
  const std::string name = source_cache_name("versions", source_);
  if (rewrite_)
    archive_->cache_write(name, text);
  else
    archive_->cache_append(name, text);
  rewrite_ = false;
  written_ = blobs_.size();
  pending_.clear();
}

bool SourceVersions::seen_before(const std::string& id, std::size_t ordinal) const {
  const auto it = first_seen_.find(item_id_key(id));
  return it != first_seen_.end() && it->second < ordinal;
}

std::optional<std::string> SourceVersions::reverted_to(const std::string& blob,
                                                       std::size_t ordinal) {
  if (ordinal < 2) return std::nullopt;
  const auto id = parse_oid(blob);
  if (!id || *id == Oid{}) return std::nullopt;  // all zeros is "no blob", never a match
  // The newest version before ordinal - 1 (the parent) with those bytes.
  const std::size_t limit = std::min(ordinal - 1, blobs_.size());
  if (!asked_) {
    // One question (show, notify): a look back along the blobs, 20 bytes a version. Hashing
    // every version's blob into an index was a sixth of reading a source's versions.
    asked_ = true;
    for (std::size_t k = limit; k-- > 0;)
      if (blobs_[k] == *id) return to_hex(commits_[k]);
    return std::nullopt;
  }
  index_blobs();
  const auto it = last_with_blob_.find(*id);
  if (it == last_with_blob_.end()) return std::nullopt;
  // Back along the versions that had them, from the newest known.
  std::uint32_t k = it->second;
  while (k != kNoVersion && k >= limit) k = previous_same_[k];
  if (k == kNoVersion) return std::nullopt;
  return to_hex(commits_[k]);
}

}  // namespace feeddiff
