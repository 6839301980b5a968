// The poll: choose what is due, fetch it all concurrently, settle each source as its
// transfer completes (commit, state), and save the state.

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fmt/format.h>
#include <algorithm>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>

#include "feeddiff/diff.h"
#include "feeddiff/failpoint.h"
#include "feeddiff/normalize.h"
#include "feeddiff/poll.h"
#include "poll/articles.h"
#include "poll/hand_off.h"
#include "poll/item_summary.h"
#include "poll/schedule.h"
#include "poll/worker.h"

namespace feeddiff {

namespace {

// Commits are written to memory and packed when the batch grows this big (and at the end):
// memory stays bounded however many sources change, and a poll makes few packs.
constexpr std::size_t kFlushBytes = std::size_t{32} << 20;

// The item model alone (no canonical text): what a poll reads of each body.
const NormalizeOptions kModelOnly{{}, true, false};

// Bodies up to this size are normalized ahead, on the models' thread (Poller::run).
constexpr std::size_t kAheadMaxBytes = std::size_t{4} << 20;

// Responses that may wait to be settled, and their bodies' total size (one larger body may
// wait alone). The waiting bodies' models are made meanwhile and held until each is settled:
// with the bytes bound at kAheadMaxBytes, the models held beside the one being settled are
// of 4 MB of bodies at most, as when a single body was normalized ahead. The count is what
// bounds ordinary feeds (tens of kilobytes each).
constexpr std::size_t kWaitingMax = 8;
constexpr std::size_t kWaitingMaxBytes = kAheadMaxBytes;

// Bodies from this size on have the memory of their parse handed back to the system once
// their models are let go (malloc_trim in record); smaller ones are not worth the call.
[[maybe_unused]] constexpr std::size_t kTrimAfterBytes = std::size_t{1} << 20;

// The canonical text's hash (nullopt when it does not parse): equal canonical documents of
// two versions whose models are equal make a change "formatting" only. One version at a
// time, so memory holds one canonical text.
std::optional<std::string> canonical_hash(std::string_view body) {
  auto doc = normalize(body, NormalizeOptions{{}, false, true});
  if (!doc) return std::nullopt;
  return sha1_hex(doc->text);
}

// The target of the leading run of permanent redirects, or "".
std::string permanent_target(const FetchResponse& r) {
  std::string target;
  for (const auto& hop : r.redirects) {
    if (hop.status != 301 && hop.status != 308) break;
    target = hop.target;
  }
  return target;
}

struct Job {
  const SourceConfig* source;
  std::string credentials;       // user:password sent with the request, or ""
  std::string credentials_note;  // why the source's credentials were not sent, or ""
};

class Poller {
 public:
  Poller(Archive& archive, Config config, State state, const PollOptions& options, TimeMs now)
      : archive_(archive),
        config_(std::move(config)),
        state_(std::move(state)),
        options_(options),
        now_(now) {}

  Result<PollReport> run(const std::vector<StoredCredentials>& credentials) {
    std::map<std::string, StoredCredentials> secrets;
    for (const StoredCredentials& c : credentials) secrets[c.source] = c;
    for (const auto& name : options_.names)
      if (!config_.find(name))
        return Error{Errc::not_found,
                     fmt::format("no source named '{}' (see `feeddiff status`)", name)};

    if (const auto& shard = options_.shard) {
      for (const auto& source : config_.sources) {
        const unsigned owner = shard_of(source, shard->count);
        if (owner >= shard->count)
          return Error{Errc::bad_config,
                       fmt::format("source '{}' has shard = {}, but --shard says the fleet has "
                                   "{} (shards 0 to {})",
                                   source.name, owner, shard->count, shard->count - 1)};
        if (owner != shard->index && std::find(options_.names.begin(), options_.names.end(),
                                               source.name) != options_.names.end())
          return Error{Errc::usage,
                       fmt::format("source '{}' belongs to shard {}/{}, not {}/{}", source.name,
                                   owner, shard->count, shard->index, shard->count)};
      }
    }

    std::vector<FetchRequest> requests;
    for (const auto& source : config_.sources) {
      if (!options_.names.empty() && std::find(options_.names.begin(), options_.names.end(),
                                               source.name) == options_.names.end())
        continue;
      // Another poller's source: not considered at all, so its state is left as it is.
      if (options_.shard && shard_of(source, options_.shard->count) != options_.shard->index)
        continue;
      SourceState& st = state_.sources[source.name];
      SourceOutcome skipped;
      skipped.name = source.name;
      skipped.next_due = st.next_due;
      if (st.disabled) {
        skipped.outcome = Outcome::disabled;
        skipped.message = st.disabled_reason;
        report_.sources.push_back(skipped);
        continue;
      }
      if (!options_.force && st.next_due > now_) {
        skipped.outcome = Outcome::not_due;
        report_.sources.push_back(skipped);
        continue;
      }
      Job job{&source, "", ""};
      if (auto it = secrets.find(source.name); it != secrets.end())
        bind_credentials(it->second, source, job);
      FetchRequest request = options_.limits;
      request.url = join_credentials(source.url, job.credentials);
      request.if_none_match = st.etag;
      request.if_modified_since = st.last_modified;
      request.allow_private_redirects = source.allow_private_redirects;
      requests.push_back(std::move(request));
      jobs_.push_back(std::move(job));
    }

    // The state is saved only after the commits it describes are on the branch: a validator
    // saved for a commit that a crash lost would turn the next poll into a 304, and that
    // change would never be recorded.
    if (auto ok = archive_.begin_batch(); !ok) return ok.error();
    // Three stages, so that both cores work: the transfers, on a thread of their own; each
    // body's item model and blob id, on another from its arrival (normalize_ahead); and
    // here, each response settled in turn (reads the last version, diffs, commits) while
    // the transfers go on. The commits keep the order the transfers completed in.
    std::size_t settled = 0;
    auto settle_one = [&](Arrived& a) {
      std::optional<Ahead> ahead;
      if (a.ahead.valid()) ahead = a.ahead.get();
      SourceOutcome outcome = settle(jobs_[a.index], a.response, std::move(ahead));
      outcome.credentials_note = jobs_[a.index].credentials_note;
      if (options_.on_outcome) options_.on_outcome(outcome, ++settled, requests.size());
      report_.sources.push_back(std::move(outcome));
      if (fatal_.message.empty() && archive_.pending_bytes() >= kFlushBytes) {
        if (auto ok = archive_.flush(); !ok) {
          fatal_ = ok.error();
        } else {
          (void)save_state(archive_, state_);
          write_summaries();
        }
      }
    };
    // Each waiting response is held whole, and its model is being made: the bound keeps
    // that within a few bodies' worth however fast the transfers complete.
    poll_detail::HandOff<std::unique_ptr<Arrived>> arrivals(kWaitingMax, kWaitingMaxBytes);
    std::optional<poll_detail::Worker<Ahead>> models;
    try {
      models.emplace();
    } catch (const std::system_error&) {
      // No thread to be had: record() normalizes each body, as without the pipeline.
    }
    auto arrive = [&](std::size_t i, Result<FetchResponse> response) {
      // On the heap, so that its body stays where the models' thread reads it.
      auto a = std::make_unique<Arrived>(Arrived{i, std::move(response), {}});
      if (models) normalize_ahead(*a, *models);
      const std::size_t bytes = a->response ? a->response->body.size() : 0;
      arrivals.push(std::move(a), bytes);
    };
    std::thread transfers;
    try {
      transfers = std::thread([&] {
        fetch_all(requests, options_.fetch, arrive);
        arrivals.close();
      });
    } catch (const std::system_error&) {
      // No thread to be had: the transfers and the settling take turns on this one.
      fetch_all(requests, options_.fetch, [&](std::size_t i, Result<FetchResponse> response) {
        Arrived a{i, std::move(response), {}};
        settle_one(a);
      });
    }
    if (transfers.joinable()) {
      // Whatever leaves this scope: the models' thread stops first (it may be reading a
      // waiting body), then the transfers' thread is let go of and joined.
      struct Join {
        std::optional<poll_detail::Worker<Ahead>>& models;
        poll_detail::HandOff<std::unique_ptr<Arrived>>& arrivals;
        std::thread& thread;
        ~Join() {
          if (models) models->stop(false);
          arrivals.abandon();
          thread.join();
        }
      } join{models, arrivals, transfers};
      while (std::optional<std::unique_ptr<Arrived>> a = arrivals.pop()) settle_one(**a);
    }
    if (!fatal_.message.empty()) return fatal_;
    if (auto ok = archive_.end_batch(); !ok) return ok.error();
    if (auto ok = save_state(archive_, state_); !ok) return ok.error();
    failpoint(Failpoint::state_saved);
    write_summaries();
    // Only now, with every feed's commit durable and the state saved, the pages items link
    // to: nothing about an article can delay or fail a feed's version.
    articles::capture(archive_, config_, options_, now_, report_);
    // Last, once everything the poll recorded is durable: a poll killed while it
    // consolidates has lost nothing, and its leftovers are rolled up by the next.
    if (auto packs = archive_.consolidate_packs(options_.pack_limit); packs)
      report_.packs = *packs;
    else
      report_.packs_error = packs.error().message;
    // Report in config order, whatever order transfers finished in.
    std::stable_sort(report_.sources.begin(), report_.sources.end(),
                     [](const auto& a, const auto& b) { return a.name < b.name; });
    return std::move(report_);
  }

 private:
  // Credentials go only to the origin they were given for (M2 of the 2026-12-05 review): a
  // URL that a sync, a pull, an adopted redirect or a hand edit moved to another scheme, host
  // or port gets none, and the poll says so. A line an older feeddiff wrote has no origin: it
  // is bound to the source's URL at this first use, as that feeddiff would have sent it there.
  void bind_credentials(StoredCredentials& stored, const SourceConfig& source, Job& job) {
    if (stored.origin.empty()) {
      stored.origin = url_origin(source.url);
      (void)save_credentials(archive_, source.name, stored.userinfo, source.url);
    }
    if (credentials_apply(stored, source.url)) {
      job.credentials = stored.userinfo;
      return;
    }
    const std::string now = url_origin(source.url);
    job.credentials_note = fmt::format(
        "credentials not sent: they were given for {}, the URL is now {}{} (restore the URL, or "
        "`feeddiff remove` the source and `add` it again with credentials for its new URL)",
        stored.origin, now.empty() ? redact_url(source.url) : now,
        stored.origin.starts_with("https:") && now.starts_with("http:") ? ", not encrypted" : "");
  }

  // What is made of a body before it settles: its item model and its blob id.
  struct Ahead {
    Result<Document> doc;
    std::string blob;
  };

  // A response waiting to be settled, and its body's item model being made meanwhile.
  struct Arrived {
    std::size_t index;
    Result<FetchResponse> response;
    std::future<Ahead> ahead;  // not valid: record() normalizes (and the store hashes) itself
  };

  // Starts the item model of a body record() will read, on the models' thread. Bodies over
  // kAheadMaxBytes are left to record(): a large model made while another is read would
  // double a poll's peak memory (poll_memory_test).
  static void normalize_ahead(Arrived& a, poll_detail::Worker<Ahead>& models) {
    if (!a.response || a.response->status < 200 || a.response->status > 299 ||
        a.response->body.size() > kAheadMaxBytes)
      return;
    const std::string* body = &a.response->body;  // `a` stays where it is until settled
    a.ahead = models.run(std::packaged_task<Ahead()>([body] {
      return Ahead{normalize(*body, kModelOnly), blob_id(*body)};
    }));
  }

  // The response's body goes into the commit (record()): only its size is read after.
  SourceOutcome settle(const Job& job, Result<FetchResponse>& response,
                       std::optional<Ahead> ahead) {
    const SourceConfig& source = *job.source;
    SourceState& st = state_.sources[source.name];
    SourceOutcome out;
    out.name = source.name;
    st.last_attempt = now_;
    if (!response) return fail(source, st, out, response.error().message, 0, std::nullopt);
    FetchResponse& r = *response;
    const std::size_t body_size = r.body.size();
    out.status = r.status;
    out.address_class = r.address_class;
    st.last_status = r.status;
    note_redirect(source, st, r, out);

    if (r.status == 304) {
      succeed(source, st, schedule::freshness_hint(r));
      if (const Header* h = r.header("etag")) st.etag = h->value;
      if (const Header* h = r.header("last-modified")) st.last_modified = h->value;
      out.outcome = Outcome::not_modified;
      st.last_result = outcome_name(out.outcome);
      out.message = "not modified (HTTP 304)";
      out.next_due = st.next_due;
      // A 304 reached through the same permanent redirect confirms it as much as a 200.
      if (auto adopted = adopt_redirect(source, st, job); !adopted.empty())
        out.redirect_note = adopted;
      return out;
    }
    if (r.status == 410) {
      st.disabled = true;
      st.disabled_reason = "HTTP 410 Gone: disabled until `feeddiff enable " + source.name + "`";
      st.last_result = outcome_name(Outcome::gone);
      st.last_error = st.disabled_reason;
      out.outcome = Outcome::gone;
      out.message = st.disabled_reason;
      return out;
    }
    if (r.status < 200 || r.status > 299) {
      return fail(source, st, out, fmt::format("{}: HTTP {}", redact_url(r.final_url), r.status),
                  r.status, schedule::retry_after(r, now_));
    }
    const TimeMs hint = schedule::freshness_hint(r);  // the body's <ttl> among them
    auto committed = record(source, r, std::move(ahead));
    if (!committed) {
      // The archive refused the write: stop settling more sources into it.
      if (fatal_.message.empty()) fatal_ = committed.error();
      return fail(source, st, out, committed.error().message, r.status, std::nullopt);
    }
    out.bytes = body_size;
    out.change_class = class_;
    if (!check_.feed) {
      // Archived, but no feed: a failure for the exit code and the backoff (a bot wall is not
      // to be hammered). Its validators are not kept, so the next poll asks for the feed
      // unconditionally rather than about this page; those of the last feed go too, since a
      // 304 to them would say nothing about what the URL serves now.
      st.etag.clear();
      st.last_modified.clear();
      if (st.not_a_feed.empty()) st.not_a_feed_since = now_;
      st.not_a_feed = check_.reason;
      if (!committed->empty()) {
        st.not_a_feed_commit = *committed;
        st.last_change = now_;
      }
      out.commit = *committed;
      out.not_a_feed = check_.reason;
      std::string message = fmt::format("not a feed ({}, HTTP {}) ", check_.reason, r.status);
      message += committed->empty() ? "unchanged since " + st.not_a_feed_commit.substr(0, 7)
                                    : "recorded as " + committed->substr(0, 7);
      fail(source, st, out, std::move(message), r.status, schedule::retry_after(r, now_));
      out.outcome = Outcome::not_a_feed;
      st.last_result = outcome_name(out.outcome);
      return out;
    }
    succeed(source, st, hint);
    st.not_a_feed.clear();
    st.not_a_feed_since = 0;
    st.not_a_feed_commit.clear();
    st.items_error = check_.unreadable;
    if (const Header* h = r.header("etag"))
      st.etag = h->value;
    else
      st.etag.clear();
    if (const Header* h = r.header("last-modified"))
      st.last_modified = h->value;
    else
      st.last_modified.clear();
    if (!cosmetic_.empty()) {
      // skip_cosmetic: the body changed, but only in volatile parts. No commit; the
      // validators above are the new body's, so the next poll asks about it.
      out.outcome = Outcome::unchanged;
      out.message = fmt::format("unchanged (cosmetic only: {}; {} bytes, HTTP {})", cosmetic_,
                                body_size, r.status);
    } else if (committed->empty()) {
      out.outcome = Outcome::unchanged;
      out.message = fmt::format("unchanged ({} bytes, HTTP {})", body_size, r.status);
    } else {
      out.outcome = class_ == "restored" ? Outcome::restored
                    : first_version_     ? Outcome::added
                                         : Outcome::changed;
      out.commit = *committed;
      st.last_change = now_;
      out.message =
          fmt::format("{} ({} bytes, HTTP {})", outcome_name(out.outcome), body_size, r.status);
    }
    st.last_result = outcome_name(out.outcome);
    if (!cosmetic_.empty()) st.last_result += " (cosmetic only)";
    out.next_due = st.next_due;
    if (auto adopted = adopt_redirect(source, st, job); !adopted.empty())
      out.redirect_note = adopted;
    return out;
  }

  // hint: schedule::freshness_hint of the response, taken before its body went on.
  void succeed(const SourceConfig& source, SourceState& st, TimeMs hint) {
    st.last_success = now_;
    st.consecutive_failures = 0;
    st.last_error.clear();
    st.next_due = now_ + std::max(source.every, hint);
  }

  SourceOutcome& fail(const SourceConfig& source, SourceState& st, SourceOutcome& out,
                      std::string message, long status, std::optional<TimeMs> retry_after) {
    st.consecutive_failures += 1;
    st.last_error = message;
    st.last_result = outcome_name(Outcome::failed);
    TimeMs delay = schedule::backoff(source.every, st.consecutive_failures);
    if (retry_after) delay = std::max(delay, *retry_after);
    st.next_due = now_ + delay;
    out.outcome = Outcome::failed;
    out.status = status;
    out.message = std::move(message);
    out.next_due = st.next_due;
    return out;
  }

  // Counts polls in a row that were sent on by the same permanent redirect.
  void note_redirect(const SourceConfig&, SourceState& st, const FetchResponse& r,
                     SourceOutcome& out) {
    std::string target = permanent_target(r);
    if (target.empty()) {
      st.pending_redirect.clear();
      st.pending_redirect_count = 0;
      return;
    }
    if (target == st.pending_redirect) {
      st.pending_redirect_count += 1;
    } else {
      st.pending_redirect = target;
      st.pending_redirect_count = 1;
    }
    out.redirect_note =
        fmt::format("permanent redirect to {} seen {} poll{} in a row", target,
                    st.pending_redirect_count, st.pending_redirect_count == 1 ? "" : "s");
  }

  // After kAdoptRedirectAfter polls in a row, the source's URL becomes the target, in a
  // commit of feeddiff.toml that says why. The user's file is edited, not regenerated (its
  // comments and layout stay), and not at all while it has uncommitted edits: the commit's
  // checkout would overwrite them. The redirect then stays pending and is adopted by the first
  // poll after they are committed or undone.
  std::string adopt_redirect(const SourceConfig& source, SourceState& st, const Job& job) {
    if (st.pending_redirect.empty() || st.pending_redirect_count < kAdoptRedirectAfter) return {};
    const std::string old_url = source.url;
    const std::string new_url = st.pending_redirect;
    auto dirty = archive_.uncommitted("feeddiff.toml");
    if (!dirty) return fmt::format("could not adopt the redirect: {}", dirty.error().message);
    if (*dirty)
      return fmt::format(
          "permanent redirect to {} seen {} polls in a row, not adopted: feeddiff.toml has "
          "uncommitted changes (commit or undo them)",
          new_url, st.pending_redirect_count);
    auto text = archive_.read_head("feeddiff.toml");
    if (!text) return fmt::format("could not adopt the redirect: {}", text.error().message);
    if (!*text) return "could not adopt the redirect: no feeddiff.toml at HEAD";
    auto edited = set_source_url(**text, source.name, new_url);
    if (!edited) return fmt::format("could not adopt the redirect: {}", edited.error().message);
    CommitRequest request;
    request.author_time = request.commit_time = now_;
    request.message = fmt::format(
        "{}: moved to {}\n\nSource: {}\nRedirect-Adopted: {} -> {}\nRedirect-Seen: {} polls in "
        "a row\n",
        source.name, new_url, source.name, old_url, new_url, st.pending_redirect_count);
    request.files.push_back({"feeddiff.toml", std::move(*edited)});
    if (auto c = archive_.commit(request); !c)
      return fmt::format("could not adopt the redirect: {}", c.error().message);
    config_.find(source.name)->url = new_url;
    // Credentials follow the source only to the same host.
    if (!job.credentials.empty() && host_and_port(new_url) != host_and_port(old_url))
      (void)save_credentials(archive_, source.name, "", "");
    st.pending_redirect.clear();
    st.pending_redirect_count = 0;
    return fmt::format("adopted permanent redirect: {} -> {}", old_url, new_url);
  }

  // One commit for the new body; "" when it is byte-identical to the stored one, or when
  // skip_cosmetic is set and the change is cosmetic only (cosmetic_ then says why). The body
  // is classified first (check_): a response that is not a feed is committed at
  // raw/NAME/not-a-feed, leaving response.xml/.json at the last feed version, so that the
  // next feed version is compared with that one (no removed/reappeared storm); the next feed
  // version deletes not-a-feed. The item diff against the last feed version is computed here,
  // once (each version normalized once, the new one first), for the commit's Change-Class and
  // Item-Summary trailers; its encoding goes to the cache once the commit is durable.
  Result<std::string> record(const SourceConfig& source, FetchResponse& r,
                             std::optional<Ahead> ahead) {
    cosmetic_.clear();
    class_.clear();
    check_ = FeedCheck{};
    const Header* type = r.header("content-type");
    std::optional<Result<Document>> new_doc(ahead ? std::move(ahead->doc)
                                                  : normalize(r.body, kModelOnly));
    const std::string blob = ahead ? std::move(ahead->blob) : std::string();
    check_ =
        check_feed(r.body, type ? std::string_view(type->value) : std::string_view(), *new_doc);
    if (!check_.feed) new_doc.reset();
    const bool json = looks_like_json(r.body);
    // Written where feeddiff.toml's layout says; a source still in the other layout (the key
    // edited by hand rather than by `migrate`) is read from there and moved.
    const Layout layout = config_.layout;
    const Layout elsewhere = layout == Layout::flat ? Layout::fanout : Layout::flat;
    Layout home = layout;  // where the source's files are now
    std::vector<std::string> stale;
    std::optional<std::string> previous, previous_other, previous_nf;
    for (const Layout at : {layout, elsewhere}) {
      auto same = archive_.read_head(raw_path(source.name, json, at));
      if (!same) return same.error();
      auto other = archive_.read_head(raw_path(source.name, !json, at));
      if (!other) return other.error();
      auto nf = archive_.read_head(not_a_feed_path(source.name, at));
      if (!nf) return nf.error();
      if (!*same && !*other && !*nf) continue;
      home = at;
      previous = std::move(*same);
      previous_other = std::move(*other);
      previous_nf = std::move(*nf);
      break;
    }
    first_version_ = !previous && !previous_other;

    const TimeMs observed = now_;
    const RecordedResponse recorded = recorded_response(r);
    const auto origin = origin_date_of(recorded.headers);
    CommitMessage message = record_response(source.name, recorded, observed);
    CommitRequest request;
    request.commit_time = observed;
    request.author_time = origin.value_or(observed);

    if (!check_.feed) {
      // Kept where the source's feed is (a move between layouts waits for a feed version).
      if (previous_nf && *previous_nf == r.body) return std::string();
      class_ = "not-a-feed";
      message.title =
          not_a_feed_title(source.name, check_.kind, r.body.size(), std::to_string(r.status));
      message.change_class = class_;
      message.not_a_feed = check_.reason;
      request.message = format_commit_message(message);
      request.files.push_back({not_a_feed_path(source.name, home), r.body});
      auto committed = archive_.commit(request);
      if (!committed) return committed.error();
      return committed->value_or("");
    }

    const std::string path = raw_path(source.name, json, layout);
    bool restored = false;
    if (previous && *previous == r.body) {
      // The feed is back, byte for byte its last feed version: only not-a-feed goes.
      if (!previous_nf) return std::string();
      restored = true;
      stale.push_back(not_a_feed_path(source.name, home));
    } else {
      if (previous_other) stale.push_back(raw_path(source.name, !json, home));
      if (previous && home != layout) stale.push_back(raw_path(source.name, json, home));
      if (previous_nf) stale.push_back(not_a_feed_path(source.name, home));
    }

    std::optional<ItemDiff> diff;
    std::string old_blob_path;  // the path whose old blob the cached summary is named by
    const InsignificantRules ir = insignificant_rules(config_, source);
    Insignificant rules;
    rules.whitespace = ir.whitespace;
    rules.punctuation = ir.punctuation;
    rules.fields = ir.fields;
    rules.min_words = ir.min_words;
    if (!restored && (previous || previous_other) && *new_doc) {
      std::optional<Result<Document>> old_doc(
          normalize(previous ? *previous : *previous_other, kModelOnly));
      if (*old_doc && is_feed_format((*old_doc)->feed.format)) {
        diff = diff_items((*old_doc)->feed, (*new_doc)->feed, source.ignore, true, rules);
        if (previous) old_blob_path = path;
      }
    }
    new_doc.reset();  // the models are let go before the commit is written
#if defined(__GLIBC__)
    // The parse of a large body leaves its pages free but resident in this thread's arena,
    // where the pack writer's threads (Archive::flush) cannot reuse them: handed back now, a
    // feed of 75,000 items polls in ~100 MB rather than ~200 MB (poll_memory_test).
    if (r.body.size() >= kTrimAfterBytes) malloc_trim(0);
#endif

    if (source.skip_cosmetic && diff && !restored) {
      if (diff->cosmetic_only) {
        cosmetic_ = cosmetic_fields(*diff);
        return std::string();
      }
      if (diff->empty()) {
        const auto before = canonical_hash(previous ? *previous : *previous_other);
        if (before && before == canonical_hash(r.body)) {
          cosmetic_ = "formatting";
          return std::string();
        }
      }
    }
    previous.reset();
    previous_other.reset();

    if (restored) {
      class_ = "restored";
      message.title = restored_title(source.name, r.body.size(), std::to_string(r.status));
    } else {
      message.title =
          version_title(source.name, first_version_, r.body.size(), std::to_string(r.status));
      if (!diff) {
        // No feed version before this one that reads as a feed: the first. A body whose items
        // normalize refused to read (a limit) gets no class: it is not known.
        if (check_.unreadable.empty()) class_ = "first";
      } else {
        class_ = item_diff_class(*diff);
        std::string summary = item_summary_trailer(*diff);
        if (summary.size() > 300) summary = summary.substr(0, 300) + "...";
        message.item_summary = std::move(summary);
      }
    }
    if (!class_.empty()) message.change_class = class_;
    request.message = format_commit_message(message);
    if (!restored) {
      // Handed over, not copied: the store shares the bytes with its compressing thread
      // and the pack writer (a cold poll's bodies were copied four times on their way).
      FileWrite body{path, std::nullopt, {}, blob};
      body.shared = std::make_shared<const std::string>(std::move(r.body));
      request.files.push_back(std::move(body));
    }
    for (const std::string& gone : stale) request.files.push_back({gone, std::nullopt});
    auto committed = archive_.commit(request);
    if (!committed) return committed.error();
    if (*committed && diff && !old_blob_path.empty()) {
      // Cached once the commit is durable (after the batch's flush): `show` then need not
      // normalize both versions, and a crash before it leaves nothing to clean up.
      auto changes = archive_.source_changes(**committed, source.name);
      if (changes)
        for (const PathChange& c : *changes)
          if (c.path == path && !c.old_blob.empty() && !c.new_blob.empty())
            summaries_.emplace_back(
                item_diff_cache_name(c.old_blob, c.new_blob, source.ignore, rules),
                encode_item_diff(*diff));
    }
    return committed->value_or("");
  }

  // Writes the item summaries of the changes made durable so far into the archive's cache.
  void write_summaries() {
    if (summaries_.empty()) return;
    archive_.cache_write_all(summaries_);
    failpoint(Failpoint::summary_cached);
    summaries_.clear();
  }

  Archive& archive_;
  Config config_;
  State state_;
  const PollOptions& options_;
  TimeMs now_;
  std::vector<Job> jobs_;
  // The changes' item summaries, cached once the poll's commits are durable: (name,
  // encoded), item_diff_cache_name and encode_item_diff.
  std::vector<std::pair<std::string, std::string>> summaries_;
  PollReport report_;
  bool first_version_ = false;
  std::string cosmetic_;  // why the last record() made no commit for a cosmetic change
  FeedCheck check_;       // whether the last record()'s body was a feed
  std::string class_;     // the last record()'s Change-Class, "" for none
  Error fatal_{Errc::internal, ""};
};

}  // namespace

Result<PollReport> poll(Archive& archive, const PollOptions& options) {
  auto lock = ArchiveLock::acquire(archive, options.wait_for_lock);
  if (!lock) return lock.error();
  return poll(archive, options, *lock);
}

Result<PollReport> poll(Archive& archive, const PollOptions& options, const ArchiveLock&) {
  auto config = load_config(archive);
  if (!config) return config.error();
  auto state = load_state(archive);
  if (!state) return state.error();
  auto credentials = load_credentials(archive);
  if (!credentials) return credentials.error();
  Poller poller(archive, std::move(*config), std::move(*state), options,
                options.now ? options.now : now_ms());
  return poller.run(*credentials);
}

}  // namespace feeddiff
