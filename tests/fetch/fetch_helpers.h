#pragma once
// Shared by the fetch tests: quick requests against the scripted server, and compressed
// bodies made with the system's gzip (zlib is not linked into the tests).

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "feeddiff/fetch.h"
#include "support/http_server.h"
#include "support/process.h"

namespace feeddiff::test {

/// A request with short limits, so that failing tests fail fast.
inline FetchRequest quick_request(std::string url) {
  FetchRequest r;
  r.url = std::move(url);
  r.connect_timeout_ms = 2000;
  r.total_timeout_ms = 10'000;
  r.low_speed_bytes_per_second = 1;
  r.low_speed_seconds = 5;
  return r;
}

/// The bytes gzip makes of the input.
inline std::string gzip_bytes(std::string_view data) {
  RunResult r = run({"gzip", "-c", "-n"}, {}, data);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

/// A gzip stream of n zero bytes, made without holding the n bytes in this process.
inline std::string gzip_zeros(std::size_t n) {
  RunResult r = run({"sh", "-c", "head -c " + std::to_string(n) + " /dev/zero | gzip -c -n"});
  REQUIRE(r.exit_code == 0);
  return r.out;
}

/// True when the message is one line, as every error message must be.
inline bool one_line(const std::string& message) {
  return !message.empty() && message.find('\n') == std::string::npos;
}

}  // namespace feeddiff::test
