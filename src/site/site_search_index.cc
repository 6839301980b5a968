#include "site/site_search_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "feeddiff/core.h"

namespace feeddiff::site {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kSearchStateName = "search-state";
// Written before a run first touches a segment's files, removed once the state records what
// they hold: a run cut short in between left files the state does not describe.
constexpr const char* kSearchDirtyName = "search-dirty";
constexpr const char* kSearchStateHead = "feeddiff-site-search 1";

std::string dump(const json& value) {
  // Feed text that is not UTF-8 becomes U+FFFD rather than an exception.
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A file of the search index that does not parse, and how to mend it.
Error not_json(const fs::path& path) {
  return Error{Errc::io, fmt::format("{} is not JSON: remove {} and run `feeddiff site` again to "
                                     "rebuild the search index",
                                     path.string(), path.parent_path().parent_path().string())};
}

Result<json> read_json(const fs::path& path) {
  auto text = read_file(path.string());
  if (!text) return text.error();
  json value = json::parse(*text, nullptr, false);
  if (value.is_discarded()) return not_json(path);
  return value;
}

// A term shard of a merge: each term's postings from the segments' shards, one after the
// other, each shifted by its segment's first document. Read with nlohmann's SAX parser into
// plain vectors: as json values, the top level's shards held 42 MB at the peak of a first
// build over 1,000,000 changes (heaptrack), and grow with the history. The text is what
// dump() wrote of the same terms as a json object (keys in std::map's order, a term with no
// posting as null), byte for byte.
class MergedPostings {
 public:
  Status add(const fs::path& path, std::uint64_t shift) {
    auto text = read_file(path.string());
    if (!text) return text.error();
    Reader reader{terms_, shift};
    if (!json::sax_parse(*text, &reader) || !reader.object) return not_json(path);
    return Ok{};
  }

  std::string text() const {
    std::string out = "{";
    for (const auto& [term, postings] : terms_) {
      if (out.size() > 1) out += ',';
      out += dump(json(term));
      out += ':';
      if (postings.empty()) {
        out += "null";
        continue;
      }
      out += '[';
      for (std::size_t k = 0; k < postings.size(); ++k)
        fmt::format_to(std::back_inserter(out), "{}{}", k ? "," : "", postings[k]);
      out += ']';
    }
    return out + "}";
  }

 private:
  using Terms = std::map<std::string, std::vector<std::uint64_t>>;
  // Takes a top-level object's keys and the unsigned numbers of the arrays under them;
  // anything else is skipped, as the json values' merge skipped it.
  struct Reader {
    Terms& terms;
    std::uint64_t shift;
    int depth = 0;
    bool object = false;  // the top level is an object
    std::vector<std::uint64_t>* list = nullptr;
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t) { return true; }
    bool number_unsigned(json::number_unsigned_t n) {
      if (depth == 2 && list) list->push_back(n + shift);
      return true;
    }
    bool number_float(json::number_float_t, const json::string_t&) { return true; }
    bool string(json::string_t&) { return true; }
    bool binary(json::binary_t&) { return true; }
    bool start_object(std::size_t) {
      if (depth == 0) object = true;
      ++depth;
      return true;
    }
    bool key(json::string_t& k) {
      if (depth == 1) list = &terms[k];
      return true;
    }
    bool end_object() {
      --depth;
      return true;
    }
    bool start_array(std::size_t) {
      ++depth;
      return true;
    }
    bool end_array() {
      --depth;
      return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
      return false;
    }
  };
  Terms terms_;
};

// The segment numbers of the seg-N directories under dir.
std::vector<std::size_t> segments_on_disk(const fs::path& dir) {
  std::vector<std::size_t> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with("seg-") || name.size() > 24) continue;
    std::size_t number = 0;
    bool digits = name.size() > 4;
    for (char c : name.substr(4)) {
      if (c < '0' || c > '9') digits = false;
      number = number * 10 + static_cast<std::size_t>(c - '0');
    }
    if (digits) out.push_back(number);
  }
  return out;
}

json doc_row(const SearchDoc& doc) {
  return json::array({doc.change, doc.source, doc.title, doc.key, doc.observed});
}

}  // namespace

std::string search_shard(std::string_view term) {
  return hex_encode(term.substr(0, std::min<std::size_t>(term.size(), 2)));
}

bool SearchIndex::current(const fs::path& top, const std::string& tip) {
  std::error_code ec;
  if (tip.empty() || fs::exists(top / kStateDir / kSearchDirtyName, ec) ||
      !fs::exists(top / "search" / "manifest.json", ec))
    return false;
  auto text = read_file((top / kStateDir / kSearchStateName).string());
  return text && text->starts_with(std::string(kSearchStateHead) + "\ntip " + tip + "\n");
}

Result<SearchIndex> SearchIndex::open(const fs::path& top, std::size_t segment_docs, bool fresh) {
  SearchIndex index(top, std::max<std::size_t>(segment_docs, 1));
  for (std::size_t number : segments_on_disk(top / "search"))
    index.next_ = std::max(index.next_, number + 1);
  if (fresh) return index;
  if (auto text = read_file((top / kStateDir / kSearchStateName).string())) index.read_state(*text);
  return index;
}

void SearchIndex::read_state(const std::string& text) {
  std::istringstream lines(text);
  std::string word;
  while (lines >> word) {
    if (word == "next") {
      std::size_t next = 0;
      lines >> next;
      next_ = std::max(next_, next);
    } else if (word == "segment") {
      Segment s;
      int sealed = 0;
      lines >> s.number >> s.level >> s.docs >> sealed;
      s.sealed = sealed != 0;
      if (lines) segments_.push_back(s);
    } else {
      std::getline(lines, word);  // the head, the tip
    }
  }
}

namespace {

// Reads the new history oldest first, a chunk at a time, to find in it the commits of the old
// index's documents, which come in the history's order.
class HistoryCursor {
 public:
  explicit HistoryCursor(CommitSpool& fresh) : fresh_(fresh) {}

  // Whether id is at or after the cursor; the cursor then moves past it (else it stays).
  Result<bool> find(const Oid& id) {
    const std::size_t start = next_;
    for (;; ++next_) {
      if (next_ < begin_ || next_ >= begin_ + chunk_.size()) {
        if (next_ >= fresh_.size()) {
          next_ = start;
          return false;
        }
        auto read = fresh_.oldest(next_, std::min(fresh_.size(), next_ + kCursorChunk));
        if (!read) return read.error();
        chunk_ = std::move(*read);
        begin_ = next_;
      }
      if (chunk_[next_ - begin_] == id) {
        ++next_;
        return true;
      }
    }
  }
  // How many commits, from the oldest, the cursor has passed.
  std::size_t position() const { return next_; }

 private:
  static constexpr std::size_t kCursorChunk = 65'536;
  CommitSpool& fresh_;
  std::vector<Oid> chunk_;
  std::size_t begin_ = 0, next_ = 0;
};

std::string row_cell(const json& row, std::size_t i) {
  return row.is_array() && i < row.size() && row[i].is_string() ? row[i].get<std::string>() : "";
}

}  // namespace

// The old segments' documents are what a fresh build gives for the same commits in the same
// order (a change's documents depend on it and the source's versions before it): the sealed
// segments the new history still holds whole stay, file for file, and the segments a fresh
// build makes from them are these. Only the segment the histories part in is made again, from
// its own files rather than from the commits (reading a change costs a hundred times its
// documents' JSON), so the run costs the new commits and one segment, not the history.
Result<std::size_t> SearchIndex::keep_shared(const fs::path& old_state, CommitSpool& fresh,
                                             Writes& writes) {
  auto text = read_file((old_state / kSearchStateName).string());
  if (!text || !text->starts_with(std::string(kSearchStateHead) + "\n")) return 0;
  SearchIndex old(top_, segment_docs_);
  old.read_state(*text);
  next_ = std::max(next_, old.next_);
  HistoryCursor history(fresh);
  for (const Segment& s : old.segments_) {
    if (s.docs == 0) continue;
    // A segment's last document names the newest change it holds: when the new history has
    // that commit, it has every one before it, in the same order.
    const std::size_t last = s.docs - 1;
    std::string change;
    if (auto shard =
            read_json(dir(s.number) / "d" / fmt::format("{}.json", last / kSearchShardDocs)))
      change = row_cell(shard->is_array() && shard->size() > last % kSearchShardDocs
                            ? (*shard)[last % kSearchShardDocs]
                            : json(),
                        0);
    std::error_code ec;
    if (!s.sealed || !is_commit_id(change) || !fs::is_directory(dir(s.number) / "t", ec))
      return add_again(s, s.docs, history.position(), fresh, writes);
    const std::size_t before = history.position();
    auto found = history.find(to_oid(change));
    if (!found) return found.error();
    if (!*found) return add_again(s, s.docs, before, fresh, writes);
    segments_.push_back(s);
  }
  return history.position();
}

// Adds again, from segment s's files, its documents (of its first `docs`) whose commits the
// new history has after the first `covered`; returns how many commits the index then covers.
Result<std::size_t> SearchIndex::add_again(const Segment& s, std::size_t docs, std::size_t covered,
                                           CommitSpool& fresh, Writes& writes) {
  HistoryCursor history(fresh);
  if (covered > 0) {
    auto skipped = fresh.oldest(covered - 1, covered);
    if (!skipped) return skipped.error();
    auto found = history.find(skipped->front());  // a commit of fresh: found at covered - 1
    if (!found) return found.error();
  }
  // Everything is read before anything is added: a file that does not read back leaves the
  // segment's commits to be read from the archive, as a fresh build would.
  std::vector<SearchDoc> kept;
  std::string last_change;
  for (std::size_t k = 0; k * kSearchShardDocs < docs && kept.size() == k * kSearchShardDocs; ++k) {
    auto shard = read_json(dir(s.number) / "d" / fmt::format("{}.json", k));
    if (!shard || !shard->is_array()) return covered;
    for (std::size_t j = 0; j < shard->size() && k * kSearchShardDocs + j < docs; ++j) {
      const json& row = (*shard)[j];
      SearchDoc doc{row_cell(row, 0),
                    row_cell(row, 1),
                    row_cell(row, 2),
                    row_cell(row, 3),
                    row_cell(row, 4),
                    {},
                    {}};
      if (doc.change != last_change) {
        if (!is_commit_id(doc.change)) break;
        auto found = history.find(to_oid(doc.change));
        if (!found) return found.error();
        if (!*found) break;
        last_change = doc.change;
      }
      kept.push_back(std::move(doc));
    }
    if (kept.size() < std::min(docs, (k + 1) * kSearchShardDocs)) break;
  }
  if (kept.empty()) return covered;
  std::error_code ec;
  for (fs::directory_iterator it(dir(s.number) / "t", ec), end; !ec && it != end;
       it.increment(ec)) {
    auto terms = read_json(it->path());
    if (!terms || !terms->is_object()) return covered;
    for (auto& [term, postings] : terms->items())
      for (const json& p : postings)
        if (p.is_number_unsigned() && p.get<std::uint64_t>() / 2 < kept.size()) {
          SearchDoc& doc = kept[p.get<std::uint64_t>() / 2];
          (p.get<std::uint64_t>() % 2 ? doc.gone : doc.appeared).push_back(term);
        }
  }
  if (ec) return covered;
  // A change's documents went to the index together: a segment is sealed between changes.
  std::size_t from = 0;
  for (std::size_t i = 1; i <= kept.size(); ++i)
    if (i == kept.size() || kept[i].change != kept[from].change) {
      std::vector<SearchDoc> change(std::make_move_iterator(kept.begin() + from),
                                    std::make_move_iterator(kept.begin() + i));
      if (auto ok = add(std::move(change), writes); !ok) return ok.error();
      from = i;
    }
  return history.position();
}

fs::path SearchIndex::dir(std::size_t number) const {
  return top_ / "search" / fmt::format("seg-{}", number);
}

Status SearchIndex::mark_dirty() {
  if (dirty_) return Ok{};
  if (auto ok = make_dirs(top_ / kStateDir); !ok) return ok;
  if (auto ok = write_file_atomic((top_ / kStateDir / kSearchDirtyName).string(), ""); !ok)
    return ok;
  dirty_ = true;
  return Ok{};
}

Status SearchIndex::add(std::vector<SearchDoc> docs, Writes& writes) {
  if (docs.empty()) return Ok{};
  if (auto ok = mark_dirty(); !ok) return ok;
  if (segments_.empty() || segments_.back().sealed) segments_.push_back(Segment{.number = next_++});
  for (SearchDoc& doc : docs) {
    const auto local = static_cast<std::uint32_t>(segments_.back().docs + new_docs_.size());
    for (const std::string& word : doc.appeared)
      new_postings_[search_shard(word)][word].push_back(local * 2);
    for (const std::string& word : doc.gone)
      new_postings_[search_shard(word)][word].push_back(local * 2 + 1);
    doc.appeared = {};
    doc.gone = {};
    new_docs_.push_back(std::move(doc));
    ++added_;
  }
  if (segments_.back().docs + new_docs_.size() >= segment_docs_) return seal(writes);
  return Ok{};
}

// The tail's files take this run's documents and postings: each shard a new posting lands in
// is read (what it held up to the state's count of documents) and written again.
Status SearchIndex::flush_tail(Writes& writes) {
  if (new_docs_.empty()) return Ok{};
  Segment& tail = segments_.back();
  const fs::path at = dir(tail.number);
  const std::size_t old = tail.docs, total = old + new_docs_.size();
  for (auto& [shard, terms] : new_postings_) {
    const fs::path path = at / "t" / (shard + ".json");
    json object = json::object();
    std::error_code ec;
    if (old > 0 && fs::exists(path, ec)) {
      auto read = read_json(path);
      if (!read) return read.error();
      if (read->is_object()) object = std::move(*read);
    }
    for (auto& [term, postings] : terms) {
      json& list = object[term];
      if (!list.is_array()) list = json::array();
      for (std::uint32_t p : postings) list.push_back(p);
    }
    if (auto ok = write_if_changed(path, dump(object), writes); !ok) return ok;
  }
  for (std::size_t k = old / kSearchShardDocs; k * kSearchShardDocs < total; ++k) {
    const fs::path path = at / "d" / fmt::format("{}.json", k);
    json rows = json::array();
    if (k * kSearchShardDocs < old) {
      auto read = read_json(path);
      if (!read) return read.error();
      for (std::size_t i = 0;
           read->is_array() && i < read->size() && k * kSearchShardDocs + i < old; ++i)
        rows.push_back((*read)[i]);
    }
    for (std::size_t n = std::max(old, k * kSearchShardDocs);
         n < std::min(total, (k + 1) * kSearchShardDocs); ++n)
      rows.push_back(doc_row(new_docs_[n - old]));
    if (auto ok = write_if_changed(path, dump(rows), writes); !ok) return ok;
  }
  tail.docs = total;
  new_docs_.clear();
  new_postings_.clear();
  return Ok{};
}

Status SearchIndex::seal(Writes& writes) {
  if (auto ok = flush_tail(writes); !ok) return ok;
  segments_.back().sealed = true;
  return merge(writes);
}

// While the newest kSearchMergeFanout sealed segments share a level, they become one of the
// next level: documents renumbered one after the other, each shard's postings concatenated
// (every posting of a later segment is after those of an earlier one). A shard at a time.
Status SearchIndex::merge(Writes& writes) {
  for (;;) {
    const std::size_t n = segments_.size();
    if (n < kSearchMergeFanout) return Ok{};
    const std::size_t first = n - kSearchMergeFanout, level = segments_[first].level;
    bool same = true;
    for (std::size_t i = first; i < n; ++i)
      same = same && segments_[i].sealed && segments_[i].level == level;
    if (!same) return Ok{};
    Segment merged{.number = next_++, .level = level + 1, .sealed = true};
    const fs::path out = dir(merged.number);
    json rows = json::array();
    std::size_t shard = 0;
    std::set<std::string> shards;
    for (std::size_t i = first; i < n; ++i) {
      const Segment& s = segments_[i];
      for (std::size_t k = 0; k * kSearchShardDocs < s.docs; ++k) {
        auto read = read_json(dir(s.number) / "d" / fmt::format("{}.json", k));
        if (!read) return read.error();
        for (std::size_t j = 0; read->is_array() && j < read->size(); ++j) {
          rows.push_back(std::move((*read)[j]));
          if (rows.size() == kSearchShardDocs) {
            if (auto ok = write_if_changed(out / "d" / fmt::format("{}.json", shard++), dump(rows),
                                           writes);
                !ok)
              return ok;
            rows = json::array();
          }
        }
      }
      std::error_code ec;
      for (fs::directory_iterator it(dir(s.number) / "t", ec), end; !ec && it != end;
           it.increment(ec))
        shards.insert(it->path().filename().string());
    }
    if (!rows.empty())
      if (auto ok = write_if_changed(out / "d" / fmt::format("{}.json", shard), dump(rows), writes);
          !ok)
        return ok;
    for (const std::string& name : shards) {
      MergedPostings merged_terms;
      std::size_t offset = 0;
      for (std::size_t i = first; i < n; ++i) {
        const fs::path path = dir(segments_[i].number) / "t" / name;
        std::error_code ec;
        if (fs::exists(path, ec))
          if (auto ok = merged_terms.add(path, 2 * offset); !ok) return ok;
        offset += segments_[i].docs;
      }
      if (auto ok = write_if_changed(out / "t" / name, merged_terms.text(), writes); !ok) return ok;
    }
    for (std::size_t i = first; i < n; ++i) merged.docs += segments_[i].docs;
    segments_.resize(first);
    segments_.push_back(merged);
  }
}

std::string SearchIndex::manifest() const {
  json segments = json::array();
  std::size_t documents = 0;
  for (auto s = segments_.rbegin(); s != segments_.rend(); ++s) {
    segments.push_back(
        {{"dir", fmt::format("seg-{}", s->number)}, {"docs", s->docs}, {"sealed", s->sealed}});
    documents += s->docs;
  }
  return dump(json{{"format", kSearchFormat},
                   {"shard_docs", kSearchShardDocs},
                   {"documents", documents},
                   {"segments", segments}}) +
         "\n";
}

Status SearchIndex::write(Writes& writes) {
  if (auto ok = flush_tail(writes); !ok) return ok;
  return write_if_changed(top_ / "search" / "manifest.json", manifest(), writes);
}

Status SearchIndex::save(const std::string& tip) {
  std::string text = fmt::format("{}\ntip {}\nnext {}\n", kSearchStateHead, tip, next_);
  for (const Segment& s : segments_)
    text += fmt::format("segment {} {} {} {}\n", s.number, s.level, s.docs, s.sealed ? 1 : 0);
  if (auto ok = make_dirs(top_ / kStateDir); !ok) return ok;
  const std::string path = (top_ / kStateDir / kSearchStateName).string();
  // A run with nothing new leaves every file of the site as it was, this one included.
  if (auto old = read_file(path); !old || *old != text)
    if (auto ok = write_file_atomic(path, text); !ok) return ok;
  std::error_code ec;
  fs::remove(top_ / kStateDir / kSearchDirtyName, ec);
  dirty_ = false;
  return Ok{};
}

void SearchIndex::remove_dropped() {
  std::set<std::size_t> kept;
  for (const Segment& s : segments_) kept.insert(s.number);
  for (std::size_t number : segments_on_disk(top_ / "search"))
    if (!kept.count(number)) remove_tree(top_, dir(number));
}

}  // namespace feeddiff::site
