#include "feeddiff/message.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>

namespace feeddiff {

namespace {

constexpr std::string_view kNotRecorded = "[not recorded]";

// A recorded value stays on its line: a header folded over lines, or a hostile one, cannot
// add trailers of its own. Only CR and LF: a tab is the server's and is kept (core's one_line
// makes tabs spaces too, for display).
std::string on_its_line(std::string_view value) {
  std::string out(value);
  for (char& c : out)
    if (c == '\r' || c == '\n') c = ' ';
  return out;
}

bool secret_query_name(std::string_view name) {
  static constexpr std::array<std::string_view, 20> kNames = {"access_token",
                                                              "api_key",
                                                              "apikey",
                                                              "auth",
                                                              "auth_token",
                                                              "client_secret",
                                                              "id_token",
                                                              "key",
                                                              "passwd",
                                                              "password",
                                                              "refresh_token",
                                                              "secret",
                                                              "sig",
                                                              "signature",
                                                              "token",
                                                              "x-amz-credential",
                                                              "x-amz-security-token",
                                                              "x-amz-signature",
                                                              "x-goog-credential",
                                                              "x-goog-signature"};
  const std::string lower = to_lower(name);
  return std::find(kNames.begin(), kNames.end(), lower) != kNames.end();
}

}  // namespace

std::optional<TimeMs> origin_date_of(const std::vector<RecordedHeader>& headers) {
  auto find = [&](std::string_view name) -> const RecordedHeader* {
    for (const RecordedHeader& h : headers)
      if (to_lower(h.name) == name) return &h;
    return nullptr;
  };
  const RecordedHeader* date = find("date");
  if (!date) return std::nullopt;
  auto d = parse_http_date(date->value);
  if (!d) return std::nullopt;
  long long age = 0;
  if (const RecordedHeader* a = find("age")) {
    auto v = trim(a->value);
    if (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
      age = std::stoll(std::string(v.substr(0, 12)));
  }
  return *d - age * 1000;
}

const std::string* CommitMessage::header(std::string_view name) const {
  const std::string wanted = to_lower(name);
  for (const RecordedHeader& h : headers)
    if (to_lower(h.name) == wanted) return &h.value;
  return nullptr;
}

std::string redact_recorded_url(std::string_view url) {
  std::string out = redact_url(url);
  const UrlParts parts = split_url(out);
  if (!parts.query || parts.query->empty()) return out;
  const auto query_at = static_cast<std::size_t>(parts.query->data() - out.data());
  std::string query;
  std::string_view rest = *parts.query;
  while (true) {
    const auto amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && eq + 1 < pair.size() &&
        secret_query_name(pair.substr(0, eq)))
      query += std::string(pair.substr(0, eq + 1)) + "***";
    else
      query += pair;
    if (amp == std::string_view::npos) break;
    query += '&';
    rest.remove_prefix(amp + 1);
  }
  return out.substr(0, query_at) + query + out.substr(query_at + parts.query->size());
}

std::string redact_recorded_header(std::string_view name, std::string_view value) {
  const std::string lower = to_lower(name);
  if (lower == "set-cookie" || lower == "set-cookie2" || lower == "authorization" ||
      lower == "proxy-authorization" || lower == "cookie")
    return std::string(kNotRecorded);
  if (lower == "location" || lower == "content-location")
    return on_its_line(redact_recorded_url(value));
  return on_its_line(value);
}

CommitMessage record_response(std::string_view source, const RecordedResponse& response,
                              TimeMs observed) {
  CommitMessage m;
  m.source = on_its_line(source);
  m.observed_at = format_iso8601_ms(observed);
  if (auto origin = origin_date_of(response.headers)) m.origin_date = format_iso8601_ms(*origin);
  m.status = std::to_string(response.status);
  m.final_url = on_its_line(redact_recorded_url(response.final_url));
  for (const RecordedRedirect& hop : response.redirects)
    m.redirects.push_back({hop.status, on_its_line(redact_recorded_url(hop.target))});
  for (const RecordedHeader& h : response.headers)
    m.headers.push_back({on_its_line(h.name), redact_recorded_header(h.name, h.value)});
  return m;
}

std::string version_title(std::string_view source, bool added, std::size_t bytes,
                          std::string_view status) {
  return fmt::format("{}: {} ({} bytes, HTTP {})", source, added ? "added" : "changed", bytes,
                     status);
}

std::string not_a_feed_title(std::string_view source, std::string_view kind, std::size_t bytes,
                             std::string_view status) {
  return fmt::format("{}: not a feed ({}, {} bytes, HTTP {})", source, on_its_line(kind), bytes,
                     status);
}

std::string restored_title(std::string_view source, std::size_t bytes, std::string_view status) {
  return fmt::format("{}: restored ({} bytes, HTTP {})", source, bytes, status);
}

bool is_version_title(std::string_view title, std::string_view source) {
  if (!title.starts_with(source) || !title.substr(source.size()).starts_with(": ")) return false;
  const std::string_view rest = title.substr(source.size() + 2);
  for (std::string_view word : {"added (", "changed (", "not a feed (", "restored ("})
    if (rest.starts_with(word)) return true;
  return false;
}

std::string format_trailers(const CommitMessage& m) {
  std::string out;
  auto line = [&](std::string_view key, const std::optional<std::string>& value) {
    // A value stays on its line, whatever text from a body it holds.
    if (value) out += fmt::format("{}: {}\n", key, on_its_line(*value));
  };
  line("Source", m.source);
  line("Change-Class", m.change_class);
  line("Item-Summary", m.item_summary);
  line("Not-A-Feed", m.not_a_feed);
  line("Observed-At", m.observed_at);
  line("Origin-Date", m.origin_date);
  line("Status", m.status);
  line("Final-URL", m.final_url);
  for (const RecordedRedirect& hop : m.redirects)
    out += fmt::format("Redirect: {} {}\n", hop.status, hop.target);
  for (const RecordedHeader& h : m.headers)
    out += fmt::format("Response-Header: {}: {}\n", h.name, h.value);
  return out;
}

std::string format_commit_message(const CommitMessage& m) {
  return m.title + "\n\n" + format_trailers(m);
}

namespace {

// A trailer key's letters (ASCII letters and digits, as isalnum in the C locale feeddiff
// runs in, and '-'), tested without a call per character: a rebuild of the source index
// reads the trailers of every commit of the history.
bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

// Calls each(key, value) for each line of a trailer block; false, having called it for the
// lines before, at the first line that is not a trailer.
template <typename Each>
bool each_trailer(std::string_view block, Each each) {
  while (!block.empty() && block.back() == '\n') block.remove_suffix(1);
  while (!block.empty()) {
    auto nl = block.find('\n');
    std::string_view line = block.substr(0, nl);
    block = nl == std::string_view::npos ? std::string_view() : block.substr(nl + 1);
    auto colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) return false;
    for (char c : line.substr(0, colon))
      if (!is_key_char(c)) return false;
    each(line.substr(0, colon), trim(line.substr(colon + 1)));
  }
  return true;
}

// The last paragraph of message, where its trailers are; nullopt when it has one paragraph.
std::optional<std::string_view> trailer_block(std::string_view message) {
  while (!message.empty() && message.back() == '\n') message.remove_suffix(1);
  auto start = message.rfind("\n\n");
  if (start == std::string_view::npos) return std::nullopt;
  return message.substr(start + 2);
}

}  // namespace

std::vector<Trailer> parse_trailer_block(std::string_view block) {
  std::vector<Trailer> out;
  if (!each_trailer(block, [&](std::string_view key, std::string_view value) {
        out.push_back({std::string(key), std::string(value)});
      }))
    return {};
  return out;
}

std::vector<Trailer> message_trailers(std::string_view message) {
  const auto block = trailer_block(message);
  return block ? parse_trailer_block(*block) : std::vector<Trailer>{};
}

std::optional<std::string_view> message_trailer(std::string_view message, std::string_view key) {
  const auto block = trailer_block(message);
  if (!block) return std::nullopt;
  std::optional<std::string_view> found;
  const bool all = each_trailer(*block, [&](std::string_view k, std::string_view value) {
    if (!found && k == key) found = value;
  });
  return all ? found : std::nullopt;
}

CommitMessage message_from_trailers(const std::vector<Trailer>& trailers) {
  CommitMessage m;
  auto first = [](std::optional<std::string>& field, const std::string& value) {
    if (!field) field = value;
  };
  for (const Trailer& t : trailers) {
    const std::string key = to_lower(t.key);
    if (key == "source") {
      first(m.source, t.value);
    } else if (key == "observed-at") {
      first(m.observed_at, t.value);
    } else if (key == "origin-date") {
      first(m.origin_date, t.value);
    } else if (key == "status") {
      first(m.status, t.value);
    } else if (key == "final-url") {
      first(m.final_url, t.value);
    } else if (key == "change-class") {
      first(m.change_class, t.value);
    } else if (key == "item-summary") {
      first(m.item_summary, t.value);
    } else if (key == "not-a-feed") {
      first(m.not_a_feed, t.value);
    } else if (key == "redirect") {
      const std::string_view value = t.value;
      const auto space = value.find(' ');
      const std::string_view code = value.substr(0, space);
      long status = 0;
      std::from_chars(code.data(), code.data() + code.size(), status);
      m.redirects.push_back(
          {status, std::string(space == std::string_view::npos ? "" : trim(value.substr(space)))});
    } else if (key == "response-header") {
      const auto colon = t.value.find(':');
      if (colon == std::string::npos) continue;
      m.headers.push_back({std::string(trim(std::string_view(t.value).substr(0, colon))),
                           std::string(trim(std::string_view(t.value).substr(colon + 1)))});
    }
  }
  return m;
}

CommitMessage parse_commit_message(std::string_view message) {
  CommitMessage m = message_from_trailers(message_trailers(message));
  m.title = std::string(message.substr(0, message.find('\n')));
  return m;
}

const std::vector<std::string>& recorded_header_names() {
  static const std::vector<std::string> names = {
      "observed_at",      "origin_date",    "status",       "final URL",     "etag",
      "last-modified",    "date",           "age",          "cache-control", "cf-cache-status",
      "content-encoding", "content-length", "content-type", "server"};
  return names;
}

std::vector<std::pair<std::string, std::optional<std::string>>> header_rows(
    const CommitMessage& m) {
  std::vector<std::pair<std::string, std::optional<std::string>>> rows;
  for (const std::string& name : recorded_header_names()) {
    std::optional<std::string> value;
    if (name == "observed_at") {
      value = m.observed_at;
    } else if (name == "origin_date") {
      value = m.origin_date;
    } else if (name == "status") {
      value = m.status;
    } else if (name == "final URL") {
      value = m.final_url;
    } else if (const std::string* header = m.header(name)) {
      value = *header;
    }
    rows.emplace_back(name, std::move(value));
  }
  return rows;
}

}  // namespace feeddiff
