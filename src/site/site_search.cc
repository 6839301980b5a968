#include "site/site_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "site/site_items.h"

namespace feeddiff::site {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Characters of an item's title a document keeps.
constexpr std::size_t kSearchTitleChars = 300;

bool word_byte(unsigned char c) {
  return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool valid_utf8(std::string_view token) {
  for (std::size_t i = 0; i < token.size();) {
    const Utf8Char ch = decode_utf8(token, i);
    if (ch.size == 0) return false;
    i += ch.size;
  }
  return true;
}

// The words an item's text gained (new less old) or lost (old less new); both sorted.
std::vector<std::string> minus(const std::vector<std::string>& a,
                               const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool text_field(const std::string& field) {
  return field == "title" || field == "summary" || field == "content";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

std::vector<std::string> split_words(const json& value) {
  std::vector<std::string> out;
  if (!value.is_string()) return out;
  const std::string& text = value.get_ref<const std::string&>();
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string cell(const json& row, std::size_t i) {
  return row.is_array() && i < row.size() && row[i].is_string() ? row[i].get<std::string>() : "";
}

}  // namespace

void for_each_token(std::string_view text, const std::function<void(std::string_view)>& visit) {
  std::string token;
  auto flush = [&] {
    if (!token.empty() && token.size() <= kMaxTokenBytes && valid_utf8(token)) visit(token);
    token.clear();
  };
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (!word_byte(c)) {
      flush();
      continue;
    }
    // Past the limit the run is dropped whole; its bytes need not be kept.
    if (token.size() <= kMaxTokenBytes)
      token += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : ch;
  }
  flush();
}

const std::vector<std::string>& SiteSearch::Version::item_words(std::size_t index) {
  auto found = words.find(index);
  if (found != words.end()) return found->second;
  std::vector<std::string>& out = words[index];
  if (!feed || index >= feed->items.size()) return out;
  const Item& item = feed->items[index];
  const std::string text =
      item.title + "\n" + readable_text(item.summary) + "\n" + readable_text(item.content);
  std::set<std::string> seen;
  for_each_token(text, [&](std::string_view token) {
    if (seen.size() < kMaxDocumentWords) seen.emplace(token);
  });
  out.assign(seen.begin(), seen.end());
  return out;
}

SiteSearch::Version SiteSearch::parse(const Blob& body) {
  Version out;
  out.body = body;
  if (std::string_view(body).empty()) return out;
  if (auto doc = normalize(body, NormalizeOptions{{}, true, false}))
    out.feed = std::make_shared<const Feed>(std::move(doc->feed));
  return out;
}

Result<SiteSearch> SiteSearch::open(const fs::path& top, const fs::path& work,
                                    std::size_t segment_docs, bool fresh, Writes& writes) {
  auto index = SearchIndex::open(top, segment_docs, fresh);
  if (!index) return index.error();
  auto spool = RowSpool::create((work / "search").string());
  if (!spool) return spool.error();
  return SiteSearch(top, std::move(*index), std::move(*spool), writes);
}

void SiteSearch::collect(const LoadedChange& change, const std::string& observed) {
  last_.clear();
  if (!change.view.items) return;
  // The old version is the one parsed for the change before, as a rule (a source's changes
  // come one after the other): each version is parsed once.
  std::optional<Version> old_side, new_side;
  const std::string_view old_body = change.old_body;
  auto before = [&]() -> Version& {
    if (!old_side) {
      const std::string_view kept = previous_.body;
      old_side =
          kept.size() == old_body.size() &&
                  (kept.empty() || std::memcmp(kept.data(), old_body.data(), kept.size()) == 0)
              ? std::move(previous_)
              : parse(change.old_body);
    }
    return *old_side;
  };
  auto after = [&]() -> Version& {
    if (!new_side) new_side = parse(change.new_body);
    return *new_side;
  };
  for (const ItemChange& item : change.view.items->items) {
    if (last_.size() >= kMaxChangeDocuments) break;
    SearchDoc doc;
    switch (item.kind) {
      case ItemChange::Kind::added:
      case ItemChange::Kind::reappeared:
        doc.appeared = after().item_words(item.new_index);
        break;
      case ItemChange::Kind::removed:
        // An item that fell off the end of the feed's window (newer items pushed it out) did
        // not lose its words: every poll of a busy feed ages one out, and posting them all as
        // gone made most of the index, and most "gone" hits, noise. A pulled item did.
        if (item.aged_out) continue;
        doc.gone = before().item_words(item.old_index);
        break;
      case ItemChange::Kind::changed: {
        if (std::none_of(item.fields.begin(), item.fields.end(), text_field)) continue;
        const auto& was = before().item_words(item.old_index);
        const auto& is = after().item_words(item.new_index);
        doc.appeared = minus(is, was);
        doc.gone = minus(was, is);
        break;
      }
      default:
        continue;
    }
    if (doc.appeared.empty() && doc.gone.empty()) continue;
    doc.change = change.commit.id;
    doc.source = change.view.source;
    doc.title = std::string(cut_chars(item.title, kSearchTitleChars, nullptr));
    doc.key = item_key(item.id);
    doc.observed = observed;
    last_.push_back(std::move(doc));
  }
  if (new_side)
    previous_ = std::move(*new_side);
  else if (old_side && !previous_.feed)
    previous_ = std::move(*old_side);
}

Status SiteSearch::collect_commit(const Archive& archive, const std::string& id,
                                  SourceVersions* versions) {
  last_.clear();
  auto loaded = load_change(archive, {.revision = id, .known_versions = versions});
  if (!loaded) return loaded.error();
  collect(**loaded, observed_at((*loaded)->commit));
  return Ok{};
}

Result<std::uint64_t> SiteSearch::spool() {
  json docs = json::array();
  for (const SearchDoc& d : last_)
    docs.push_back(
        {d.change, d.source, d.title, d.key, d.observed, joined(d.appeared), joined(d.gone)});
  return spool_.put(docs.dump(-1, ' ', false, json::error_handler_t::replace));
}

Status SiteSearch::index(std::uint64_t at) {
  auto line = spool_.get(at);
  if (!line) return line.error();
  const json docs = json::parse(*line, nullptr, false);
  if (docs.is_discarded())
    return Error{Errc::io, fmt::format("a row of the search spool at {} does not read back", at)};
  last_.clear();
  for (std::size_t i = 0; docs.is_array() && i < docs.size(); ++i) {
    const json& row = docs[i];
    SearchDoc doc{cell(row, 0),
                  cell(row, 1),
                  cell(row, 2),
                  cell(row, 3),
                  cell(row, 4),
                  split_words(row.is_array() && row.size() > 5 ? row[5] : json()),
                  split_words(row.is_array() && row.size() > 6 ? row[6] : json())};
    last_.push_back(std::move(doc));
  }
  return index_last();
}

Status SiteSearch::index_last() {
  return index_.add(std::exchange(last_, {}), *writes_);
}

Status SiteSearch::write() {
  if (auto ok = index_.write(*writes_); !ok) return ok;
  if (auto ok = write_if_changed(top_ / "search.js", kSearchScript, *writes_); !ok) return ok;
  return write_if_changed(top_ / "search.html", render_search_page(), *writes_);
}

}  // namespace feeddiff::site
