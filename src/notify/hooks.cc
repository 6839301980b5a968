// One hook run: an exec command through core's child-process runner, a webhook through fetch.

#include <fmt/format.h>
#include <algorithm>

#include "feeddiff/fetch.h"
#include "feeddiff/notify.h"
#include "feeddiff/process.h"
#include "notify/internal.h"

namespace feeddiff {

HookRun run_exec_hook(const std::string& command, const std::string& dir, const std::string& input,
                      const std::vector<std::pair<std::string, std::string>>& env, TimeMs timeout) {
  ChildRequest request;
  request.program = "/bin/sh";
  request.argv = {"/bin/sh", "-c", command};
  // In the archive, so that `feeddiff show "$FEEDDIFF_COMMIT"` works without -C.
  request.dir = dir;
  request.env = env;
  request.input = input;
  // The hook's stdout goes where feeddiff's diagnostics go: stdout is poll's report (and the
  // digest), which a hook's chatter must not interleave with.
  request.out = ChildStream::to_stderr;
  request.err = ChildStream::inherit;
  request.timeout_ms = timeout;
  auto run = run_child(request);
  if (!run) return {false, run.error().message};
  return {static_cast<bool>(*run), run->why};
}

namespace notify_detail {

// A webhook's secret is often its path or query (Slack's, Discord's, ?token=): messages name
// its scheme, host and port only.
std::string webhook_origin(const std::string& url) {
  const UrlParts parts = split_url(url);
  std::string out = std::string(parts.scheme) + "://" + std::string(parts.host);
  if (parts.port) out += ":" + std::string(*parts.port);
  return out;
}

}  // namespace notify_detail

HookRun post_webhook(const std::string& url, const std::string& json, TimeMs timeout,
                     TimeMs connect_timeout) {
  FetchRequest request;
  request.url = url;
  request.post_body = json;
  request.max_redirects = 0;  // a redirected POST is a misconfigured hook: say so
  request.max_body_bytes = std::size_t{1} << 20;
  request.total_timeout_ms = static_cast<long>(timeout);
  request.connect_timeout_ms = static_cast<long>(std::min(connect_timeout, timeout));
  const std::string origin = notify_detail::webhook_origin(url);
  if (auto ok = check_url(url); !ok) return {false, origin + ": not an http(s) URL"};
  auto response = fetch(request);
  if (!response) {
    // fetch's messages carry the URL without credentials, but with its path.
    std::string why = response.error().message;
    const std::string shown = redact_url(url);
    // The search goes on after the origin put in: a URL without a path is its own origin,
    // and searching from `at` would find it there again forever.
    for (auto at = why.find(shown); at != std::string::npos;
         at = why.find(shown, at + origin.size()))
      why.replace(at, shown.size(), origin);
    return {false, why};
  }
  if (response->status < 200 || response->status > 299)
    return {false, fmt::format("{}: HTTP {}", origin, response->status)};
  return {true, ""};
}

}  // namespace feeddiff
