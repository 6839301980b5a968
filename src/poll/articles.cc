// The article phase of a poll: choose the pages (new items first, then rechecks, at most
// article_cap a source), ask each host's robots.txt once, fetch the allowed pages with
// conditional GET, and archive each version a reader should see as a commit of its own.

#include "poll/articles.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "feeddiff/article.h"
#include "feeddiff/diff.h"
#include "feeddiff/failpoint.h"
#include "feeddiff/normalize.h"
#include "poll/article_book.h"
#include "poll/robots_cache.h"
#include "poll/schedule.h"

namespace feeddiff::articles {

namespace {

// The product token robots.txt groups are matched against (RFC 9309: the User-Agent's).
constexpr std::string_view kRobotsAgent = "feeddiff";
// robots.txt bodies read at most (RFC 9309 asks crawlers to read at least 500 KiB).
constexpr std::size_t kRobotsMaxBytes = 512 * 1024;
// How far apart failed fetches of one article are retried at first (doubled each time).
constexpr TimeMs kRetryBase = 3'600'000;
// Headlines in a commit title are cut here (the whole one is in article.txt).
constexpr std::size_t kTitleChars = 100;

// One page to fetch.
struct Pick {
  const SourceConfig* source = nullptr;
  std::string item_id;
  std::string url;
  std::string origin;                             // scheme://host[:port], whose robots.txt decides
  std::string path;                               // path and query, as robots.txt rules see it
  AddressClass link_from = AddressClass::global;  // what the source's links may reach
};

// An address class as an article book keeps it, and back.
constexpr std::pair<AddressClass, std::string_view> kClassNames[] = {
    {AddressClass::global, "global"},
    {AddressClass::loopback, "loopback"},
    {AddressClass::private_network, "private"},
    {AddressClass::link_local, "link-local"},
    {AddressClass::unspecified, "unspecified"}};

std::string class_name(AddressClass c) {
  for (const auto& [value, name] : kClassNames)
    if (value == c) return std::string(name);
  return "global";
}

AddressClass class_named(std::string_view name) {
  for (const auto& [value, known] : kClassNames)
    if (known == name) return value;
  return AddressClass::global;  // never seen, or unknown: the Internet only
}

bool http_link(std::string_view url) {
  const UrlParts parts = split_url(url);
  const std::string scheme = to_lower(parts.scheme);
  return parts.has_authority && !parts.host.empty() && (scheme == "http" || scheme == "https") &&
         check_url(url).ok();
}

// "headline, byline changed; body: 2 edits (+14 -9 words)": what an edit changed, for the
// Article-Summary trailer and poll's line.
std::string edit_summary(const ArticleFile& before, const ArticleFile& after) {
  std::vector<std::string> fields;
  if (before.title != after.title) fields.push_back("headline");
  if (before.byline != after.byline) fields.push_back("byline");
  if (before.published != after.published) fields.push_back("published time");
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + fields[i];
  if (!out.empty()) out += " changed";
  if (before.body != after.body) {
    std::size_t edits = 0, added = 0, removed = 0;
    bool in_edit = false;
    for (const WordRun& run : diff_words(before.body, after.body)) {
      if (run.kind == WordRun::Kind::kept) {
        in_edit = false;
        continue;
      }
      if (!in_edit) ++edits;
      in_edit = true;
      (run.kind == WordRun::Kind::added ? added : removed) += count_words(run.text);
    }
    out += fmt::format("{}body: {} edit{} (+{} -{} words)", out.empty() ? "" : "; ", edits,
                       edits == 1 ? "" : "s", added, removed);
  }
  return out.empty() ? std::string("formatting of the text") : out;
}

class Capture {
 public:
  Capture(Archive& archive, const Config& config, const PollOptions& options, TimeMs now,
          PollReport& report)
      : archive_(archive), config_(config), options_(options), now_(now), report_(report) {}

  void run() {
    std::vector<Pick> picks;
    for (const SourceOutcome& o : report_.sources) {
      const SourceConfig* source = config_.find(o.name);
      if (!source || !source->articles || o.outcome == Outcome::disabled ||
          o.outcome == Outcome::gone)
        continue;
      choose(*source, o, picks);
    }
    if (picks.empty()) return save_books();
    const std::map<std::string, std::optional<std::string>> robots = fetch_robots(picks);

    std::vector<FetchRequest> requests;
    std::vector<const Pick*> fetched;
    for (const Pick& p : picks) {
      const auto& rules = robots.at(p.origin);
      if (!rules || !robots_allows(*rules, kRobotsAgent, p.path)) {
        disallowed(p, rules ? fmt::format("robots.txt of {} disallows {} for {}", p.origin, p.path,
                                          kRobotsAgent)
                            : fmt::format("robots.txt of {} could not be read{}: not fetched "
                                          "until it can",
                                          p.origin, robots_error(p.origin)));
        continue;
      }
      const Entry& e = books_[p.source->name].entries[p.item_id];
      FetchRequest request = options_.limits;
      request.url = p.url;  // the feed's credentials are never sent to an article's origin
      if (e.url == p.url) {
        request.if_none_match = e.etag;
        request.if_modified_since = e.last_modified;
      }
      // A link is the feed's word, not the user's: it reaches the Internet, and the poller's
      // own networks only when the feed itself came from such a one (a LAN feed linking its
      // LAN). allow_private_redirects is the user's word about the feed's redirects, not this.
      request.link_from = p.link_from;
      requests.push_back(std::move(request));
      fetched.push_back(&p);
    }
    if (auto ok = archive_.begin_batch(); !ok) {
      report_.articles_error = ok.error().message;
      return;
    }
    fetch_all(requests, options_.fetch, [&](std::size_t i, Result<FetchResponse> response) {
      if (!error_.empty()) return;
      if (auto ok = settle(*fetched[i], response); !ok) error_ = ok.error().message;
    });
    if (auto ok = archive_.end_batch(); !ok && error_.empty()) error_ = ok.error().message;
    failpoint(Failpoint::articles_committed);
    if (!error_.empty()) {
      // The books are not saved: the next poll asks again, unconditionally, and compares
      // with what the archive holds.
      report_.articles_error = error_;
      return;
    }
    save_books();
  }

 private:
  // The source's pages due: new items (or items whose link changed) first, in feed order,
  // then the rechecks due, at most article_cap.
  void choose(const SourceConfig& source, const SourceOutcome& outcome, std::vector<Pick>& picks) {
    Book& book = books_[source.name] = load_book(archive_, source.name);
    std::vector<Pick> mine;
    std::set<std::string> chosen;
    const bool new_version = outcome.outcome == Outcome::added ||
                             outcome.outcome == Outcome::changed ||
                             outcome.outcome == Outcome::restored;
    std::size_t fresh = 0;
    if (new_version || book.backlog || book.entries.empty()) {
      for (const auto& [id, link] : items_at_head(source)) {
        if (!http_link(link)) continue;
        auto it = book.entries.find(id);
        if (it != book.entries.end() && it->second.url == link) continue;
        if (!chosen.insert(id).second) continue;  // a duplicate id: its first link
        ++fresh;
        mine.push_back(pick(source, id, link));
      }
      book.backlog = fresh > source.article_cap;
    }
    for (const auto& [id, e] : book.entries)
      if (e.next_due && e.next_due <= now_ && !chosen.count(id) && http_link(e.url))
        mine.push_back(pick(source, id, e.url));
    if (mine.size() > source.article_cap) mine.resize(source.article_cap);
    // Where the feed came from this poll, else where it came from when last fetched, else
    // the kind of address its configured URL names (a numeric host: the user's own word).
    if (outcome.address_class) book.feed_class = class_name(*outcome.address_class);
    AddressClass from = class_named(book.feed_class);
    if (book.feed_class.empty()) {
      std::string host(split_url(source.url).host);
      if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
      from = classify_address(host).value_or(AddressClass::global);
    }
    for (Pick& p : mine) {
      p.link_from = from;
      picks.push_back(std::move(p));
    }
  }

  static Pick pick(const SourceConfig& source, const std::string& id, const std::string& url) {
    const UrlParts parts = split_url(url);
    Pick p{&source, id, url, {}, {}};
    p.origin = to_lower(parts.scheme) + "://" + to_lower(parts.host);
    if (parts.port && !parts.port->empty()) p.origin += ":" + std::string(*parts.port);
    p.path = parts.path.empty() ? std::string("/") : std::string(parts.path);
    if (parts.query) p.path += "?" + std::string(*parts.query);
    return p;
  }

  // The items (id, link) of the source's feed version at HEAD, in feed order.
  std::vector<std::pair<std::string, std::string>> items_at_head(const SourceConfig& source) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const Layout layout :
         {config_.layout, config_.layout == Layout::flat ? Layout::fanout : Layout::flat})
      for (const bool json : {false, true}) {
        auto body = archive_.read_head(raw_path(source.name, json, layout));
        if (!body || !*body) continue;
        auto doc = normalize(**body, NormalizeOptions{{}, true, false});
        if (!doc) return out;
        for (const Item& item : doc->feed.items)
          if (!item.id.empty()) out.emplace_back(item.id, item.link);
        return out;
      }
    return out;
  }

  // Each origin's robots.txt: its text; "" when it has none (4xx: everything allowed);
  // nullopt when it could not be read (5xx, 429, no answer: nothing fetched). A copy cached
  // by an earlier poll decides for 24 hours; after that it is asked for again with its
  // validators, and serves on while the file is unreachable (RFC 9309 2.4; robots_cache.h).
  std::map<std::string, std::optional<std::string>> fetch_robots(const std::vector<Pick>& picks) {
    std::map<std::string, std::optional<std::string>> out;
    std::vector<std::string> origins;
    std::map<std::string, CachedRobots> cached;
    for (const Pick& p : picks) {
      if (out.contains(p.origin) ||
          std::find(origins.begin(), origins.end(), p.origin) != origins.end())
        continue;
      auto copy = load_robots(archive_, p.origin);
      if (copy && copy->fetched <= now_ && now_ - copy->fetched < kRobotsFresh) {
        out[p.origin] = copy->found ? std::move(copy->body) : std::string();
        continue;
      }
      if (copy) cached.emplace(p.origin, std::move(*copy));
      origins.push_back(p.origin);
    }
    if (origins.empty()) return out;
    std::vector<FetchRequest> requests;
    for (const std::string& origin : origins) {
      FetchRequest r = options_.limits;
      r.url = origin + "/robots.txt";
      for (const Pick& p : picks)
        if (p.origin == origin) {
          r.link_from = p.link_from;
          break;
        }
      r.max_body_bytes = kRobotsMaxBytes;
      if (auto c = cached.find(origin); c != cached.end()) {
        r.if_none_match = c->second.etag;
        r.if_modified_since = c->second.last_modified;
      }
      requests.push_back(std::move(r));
    }
    fetch_all(requests, options_.fetch, [&](std::size_t i, Result<FetchResponse> r) {
      const std::string& origin = origins[i];
      std::optional<std::string>& rules = out[origin];
      auto copy = cached.find(origin);
      if (!r) robots_errors_[origin] = r.error().message;
      if (!r || r->status >= 500 || r->status == 429) {
        // Unreachable: the copy serves on, for a while; else nothing is fetched.
        if (copy != cached.end() && now_ - copy->second.fetched < kRobotsUnreachableKeep)
          rules = copy->second.found ? copy->second.body : std::string();
        return;
      }
      CachedRobots fresh;
      fresh.origin = origin;
      fresh.fetched = now_;
      if (r->status == 304 && copy != cached.end()) {
        fresh = std::move(copy->second);
        fresh.fetched = now_;
      } else {
        fresh.found = r->status >= 200 && r->status <= 299;
        if (fresh.found) fresh.body = std::move(r->body);
        if (const auto* h = r->header("ETag")) fresh.etag = h->value;
        if (const auto* h = r->header("Last-Modified")) fresh.last_modified = h->value;
      }
      rules = fresh.found ? fresh.body : std::string();
      save_robots(archive_, fresh);
    });
    for (const std::string& origin : origins) out.try_emplace(origin, std::nullopt);
    prune_robots(archive_);
    return out;
  }

  // Why an origin's robots.txt could not be read, as " (why)", or "" for an HTTP answer that
  // said nothing (5xx, 429).
  std::string robots_error(const std::string& origin) const {
    auto it = robots_errors_.find(origin);
    return it == robots_errors_.end() ? std::string() : " (" + it->second + ")";
  }

  Entry& entry(const Pick& p) {
    Entry& e = books_[p.source->name].entries[p.item_id];
    if (e.url != p.url) {  // a new link: its validators are another page's
      e.etag.clear();
      e.last_modified.clear();
    }
    e.url = p.url;
    e.last_fetch = now_;
    if (!e.first_seen) e.first_seen = now_;
    return e;
  }

  void outcome(const Pick& p, Entry& e, std::string result, std::string message,
               std::string commit = {}) {
    e.result = result;
    e.note = message;
    report_.articles.push_back({p.source->name, p.item_id, redact_url(p.url), std::move(result),
                                std::move(message), std::move(commit)});
  }

  void disallowed(const Pick& p, std::string why) {
    Entry& e = entry(p);
    e.next_due = next_recheck(e.first_seen, now_, p.source->article_until);
    outcome(p, e, "disallowed", std::move(why));
  }

  void failed(const Pick& p, Entry& e, std::string why, std::optional<TimeMs> retry_after) {
    e.failures += 1;
    TimeMs delay = schedule::backoff(kRetryBase, e.failures);
    if (retry_after) delay = std::max(delay, *retry_after);
    e.next_due = now_ + delay;
    outcome(p, e, "failed", std::move(why));
  }

  Status settle(const Pick& p, const Result<FetchResponse>& response) {
    Entry& e = entry(p);
    if (!response) {
      failed(p, e, response.error().message, std::nullopt);
      return Ok{};
    }
    const FetchResponse& r = *response;
    if (r.status == 429 || (r.status == 503 && r.header("retry-after"))) {
      failed(p, e, fmt::format("HTTP {}", r.status), schedule::retry_after(r, now_));
      return Ok{};
    }
    e.failures = 0;
    e.next_due = next_recheck(e.first_seen, now_, p.source->article_until);
    if (r.status == 304) {
      outcome(p, e, "not-modified", "not modified (HTTP 304)");
      return Ok{};
    }
    if (r.status >= 200 && r.status <= 299) {
      const Header* etag = r.header("etag");
      const Header* modified = r.header("last-modified");
      e.etag = etag ? etag->value : "";
      e.last_modified = modified ? modified->value : "";
    }
    const std::string dir = article_dir(p.source->name, p.item_id);
    auto old_page = archive_.read_head(dir + "page.html");
    if (!old_page) return old_page.error();
    if (*old_page && **old_page == r.body) {
      outcome(p, e, "unchanged",
              fmt::format("unchanged ({} bytes, HTTP {})", r.body.size(), r.status));
      return Ok{};
    }
    auto old_text = archive_.read_head(dir + "article.txt");
    if (!old_text) return old_text.error();
    std::optional<ArticleFile> before;
    if (*old_text) before = parse_article_file(**old_text);

    ArticleFile after;
    std::string extract_error;
    if (r.status >= 200 && r.status <= 299) {
      ArticleOptions limits;
      limits.max_bytes = std::max(limits.max_bytes, options_.limits.max_body_bytes);
      auto article = extract_article(r.body, limits);
      if (article) {
        after = {article->title, article->byline, article->published, article->text()};
      } else {
        extract_error = article.error().message;
      }
    }
    std::string doubt = article_doubt(r.status, r.body, after.title, after.body,
                                      before ? count_words(before->body) : 0);
    if (!extract_error.empty() && (doubt.empty() || doubt == "the page has no text to read"))
      doubt = extract_error;
    const std::string text = format_article_file(after);
    if (doubt.empty() && *old_text && **old_text == text) {
      // Page churn: the bytes moved, the article did not. Noted, not committed (docs/articles.md).
      outcome(p, e, "noted",
              fmt::format("page changed ({} bytes), text the same: not recorded", r.body.size()));
      return Ok{};
    }

    const std::string headline = trailer_value(
        doubt.empty() ? after.title : (before ? before->title : after.title), kTitleChars);
    const std::string shown = headline.empty() ? redact_url(p.url) : headline;
    const std::string result = !doubt.empty() ? "uncertain" : before ? "changed" : "added";
    CommitMessage message = record_response(p.source->name, recorded_response(r), now_);
    message.title = doubt.empty() ? fmt::format("{}: article {}: {}", p.source->name, result, shown)
                                  : fmt::format("{}: article archived, extraction uncertain: {}",
                                                p.source->name, shown);
    message.change_class = std::string(doubt.empty() ? kArticleClass : kArticleUncertainClass);
    std::string summary = !doubt.empty() ? std::string()
                          : before       ? edit_summary(*before, after)
                                         : fmt::format("{} words", count_words(after.body));
    std::string trailers = fmt::format("Article-URL: {}\nItem-Id: {}\n", redact_recorded_url(p.url),
                                       trailer_value(p.item_id, 300));
    if (!summary.empty())
      trailers += fmt::format("Article-Summary: {}\n", trailer_value(summary, 300));
    if (!doubt.empty())
      trailers += fmt::format("Extraction-Uncertain: {}\n", trailer_value(doubt, 300));
    std::string formatted = format_commit_message(message);
    // The article's trailers join the block, after Source and Change-Class.
    const std::size_t block = formatted.find("\n\n");
    const std::size_t after_class = formatted.find('\n', formatted.find("Change-Class:", block));
    formatted.insert(after_class + 1, trailers);

    CommitRequest request;
    request.message = std::move(formatted);
    request.commit_time = now_;
    request.author_time = origin_date_of(recorded_response(r).headers).value_or(now_);
    request.files.push_back({dir + "page.html", r.body});
    // In doubt, article.txt stays the last text a reader can trust: the next version is
    // compared with that, so a wall or an error page between two fetches makes no edit.
    if (doubt.empty()) request.files.push_back({dir + "article.txt", text});
    auto committed = archive_.commit(request);
    if (!committed) return committed.error();
    const std::string id = committed->value_or("");
    std::string line =
        !doubt.empty() ? fmt::format("archived, not an edit: {}{}", doubt,
                                     headline.empty() ? "" : ": " + headline)
                       : fmt::format("{}{}", shown, summary.empty() ? "" : " (" + summary + ")");
    outcome(p, e, result, std::move(line), id);
    return Ok{};
  }

  void save_books() {
    for (const auto& [name, book] : books_)
      if (auto ok = save_book(archive_, name, book); !ok && report_.articles_error.empty())
        report_.articles_error = ok.error().message;
  }

  Archive& archive_;
  const Config& config_;
  const PollOptions& options_;
  TimeMs now_;
  PollReport& report_;
  std::map<std::string, Book> books_;
  std::map<std::string, std::string> robots_errors_;  // origin -> why its robots.txt failed
  std::string error_;
};

}  // namespace

void capture(Archive& archive, const Config& config, const PollOptions& options, TimeMs now,
             PollReport& report) {
  Capture(archive, config, options, now, report).run();
}

}  // namespace feeddiff::articles

namespace feeddiff {

std::string article_dir(std::string_view source, std::string_view item_id) {
  const std::string key = sha1_hex(item_id).substr(0, 20);
  return fmt::format("articles/{}/{}/{}/", source, key.substr(0, 2), key);
}

}  // namespace feeddiff
