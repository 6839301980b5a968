#include "poll/robots_cache.h"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <vector>

namespace feeddiff::articles {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "feeddiff-robots 1\n";

// A cache name (lowercase hex): an origin is text from a feed, never a file name.
std::string entry_name(const std::string& origin) {
  return "robots/" + sha1_hex(origin);
}

// A header value on one line: a validator with a line end in it is not kept.
std::string one_line_or_empty(const std::string& value) {
  return value.find_first_of("\r\n") == std::string::npos ? value : std::string();
}

}  // namespace

std::optional<CachedRobots> load_robots(const Archive& archive, const std::string& origin) {
  auto text = archive.cache_read(entry_name(origin));
  if (!text || !text->starts_with(kMagic)) return std::nullopt;
  CachedRobots out;
  std::size_t at = kMagic.size();
  std::optional<std::size_t> length;
  // Header lines "key\tvalue", then an empty line, then `length` bytes of body.
  while (true) {
    const std::size_t eol = text->find('\n', at);
    if (eol == std::string::npos) return std::nullopt;
    const std::string line = text->substr(at, eol - at);
    at = eol + 1;
    if (line.empty()) break;
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) return std::nullopt;
    const std::string key = line.substr(0, tab), value = line.substr(tab + 1);
    if (key == "origin") out.origin = value;
    if (key == "fetched") out.fetched = std::strtoll(value.c_str(), nullptr, 10);
    if (key == "found") out.found = value == "yes";
    if (key == "etag") out.etag = value;
    if (key == "last-modified") out.last_modified = value;
    if (key == "length") length = std::strtoull(value.c_str(), nullptr, 10);
  }
  // A file a crash cut short, or another origin's: not this origin's copy.
  if (!length || text->size() - at != *length || out.origin != origin) return std::nullopt;
  out.body = text->substr(at);
  return out;
}

void save_robots(const Archive& archive, const CachedRobots& r) {
  const std::string body = r.found ? r.body : std::string();
  std::string text(kMagic);
  text +=
      fmt::format("origin\t{}\nfetched\t{}\nfound\t{}\netag\t{}\nlast-modified\t{}\nlength\t{}\n\n",
                  one_line_or_empty(r.origin), r.fetched, r.found ? "yes" : "no",
                  one_line_or_empty(r.etag), one_line_or_empty(r.last_modified), body.size());
  archive.cache_write(entry_name(r.origin), text + body);
}

void prune_robots(const Archive& archive) {
  struct File {
    fs::path path;
    fs::file_time_type written;
    std::uintmax_t size = 0;
  };
  std::vector<File> files;
  std::uintmax_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(archive.cache_dir()) / "robots", ec)) {
    std::error_code file_ec;
    if (!e.is_regular_file(file_ec)) continue;
    File f{e.path(), e.last_write_time(file_ec), e.file_size(file_ec)};
    if (file_ec) continue;
    total += f.size;
    files.push_back(std::move(f));
  }
  if (total <= kRobotsCacheBytes) return;
  std::sort(files.begin(), files.end(),
            [](const File& a, const File& b) { return a.written < b.written; });
  for (const File& f : files) {
    if (total <= kRobotsCacheBytes) break;
    if (fs::remove(f.path, ec)) total -= f.size;
  }
}

}  // namespace feeddiff::articles
