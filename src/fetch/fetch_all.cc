// fetch_all: many transfers (transfer.h) over one libcurl multi handle, a few at a time,
// each host's requests queued for a free slot so that their timeouts run only once they are
// sent.

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "feeddiff/fetch.h"
#include "fetch/transfer.h"

namespace feeddiff {

using fetch_detail::CurlMultiPtr;
using fetch_detail::finish;
using fetch_detail::internal_error;
using fetch_detail::setup;
using fetch_detail::Transfer;
namespace curl = fetch_detail::curl;

void fetch_all(std::span<const FetchRequest> requests, const FetchOptions& options,
               const FetchDone& on_done) {
  if (requests.empty()) return;
  auto fail_all_from = [&](std::size_t from, std::string_view why) {
    for (std::size_t i = from; i < requests.size(); ++i)
      on_done(i, internal_error(requests[i], why));
  };
  if (!fetch_detail::ensure_curl_initialized())
    return fail_all_from(0, fetch_detail::curl_failure());

  CurlMultiPtr multi(curl::multi_init());
  if (!multi) return fail_all_from(0, "cannot create a libcurl multi handle");
  const long jobs = std::max(options.jobs, 1);
  curl::multi_setopt(multi.get(), CURLMOPT_MAX_HOST_CONNECTIONS,
                     static_cast<long>(std::max(options.per_host, 1)));
  curl::multi_setopt(multi.get(), CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));

  // Requests wait here, by host, until their host has a free slot. libcurl could queue them
  // itself (CURLMOPT_MAX_HOST_CONNECTIONS), but its timeouts would then run while a request
  // waits: with 100 feeds on one host, the last ones would time out before being sent. A
  // request's timeouts measure its own transfer only.
  struct HostQueue {
    std::string host;
    std::deque<std::size_t> waiting;
    int active = 0;
  };
  std::vector<HostQueue> hosts;
  std::vector<std::size_t> host_of_request(requests.size());
  {
    std::unordered_map<std::string, std::size_t> index_of_host;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      std::string host = fetch_detail::host_of(requests[i].url);
      auto [it, fresh] = index_of_host.try_emplace(host, hosts.size());
      if (fresh) hosts.push_back(HostQueue{std::move(host), {}, 0});
      hosts[it->second].waiting.push_back(i);
      host_of_request[i] = it->second;
    }
  }
  const int per_host = std::max(options.per_host, 1);
  std::size_t started = 0;
  // Round robin over hosts, so one host with many feeds does not hold back the others.
  std::size_t host_cursor = 0;
  auto next_ready = [&]() -> std::optional<std::size_t> {
    for (std::size_t k = 0; k < hosts.size(); ++k) {
      HostQueue& h = hosts[(host_cursor + k) % hosts.size()];
      if (h.waiting.empty() || h.active >= per_host) continue;
      host_cursor = (host_cursor + k + 1) % hosts.size();
      const std::size_t index = h.waiting.front();
      h.waiting.pop_front();
      return index;
    }
    return std::nullopt;
  };

  // Declared after the multi handle, so each transfer leaves it before it is cleaned up.
  std::vector<std::unique_ptr<Transfer>> active;

  auto complete = [&](Transfer* t, Result<FetchResponse> result) {
    const std::size_t index = t->index;
    auto it = std::find_if(active.begin(), active.end(),
                           [t](const std::unique_ptr<Transfer>& p) { return p.get() == t; });
    // Free the handle and body first: memory stays bounded by `jobs` transfers.
    if (it != active.end()) {
      --hosts[host_of_request[index]].active;
      active.erase(it);
    }
    on_done(index, std::move(result));
  };

  for (;;) {
    while (static_cast<long>(active.size()) < jobs && started < requests.size()) {
      const std::optional<std::size_t> ready = next_ready();
      if (!ready) break;
      const std::size_t index = *ready;
      ++started;
      const FetchRequest& request = requests[index];
      if (Status ok = check_url(request.url); !ok) {
        on_done(index, ok.error());
        continue;
      }
      auto t = std::make_unique<Transfer>(index, request, multi.get());
      if (auto error = setup(*t, options)) {
        on_done(index, std::move(*error));
        continue;
      }
      if (curl::multi_add_handle(multi.get(), t->easy.get()) != CURLM_OK) {
        on_done(index, internal_error(request, "libcurl would not start the transfer"));
        continue;
      }
      t->added = true;
      ++hosts[host_of_request[index]].active;
      active.push_back(std::move(t));
    }
    if (active.empty()) break;

    int running = 0;
    CURLMcode mc = curl::multi_perform(multi.get(), &running);
    if (mc != CURLM_OK) {
      const std::string why = fmt::format("libcurl failed: {}", curl::multi_strerror(mc));
      while (!active.empty()) {
        Transfer* t = active.front().get();
        complete(t, internal_error(t->request, why));
      }
      for (const HostQueue& h : hosts)
        for (std::size_t index : h.waiting) on_done(index, internal_error(requests[index], why));
      return;
    }

    bool completed = false;
    int queued = 0;
    while (CURLMsg* msg = curl::multi_info_read(multi.get(), &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl::easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      const CURLcode code = msg->data.result;  // msg dies with the handle's removal
      complete(t, finish(code, *t));
      completed = true;
    }
    // Start the next transfers before waiting, so `jobs` stay in flight.
    if (completed) continue;
    curl::multi_poll(multi.get(), nullptr, 0, 1000, nullptr);
  }
}

Result<FetchResponse> fetch(const FetchRequest& request, const FetchOptions& options) {
  std::optional<Result<FetchResponse>> out;
  fetch_all(std::span<const FetchRequest>(&request, 1), options,
            [&out](std::size_t, Result<FetchResponse> response) { out = std::move(response); });
  if (!out) return internal_error(request, "the transfer never completed");
  return std::move(*out);
}

}  // namespace feeddiff
