#include "support/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <list>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace feeddiff::test {

namespace {

constexpr std::size_t kMaxHeadBytes = 64 * 1024;

char lower_ascii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return lower_ascii(x) == lower_ascii(y);
         });
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// True when a comma-separated header value such as "keep-alive, Upgrade" holds the token.
bool has_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    auto comma = list.find(',');
    if (iequals(trim_ows(list.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

const std::string* find_header(const std::vector<std::pair<std::string, std::string>>& headers,
                               std::string_view name) {
  for (const auto& [n, v] : headers)
    if (iequals(n, name)) return &v;
  return nullptr;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 304:
      return "Not Modified";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
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
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

std::string hex(std::size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%zx", n);
  return buf;
}

// Closes the descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

enum class Wait { ready, timeout, stop };

}  // namespace

std::optional<std::string> RecordedRequest::header(std::string_view name) const {
  if (const std::string* v = find_header(headers, name)) return *v;
  return std::nullopt;
}

struct HttpServer::Impl {
  struct Connection {
    std::thread thread;
    std::atomic<bool> done{false};
  };

  explicit Impl(Handler h) : handler(std::move(h)) {}

  Handler handler;
  std::mutex handler_mutex;  // serializes handler calls

  int listen_fd = -1;
  // Every blocking wait also polls the read end; one byte written at shutdown makes it
  // readable for all threads at once (nobody reads it).
  int wake_read = -1;
  int wake_write = -1;
  int port = 0;
  std::atomic<bool> stopping{false};

  mutable std::mutex mutex;  // guards the fields below
  std::vector<RecordedRequest> requests;
  std::size_t accepted = 0;
  std::size_t open = 0;
  std::size_t max_open = 0;

  std::list<Connection> connections;  // touched by the listener thread only, then ~HttpServer
  std::thread listener;

  // Waits until fd has one of the events, the timeout passes (-1: never), or the server stops.
  Wait wait_for(int fd, short events, int timeout_ms) const {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      if (stopping.load()) return Wait::stop;
      pollfd fds[2] = {{wake_read, POLLIN, 0}, {fd, events, 0}};
      int wait = -1;
      if (timeout_ms >= 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        wait = static_cast<int>(std::max<long long>(0, left.count()));
      }
      int n = ::poll(fds, fd >= 0 ? 2 : 1, wait);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Wait::stop;
      }
      if (fds[0].revents) return Wait::stop;
      if (n > 0) return Wait::ready;
      if (timeout_ms >= 0 && Clock::now() >= deadline) return Wait::timeout;
    }
  }

  // Sleeps, cut short when the server stops; false when it stopped.
  bool sleep_ms(int ms) const { return ms <= 0 || wait_for(-1, 0, ms) == Wait::timeout; }

  // Reads what is available into buf; false on end of stream, error or stop.
  bool read_more(int fd, std::string& buf) const {
    for (;;) {
      if (wait_for(fd, POLLIN, -1) != Wait::ready) return false;
      char chunk[16384];
      ssize_t r = ::recv(fd, chunk, sizeof chunk, 0);
      if (r > 0) {
        buf.append(chunk, static_cast<std::size_t>(r));
        return true;
      }
      if (r == 0) return false;
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    }
  }

  // Sends everything; false when the peer went away or the server stops.
  bool send_all(int fd, std::string_view data) const {
    while (!data.empty()) {
      if (stopping.load()) return false;
      ssize_t w = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0) {
        data.remove_prefix(static_cast<std::size_t>(w));
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (wait_for(fd, POLLOUT, -1) != Wait::ready) return false;
        continue;
      }
      return false;
    }
    return true;
  }

  void listen_loop() {
    while (wait_for(listen_fd, POLLIN, -1) == Wait::ready) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        // Out of descriptors: back off a little instead of spinning.
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) sleep_ms(10);
        continue;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      {
        std::lock_guard lock(mutex);
        ++accepted;
        ++open;
        max_open = std::max(max_open, open);
      }
      for (auto it = connections.begin(); it != connections.end();) {
        if (it->done.load()) {
          it->thread.join();
          it = connections.erase(it);
        } else {
          ++it;
        }
      }
      Connection& conn = connections.emplace_back();
      conn.thread = std::thread([this, fd, &conn] {
        serve(fd);
        conn.done.store(true);
      });
    }
  }

  void serve(int raw_fd) {
    Fd fd(raw_fd);
    bool reset = false;
    try {
      reset = !serve_requests(fd.get());
    } catch (...) {
      // A connection thread must never take the test process down.
    }
    if (reset) {
      linger hard{1, 0};
      ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    } else {
      ::shutdown(fd.get(), SHUT_WR);
    }
    std::lock_guard lock(mutex);
    --open;
  }

  // Serves requests until the connection ends; false when it must end with a reset.
  bool serve_requests(int fd) {
    std::string buf;
    for (;;) {
      std::size_t end;
      while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
        if (buf.size() > kMaxHeadBytes) return true;
        if (!read_more(fd, buf)) return true;
      }
      RecordedRequest request;
      std::string version;
      if (!parse_head(std::string_view(buf).substr(0, end), request, version)) {
        send_all(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return true;
      }
      buf.erase(0, end + 4);
      if (find_header(request.headers, "Transfer-Encoding")) {
        // Request bodies are not needed by any test; refuse rather than misparse.
        send_all(fd,
                 "HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return true;
      }
      if (const std::string* cl = find_header(request.headers, "Content-Length")) {
        std::size_t length = std::strtoull(cl->c_str(), nullptr, 10);
        while (buf.size() < length)
          if (!read_more(fd, buf)) return true;
        request.body = buf.substr(0, length);
        buf.erase(0, length);
      }
      bool keep_alive = version == "HTTP/1.1";
      if (const std::string* c = find_header(request.headers, "Connection")) {
        if (has_token(*c, "close")) keep_alive = false;
        if (has_token(*c, "keep-alive")) keep_alive = true;
      }
      {
        std::lock_guard lock(mutex);
        requests.push_back(request);
      }
      Reply reply;
      {
        std::lock_guard lock(handler_mutex);
        try {
          reply = handler(request);
        } catch (const std::exception& e) {
          reply = Reply{500, {}, std::string("handler threw: ") + e.what()};
        } catch (...) {
          reply = Reply{500, {}, "handler threw"};
        }
      }
      if (!sleep_ms(reply.delay_ms)) return true;
      if (reply.reset) return false;
      if (reply.silent) {
        // Say nothing, but notice when the client gives up so the thread can end.
        for (;;) {
          std::string ignored;
          if (!read_more(fd, ignored)) return true;
        }
      }
      if (const std::string* c = find_header(reply.headers, "Connection"))
        if (has_token(*c, "close")) keep_alive = false;
      if (!respond(fd, request.method == "HEAD", reply, keep_alive)) return true;
      if (!keep_alive) return true;
    }
  }

  static bool parse_head(std::string_view head, RecordedRequest& request, std::string& version) {
    auto eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    head = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
    auto sp1 = line.find(' ');
    if (sp1 == std::string_view::npos) return false;
    auto sp2 = line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos) return false;
    request.method = std::string(line.substr(0, sp1));
    request.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
    version = std::string(line.substr(sp2 + 1));
    if (!version.starts_with("HTTP/1.")) return false;
    while (!head.empty()) {
      eol = head.find("\r\n");
      line = head.substr(0, eol);
      head = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
      if (line.empty()) continue;
      if ((line.front() == ' ' || line.front() == '\t') && !request.headers.empty()) {
        // Obsolete line folding: the line continues the previous value.
        auto& value = request.headers.back().second;
        value += ' ';
        value += trim_ows(line);
        continue;
      }
      auto colon = line.find(':');
      if (colon == std::string_view::npos || colon == 0) return false;
      request.headers.emplace_back(std::string(line.substr(0, colon)),
                                   std::string(trim_ows(line.substr(colon + 1))));
    }
    return true;
  }

  // Sends the reply; false when the connection must close afterwards.
  bool respond(int fd, bool head_only, const Reply& reply, bool keep_alive) const {
    const int status = reply.status;
    const bool bodiless_status = status / 100 == 1 || status == 204 || status == 304;
    const bool user_framing = find_header(reply.headers, "Content-Length") ||
                              find_header(reply.headers, "Transfer-Encoding");
    const std::size_t declared = reply.content_length.value_or(reply.body.size());

    std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
    for (const auto& [name, value] : reply.headers) out += name + ": " + value + "\r\n";
    if (!user_framing) {
      if (reply.chunked)
        out += "Transfer-Encoding: chunked\r\n";
      else if (!bodiless_status || reply.content_length)
        out += "Content-Length: " + std::to_string(declared) + "\r\n";
    }
    if (!keep_alive && !find_header(reply.headers, "Connection")) out += "Connection: close\r\n";
    out += "\r\n";

    if (head_only || bodiless_status) return send_all(fd, out) && keep_alive;

    std::string_view body = reply.body;
    if (reply.close_early) body = body.substr(0, body.size() / 2);
    // A body that disagrees with its declared length leaves the stream unusable.
    const bool framing_ok = !reply.close_early && (reply.chunked || declared == body.size());

    if (reply.drip_ms_per_byte > 0) {
      if (!send_all(fd, out)) return false;
      for (char c : body) {
        if (!sleep_ms(reply.drip_ms_per_byte)) return false;
        std::string piece = reply.chunked ? std::string("1\r\n") + c + "\r\n" : std::string(1, c);
        if (!send_all(fd, piece)) return false;
      }
      if (reply.chunked && framing_ok && !send_all(fd, "0\r\n\r\n")) return false;
      return framing_ok && keep_alive;
    }

    if (reply.chunked) {
      // Several chunks of varied size, so clients see real chunk boundaries.
      std::size_t size = 1;
      while (!body.empty()) {
        std::size_t n = std::min(size, body.size());
        out += hex(n) + "\r\n";
        out.append(body.substr(0, n));
        out += "\r\n";
        body.remove_prefix(n);
        size = std::min<std::size_t>(size * 4, 16384);
      }
      if (framing_ok) out += "0\r\n\r\n";
    } else {
      out.append(body);
    }
    return send_all(fd, out) && framing_ok && keep_alive;
  }
};

HttpServer::HttpServer(Handler handler) : impl_(std::make_unique<Impl>(std::move(handler))) {
  Impl& s = *impl_;
  s.listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s.listen_fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(s.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int fds[2];
  if (::bind(s.listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(s.listen_fd, 256) != 0 ||
      ::getsockname(s.listen_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      ::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::string why = std::strerror(errno);
    ::close(s.listen_fd);
    throw std::runtime_error("cannot start the test HTTP server: " + why);
  }
  s.wake_read = fds[0];
  s.wake_write = fds[1];
  s.port = ntohs(addr.sin_port);
  s.listener = std::thread([&s] { s.listen_loop(); });
}

HttpServer::~HttpServer() {
  Impl& s = *impl_;
  s.stopping.store(true);
  char byte = 'x';
  while (::write(s.wake_write, &byte, 1) < 0 && errno == EINTR) {
  }
  s.listener.join();
  for (auto& conn : s.connections) conn.thread.join();
  ::close(s.listen_fd);
  ::close(s.wake_read);
  ::close(s.wake_write);
}

int HttpServer::port() const {
  return impl_->port;
}

std::string HttpServer::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + std::string(path);
}

std::vector<RecordedRequest> HttpServer::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

std::size_t HttpServer::request_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests.size();
}

std::size_t HttpServer::connection_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->accepted;
}

std::size_t HttpServer::max_concurrent_connections() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->max_open;
}

}  // namespace feeddiff::test
