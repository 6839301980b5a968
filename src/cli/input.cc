#include "cli/input.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include <unistd.h>

#include "feeddiff/changes.h"

namespace feeddiff::cli {

std::string read_stdin() {
  std::string bytes;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) bytes.append(buf, n);
  return bytes;
}

bool names_commit(std::string_view what) {
  std::error_code ec;
  return what != "-" && !std::filesystem::is_regular_file(std::string(what), ec);
}

Result<FeedInput> read_feed_input(const Globals& globals, std::string_view what,
                                  std::string_view source) {
  FeedInput in;
  if (what == "-") {
    in.bytes = read_stdin();
    in.label = "<stdin>";
    return in;
  }
  if (!names_commit(what)) {
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
  return feed_input_at(*archive, what, source);
}

Result<TimeMs> moment_of(const std::string& when) {
  auto now = current_time();
  if (!now) return now.error();
  return parse_moment(when, *now);
}

Result<CommitInfo> version_at(const Archive& archive, const std::string& source,
                              const std::string& when) {
  auto moment = moment_of(when);
  if (!moment) return moment.error();
  return version_at(archive, source, *moment);
}

Result<CommitInfo> version_at(const Archive& archive, const std::string& source, TimeMs moment) {
  if (auto ok = check_source_name(source); !ok) return ok.error();
  auto commit = source_version_at(archive, source, moment);
  if (!commit) return commit.error();
  if (::isatty(STDERR_FILENO) == 1) {
    const TimeMs observed = observation_time(*commit);
    std::string note =
        fmt::format("{} as of {}: the version observed at {} (commit {})", source,
                    format_iso8601_ms(moment), format_iso8601_ms(observed), commit->short_id());
    // The author time is the origin's clock (Date - Age) when the response had a Date.
    if (commit->author_time != observed && commit->author_time / 1000 != observed / 1000)
      note += fmt::format("; the server dated it {} (Origin-Date, which --at does not use)",
                          format_iso8601_ms(commit->author_time));
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", escape_terminal(note).c_str());
  }
  return commit;
}

}  // namespace feeddiff::cli
