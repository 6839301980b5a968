// Two versions of a feed side by side, as `diff` shows them.

#include <fmt/format.h>

#include "feeddiff/changes.h"

namespace feeddiff {

namespace {

// A page with no fields: every recorded header listed, none with a value.
std::unique_ptr<LoadedChange> no_fields() {
  auto change = std::make_unique<LoadedChange>();
  change->view.source = "-";
  change->view.timestamp_kind = "-";
  for (const auto& name : recorded_header_names()) change->view.headers.push_back({name, {}});
  return change;
}

// The page of source's latest change at or before commit (fields and recorded headers, no
// diff); nullptr when the source had none by then.
Result<std::unique_ptr<LoadedChange>> fields_as_of(const Archive& archive,
                                                   const std::string& source,
                                                   const std::string& commit) {
  auto latest = archive.source_change_at(source, commit);
  if (!latest) return latest.error();
  if (!*latest) return std::unique_ptr<LoadedChange>();
  return load_change(archive, {.revision = (*latest)->id, .source = source, .compare = false});
}

// Sets the bodies and labels and diffs them.
std::unique_ptr<LoadedChange> compared(std::unique_ptr<LoadedChange> change, FeedInput a,
                                       FeedInput b, bool normalized) {
  ChangeView& v = change->view;
  v.title = fmt::format("{} -> {}", a.label, b.label);
  v.path = b.label;
  v.path_status = "compared";
  v.stored_bytes = b.bytes.size();
  change->old_body = Blob(std::move(a.bytes));
  change->new_body = Blob(std::move(b.bytes));
  compare_bodies(*change, true, normalized, {});
  return change;
}

}  // namespace

Result<std::unique_ptr<LoadedChange>> compare_inputs(const Archive* archive, FeedInput a,
                                                     FeedInput b, bool normalized) {
  std::unique_ptr<LoadedChange> change;
  if (!b.commit.empty() && archive) {
    auto page = fields_as_of(*archive, b.source, b.commit);
    if (!page) return page.error();
    change = std::move(*page);
  }
  if (!change) change = no_fields();
  return compared(std::move(change), std::move(a), std::move(b), normalized);
}

Result<std::unique_ptr<LoadedChange>> compare_source(const Archive& archive, const CommitInfo& a,
                                                     const CommitInfo& b, const std::string& name,
                                                     bool normalized) {
  auto before = source_response_at(archive, a, name);
  if (!before) return before.error();
  auto after = source_response_at(archive, b, name);
  if (!after) return after.error();
  if (!*before && !*after)
    return Error{Errc::not_found, fmt::format("source '{}' is in neither commit {} nor commit {}",
                                              name, a.short_id(), b.short_id())};
  auto page = fields_as_of(archive, name, b.id);
  if (!page) return page.error();
  if (!*page) {
    *page = no_fields();
    (*page)->view.source = name;
  }
  // A side without the source compares as empty, labelled so.
  const auto side = [&](std::optional<FeedInput>& in, const CommitInfo& c) {
    if (in) return std::move(*in);
    FeedInput none;
    none.label = fmt::format("{}:(no {})", c.short_id(), name);
    return none;
  };
  return compared(std::move(*page), side(*before, a), side(*after, b), normalized);
}

}  // namespace feeddiff
