// The rules of a [notify] table (kinds, fields, match; cosmetic, minor) applied to a change,
// and what a later poll finds of a change held by `after`.

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "feeddiff/diff.h"
#include "feeddiff/normalize.h"
#include "feeddiff/render.h"
#include "notify/internal.h"

namespace feeddiff::notify_detail {

namespace {

// A needle found without case (ASCII letters) in time linear in the text searched
// (Knuth-Morris-Pratt): `match` runs over text a feed chooses, so no pattern engine that
// such text could make backtrack.
class Needle {
 public:
  explicit Needle(std::string_view needle) : lower_(to_lower(needle)), fail_(lower_.size(), 0) {
    for (std::size_t i = 1, k = 0; i < lower_.size(); ++i) {
      while (k > 0 && lower_[i] != lower_[k]) k = fail_[k - 1];
      if (lower_[i] == lower_[k]) ++k;
      fail_[i] = k;
    }
  }
  bool in(std::string_view text) const {
    if (lower_.empty()) return true;
    std::size_t k = 0;
    for (const char raw : text) {
      const char c = (raw >= 'A' && raw <= 'Z') ? static_cast<char>(raw - 'A' + 'a') : raw;
      while (k > 0 && c != lower_[k]) k = fail_[k - 1];
      if (c == lower_[k] && ++k == lower_.size()) return true;
    }
    return false;
  }

 private:
  std::string lower_;
  std::vector<std::size_t> fail_;
};

// The item model of a version; nullopt when it does not parse.
std::optional<Feed> feed_of(std::string_view bytes) {
  NormalizeOptions options;
  options.text = false;
  auto doc = normalize(bytes, options);
  if (!doc) return std::nullopt;
  return std::move(doc->feed);
}

// A feed's items by id (the first of a repeated id), hashed with diff's keyed hash: ids are
// chosen by the feed.
using ItemsById = std::unordered_map<std::string_view, const Item*, TextHash, std::equal_to<>>;
ItemsById items_by_id(const std::optional<Feed>& feed) {
  ItemsById out;
  if (feed)
    for (const Item& item : feed->items) out.try_emplace(item.id, &item);
  return out;
}

// The kNotifyKinds word of an item change: a removal is "aged_out" or "removed".
std::string kind_word(const ItemChange& c) {
  if (c.kind == ItemChange::Kind::removed && c.aged_out) return "aged_out";
  return item_kind_name(c.kind);
}

bool listed(const std::vector<std::string>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Whether a commit only records a response that is not a feed (raw/NAME/not-a-feed), or
// only takes that record away when the feed came back unchanged: neither is an item change.
bool not_a_feed_commit(const Archive& archive, const LoadedChange& change,
                       const std::string& source) {
  if (const std::string* cls = change.commit.trailer("Change-Class"))
    if (*cls == "not-a-feed" || *cls == "restored") return true;
  auto paths = archive.source_changes(change.commit.id, source);
  if (!paths || paths->empty()) return false;
  return std::all_of(paths->begin(), paths->end(),
                     [](const PathChange& p) { return p.path.ends_with("/not-a-feed"); });
}

}  // namespace

Verdict judge(const LoadedChange& change, const NotifySettings& settings) {
  Verdict out;
  const ChangeView& view = change.view;
  if (!view.items) {
    // No item summary (a version does not parse): news for a hook that takes every change,
    // nothing for one that asked for certain items.
    out.notify = !settings.selects_items();
    return out;
  }
  const ItemDiff& items = *view.items;
  // A first version is news however it reads; after that, a change whose items say nothing
  // happened but volatile fields (or formatting) is cosmetic.
  const bool modified = view.path_status == "modified";
  if (modified && (items.cosmetic_only || items.empty()) && !settings.cosmetic) return out;
  if (modified && items.minor && !settings.minor) return out;
  // `fields` alone asks about edits: added or removed items do not carry a field change.
  std::vector<std::string> kinds = settings.kinds;
  if (kinds.empty() && !settings.fields.empty()) kinds = {"changed"};
  std::vector<Needle> needles;
  for (const std::string& m : settings.match) needles.emplace_back(m);
  std::optional<Feed> old_feed, new_feed;
  ItemsById old_items, new_items;
  if (!needles.empty()) {
    old_feed = feed_of(change.old_body);
    new_feed = feed_of(change.new_body);
    old_items = items_by_id(old_feed);
    new_items = items_by_id(new_feed);
  }
  const auto matches = [&](const ItemChange& c) {
    if (needles.empty()) return true;
    // The text a reader sees: the title, then summary and content with markup stripped, of
    // the item as it is now (as it was, for a removal).
    std::vector<std::string> texts = {c.title};
    const ItemsById& by_id = c.kind == ItemChange::Kind::removed ? old_items : new_items;
    if (auto it = by_id.find(std::string_view(c.id)); it != by_id.end()) {
      texts.push_back(readable_text(it->second->summary));
      texts.push_back(readable_text(it->second->content));
    }
    for (const Needle& n : needles)
      for (const std::string& t : texts)
        if (n.in(t)) return true;
    return false;
  };
  for (const ItemChange& c : items.items) {
    if (c.minor && !settings.minor) continue;
    const std::string word = kind_word(c);
    if (!kinds.empty() && !listed(kinds, word)) continue;
    Selected s{word, c.id, {}};
    if (c.kind == ItemChange::Kind::changed) {
      for (const std::string& f : c.fields)
        if (settings.fields.empty() || listed(settings.fields, f)) s.fields.push_back(f);
      if (s.fields.empty()) continue;
    }
    if (!matches(c)) continue;
    out.selected.push_back(std::move(s));
  }
  out.notify = settings.selects_items() ? !out.selected.empty() : true;
  return out;
}

// Loads the change, judges it (never a response that is not a feed), renders its JSON.
Result<Rendered> render_change(const Archive& archive, const std::string& commit,
                               const std::string& source, const NotifySettings& settings) {
  if (is_article_version(archive, commit)) return render_article_change(archive, commit, settings);
  auto change = load_change(archive, {.revision = commit, .source = source});
  if (!change) return change.error();
  Rendered out;
  if (!not_a_feed_commit(archive, **change, source)) out.notify = judge(**change, settings).notify;
  out.json = render_json((*change)->view, RenderOptions{});
  return out;
}

// Whether the change a commit made, as the rules select it, is still in the source's version
// at HEAD: an added (or reappeared, changed, moved) item is still in the feed, a removed one
// still out of it, and a changed item's selected fields have not changed since (a value
// changed back, or changed again, is gone: a newer change waits on its own). A change that
// selects no item (a channel field) is gone only when HEAD's body is byte for byte the one
// before it. `unknown` when HEAD holds a response that is not a feed, or a version that does
// not parse: that poll tells nothing either way.
Result<Still> still_there(const Archive& archive, const std::string& commit,
                          const std::string& source, const NotifySettings& settings) {
  if (is_article_version(archive, commit)) return article_still_there(archive, commit, settings);
  auto change = load_change(archive, {.revision = commit, .source = source});
  if (!change) return change.error();
  const LoadedChange& c = **change;
  auto head = archive.resolve("HEAD");
  if (!head) return head.error();
  auto dir = archive.source_dir_at(head->id, source);
  if (!dir) return dir.error();
  auto interloper = archive.blob_id(head->id, *dir + "not-a-feed");
  if (!interloper) return interloper.error();
  if (*interloper) return Still::unknown;
  const std::string file = c.view.path.substr(c.view.path.rfind('/') + 1);
  auto blob = archive.blob_id(head->id, *dir + file);
  if (!blob) return blob.error();
  if (!*blob) return Still::gone;  // the source was removed
  auto now = archive.read_blob(**blob);
  if (!now) return now.error();
  const std::string_view now_bytes = *now;
  if (now_bytes == std::string_view(c.new_body)) return Still::there;
  if (now_bytes == std::string_view(c.old_body)) return Still::gone;
  const Verdict verdict = judge(c, settings);
  if (verdict.selected.empty()) return Still::there;
  auto then = feed_of(c.new_body);
  auto current = feed_of(now_bytes);
  if (!then || !current) return Still::unknown;
  const ItemDiff since = diff_items(*then, *current, feed_rules(archive, head->id, source).ignore,
                                    /*field_values=*/false);
  std::set<std::string> added, removed;
  std::map<std::string, std::vector<std::string>> edited;
  for (const ItemChange& i : since.items) {
    if (i.kind == ItemChange::Kind::added) added.insert(i.id);
    if (i.kind == ItemChange::Kind::removed) removed.insert(i.id);
    if (i.kind == ItemChange::Kind::changed) edited[i.id] = i.fields;
  }
  for (const Selected& s : verdict.selected) {
    if (s.kind == "removed" || s.kind == "aged_out") {
      if (!added.contains(s.id)) return Still::there;
      continue;
    }
    if (removed.contains(s.id)) continue;
    const auto e = edited.find(s.id);
    const bool edited_since = e != edited.end() && std::any_of(s.fields.begin(), s.fields.end(),
                                                               [&](const std::string& f) {
                                                                 return listed(e->second, f);
                                                               });
    if (!edited_since) return Still::there;
  }
  return Still::gone;
}

// Whether a new change undoes a held one that a poll found gone: the flip back of A-B-A.
// It is measured from the version before the held change (not from its own parent, the
// flip): when the rules select nothing from there to its version, nothing was notified and
// nothing is news. A version that went on elsewhere (A-B-C) is news, and is held on its own.
Result<bool> undoes(const Archive& archive, const std::string& held, const std::string& fresh,
                    const std::string& source, const NotifySettings& settings) {
  // An article edit is undone by an article version only, and a feed change by a feed's.
  const bool article = is_article_version(archive, held);
  if (article != is_article_version(archive, fresh)) return false;
  if (article) return article_undoes(archive, held, fresh, settings);
  auto before = load_change(archive, {.revision = held, .source = source});
  if (!before) return before.error();
  auto after = load_change(archive, {.revision = fresh, .source = source});
  if (!after) return after.error();
  if (std::string_view((*before)->old_body) == std::string_view((*after)->new_body)) return true;
  auto old_feed = feed_of((*before)->old_body);
  auto new_feed = feed_of((*after)->new_body);
  if (!old_feed || !new_feed) return false;
  const FeedRules rules = feed_rules(archive, fresh, source);
  LoadedChange net;
  net.old_body = (*before)->old_body;
  net.new_body = (*after)->new_body;
  net.view.path_status = (*before)->view.path_status;
  net.view.items = diff_items(*old_feed, *new_feed, rules.ignore, true, rules.insignificant);
  return !judge(net, settings).notify;
}

}  // namespace feeddiff::notify_detail
