#include "feeddiff/sources.h"

#include <fmt/format.h>

#include <algorithm>

#include "feeddiff/core.h"
#include "feeddiff/fetch.h"

namespace feeddiff {

namespace {

// A commit of feeddiff.toml (and of the paths to delete), dated by the clock.
Status commit_config(Archive& archive, std::string message, std::string config_text,
                     const CommitClock& clock, const std::vector<std::string>& deleted = {}) {
  auto now = clock();
  if (!now) return now.error();
  CommitRequest request;
  request.author_time = request.commit_time = *now;
  request.message = std::move(message);
  request.files.push_back({"feeddiff.toml", std::move(config_text)});
  for (const auto& path : deleted) request.files.push_back({path, std::nullopt});
  auto committed = archive.commit(request);
  if (!committed) return committed.error();
  return Ok{};
}

// The source of known whose URL is url, or nullptr.
const SourceConfig* with_url(const std::vector<SourceConfig>& known, const std::string& url) {
  for (const auto& s : known)
    if (s.url == url) return &s;
  return nullptr;
}

}  // namespace

Result<EditedArchive> open_for_edit(const std::string& dir) {
  auto archive = Archive::open(dir);
  if (!archive) return archive.error();
  auto lock = ArchiveLock::acquire(*archive, false);
  if (!lock) return lock.error();
  auto config = load_config(*archive);
  if (!config) return config.error();
  return EditedArchive{std::move(*archive), std::move(*lock), std::move(*config)};
}

Result<std::string> committed_config(const Archive& archive, std::string_view command) {
  auto dirty = archive.uncommitted("feeddiff.toml");
  if (!dirty) return dirty.error();
  if (*dirty)
    return Error{Errc::conflict,
                 fmt::format("feeddiff.toml has edits not committed; commit or undo them, then "
                             "run {} again (nothing was changed)",
                             command)};
  auto text = archive.read_head("feeddiff.toml");
  if (!text) return text.error();
  return text->value_or(std::string());
}

Result<AddedSource> add_source(EditedArchive& edit, const std::string& name, const std::string& url,
                               TimeMs every, const CommitClock& clock, bool articles) {
  auto text = committed_config(edit.archive, "add");
  if (!text) return text.error();
  if (edit.config.find(name))
    return Error{Errc::exists,
                 fmt::format("a source named '{}' exists already (see "
                             "feeddiff.toml; `feeddiff remove {}` first to replace it)",
                             name, name)};
  // user:password never reaches feeddiff.toml, which is committed.
  const SplitUrl split = split_credentials(url);
  AddedSource out;
  out.source.name = name;
  out.source.url = split.url;
  out.source.every = every;
  out.source.articles = articles;
  out.credentials_stored = !split.credentials.empty();
  // The user's file, edited: comments, order and layout stay.
  auto edited = add_source_table(*text, out.source);
  if (!edited) return edited.error();
  if (auto ok = save_credentials(edit.archive, name, split.credentials, split.url); !ok)
    return ok.error();
  auto ok = commit_config(edit.archive,
                          fmt::format("{}: source added\n\nSource: {}\nURL: {}\nEvery: {}\n{}",
                                      name, name, redact_url(split.url), format_duration(every),
                                      articles ? "Articles: true\n" : ""),
                          std::move(*edited), clock);
  if (!ok) return ok.error();
  return out;
}

Status remove_source(EditedArchive& edit, const std::string& name, const CommitClock& clock) {
  if (!edit.config.find(name))
    return Error{Errc::not_found, fmt::format("no source named '{}'", name)};
  auto text = committed_config(edit.archive, "remove");
  if (!text) return text.error();
  // The user's file, edited: comments, order and layout of the rest stay.
  auto edited = remove_source_table(*text, name);
  if (!edited) return edited.error();
  std::vector<std::string> deleted;
  for (const Layout layout : {Layout::flat, Layout::fanout}) {  // wherever it lies
    for (const bool json : {false, true}) deleted.push_back(raw_path(name, json, layout));
    deleted.push_back(not_a_feed_path(name, layout));
  }
  auto ok = commit_config(edit.archive, fmt::format("{}: removed\n\nSource: {}\n", name, name),
                          std::move(*edited), clock, deleted);
  if (!ok) return ok;
  auto state = load_state(edit.archive);
  if (state) {
    state->sources.erase(name);
    (void)save_state(edit.archive, *state);
  }
  (void)save_credentials(edit.archive, name, "", "");
  return Ok{};
}

ImportPlan plan_import(const Config& config, const std::vector<OpmlFeed>& feeds,
                       TimeMs default_every) {
  std::vector<SourceConfig> known = config.sources;
  std::vector<std::string> taken;
  for (const auto& s : known) taken.push_back(s.name);
  ImportPlan plan;
  for (const auto& feed : feeds) {
    const SplitUrl split = split_credentials(feed.url);
    ImportEntry entry;
    entry.shown_url = redact_url(feed.url);
    const TimeMs every = feed.every.value_or(default_every);
    if (auto ok = check_url(split.url); !ok) {
      entry.kind = ImportEntry::Kind::skipped;
      entry.reason = ok.error().message;
    } else if (const SourceConfig* same = with_url(known, split.url)) {
      entry.kind = ImportEntry::Kind::present;
      entry.name = same->name;
    } else if (every < 60'000) {
      entry.kind = ImportEntry::Kind::skipped;
      entry.reason = fmt::format("interval {} is under 1m", format_duration(every));
    } else {
      const bool keep_name = !feed.name.empty() && check_source_name(feed.name).ok() &&
                             std::find(taken.begin(), taken.end(), feed.name) == taken.end();
      SourceConfig& source = entry.source;
      source.name =
          keep_name ? feed.name
                    : source_name_for(feed.name.empty() ? feed.title : feed.name, split.url, taken);
      source.url = split.url;
      source.every = every;
      source.ignore = feed.ignore;
      source.skip_cosmetic = feed.skip_cosmetic;
      entry.name = source.name;
      entry.credentials = split.credentials;
      taken.push_back(source.name);
      known.push_back(source);
    }
    plan.added += entry.kind == ImportEntry::Kind::added;
    plan.present += entry.kind == ImportEntry::Kind::present;
    plan.skipped += entry.kind == ImportEntry::Kind::skipped;
    plan.entries.push_back(std::move(entry));
  }
  return plan;
}

Status commit_import(EditedArchive& edit, const std::string& config_text, const ImportPlan& plan,
                     const CommitClock& clock) {
  if (!plan.added) return Ok{};
  std::vector<SourceConfig> added;
  std::string trailers;
  for (const ImportEntry& e : plan.entries) {
    if (e.kind != ImportEntry::Kind::added) continue;
    added.push_back(e.source);
    trailers += fmt::format("Source-Added: {} {}\n", e.source.name, e.source.url);
  }
  // The user's file, edited: comments, order and layout stay; the new tables follow in the
  // list's order.
  auto edited = add_source_tables(config_text, added);
  if (!edited) return edited.error();
  for (const ImportEntry& e : plan.entries)
    if (e.kind == ImportEntry::Kind::added && !e.credentials.empty())
      if (auto ok = save_credentials(edit.archive, e.name, e.credentials, e.source.url); !ok)
        return ok;
  return commit_config(edit.archive,
                       fmt::format("import: {} source{} from OPML\n\n{}", plan.added,
                                   plan.added == 1 ? "" : "s", trailers),
                       std::move(*edited), clock);
}

}  // namespace feeddiff
