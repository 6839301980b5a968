// What the commands look up before they show: a feed at a commit, the change `show WORD`
// means, an item by id, link or title, and the sources an export covers.

#include <fmt/format.h>

#include <algorithm>

#include "feeddiff/changes.h"
#include "feeddiff/config.h"

namespace feeddiff {

namespace {

constexpr std::string_view kLastResponseFiles[] = {kNotAFeedFile, "response.xml", "response.json"};

// Whether feeddiff.toml on the branch names a source so (from the cache of its sources, so
// that `show HEAD` neither reads nor parses a file of thousands of sources to learn it).
bool configured_source(const Archive& archive, const std::string& name) {
  auto head = archive.resolve("HEAD");
  return head && configures_source(archive, head->id, name);
}

}  // namespace

Result<std::optional<FeedInput>> source_response_at(const Archive& archive,
                                                    const CommitInfo& commit,
                                                    std::string_view source, bool last_response) {
  if (auto ok = check_source_name(source); !ok) return ok.error();
  auto dir = archive.source_dir_at(commit.id, source);
  if (!dir) return dir.error();
  for (std::string_view file : kLastResponseFiles) {
    if (file == kNotAFeedFile && !last_response) continue;
    const std::string path = *dir + std::string(file);
    auto body = archive.read(commit.id, path);
    if (!body) return body.error();
    if (!*body) continue;
    FeedInput in;
    in.bytes = std::move(**body);
    in.label = fmt::format("{}:{}", commit.short_id(), path);
    in.commit = commit.id;
    in.source = std::string(source);
    return std::optional<FeedInput>(std::move(in));
  }
  return std::optional<FeedInput>{};
}

Result<FeedInput> feed_input_at(const Archive& archive, std::string_view revision,
                                std::string_view source, bool last_response) {
  auto commit = archive.resolve(revision);
  if (!commit)
    return Error{Errc::not_found, fmt::format("'{}' is neither a file nor a commit", revision)};
  std::string name(source);
  if (name.empty()) {
    if (const std::string* s = commit->trailer("Source"))
      name = *s;
    else
      return Error{Errc::usage,
                   fmt::format("commit {} records no single source; name one", commit->short_id())};
  }
  auto found = source_response_at(archive, *commit, name, last_response);
  if (!found) return found.error();
  if (!*found)
    return Error{Errc::not_found,
                 fmt::format("source '{}' has no raw body at commit {}", name, commit->short_id())};
  return std::move(**found);
}

Result<ShowTarget> resolve_show_word(const Archive& archive, const std::string& word) {
  const bool source = check_source_name(word) && configured_source(archive, word);
  if (archive.resolve(word)) {
    if (!source) return ShowTarget{word, {}};
    return Error{Errc::usage,
                 fmt::format("'{}' names both a commit and a source: `feeddiff show HEAD {}` for "
                             "the source's latest change, a longer id for the commit",
                             word, word)};
  }
  // Not a revision: a source when feeddiff.toml names it or its files have a history (a
  // removed source's too); else the word was likely meant as a commit.
  if (source) return ShowTarget{"HEAD", word};
  if (check_source_name(word))
    if (auto latest = archive.source_change_at(word, "HEAD"); latest && *latest)
      return ShowTarget{"HEAD", word};
  return Error{Errc::not_found, fmt::format("unknown commit or source '{}'", word)};
}

Result<std::string> source_change_at_or_before(const Archive& archive, const std::string& revision,
                                               const std::string& source) {
  auto commit = archive.resolve(revision);
  if (!commit) return commit.error();
  if (auto ok = check_source_name(source); !ok) return ok.error();
  auto latest = archive.source_change_at(source, commit->id);
  if (!latest) return latest.error();
  if (!*latest)
    return Error{Errc::not_found, fmt::format("source '{}' has no change at or before commit {}",
                                              source, commit->short_id())};
  return (*latest)->id;
}

Result<const ItemLife*> find_item(const Archive& archive, const SourceHistory& history,
                                  const std::string& source, const std::string& query) {
  if (const ItemLife* life = history.items.find(query)) return life;
  // A link is looked for by parsing versions, newest first: only for what can be a URL.
  if (query.find_first_of(":/") != std::string::npos) {
    auto linked = item_with_link(archive, history, query);
    if (!linked) return linked.error();
    if (*linked)
      if (const ItemLife* life = history.items.find(**linked)) return life;
  }
  const std::vector<const ItemLife*> titled = history.items.with_title(query);
  if (titled.size() == 1) return titled.front();
  // "GPT-4" names the item titled so, not also "GPT-4 research": a whole title wins.
  std::vector<const ItemLife*> whole;
  const std::string query_lower = to_lower(query);
  for (const ItemLife* life : titled)
    if (std::any_of(life->titles.begin(), life->titles.end(),
                    [&](const std::string& t) { return to_lower(t) == query_lower; }))
      whole.push_back(life);
  if (whole.size() == 1) return whole.front();
  // The query is the user's own text; it is escaped all the same, as it is printed.
  const std::string shown = escape_terminal(query);
  if (titled.empty())
    return Error{Errc::not_found,
                 fmt::format("no item of '{}' has the id or link '{}' or a title containing it",
                             source, shown)};
  return Error{Errc::usage,
               fmt::format("'{}' is in the titles of {} items of '{}'; give one's id (`feeddiff "
                           "history {}` lists them)",
                           shown, titled.size(), source, source)};
}

Result<std::vector<std::string>> sources_to_export(const Archive& archive,
                                                   const std::vector<std::string>& names) {
  // feeddiff.toml as the work tree has it, as poll reads it (poll's load_config).
  auto text = read_file(archive.work_dir() + "/feeddiff.toml");
  if (!text) return text.error();
  auto config = parse_config(*text);
  if (!config) return config.error();
  std::vector<std::string> sources = names;
  if (sources.empty())
    for (const auto& source : config->sources) sources.push_back(source.name);
  for (const auto& name : sources) {
    if (auto ok = check_source_name(name); !ok) return ok.error();
    if (config->find(name)) continue;
    auto recorded = archive.source_log(name, 1);
    if (!recorded) return recorded.error();
    if (recorded->empty())
      return Error{Errc::not_found,
                   fmt::format("no source '{}' and no recorded change of it", name)};
  }
  return sources;
}

}  // namespace feeddiff
