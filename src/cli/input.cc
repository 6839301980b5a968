#include "cli/input.h"

#include <fmt/format.h>
#include <cstdio>
#include <filesystem>

namespace feeddiff::cli {

Result<FeedInput> read_feed_input(const Globals& globals, std::string_view what,
                                  std::string_view source) {
  FeedInput in;
  if (what == "-") {
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) in.bytes.append(buf, n);
    in.label = "<stdin>";
    return in;
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(std::string(what), ec)) {
    auto bytes = read_file(std::string(what));
    if (!bytes) return bytes.error();
    in.bytes = std::move(*bytes);
    in.label = std::string(what);
    return in;
  }
  auto archive = open_archive(globals);
  if (!archive)
    return Error{
        Errc::not_found,
        fmt::format("'{}' is no file, and no archive is here to look it up as a commit", what)};
  auto commit = archive->resolve(what);
  if (!commit)
    return Error{Errc::not_found, fmt::format("'{}' is neither a file nor a commit", what)};
  std::string name(source);
  if (name.empty()) {
    if (const std::string* s = commit->trailer("Source"))
      name = *s;
    else
      return Error{Errc::usage,
                   fmt::format("commit {} records no single source; name one", commit->short_id())};
  }
  if (auto ok = check_source_name(name); !ok) return ok.error();
  auto dir = archive->source_dir_at(commit->id, name);
  if (!dir) return dir.error();
  for (const char* file : {"response.xml", "response.json"}) {
    const std::string path = *dir + file;
    auto body = archive->read(commit->id, path);
    if (!body) return body.error();
    if (!*body) continue;
    in.bytes = std::move(**body);
    in.label = fmt::format("{}:{}", commit->short_id(), path);
    in.commit = commit->id;
    in.source = name;
    return in;
  }
  return Error{Errc::not_found,
               fmt::format("source '{}' has no raw body at commit {}", name, commit->short_id())};
}

}  // namespace feeddiff::cli
