#pragma once
// A real git server for the end-to-end tests: `git daemon` on 127.0.0.1 with pushes enabled
// (shared by the clone and sync tests).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "support/process.h"

namespace feeddiff::test {

// A free TCP port on 127.0.0.1 (bound, read, released: git daemon takes it right after).
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// `git daemon` serving every bare repository under base, with pushes enabled, stopped when
// destroyed.
class GitDaemon {
 public:
  explicit GitDaemon(std::string base) : base_(std::move(base)), port_(free_port()) {
    const std::string pid_file = base_ + "/daemon.pid";
    auto r = run({"git", "daemon", "--detach", "--reuseaddr", "--export-all",
                  "--enable=receive-pack", "--listen=127.0.0.1", "--port=" + std::to_string(port_),
                  "--base-path=" + base_, "--pid-file=" + pid_file, base_});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (int i = 0; i < 100 && pid_ == 0; ++i) {
      const std::string pid = slurp_if(pid_file);
      if (!pid.empty()) pid_ = std::stoi(pid);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    REQUIRE(pid_ > 0);
  }
  ~GitDaemon() {
    if (pid_ > 0) ::kill(pid_, SIGTERM);
  }
  GitDaemon(const GitDaemon&) = delete;
  GitDaemon& operator=(const GitDaemon&) = delete;
  std::string url(std::string_view repo) const {
    return "git://127.0.0.1:" + std::to_string(port_) + "/" + std::string(repo);
  }
  // Waits until the daemon answers for repo.
  void wait_for(std::string_view repo) const {
    for (int i = 0; i < 100; ++i) {
      if (run({"git", "ls-remote", url(repo)}).exit_code == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL("git daemon did not answer");
  }

 private:
  static std::string slurp_if(const std::string& path) {
    auto r = run({"cat", path});
    return r.exit_code == 0 ? r.out : "";
  }
  std::string base_;
  int port_;
  int pid_ = 0;
};

}  // namespace feeddiff::test
