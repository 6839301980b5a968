// The walk of a publisher's archive: from the newest recorded version, one page at a time,
// politely and bounded, then one commit of what was new (docs/backfill.md).

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "feeddiff/backfill.h"
#include "feeddiff/diff.h"
#include "feeddiff/message.h"
#include "feeddiff/normalize.h"

namespace feeddiff {

namespace {

// The directory of one page: backfill/NAME/<key>/, key the first 20 hex digits of the SHA-1
// of its URL (credentials removed), so a page that changes is rewritten in place and its
// history is `git log backfill/NAME/<key>/`.
std::string page_key(std::string_view url) {
  return sha1_hex(redact_url(url)).substr(0, 20);
}

std::string page_dir(std::string_view name, std::string_view key) {
  return fmt::format("backfill/{}/{}/", name, key);
}

std::string items_path(std::string_view name) {
  return fmt::format("backfill/{}/items", name);
}

// url with `user:password@` added after its scheme.
std::string with_userinfo(std::string_view url, std::string_view userinfo) {
  const std::size_t at = url.find("://");
  if (userinfo.empty() || at == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, at + 3)) + std::string(userinfo) + "@" +
         std::string(url.substr(at + 3));
}

const char* via_words(BackfillLink via) {
  switch (via) {
    case BackfillLink::prev_archive:
      return "prev-archive";
    case BackfillLink::next_page:
      return "next";
    case BackfillLink::next_url:
      return "next_url";
  }
  return "";
}

const char* stop_words(BackfillStop stop) {
  switch (stop) {
    case BackfillStop::last_page:
      return "last page";
    case BackfillStop::loop:
      return "loop";
    case BackfillStop::page_cap:
      return "page cap";
    case BackfillStop::not_a_feed:
      return "not a feed";
    case BackfillStop::failed:
      return "failed";
  }
  return "";
}

// A recorded page as its files hold it.
struct Recorded {
  std::optional<std::string> body;
  std::string etag;
  std::string last_modified;
  bool json = false;
};

class Walk {
 public:
  Walk(Archive& archive, const BackfillOptions& options, TimeMs now)
      : archive_(archive), options_(options), now_(now) {
    report_.name = options.name;
  }

  Result<BackfillReport> run() {
    auto config = load_config(archive_);
    if (!config) return config.error();
    const SourceConfig* source = config->find(options_.name);
    if (!source) return Error{Errc::not_found, fmt::format("no source named '{}'", options_.name)};
    auto lock = ArchiveLock::acquire(archive_, options_.wait_for_lock);
    if (!lock) return lock.error();
    if (auto ok = load_secret(*source); !ok) return ok.error();

    auto current = current_document(*source, config->layout);
    if (!current) return current.error();
    const std::string base = current->second;
    report_.pages.push_back({1, base, "", "current", 0, current->first.size(),
                             item_count(current->first), BackfillLink::prev_archive});
    visited_[base] = 1;
    visited_.try_emplace(redact_url(source->url), 1);
    from_ = initial_class(*source);

    auto link = next_archive_link(archive_links(current->first, base));
    while (link) {
      auto next = step(link->first, link->second);
      if (!next) break;
      link = std::move(*next);
    }
    if (!link && report_.stop_line.empty()) {
      report_.stop = BackfillStop::last_page;
      report_.stop_line =
          fmt::format("backfill: {}: page {} has no link to older entries: the end of the archive",
                      options_.name, report_.pages.back().number);
    }
    if (auto ok = record(); !ok) return ok.error();
    return std::move(report_);
  }

 private:
  Status load_secret(const SourceConfig& source) {
    auto credentials = load_credentials(archive_);
    if (!credentials) return credentials.error();
    for (const StoredCredentials& c : *credentials)
      if (c.source == source.name) {
        secret_ = c;
        // An older feeddiff's line, bound to no origin yet: the URL it was given with.
        if (secret_->origin.empty()) secret_->origin = url_origin(source.url);
      }
    return Ok{};
  }

  // The source's newest feed version at HEAD and the URL it came from (its Final-URL, else
  // the configured URL), credentials removed.
  Result<std::pair<std::string, std::string>> current_document(const SourceConfig& source,
                                                               Layout layout) {
    std::optional<std::string> body;
    for (const Layout l : {layout, layout == Layout::flat ? Layout::fanout : Layout::flat})
      for (const bool json : {false, true}) {
        if (body) break;
        auto read = archive_.read_head(raw_path(source.name, json, l));
        if (!read) return read.error();
        body = std::move(*read);
      }
    if (!body)
      return Error{Errc::not_found,
                   fmt::format("'{}' has no recorded version yet: poll it first (feeddiff poll {})",
                               source.name, source.name)};
    std::string base = redact_url(source.url);
    auto last = archive_.source_log(source.name, 1);
    if (last && !last->empty())
      if (const std::string* final_url = last->front().trailer("Final-URL"))
        // A recorded URL has its secrets starred: resolving against it would send `***`.
        if (final_url->find("***") == std::string::npos && check_url(*final_url).ok())
          base = *final_url;
    return std::pair{std::move(*body), std::move(base)};
  }

  AddressClass initial_class(const SourceConfig& source) const {
    if (options_.feed_class) return *options_.feed_class;
    std::string host(split_url(source.url).host);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    return classify_address(host).value_or(AddressClass::global);
  }

  static std::size_t item_count(std::string_view body) {
    auto doc = normalize(body, NormalizeOptions{{}, true, false});
    return doc ? doc->feed.items.size() : 0;
  }

  void stop(BackfillStop why, std::string line) {
    report_.stop = why;
    report_.stop_line = std::move(line);
  }

  Result<Recorded> recorded(const std::string& key) const {
    Recorded out;
    const std::string dir = page_dir(options_.name, key);
    for (const bool json : {false, true}) {
      auto body = archive_.read_head(dir + (json ? "response.json" : "response.xml"));
      if (!body) return body.error();
      if (*body) {
        out.body = std::move(*body);
        out.json = json;
        break;
      }
    }
    auto headers = archive_.read_head(dir + "headers");
    if (!headers) return headers.error();
    if (*headers) {
      const CommitMessage m = message_from_trailers(parse_trailer_block(**headers));
      if (const std::string* etag = m.header("etag")) out.etag = *etag;
      if (const std::string* modified = m.header("last-modified")) out.last_modified = *modified;
    }
    return out;
  }

  // Options.delay since the last request to the URL's host.
  void wait_for_host(const std::string& url) {
    const std::string host = host_and_port(url);
    auto it = last_request_.find(host);
    if (it != last_request_.end() && options_.delay > 0) {
      const auto due = it->second + std::chrono::milliseconds(options_.delay);
      std::this_thread::sleep_until(due);
    }
    last_request_[host] = std::chrono::steady_clock::now();
  }

  // Fetches one page and settles it; the link to follow next, or nullopt when the walk stops.
  std::optional<std::optional<std::pair<std::string, BackfillLink>>> step(const std::string& url,
                                                                          BackfillLink via) {
    const std::size_t number = report_.pages.back().number + 1;
    const std::string shown = redact_url(url);
    if (auto seen = visited_.find(shown); seen != visited_.end()) {
      stop(BackfillStop::loop,
           fmt::format("backfill: {}: archive links loop at {} (page {}); stopped", options_.name,
                       shown, seen->second));
      return std::nullopt;
    }
    if (report_.pages.size() > options_.max_pages) {
      stop(BackfillStop::page_cap,
           fmt::format("backfill: {}: stopped at the page cap ({} pages after the current "
                       "document; --max-pages to walk further): {} not fetched",
                       options_.name, options_.max_pages, shown));
      return std::nullopt;
    }
    if (auto ok = check_url(url); !ok) {
      stop(BackfillStop::failed, fmt::format("backfill: {}: page {} ({}): {}; stopped",
                                             options_.name, number, shown, ok.error().message));
      return std::nullopt;
    }
    visited_[shown] = number;
    const std::string key = page_key(url);
    auto before = recorded(key);
    if (!before) {
      stop(BackfillStop::failed, fmt::format("backfill: {}: page {}: {}; stopped", options_.name,
                                             number, before.error().message));
      return std::nullopt;
    }

    FetchRequest request = options_.limits;
    // The source's credentials go only to the origin they were given for; never to a page
    // on another (the archive's links are the publisher's, not the user's).
    request.url =
        secret_ && credentials_apply(*secret_, url) ? with_userinfo(url, secret_->userinfo) : url;
    if (before->body) {
      request.if_none_match = before->etag;
      request.if_modified_since = before->last_modified;
    }
    request.link_from = from_;
    wait_for_host(url);
    auto response = fetch(request, options_.fetch);
    if (options_.on_page) options_.on_page(number, shown);
    if (!response) {
      stop(BackfillStop::failed, fmt::format("backfill: {}: page {}: {}; stopped", options_.name,
                                             number, response.error().message));
      return std::nullopt;
    }
    const FetchResponse& r = *response;
    std::string body;
    std::string result;
    if (r.status == 304 && before->body) {
      body = *before->body;
      result = "unchanged";
    } else if (r.status >= 200 && r.status <= 299) {
      const Header* type = r.header("content-type");
      const FeedCheck check = check_feed(r.body, type ? type->value : "");
      if (!check.feed) {
        stop(BackfillStop::not_a_feed,
             fmt::format("backfill: {}: page {} ({}) is not a feed: {}; stopped", options_.name,
                         number, shown, check.reason));
        return std::nullopt;
      }
      body = r.body;
      result = !before->body ? "new" : *before->body == body ? "unchanged" : "changed";
    } else {
      stop(BackfillStop::failed, fmt::format("backfill: {}: page {} ({}): HTTP {}; stopped",
                                             options_.name, number, shown, r.status));
      return std::nullopt;
    }
    if (result == "changed" && via == BackfillLink::prev_archive)
      report_.warnings.push_back(fmt::format(
          "backfill: {}: archive page {} ({}) changed since it was recorded: an RFC 5005 archive "
          "document should never change; the new bytes are recorded, the old stay in history",
          options_.name, number, shown));
    if (r.address_class) from_ = *r.address_class;  // its links reach what it came from

    auto doc = normalize(body, NormalizeOptions{{}, true, false});
    BackfillPage page{
        number, shown, key, result, r.status, body.size(), doc ? doc->feed.items.size() : 0, via};
    report_.pages.push_back(page);
    if (doc)
      for (const Item& item : doc->feed.items) {
        if (item.id.empty() || !found_.insert(item.id).second) continue;  // a newer page's
        BackfillItem b;
        b.written = item.published.empty() ? item.updated : item.published;
        if (auto t = feed_date(b.written)) b.date = format_iso8601_ms(*t);
        b.id = item.id;
        b.page = key;
        b.title = item.title;
        b.link = item.link;
        items_.push_back(std::move(b));
      }
    if (result != "unchanged") {
      Page p{key, looks_like_json(body), std::move(body), {}};
      CommitMessage m = record_response(options_.name, recorded_response(r), now_);
      p.headers = fmt::format("Page-URL: {}\nPage-Link: {}\n{}", one_line(redact_recorded_url(url)),
                              via_words(via), format_trailers(m));
      if (before->body && before->json != p.json) p.stale = true;
      to_write_.push_back(std::move(p));
    }
    return next_archive_link(archive_links(page_body(key), url));
  }

  // The body just settled for key (the one to_write_ holds, else the recorded one).
  std::string page_body(const std::string& key) {
    for (const Page& p : to_write_)
      if (p.key == key) return p.body;
    auto before = recorded(key);
    return before && before->body ? *before->body : std::string();
  }

  Status record() {
    auto old_text = archive_.read_head(items_path(options_.name));
    if (!old_text) return old_text.error();
    std::vector<BackfillItem> old_items;
    if (*old_text) old_items = parse_backfill_items(**old_text);
    std::map<std::string, BackfillItem> merged;
    for (BackfillItem& item : old_items) merged[item.id] = std::move(item);
    for (BackfillItem& item : items_) {
      if (!merged.count(item.id)) ++report_.new_items;
      merged[item.id] = std::move(item);
    }
    std::vector<BackfillItem> all;
    all.reserve(merged.size());
    for (auto& [id, item] : merged) all.push_back(std::move(item));
    // Newest first by the items' own dates; the undated last, by id.
    std::stable_sort(all.begin(), all.end(), [](const BackfillItem& a, const BackfillItem& b) {
      if (a.date.empty() != b.date.empty()) return b.date.empty();
      return a.date > b.date;
    });
    report_.items = all.size();
    for (const BackfillItem& item : all)
      if (!item.date.empty()) {
        if (report_.newest.empty()) report_.newest = item.date;
        report_.oldest = item.date;
      }
    const bool failed =
        report_.stop == BackfillStop::failed || report_.stop == BackfillStop::not_a_feed;
    report_.partial = failed && (report_.pages.size() > 1 || !old_items.empty());
    if (to_write_.empty()) return Ok{};

    CommitRequest request;
    request.commit_time = now_;
    request.author_time = now_;
    std::size_t fresh = 0, changed = 0;
    for (Page& p : to_write_) {
      const std::string dir = page_dir(options_.name, p.key);
      if (p.stale)  // the page turned from XML to JSON or back: one body per directory
        request.files.push_back({dir + (p.json ? "response.xml" : "response.json"), std::nullopt});
      request.files.push_back(
          {dir + (p.json ? "response.json" : "response.xml"), std::move(p.body)});
      request.files.push_back({dir + "headers", std::move(p.headers)});
    }
    for (const BackfillPage& page : report_.pages) {
      if (page.result == "new") ++fresh;
      if (page.result == "changed") ++changed;
    }
    request.files.push_back({items_path(options_.name), format_backfill_items(all)});

    const std::string range =
        report_.oldest.empty()
            ? std::string()
            : fmt::format(", {} to {}", report_.oldest.substr(0, 10), report_.newest.substr(0, 10));
    const std::string summary =
        fmt::format("{} page{} walked ({} new, {} changed), {} item{} ({} new){}",
                    report_.pages.size() - 1, report_.pages.size() == 2 ? "" : "s", fresh, changed,
                    report_.items, report_.items == 1 ? "" : "s", report_.new_items, range);
    std::string message =
        fmt::format("{}: publisher's archive ({} page{} recorded, {} item{})\n\n", options_.name,
                    fresh + changed, fresh + changed == 1 ? "" : "s", report_.items,
                    report_.items == 1 ? "" : "s");
    message += fmt::format("Source: {}\nChange-Class: {}\nBackfill-Summary: {}\n", options_.name,
                           kBackfillClass, summary);
    message += fmt::format("Backfill-Stop: {}\nObserved-At: {}\n", stop_words(report_.stop),
                           format_iso8601_ms(now_));
    for (const BackfillPage& page : report_.pages) {
      if (page.number == 1) continue;
      message += fmt::format("Backfill-Page: {} {} {} {}\n", page.number, page.result,
                             via_words(page.via), one_line(redact_recorded_url(page.url)));
    }
    request.message = std::move(message);

    if (auto ok = archive_.begin_batch(); !ok) return ok.error();
    auto committed = archive_.commit(request);
    if (!committed) return committed.error();
    if (auto ok = archive_.end_batch(); !ok) return ok.error();
    report_.commit = committed->value_or("");
    return Ok{};
  }

  struct Page {
    std::string key;
    bool json = false;
    std::string body;
    std::string headers;
    bool stale = false;  // the other kind of body is recorded in its directory
  };

  Archive& archive_;
  const BackfillOptions& options_;
  TimeMs now_;
  BackfillReport report_;
  std::optional<StoredCredentials> secret_;
  AddressClass from_ = AddressClass::global;
  std::map<std::string, std::size_t> visited_;  // URL (credentials removed) -> page number
  std::map<std::string, std::chrono::steady_clock::time_point> last_request_;
  std::set<std::string> found_;  // item ids found in this walk
  std::vector<BackfillItem> items_;
  std::vector<Page> to_write_;
};

}  // namespace

Result<BackfillReport> backfill(Archive& archive, const BackfillOptions& options) {
  if (auto ok = check_source_name(options.name); !ok) return ok.error();
  if (options.max_pages == 0) return Error{Errc::usage, "--max-pages must be at least 1"};
  return Walk(archive, options, options.now ? options.now : now_ms()).run();
}

Result<FirstPollReport> poll_and_backfill(Archive& archive, const BackfillOptions& options) {
  PollOptions poll_options;
  poll_options.names = {options.name};
  poll_options.force = true;
  poll_options.wait_for_lock = options.wait_for_lock;
  poll_options.now = options.now;
  poll_options.fetch = options.fetch;
  poll_options.limits = options.limits;
  auto polled = poll(archive, poll_options);
  if (!polled) return polled.error();
  FirstPollReport out;
  for (const SourceOutcome& o : polled->sources)
    if (o.name == options.name) out.poll = o;
  if (out.poll.outcome != Outcome::added && out.poll.outcome != Outcome::changed &&
      out.poll.outcome != Outcome::unchanged && out.poll.outcome != Outcome::not_modified)
    return Error{Errc::not_found,
                 fmt::format("backfill: {}: the first poll recorded no feed version ({}{}{}); "
                             "nothing to walk from",
                             options.name, outcome_name(out.poll.outcome),
                             out.poll.message.empty() ? "" : ": ", out.poll.message)};
  BackfillOptions walk = options;
  if (out.poll.address_class) walk.feed_class = out.poll.address_class;
  auto walked = backfill(archive, walk);
  if (!walked) return walked.error();
  out.backfill = std::move(*walked);
  return out;
}

}  // namespace feeddiff
