#include "fetch/curl_api.h"

#include <dlfcn.h>

#include <atomic>

namespace feeddiff::fetch_detail::curl {

namespace {

struct Loaded {
  const Functions* functions = nullptr;
  std::string why;
};

template <class F>
bool resolve(void* library, const char* name, F& out, std::string& why) {
  out = reinterpret_cast<F>(dlsym(library, name));
  if (!out && why.empty()) why = std::string("libcurl.so.4 has no ") + name;
  return out != nullptr;
}

Loaded load_once() {
  Loaded loaded;
  // Never closed: libcurl stays loaded until the process ends, as a linked library would.
  void* library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* error = dlerror();
    loaded.why = error ? error : "libcurl.so.4 could not be loaded";
    return loaded;
  }
  static Functions f;
  std::string& why = loaded.why;
  bool ok = resolve(library, "curl_global_init", f.global_init, why);
  ok &= resolve(library, "curl_free", f.free, why);
  ok &= resolve(library, "curl_easy_init", f.easy_init, why);
  ok &= resolve(library, "curl_easy_cleanup", f.easy_cleanup, why);
  ok &= resolve(library, "curl_easy_setopt", f.easy_setopt, why);
  ok &= resolve(library, "curl_easy_getinfo", f.easy_getinfo, why);
  ok &= resolve(library, "curl_easy_strerror", f.easy_strerror, why);
  ok &= resolve(library, "curl_slist_append", f.slist_append, why);
  ok &= resolve(library, "curl_slist_free_all", f.slist_free_all, why);
  ok &= resolve(library, "curl_multi_init", f.multi_init, why);
  ok &= resolve(library, "curl_multi_cleanup", f.multi_cleanup, why);
  ok &= resolve(library, "curl_multi_setopt", f.multi_setopt, why);
  ok &= resolve(library, "curl_multi_add_handle", f.multi_add_handle, why);
  ok &= resolve(library, "curl_multi_remove_handle", f.multi_remove_handle, why);
  ok &= resolve(library, "curl_multi_perform", f.multi_perform, why);
  ok &= resolve(library, "curl_multi_poll", f.multi_poll, why);
  ok &= resolve(library, "curl_multi_info_read", f.multi_info_read, why);
  ok &= resolve(library, "curl_multi_strerror", f.multi_strerror, why);
  ok &= resolve(library, "curl_url", f.url, why);
  ok &= resolve(library, "curl_url_cleanup", f.url_cleanup, why);
  ok &= resolve(library, "curl_url_set", f.url_set, why);
  ok &= resolve(library, "curl_url_get", f.url_get, why);
  ok &= resolve(library, "curl_url_strerror", f.url_strerror, why);
  ok &= resolve(library, "curl_version_info", f.version_info, why);
  if (ok) loaded.functions = &f;
  return loaded;
}

}  // namespace

namespace {
std::atomic<bool> as_7_80{false};
}  // namespace

void act_as_7_80(bool on) {
  as_7_80.store(on);
}

bool acting_as_7_80() {
  return as_7_80.load(std::memory_order_relaxed);
}

const Functions* load(std::string* why) {
  static const Loaded loaded = load_once();
  if (!loaded.functions && why) *why = loaded.why;
  return loaded.functions;
}

}  // namespace feeddiff::fetch_detail::curl
