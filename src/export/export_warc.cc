// export_warc: the recorded versions of sources as a WARC/1.1 file (ISO 28500:2017) with a
// CDXJ index beside it, what web archives (pywb, ReplayWeb.page, OpenWayback) read.
//
// feeddiff keeps what a WARC response record holds: the body byte for byte and the headers
// as received (its commit trailers). Each version commit becomes one record, in its own gzip
// member (so a reader seeks to any record by the CDXJ line's offset):
//   - `response`: the status line, the recorded headers and the body, dated by the version's
//     Observed-At (WARC-Date), aimed at its Final-URL (WARC-Target-URI);
//   - `revisit` (profile identical-payload-digest) when the body is byte for byte one the
//     source recorded before (a feed that went back to an earlier version): equal git blob
//     ids, so the archive knows without reading either body. It refers to the first record
//     of that body by id.
// What a WARC record needs and the archive does not have, and what stands in for it (the
// warcinfo record says so too): the status line's protocol and reason phrase (HTTP/1.1 and
// the standard phrase); the body as sent before HTTP content-coding (libcurl undid gzip,
// deflate, br or zstd on receipt): a Content-Encoding or Transfer-Encoding header is kept
// under X-Feeddiff-Original-Content-Encoding (-Transfer-Encoding), and Content-Length is the
// stored body's, the received one kept under X-Feeddiff-Original-Content-Length when it
// differs.
//
// Record ids are derived from the commit, the source and the record's type (a name-based
// UUID), so two exports of the same version agree, and an incremental export (since) can
// refer to a record an earlier file holds. Files are written beside their target and renamed
// into place: a failed or killed export leaves nothing half written.

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/export.h"
#include "feeddiff/message.h"

namespace feeddiff {

namespace {

// A name-based UUID (the shape of RFC 4122's version 5: SHA-1 of the name, version and
// variant bits set) as a WARC record id.
std::string record_id(std::string_view name) {
  auto digest = sha1(std::string("feeddiff warc record\n") + std::string(name));
  digest[6] = static_cast<unsigned char>((digest[6] & 0x0f) | 0x50);
  digest[8] = static_cast<unsigned char>((digest[8] & 0x3f) | 0x80);
  const std::string hex = hex_encode(digest.data(), 16);
  return fmt::format("<urn:uuid:{}-{}-{}-{}-{}>", hex.substr(0, 8), hex.substr(8, 4),
                     hex.substr(12, 4), hex.substr(16, 4), hex.substr(20, 12));
}

std::string sha1_label(std::string_view bytes) {
  const auto digest = sha1(bytes);
  return "sha1:" + base32_encode(std::string_view(reinterpret_cast<const char*>(digest.data()),
                                                  digest.size()));
}

// The standard reason phrase of a status (RFC 9110), "" for one it does not name.
std::string_view reason_phrase(long status) {
  switch (status) {
    case 200:
      return "OK";
    case 203:
      return "Non-Authoritative Information";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 410:
      return "Gone";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

bool same_name(std::string_view a, std::string_view b) {
  return to_lower(a) == to_lower(b);
}

// The HTTP status line and header block of a recorded response, adjusted to the stored body
// (see the top of the file), ending in the blank line.
std::string http_head(const CommitMessage& message, std::size_t body_size) {
  const long status = message.status ? std::atol(message.status->c_str()) : 200;
  std::string out = fmt::format("HTTP/1.1 {} {}\r\n", status, reason_phrase(status));
  bool decoded = false;
  std::optional<std::string> length;
  for (const RecordedHeader& h : message.headers) {
    if (same_name(h.name, "Content-Encoding") || same_name(h.name, "Transfer-Encoding")) {
      out += fmt::format("X-Feeddiff-Original-{}: {}\r\n", h.name, h.value);
      decoded = true;
    } else if (same_name(h.name, "Content-Length")) {
      length = h.value;
    } else {
      out += fmt::format("{}: {}\r\n", h.name, h.value);
    }
  }
  const std::string actual = std::to_string(body_size);
  if (length && (*length != actual || decoded))
    out += fmt::format("X-Feeddiff-Original-Content-Length: {}\r\n", *length);
  out += fmt::format("Content-Length: {}\r\n\r\n", actual);
  return out;
}

// One record: the WARC header block (fields in order, each one line), then the block.
std::string record(const std::vector<std::pair<std::string, std::string>>& fields,
                   std::string_view block) {
  std::string out = "WARC/1.1\r\n";
  for (const auto& [name, value] : fields) out += fmt::format("{}: {}\r\n", name, value);
  out += fmt::format("Content-Length: {}\r\n\r\n", block.size());
  out += block;
  out += "\r\n\r\n";
  return out;
}

// A SURT key as the CDXJ of pywb sorts by: scheme and "www." dropped, host labels reversed
// and comma-joined, a port other than the scheme's kept, then ')' and the path and query
// (query parameters sorted), all lower case, no fragment.
std::string surt(std::string_view url) {
  std::string u = to_lower(url);
  std::string scheme;
  if (auto p = u.find("://"); p != std::string::npos) {
    scheme = u.substr(0, p);
    u.erase(0, p + 3);
  }
  if (auto hash = u.find('#'); hash != std::string::npos) u.erase(hash);
  const std::size_t end = std::min(u.find_first_of("/?"), u.size());
  std::string authority = u.substr(0, end);
  std::string rest = end < u.size() ? u.substr(end) : "/";
  if (rest.front() == '?') rest.insert(0, "/");
  if (auto at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
  std::string port;
  if (auto colon = authority.rfind(':');
      colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
    port = authority.substr(colon + 1);
    authority.erase(colon);
    if ((scheme == "http" && port == "80") || (scheme == "https" && port == "443")) port.clear();
  }
  if (authority.starts_with("www.")) authority.erase(0, 4);
  std::vector<std::string> labels;
  for (std::size_t at = 0; at <= authority.size();) {
    const std::size_t dot = std::min(authority.find('.', at), authority.size());
    labels.push_back(authority.substr(at, dot - at));
    at = dot + 1;
  }
  std::string key;
  for (auto it = labels.rbegin(); it != labels.rend(); ++it) key += (key.empty() ? "" : ",") + *it;
  if (!port.empty()) key += ":" + port;
  if (auto q = rest.find('?'); q != std::string::npos) {
    std::vector<std::string> params;
    const std::string query = rest.substr(q + 1);
    for (std::size_t at = 0; at <= query.size();) {
      const std::size_t amp = std::min(query.find('&', at), query.size());
      if (amp > at) params.push_back(query.substr(at, amp - at));
      at = amp + 1;
    }
    std::sort(params.begin(), params.end());
    rest.erase(q);
    for (std::size_t i = 0; i < params.size(); ++i) rest += (i ? "&" : "?") + params[i];
  }
  return key + ")" + rest;
}

// 14 digits of a WARC-Date (yyyymmddhhmmss).
std::string timestamp14(std::string_view warc_date) {
  std::string out;
  for (char c : warc_date.substr(0, 19))
    if (c >= '0' && c <= '9') out += c;
  return out;
}

// A file written beside its target and renamed into place when finished.
class PendingFile {
 public:
  static Result<PendingFile> create(const std::string& path) {
    PendingFile f;
    f.path_ = path;
    f.temp_ = fmt::format("{}.tmp.{}", path, ::getpid());
    f.fd_ = ::open(f.temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f.fd_ < 0)
      return Error{Errc::io, fmt::format("cannot write {}: {}", path, std::strerror(errno))};
    return f;
  }
  PendingFile() = default;
  PendingFile(PendingFile&& o) noexcept
      : path_(std::move(o.path_)), temp_(std::move(o.temp_)), fd_(std::exchange(o.fd_, -1)) {}
  PendingFile& operator=(PendingFile&&) = delete;
  ~PendingFile() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(temp_.c_str());
    }
  }

  Status write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        return Error{Errc::io, fmt::format("cannot write {}: {}", path_, std::strerror(errno))};
      bytes.remove_prefix(static_cast<std::size_t>(n));
      written_ += static_cast<std::uint64_t>(n);
    }
    return Ok{};
  }

  // Makes the file durable and gives it its name.
  Status finish() {
    if (::fsync(fd_) != 0 || ::close(std::exchange(fd_, -1)) != 0 ||
        ::rename(temp_.c_str(), path_.c_str()) != 0)
      return Error{Errc::io, fmt::format("cannot write {}: {}", path_, std::strerror(errno))};
    return Ok{};
  }

  std::uint64_t written() const { return written_; }

 private:
  std::string path_, temp_;
  int fd_ = -1;
  std::uint64_t written_ = 0;
};

// The first record of a body, which later identical ones refer to.
struct FirstRecord {
  std::string id, uri, date;
};

class WarcWriter {
 public:
  // filename: the WARC file's name, as its CDXJ lines and warcinfo record give it.
  WarcWriter(const Archive& archive, PendingFile& file, std::string warcinfo_id,
             std::string filename)
      : archive_(archive),
        file_(file),
        warcinfo_id_(std::move(warcinfo_id)),
        filename_(std::move(filename)) {}

  Status write_member(std::string_view text, std::optional<nlohmann::ordered_json> cdx,
                      std::string_view key) {
    const std::string member = gzip_member(text);
    const std::uint64_t offset = file_.written();
    if (auto ok = file_.write(member); !ok) return ok;
    if (cdx) {
      (*cdx)["length"] = std::to_string(member.size());
      (*cdx)["offset"] = std::to_string(offset);
      (*cdx)["filename"] = filename_;
      cdx_lines_.push_back(std::string(key) + " " + cdx->dump());
    }
    return Ok{};
  }

  Result<WarcExportSource> run(const std::string& name, const std::optional<CommitInfo>& since) {
    WarcExportSource report;
    report.name = name;
    auto ids = archive_.source_commit_ids(name);  // newest first
    if (!ids) return ids.error();
    // The versions to write: those after since, found newest first (an older commit of the
    // first-parent chain descends from since only if every newer one does).
    std::size_t fresh = ids->size();
    if (since) {
      fresh = 0;
      for (const auto& id : *ids) {
        if (id == since->id) break;
        auto after = archive_.descends_from(id, since->id);
        if (!after) return after.error();
        if (!*after) break;
        ++fresh;
      }
    }
    std::map<std::string, FirstRecord> first;  // blob id -> the first record of its bytes
    for (std::size_t k = ids->size(); k-- > 0;) {
      const std::string& id = (*ids)[k];
      const bool write = k < fresh;
      auto info = archive_.resolve(id);
      if (!info) return info.error();
      if (!is_version_title(info->title, name)) {
        if (write) ++report.skipped;
        continue;
      }
      auto changes = archive_.source_changes(id, name);
      if (!changes) return changes.error();
      const PathChange* body_change = nullptr;
      for (const PathChange& c : *changes)
        if (!c.new_blob.empty() && (!body_change || c.path.ends_with("/not-a-feed")))
          body_change = &c;
      if (!body_change) {
        if (write) ++report.skipped;
        continue;
      }
      const CommitMessage message = parse_commit_message(info->message);
      const std::string uri = message.final_url.value_or("");
      const std::string date = message.observed_at.value_or(format_iso8601_ms(info->commit_time));
      auto known = first.find(body_change->new_blob);
      if (!write) {
        if (known == first.end() && !uri.empty())
          first.emplace(body_change->new_blob,
                        FirstRecord{record_id("response " + id + " " + name), uri, date});
        continue;
      }
      if (uri.empty()) {
        ++report.skipped;  // a version recorded without its URL: nothing to aim a record at
        continue;
      }
      auto body = archive_.read_blob(body_change->new_blob);
      if (!body) return body.error();
      const std::string_view bytes = *body;
      const std::string head = http_head(message, bytes.size());
      const std::string payload_digest = sha1_label(bytes);
      const std::string status = message.status.value_or("200");
      const std::string* type = message.header("Content-Type");
      std::string mime = type ? std::string(trim(type->substr(0, type->find(';')))) : "";
      const bool revisit = known != first.end();
      const std::string rid = record_id((revisit ? "revisit " : "response ") + id + " " + name);
      std::vector<std::pair<std::string, std::string>> fields = {
          {"WARC-Type", revisit ? "revisit" : "response"},
          {"WARC-Record-ID", rid},
          {"WARC-Warcinfo-ID", warcinfo_id_},
          {"WARC-Date", date},
          {"WARC-Target-URI", uri}};
      std::string block;
      if (revisit) {
        fields.push_back(
            {"WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"});
        fields.push_back({"WARC-Refers-To", known->second.id});
        fields.push_back({"WARC-Refers-To-Target-URI", known->second.uri});
        fields.push_back({"WARC-Refers-To-Date", known->second.date});
        block = head;
        mime = "warc/revisit";
        ++report.revisits;
      } else {
        block = head;
        block += bytes;
        first.emplace(body_change->new_blob, FirstRecord{rid, uri, date});
        ++report.responses;
      }
      fields.push_back({"WARC-Payload-Digest", payload_digest});
      fields.push_back({"WARC-Block-Digest", sha1_label(block)});
      fields.push_back({"Content-Type", "application/http;msgtype=response"});
      fields.push_back({"Feeddiff-Source", name});
      fields.push_back({"Feeddiff-Commit", id});
      // The fields in the order pywb and warcio write them, the digest without its label.
      nlohmann::ordered_json cdx = {
          {"url", uri}, {"mime", mime}, {"status", status}, {"digest", payload_digest.substr(5)}};
      if (auto ok = write_member(record(fields, block), cdx, surt(uri) + " " + timestamp14(date));
          !ok)
        return ok.error();
    }
    return report;
  }

  std::vector<std::string>& cdx_lines() { return cdx_lines_; }

 private:
  const Archive& archive_;
  PendingFile& file_;
  std::string warcinfo_id_;
  std::string filename_;
  std::vector<std::string> cdx_lines_;
};

}  // namespace

std::string warc_surt(std::string_view url) {
  return surt(url);
}

Result<WarcExportReport> export_warc(const Archive& archive, const WarcExportOptions& options) {
  std::optional<CommitInfo> since;
  if (!options.since.empty()) {
    auto resolved = archive.resolve(options.since);
    if (!resolved) return resolved.error();
    since = std::move(*resolved);
  }
  auto head = archive.resolve("HEAD");
  if (!head) return head.error();
  auto file = PendingFile::create(options.warc_path);
  if (!file) return file.error();
  const std::string range = since ? since->id + ".." + head->id : head->id;
  const std::string created = format_iso8601_ms(options.created);
  const std::string warcinfo_id = record_id("warcinfo " + range + " " + created);
  const std::string filename = std::filesystem::path(options.warc_path).filename().string();

  WarcWriter writer(archive, *file, warcinfo_id, filename);
  const std::string info = fmt::format(
      "software: {}\r\nformat: WARC File Format 1.1\r\n"
      "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/"
      "warc-1.1/\r\n"
      "description: Versions of web feeds recorded by feeddiff, one response record per "
      "archived version (git commit), dated by when it was fetched. Bodies are as stored, "
      "after HTTP content-coding was undone on receipt: a Content-Encoding or "
      "Transfer-Encoding header is kept as X-Feeddiff-Original-Content-Encoding "
      "(-Transfer-Encoding) and Content-Length is the stored body's (the received one as "
      "X-Feeddiff-Original-Content-Length when it differs). The status line's protocol and "
      "reason phrase were not recorded: HTTP/1.1 and the standard phrase stand in.\r\n"
      "feeddiff-commits: {}\r\n",
      options.software, range);
  if (auto ok = writer.write_member(record({{"WARC-Type", "warcinfo"},
                                            {"WARC-Record-ID", warcinfo_id},
                                            {"WARC-Date", created},
                                            {"WARC-Filename", filename},
                                            {"WARC-Block-Digest", sha1_label(info)},
                                            {"Content-Type", "application/warc-fields"}},
                                           info),
                                    std::nullopt, "");
      !ok)
    return ok.error();

  WarcExportReport report;
  report.head = head->id;
  for (const auto& name : options.sources) {
    auto done = writer.run(name, since);
    if (!done) return done.error();
    report.sources.push_back(std::move(*done));
  }
  auto& lines = writer.cdx_lines();
  std::sort(lines.begin(), lines.end());
  std::string cdxj;
  for (const auto& line : lines) cdxj += line + "\n";
  if (auto ok = file->finish(); !ok) return ok.error();
  if (auto ok = write_file_atomic(options.cdxj_path, cdxj); !ok) return ok.error();
  report.bytes = file->written();
  return report;
}

}  // namespace feeddiff
