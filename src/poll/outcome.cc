// What a poll reports and where it writes: each outcome's name, the report's failures, a
// response as a commit records it, the paths of a source's files, the config it reads.

#include <algorithm>

#include "feeddiff/poll.h"

namespace feeddiff {

RecordedResponse recorded_response(const FetchResponse& response) {
  RecordedResponse out;
  out.status = response.status;
  out.final_url = response.final_url;
  for (const Redirect& hop : response.redirects) out.redirects.push_back({hop.status, hop.target});
  for (const Header& h : response.headers) out.headers.push_back({h.name, h.value});
  return out;
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::added:
      return "added";
    case Outcome::changed:
      return "changed";
    case Outcome::unchanged:
      return "unchanged";
    case Outcome::not_modified:
      return "not-modified";
    case Outcome::failed:
      return "failed";
    case Outcome::gone:
      return "gone";
    case Outcome::not_due:
      return "not-due";
    case Outcome::disabled:
      return "disabled";
    case Outcome::not_a_feed:
      return "not-a-feed";
    case Outcome::restored:
      return "restored";
  }
  return "unknown";
}

std::size_t PollReport::failures() const {
  return static_cast<std::size_t>(std::count_if(
      sources.begin(), sources.end(), [](const auto& s) { return is_failure(s.outcome); }));
}

std::string raw_path(const std::string& name, bool json, Layout layout) {
  return source_dir(name, layout) + (json ? "response.json" : "response.xml");
}

std::string not_a_feed_path(const std::string& name, Layout layout) {
  return source_dir(name, layout) + std::string(kNotAFeedFile);
}

Result<Config> load_config(const Archive& archive) {
  auto text = read_file(archive.work_dir() + "/feeddiff.toml");
  if (!text) return text.error();
  return parse_config(*text);
}

}  // namespace feeddiff
