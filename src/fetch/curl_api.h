#pragma once
// libcurl, loaded when fetch first needs it: dlopen("libcurl.so.4") and a table of the
// functions fetch calls, resolved once. Linking libcurl made every command (show, log, diff,
// which never fetch) load it and the ~20 libraries it needs (GnuTLS, Kerberos, LDAP, RTMP,
// SSH...): ~2.5 ms of symbol relocation at each start. Only poll, `fixtures check|update` and
// URL checks (add, import) now load it. The functions below are libcurl's, under the same
// names less the `curl_` prefix; call them only after ensure_curl_initialized() returned true.

#include <curl/curl.h>

#include <string>

namespace feeddiff::fetch_detail::curl {

/// The libcurl functions fetch calls; decltype names their types without linking them.
struct Functions {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_free) free;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_multi_setopt) multi_setopt;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_perform) multi_perform;
  decltype(&::curl_multi_poll) multi_poll;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_multi_strerror) multi_strerror;
  decltype(&::curl_url) url;
  decltype(&::curl_url_cleanup) url_cleanup;
  decltype(&::curl_url_set) url_set;
  decltype(&::curl_url_get) url_get;
  decltype(&::curl_url_strerror) url_strerror;
  decltype(&::curl_version_info) version_info;
};

/// Loads libcurl.so.4 and resolves every function, the first time (thread-safe); null when
/// the library or one of the functions is missing, with the reason in *why.
const Functions* load(std::string* why = nullptr);

/// The loaded functions: only after load() returned non-null.
inline const Functions& fn() {
  return *load();
}

inline void free(void* p) {
  fn().free(p);
}
inline CURL* easy_init() {
  return fn().easy_init();
}
inline void easy_cleanup(CURL* h) {
  fn().easy_cleanup(h);
}
/// For tests: while on, easy_setopt refuses the options libcurl added after 7.80 that fetch
/// sets (CURLOPT_PROTOCOLS_STR, CURLOPT_REDIR_PROTOCOLS_STR) with CURLE_UNKNOWN_OPTION, as
/// libcurl 7.80 to 7.84 do, so that the fallback for those versions runs here too.
void act_as_7_80(bool on);
/// Whether act_as_7_80 is on.
bool acting_as_7_80();

template <class T>
CURLcode easy_setopt(CURL* h, CURLoption option, T value) {
  if ((option == CURLOPT_PROTOCOLS_STR || option == CURLOPT_REDIR_PROTOCOLS_STR) &&
      acting_as_7_80())
    return CURLE_UNKNOWN_OPTION;
  return fn().easy_setopt(h, option, value);
}
template <class T>
CURLcode easy_getinfo(CURL* h, CURLINFO info, T* out) {
  return fn().easy_getinfo(h, info, out);
}
inline const char* easy_strerror(CURLcode code) {
  return fn().easy_strerror(code);
}
inline curl_slist* slist_append(curl_slist* list, const char* line) {
  return fn().slist_append(list, line);
}
inline void slist_free_all(curl_slist* list) {
  fn().slist_free_all(list);
}
inline CURLM* multi_init() {
  return fn().multi_init();
}
inline CURLMcode multi_cleanup(CURLM* m) {
  return fn().multi_cleanup(m);
}
template <class T>
CURLMcode multi_setopt(CURLM* m, CURLMoption option, T value) {
  return fn().multi_setopt(m, option, value);
}
inline CURLMcode multi_add_handle(CURLM* m, CURL* h) {
  return fn().multi_add_handle(m, h);
}
inline CURLMcode multi_remove_handle(CURLM* m, CURL* h) {
  return fn().multi_remove_handle(m, h);
}
inline CURLMcode multi_perform(CURLM* m, int* running) {
  return fn().multi_perform(m, running);
}
inline CURLMcode multi_poll(CURLM* m, curl_waitfd* fds, unsigned n, int timeout_ms, int* ready) {
  return fn().multi_poll(m, fds, n, timeout_ms, ready);
}
inline CURLMsg* multi_info_read(CURLM* m, int* queued) {
  return fn().multi_info_read(m, queued);
}
inline const char* multi_strerror(CURLMcode code) {
  return fn().multi_strerror(code);
}
inline CURLU* url() {
  return fn().url();
}
inline void url_cleanup(CURLU* u) {
  fn().url_cleanup(u);
}
inline CURLUcode url_set(CURLU* u, CURLUPart part, const char* text, unsigned flags) {
  return fn().url_set(u, part, text, flags);
}
inline CURLUcode url_get(CURLU* u, CURLUPart part, char** out, unsigned flags) {
  return fn().url_get(u, part, out, flags);
}
inline const char* url_strerror(CURLUcode code) {
  return fn().url_strerror(code);
}
inline curl_version_info_data* version_info(CURLversion age) {
  return fn().version_info(age);
}

}  // namespace feeddiff::fetch_detail::curl
