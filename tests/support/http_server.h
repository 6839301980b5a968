#pragma once
// A scripted HTTP/1.1 server on 127.0.0.1 for tests, written on plain sockets so that it
// can misbehave on purpose: drip bytes, lie about Content-Length, reset the connection,
// answer nothing. Each request is recorded for assertions; a handler scripts each reply.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace feeddiff::test {

/// A request as the server received it.
struct RecordedRequest {
  std::string method;                                        ///< GET, HEAD, ...
  std::string target;                                        ///< path and query, as sent
  std::vector<std::pair<std::string, std::string>> headers;  ///< as sent, in order
  std::string body;  ///< the body a Content-Length framed (a POST's), or empty
  /// The first header with this name (case-insensitive), or nullopt.
  std::optional<std::string> header(std::string_view name) const;
};

/// What to answer, and how to misbehave while answering. Every member has a default, so
/// `Reply{.status = 304}` or `Reply{200, {{"ETag", "\"v1\""}}, "body"}` compile warning-free.
struct Reply {
  int status = 200;                                            ///< status code
  std::vector<std::pair<std::string, std::string>> headers{};  ///< sent as given, in order
  std::string body{};                                          ///< sent after the headers
  /// Content-Length to declare; default body.size(). Larger than the body: truncated reply.
  /// Content-Length or Transfer-Encoding among `headers` replaces the server's own framing.
  std::optional<std::size_t> content_length{};
  bool chunked = false;      ///< Transfer-Encoding: chunked instead of Content-Length
  int drip_ms_per_byte = 0;  ///< send the body one byte at a time, this far apart
  bool reset = false;        ///< send nothing and reset the connection (RST)
  bool silent = false;       ///< read the request, then say nothing until stopped
  bool close_early = false;  ///< send headers and part of the body, then close
  int delay_ms = 0;          ///< wait this long before answering (cut short when stopped)
};

/// A server running on its own threads until destroyed: one listener, one thread per
/// connection. Connections are kept alive (HTTP/1.1) unless the request or the reply says
/// `Connection: close` or a fault ends them. HEAD gets the headers GET would get.
class HttpServer {
 public:
  /// Decides the reply to each request. Calls are serialized (one at a time, whatever the
  /// number of connections), so a handler may keep state without locking; it should return
  /// quickly and use Reply::delay_ms to be slow.
  using Handler = std::function<Reply(const RecordedRequest&)>;
  /// Starts listening on 127.0.0.1 on a free port.
  explicit HttpServer(Handler handler);
  /// Stops the server and joins its threads.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// The port it listens on.
  int port() const;
  /// `http://127.0.0.1:<port><path>`.
  std::string url(std::string_view path) const;
  /// Every request received so far, in order.
  std::vector<RecordedRequest> requests() const;
  /// How many requests were received so far.
  std::size_t request_count() const;
  /// How many connections were accepted so far.
  std::size_t connection_count() const;
  /// The most connections that were open at the same time. A connection counts from accept
  /// until the server has seen the client close it (or closed it itself).
  std::size_t max_concurrent_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace feeddiff::test
