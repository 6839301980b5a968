// The state a clone starts from, read back from the commits polls made.

#include <fmt/format.h>
#include <charconv>

#include "feeddiff/poll.h"
#include "poll/schedule.h"

namespace feeddiff {

Result<State> rebuild_state(const Archive& archive, const Config& config) {
  State state;
  for (const SourceConfig& source : config.sources) {
    SourceState& st = state.sources[source.name];
    auto last = archive.source_log(source.name, 1);
    if (!last) return last.error();
    if (last->empty()) continue;
    const CommitInfo& commit = last->front();
    const CommitMessage message = parse_commit_message(commit.message);
    // A user's own commit of raw/NAME (an import, a hand edit) records no response: the
    // first poll then fetches unconditionally, as it would have on the poller that made it.
    if (message.source != source.name) continue;
    // Observed-At keeps the milliseconds a poll saw; the commit's own time, seconds only.
    TimeMs observed = commit.commit_time;
    if (message.observed_at)
      if (auto t = parse_iso8601(*message.observed_at)) observed = *t;
    if (message.change_class == "not-a-feed") {
      // The last response was no feed: status says so, and the first poll asks for the feed
      // unconditionally (a poll keeps no validators of a page that is not a feed). When the
      // run of such responses began is not read back (it would cost a walk): this one's time.
      st.not_a_feed = message.not_a_feed.value_or("not a feed");
      st.not_a_feed_since = observed;
      st.not_a_feed_commit = commit.id;
      st.last_result = "not-a-feed";
      st.last_attempt = st.last_change = observed;
      st.last_error = fmt::format("not a feed ({})", st.not_a_feed);
      if (message.status) {
        long status = 0;
        const std::string& text = *message.status;
        if (std::from_chars(text.data(), text.data() + text.size(), status).ec == std::errc())
          st.last_status = status;
      }
      st.consecutive_failures = 1;
      st.next_due = observed + source.every;
      continue;
    }
    if (const std::string* etag = message.header("etag")) st.etag = *etag;
    if (const std::string* modified = message.header("last-modified")) st.last_modified = *modified;
    if (message.status) {
      long status = 0;
      const std::string& text = *message.status;
      if (std::from_chars(text.data(), text.data() + text.size(), status).ec == std::errc())
        st.last_status = status;
    }
    st.last_attempt = st.last_success = st.last_change = observed;
    st.last_result = commit.title.find(": added") != std::string::npos        ? "added"
                     : commit.title.find(": restored (") != std::string::npos ? "restored"
                                                                              : "changed";
    // The schedule a poll would have set then, from what the response said.
    FetchResponse response;
    for (const RecordedHeader& h : message.headers) response.headers.push_back({h.name, h.value});
    auto dir = archive.source_dir_at(commit.id, source.name);
    auto body = dir ? archive.read(commit.id, *dir + "response.xml")
                    : Result<std::optional<std::string>>(dir.error());
    if (body && *body) response.body = std::move(**body);
    st.next_due = observed + std::max(source.every, schedule::freshness_hint(response));
  }
  return state;
}

}  // namespace feeddiff
