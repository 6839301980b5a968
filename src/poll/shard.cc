// Which poller of a fleet polls a source: `poll --shard K/N`.

#include <fmt/format.h>
#include <charconv>
#include <cstdint>

#include "feeddiff/poll.h"

namespace feeddiff {

namespace {

Result<unsigned> parse_count(std::string_view text, std::string_view whole) {
  unsigned n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return Error{Errc::usage,
                 fmt::format("bad shard '{}': write K/N, e.g. 0/4 for the first of four", whole)};
  return n;
}

}  // namespace

Result<Shard> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos)
    return Error{Errc::usage,
                 fmt::format("bad shard '{}': write K/N, e.g. 0/4 for the first of four", text)};
  auto k = parse_count(text.substr(0, slash), text);
  if (!k) return k.error();
  auto n = parse_count(text.substr(slash + 1), text);
  if (!n) return n.error();
  if (*n == 0 || *n > kMaxShards)
    return Error{Errc::usage,
                 fmt::format("bad shard '{}': N must be from 1 to {}", text, kMaxShards)};
  if (*k >= *n)
    return Error{
        Errc::usage,
        fmt::format("bad shard '{}': K counts from 0, so it must be below N ({})", text, *n)};
  return Shard{*k, *n};
}

unsigned shard_of(const SourceConfig& source, unsigned count) {
  if (source.shard) return *source.shard;
  if (count <= 1) return 0;
  const UrlParts parts = split_url(source.url);
  std::string host = to_lower(parts.host);
  if (host.empty()) host = source.url;  // no authority: keep it stable all the same
  return static_cast<unsigned>(fnv1a64(host) % count);
}

}  // namespace feeddiff
