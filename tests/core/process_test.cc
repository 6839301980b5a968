// run_child: the one runner behind git and the exec hook. Each case runs /bin/sh, so that
// what the child does (read stdin or not, flood stdout, start a grandchild) is in the test.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "feeddiff/process.h"
#include "support/process.h"

using namespace feeddiff;

namespace {

ChildRequest shell(const std::string& script) {
  ChildRequest request;
  request.program = "/bin/sh";
  request.argv = {"/bin/sh", "-c", script};
  request.timeout_ms = 20'000;
  return request;
}

// Whether a process is gone: no such process, or a zombie waiting for whoever reaps orphans.
bool gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto paren = line.rfind(')');
  return paren == std::string::npos || (paren + 2 < line.size() && line[paren + 2] == 'Z');
}

}  // namespace

TEST_CASE("run_child reports the exit status and why it failed", "[core]") {
  auto ok = run_child(shell("exit 0"));
  REQUIRE(ok);
  CHECK(static_cast<bool>(*ok));
  CHECK(ok->exit_status == 0);
  CHECK(ok->why.empty());

  auto failed = run_child(shell("exit 3"));
  REQUIRE(failed);
  CHECK_FALSE(static_cast<bool>(*failed));
  CHECK(failed->exit_status == 3);
  CHECK(failed->signal == 0);
  CHECK(failed->why == "exit status 3");

  auto killed = run_child(shell("kill -9 $$"));
  REQUIRE(killed);
  CHECK(killed->exit_status == -1);
  CHECK(killed->signal == 9);
  CHECK(killed->why == "killed by signal 9");
}

TEST_CASE("run_child says it cannot run a program that is not there", "[core]") {
  ChildRequest request;
  request.program = "/nonexistent/feeddiff-test-program";
  auto run = run_child(request);
  REQUIRE_FALSE(run);
  CHECK(run.error().code == Errc::io);
  CHECK(run.error().message.starts_with("cannot run /nonexistent/feeddiff-test-program: "));
}

TEST_CASE("run_child captures stdout and stderr apart", "[core]") {
  auto run = run_child(shell("printf 'out\\n'; printf 'err\\n' >&2"));
  REQUIRE(run);
  CHECK(run->output == "out\n");
  CHECK(run->errors == "err\n");
}

TEST_CASE("run_child delivers stdin and closes it", "[core]") {
  ChildRequest request = shell("cat; echo end");
  const std::string input = "first line\nsecond line\n";
  request.input = input;
  auto run = run_child(request);
  REQUIRE(run);
  CHECK(run->output == input + "end\n");

  // Without input stdin is /dev/null: a reader sees its end at once.
  auto empty = run_child(shell("cat; echo end"));
  REQUIRE(empty);
  CHECK(empty->output == "end\n");
}

TEST_CASE("run_child passes the environment additions and the working directory", "[core]") {
  ::setenv("FEEDDIFF_TEST_KEPT", "kept", 1);
  ::setenv("FEEDDIFF_TEST_REPLACED", "old", 1);
  const std::string dir = test::make_temp_dir("process-env");
  ChildRequest request =
      shell("echo \"$FEEDDIFF_TEST_KEPT $FEEDDIFF_TEST_REPLACED $FEEDDIFF_TEST_NEW\"; pwd -P");
  request.env = {{"FEEDDIFF_TEST_REPLACED", "new"}, {"FEEDDIFF_TEST_NEW", "added=yes"}};
  request.dir = dir;
  auto run = run_child(request);
  ::unsetenv("FEEDDIFF_TEST_KEPT");
  ::unsetenv("FEEDDIFF_TEST_REPLACED");
  REQUIRE(run);
  char real[4096];
  REQUIRE(::realpath(dir.c_str(), real) != nullptr);
  CHECK(run->output == "kept new added=yes\n" + std::string(real) + "\n");
}

TEST_CASE("run_child does not deadlock on output larger than a pipe holds", "[core]") {
  // 4 MB out while 4 MB are written in: a runner that wrote all of stdin before reading
  // stdout, or read stdout to its end before stderr, would wait for ever.
  ChildRequest request = shell("cat; head -c 1000000 /dev/zero | tr '\\0' e >&2");
  const std::string input(4u << 20, 'x');
  request.input = input;
  auto run = run_child(request);
  REQUIRE(run);
  CHECK(run->exit_status == 0);
  CHECK(run->output.size() == input.size());
  CHECK(run->output == input);
  CHECK(run->errors == std::string(1'000'000, 'e'));
}

TEST_CASE("run_child sends stdout to stderr when asked", "[core]") {
  // The child's stdout becomes feeddiff's stderr, here a capture of the test's own: run the
  // runner in a child process of the test whose stderr is a file.
  const std::string dir = test::make_temp_dir("process-to-stderr");
  const std::string file = dir + "/stderr";
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::FILE* f = std::fopen(file.c_str(), "w");
    if (!f || ::dup2(::fileno(f), STDERR_FILENO) < 0) ::_exit(2);
    ChildRequest request = shell("echo to-stdout");
    request.out = ChildStream::to_stderr;
    request.err = ChildStream::inherit;
    auto run = run_child(request);
    ::_exit(run && run->output.empty() && run->exit_status == 0 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(test::slurp(file) == "to-stdout\n");
}

TEST_CASE("run_child kills a child that ignores stdin and sleeps, its grandchild too", "[core]") {
  const std::string dir = test::make_temp_dir("process-deadline");
  const std::string pid_file = dir + "/grandchild";
  // The grandchild keeps no pipe of ours: only the group kill can stop it.
  ChildRequest request =
      shell("sleep 30 </dev/null >/dev/null 2>&1 & echo $! > '" + pid_file + "'; exec sleep 30");
  const std::string input(1u << 20, 'x');  // more than a pipe holds, never read
  request.input = input;
  request.timeout_ms = 1000;
  const auto start = std::chrono::steady_clock::now();
  auto run = run_child(request);
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE(run);
  CHECK(run->timed_out);
  CHECK_FALSE(static_cast<bool>(*run));
  CHECK(run->signal == SIGKILL);
  CHECK(run->why == "timed out after 1s, killed");
  CHECK(took < std::chrono::seconds(10));
  const pid_t grandchild = static_cast<pid_t>(std::stol(test::slurp(pid_file)));
  bool dead = false;
  for (int i = 0; i < 200 && !dead; ++i) {
    dead = gone(grandchild);
    if (!dead) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(dead);
}

TEST_CASE("run_child sends SIGTERM first when given a grace", "[core]") {
  ChildRequest request = shell("trap 'exit 7' TERM; sleep 30 & wait");
  request.timeout_ms = 300;
  request.term_grace_ms = 5000;
  auto run = run_child(request);
  REQUIRE(run);
  CHECK(run->timed_out);
  // The trap ran: SIGTERM came first (what it printed after the deadline is not read).
  CHECK(run->exit_status == 7);
}
