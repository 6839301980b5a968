// Hooks run only with this machine's consent: a [notify] exec or webhook that arrived with a
// clone or was edited by hand waits for `feeddiff trust`, its notifications kept meanwhile;
// a hook script in the archive is trusted with its contents. (Sync: tests/cli/sync_test.cc.)

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "poll/poll_helpers.h"

namespace feeddiff::test {
namespace {

void commit_all(const CliArchive& archive, const std::string& message) {
  REQUIRE(archive.git({"add", "-A"}).exit_code == 0);
  REQUIRE(archive.git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message})
              .exit_code == 0);
}

std::vector<std::string> log_lines(const std::string& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(dir + "/log")) return out;
  const std::string text = slurp(dir + "/log");
  for (std::size_t at = 0; at < text.size();) {
    const auto nl = text.find('\n', at);
    out.push_back(text.substr(at, nl - at));
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

// An exec hook that appends the commit it was run for to <dir>/log.
std::string logging_hook(const std::string& dir) {
  return "\n[notify]\nexec = \"cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" + dir + "/log'\"\n";
}

RunResult poll_now(const CliArchive& archive) {
  return archive({"poll", "--force", "--timeout", "5s"});
}

TEST_CASE("a hook edited in by hand runs only after `feeddiff trust`, then delivers what waited",
          "[cli]") {
  std::string body = rss("one");
  HttpServer server = serve_changing(&body);
  CliArchive archive("trust-hand");
  const std::string hooks = make_temp_dir("trust-hand-hook");
  REQUIRE(archive({"add", "news", server.url("/feed")}).exit_code == 0);
  spit(archive.dir() + "/feeddiff.toml",
       slurp(archive.dir() + "/feeddiff.toml") + logging_hook(hooks));
  commit_all(archive, "a hook");

  auto first = poll_now(archive);
  INFO(first.out << first.err);
  CHECK(first.exit_code == 1);  // the change is recorded; the hook could not run
  const std::string added = archive.head().substr(0, 40);
  CHECK(log_lines(hooks).empty());
  CHECK(count_lines(first.err) == 1);
  CHECK_THAT(first.err,
             Catch::Contains("notify: not run, not trusted on this machine: exec \"cat"));
  CHECK_THAT(first.err, Catch::Contains("1 notification kept pending"));
  CHECK_THAT(first.err, Catch::Contains("`feeddiff trust`"));

  // status says so, in text and JSON; `trust` lists it as waiting.
  CHECK_THAT(status_text(archive, "news"),
             Catch::Contains("exec hook not trusted on this machine, not run (1 notification "
                             "kept): see `feeddiff trust`"));
  auto json = status_json(archive, "news");
  CHECK(json["hooks_waiting_for_trust"] == nlohmann::json::array({"exec"}));
  CHECK(json["pending_notifications"] == 1);
  auto listed = archive({"trust"});
  REQUIRE(listed.exit_code == 0);
  CHECK_THAT(listed.out, Catch::StartsWith("waiting  exec \"cat > /dev/null;"));
  CHECK_THAT(listed.out, Catch::Contains(", for news\n"));

  // Consent: the next poll delivers the waiting notification, with nothing new fetched.
  auto trusted = archive({"trust", "--all"});
  INFO(trusted.out << trusted.err);
  REQUIRE(trusted.exit_code == 0);
  CHECK_THAT(trusted.out, Catch::StartsWith("trusted  exec \"cat"));
  auto second = archive({"poll"});
  INFO(second.out << second.err);
  CHECK(second.exit_code == 0);
  CHECK(log_lines(hooks) == std::vector<std::string>{added});
  CHECK(status_json(archive, "news")["hooks_waiting_for_trust"].empty());
  CHECK_THAT(archive({"trust"}).out, Catch::StartsWith("trusted  exec"));

  // The value edited again by hand: it waits again (consent is to a value, not to a key).
  std::string toml = slurp(archive.dir() + "/feeddiff.toml");
  toml.replace(toml.find("cat > /dev/null;"), 16, "cat >/dev/null;");
  spit(archive.dir() + "/feeddiff.toml", toml);
  commit_all(archive, "the hook edited");
  body = rss("two");
  auto third = poll_now(archive);
  CHECK(third.exit_code == 1);
  CHECK(log_lines(hooks).size() == 1);
}

TEST_CASE("a cloned archive's hooks do not run at its first poll", "[cli]") {
  std::string body = rss("one");
  HttpServer server = serve_changing(&body);
  CliArchive origin("trust-clone-origin");
  const std::string hooks = make_temp_dir("trust-clone-hook");
  REQUIRE(origin({"add", "news", server.url("/feed")}).exit_code == 0);
  spit(origin.dir() + "/feeddiff.toml", slurp(origin.dir() + "/feeddiff.toml") +
                                            logging_hook(hooks) + "webhook = \"" +
                                            server.url("/hook") + "\"\n");
  commit_all(origin, "hooks");
  trust_all_hooks(origin);  // the origin's owner trusts them: that does not travel

  const std::string dir = make_temp_dir("trust-clone") + "/clone";
  auto cloned = run_feeddiff({"clone", origin.dir(), dir});
  INFO(cloned.out << cloned.err);
  REQUIRE(cloned.exit_code == 0);
  auto polled = run_feeddiff({"-C", dir, "poll", "--force", "--timeout", "5s"});
  INFO(polled.out << polled.err);
  CHECK(polled.exit_code == 1);
  CHECK(log_lines(hooks).empty());
  for (const auto& request : server.requests()) CHECK(request.target == "/feed");
  CHECK_THAT(polled.err, Catch::Contains("not trusted on this machine: exec \"cat"));
  CHECK_THAT(polled.err, Catch::Contains("webhook http://127.0.0.1:"));
  auto status = run_feeddiff({"-C", dir, "status", "--json"});
  auto doc = nlohmann::json::parse(status.out);
  CHECK(doc["sources"][0]["hooks_waiting_for_trust"] == nlohmann::json::array({"exec", "webhook"}));
}

TEST_CASE("a hook script in the archive is trusted with its contents", "[cli]") {
  std::string body = rss("one");
  HttpServer server = serve_changing(&body);
  CliArchive archive("trust-script");
  const std::string hooks = make_temp_dir("trust-script-hook");
  REQUIRE(archive({"add", "news", server.url("/feed")}).exit_code == 0);
  std::filesystem::create_directories(archive.dir() + "/hooks");
  spit(archive.dir() + "/hooks/notify.sh",
       "cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" + hooks + "/log'\n");
  spit(archive.dir() + "/feeddiff.toml",
       slurp(archive.dir() + "/feeddiff.toml") + "\n[notify]\nexec = \"sh hooks/notify.sh\"\n");
  commit_all(archive, "a hook script");
  auto listed = archive({"trust", "--all"});
  REQUIRE(listed.exit_code == 0);
  CHECK_THAT(listed.out, Catch::Contains("with the contents of hooks/notify.sh"));
  REQUIRE(poll_now(archive).exit_code == 0);
  REQUIRE(log_lines(hooks).size() == 1);

  // The script changes (a sync or a pull brings it): the same exec line no longer runs.
  spit(archive.dir() + "/hooks/notify.sh", "cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" + hooks +
                                               "/log'; touch '" + hooks + "/owned'\n");
  commit_all(archive, "the script changed");
  body = rss("two");
  auto r = poll_now(archive);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(log_lines(hooks).size() == 1);
  CHECK_FALSE(std::filesystem::exists(hooks + "/owned"));
  CHECK_THAT(archive({"trust"}).out, Catch::StartsWith("waiting  exec \"sh hooks/notify.sh\""));
}

}  // namespace
}  // namespace feeddiff::test
