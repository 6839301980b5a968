#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>

#include "feeddiff/changes.h"
#include "feeddiff/normalize.h"

namespace feeddiff {

namespace {

bool parse_time(const std::string& text, TimeMs& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// What `log NAME` prints of a commit: its title, times and these trailers (the first of each).
constexpr std::array<const char*, 6> kLogTrailers = {"Source",       "Observed-At",  "Status",
                                                     "Change-Class", "Item-Summary", "Not-A-Feed"};

// The tag of a record: "c2" since records keep the class trailers, or for a commit without
// them its Summary-Key (summary_key); "c" records, which kept neither, are read as none, so
// the cache is rebuilt once.
constexpr const char* kRecordTag = "c2";

// A commit as its record in the log cache keeps it: kRecordTag, id, title, author and
// committer times, then key and value of each of kLogTrailers it has; nullopt for any other
// line.
std::optional<CommitInfo> from_record(const std::vector<std::string>& r) {
  CommitInfo c;
  if (r.size() < 5 || r.size() % 2 == 0 || r[0] != kRecordTag || !parse_time(r[3], c.author_time) ||
      !parse_time(r[4], c.commit_time))
    return std::nullopt;
  c.id = r[1];
  c.title = r[2];
  for (std::size_t i = 5; i + 1 < r.size(); i += 2) c.trailers.push_back({r[i], r[i + 1]});
  return c;
}

// The record of a commit read from git: what a later call reads back instead of the commit.
std::vector<std::string> to_record(const Archive& archive, const CommitInfo& c,
                                   const std::string& source) {
  std::vector<std::string> fields = {kRecordTag, c.id, c.title, std::to_string(c.author_time),
                                     std::to_string(c.commit_time)};
  for (const char* key : kLogTrailers)
    if (const std::string* value = c.trailer(key)) fields.insert(fields.end(), {key, *value});
  // A version recorded before poll wrote its class: where its summary is cached, found
  // once here, so that a later call reads one cache entry per line, not two trees.
  if (!c.trailer("Change-Class"))
    if (auto key = summary_key(archive, c.id, source))
      fields.insert(fields.end(), {"Summary-Key", *key});
  return fields;
}

constexpr const char* kResponseFiles[] = {"response.xml", "response.json"};

bool response_file(std::string_view path) {
  const std::string_view file = path.substr(path.rfind('/') + 1);
  for (const char* name : kResponseFiles)
    if (file == name) return true;
  return false;
}

// Each source's response blob id at a commit, by name.
Result<std::map<std::string, std::string>> response_blobs(const Archive& archive,
                                                          const std::string& commit_id) {
  auto files = archive.files_under(commit_id, "raw/");
  if (!files) return files.error();
  std::map<std::string, std::string> out;
  for (const PathChange& f : *files)
    if (const auto owner = source_of_raw_path(f.path); owner && response_file(f.path))
      out[std::string(*owner)] = f.new_blob;
  return out;
}

}  // namespace

Result<std::vector<CommitInfo>> source_changes(const Archive& archive, const std::string& source) {
  auto ids = archive.source_commit_ids(source);
  if (!ids) return ids.error();
  const std::vector<std::string> commits(ids->rbegin(), ids->rend());
  SourceRecords records = SourceRecords::load(archive, "log", source, commits);
  std::vector<CommitInfo> out;
  out.reserve(commits.size());
  for (const auto& r : records.records()) {
    auto c = from_record(r);
    if (!c) break;
    out.push_back(std::move(*c));
  }
  records.keep(out.size());
  for (std::size_t k = out.size(); k < commits.size(); ++k) {
    auto c = archive.resolve(commits[k]);
    if (!c) return archive.source_log(source, 0);  // a record naming no commit: walk instead
    std::vector<std::string> fields = to_record(archive, *c, source);
    out.push_back(*from_record(fields));  // what a later call reads back
    records.add(std::move(fields));
  }
  records.save(archive);
  auto abbrev = archive.abbreviate(commits, source_cache_name("abbrev", source));
  if (!abbrev) return abbrev.error();
  for (std::size_t i = 0; i < out.size(); ++i) out[i].abbrev = std::move((*abbrev)[i]);
  std::reverse(out.begin(), out.end());
  return out;
}

Result<std::vector<SourceDifference>> sources_between(const Archive& archive, const CommitInfo& a,
                                                      const CommitInfo& b) {
  auto before = response_blobs(archive, a.id);
  if (!before) return before.error();
  auto after = response_blobs(archive, b.id);
  if (!after) return after.error();
  std::vector<SourceDifference> out;
  auto old_it = before->begin();
  auto new_it = after->begin();
  // Both maps are sorted by name: one merge pass.
  while (old_it != before->end() || new_it != after->end()) {
    if (new_it == after->end() || (old_it != before->end() && old_it->first < new_it->first)) {
      out.push_back({old_it->first, old_it->second, ""});
      ++old_it;
    } else if (old_it == before->end() || new_it->first < old_it->first) {
      out.push_back({new_it->first, "", new_it->second});
      ++new_it;
    } else {
      if (old_it->second != new_it->second)
        out.push_back({old_it->first, old_it->second, new_it->second});
      ++old_it;
      ++new_it;
    }
  }
  return out;
}

std::string difference_summary(const Archive& archive, const CommitInfo& b,
                               const SourceDifference& d) {
  if (d.old_blob.empty()) return "not in the first commit";
  if (d.new_blob.empty()) return "not in the second commit";
  const FeedRules rules = feed_rules(archive, b.id, d.name);
  const std::string name =
      item_diff_cache_name(d.old_blob, d.new_blob, rules.ignore, rules.insignificant);
  std::optional<ItemDiff> items;
  if (auto text = archive.cache_read(name)) items = decode_item_diff(*text);
  if (!items) {
    const NormalizeOptions model_only{{}, true, false};
    auto model = [&](const std::string& blob) -> Result<Document> {
      auto body = archive.read_blob(blob);
      if (!body) return body.error();
      return normalize(*body, model_only);
    };
    auto before = model(d.old_blob);
    auto after = model(d.new_blob);
    if (!before || !after) return "a version does not parse";
    items = diff_items(before->feed, after->feed, rules.ignore, true, rules.insignificant);
    archive.cache_write(name, encode_item_diff(*items));
  }
  return summarize_items(*items);
}

TimeMs observation_time(const CommitInfo& commit) {
  if (const std::string* observed = commit.trailer("Observed-At"))
    if (auto t = parse_iso8601(*observed)) return *t;
  return commit.commit_time;
}

Result<CommitInfo> source_version_at(const Archive& archive, const std::string& source,
                                     TimeMs moment) {
  auto changes = source_changes(archive, source);
  if (!changes) return changes.error();
  if (changes->empty())
    return Error{Errc::not_found, fmt::format("source '{}' has no recorded change", source)};
  // Newest first, and observation times follow the branch's order but for a replay of
  // another poller's commits, so the newest observed by then is looked for in all of them.
  const CommitInfo* best = nullptr;
  TimeMs best_time = 0;
  for (const CommitInfo& c : *changes) {
    const TimeMs t = observation_time(c);
    if (t <= moment && (!best || t > best_time)) {
      best = &c;
      best_time = t;
    }
  }
  if (!best) {
    TimeMs first = observation_time(changes->front());
    for (const CommitInfo& c : *changes) first = std::min(first, observation_time(c));
    return Error{Errc::not_found,
                 fmt::format("source '{}' had no version yet at {}: its first was observed at {}",
                             source, format_iso8601_ms(moment), format_iso8601_ms(first))};
  }
  return *best;
}

}  // namespace feeddiff
