// feeddiff's entry point: everything lives in the cli module; only it prints errors.
#include "feeddiff/cli.h"

#if FEEDDIFF_SHARED_LIBGIT2
#include <dlfcn.h>

#include <atomic>

// Start-up, with the shared libgit2 (FEEDDIFF_STATIC_LIBGIT2=OFF; the static build does this
// and more in src/store/git_runtime.cc): libgit2 1.5 as Debian 12 builds it (HTTPS through mbedTLS)
// parses the whole system CA bundle, /etc/ssl/certs/ca-certificates.crt, inside git_libgit2_init:
// 54 million instructions, ~5 ms, 40% of `feeddiff show` on a 225 KB feed change. feeddiff never
// reaches a remote through libgit2 (fetching is libcurl's, with its own certificates), so those are
// never used. This definition, in the executable, comes before mbedTLS's in the dynamic linker's
// lookup (ELF interposition). libgit2 is mbedTLS's only caller here, and its first call is that
// load: it loads nothing, so libgit2's own TLS would trust no certificate and fail closed. Any
// later call (GIT_OPT_SET_SSL_CERT_LOCATIONS) goes to mbedTLS. With a libgit2 built without
// mbedTLS nothing calls it. It lives here, not in the store module, because only the
// executable's own object is sure to be linked and to be looked up first.
extern "C" int mbedtls_x509_crt_parse_file(void* chain, const char* path) {
  static std::atomic<bool> first{true};
  if (first.exchange(false)) return 0;
  using Parse = int (*)(void*, const char*);
  static const auto parse =
      reinterpret_cast<Parse>(dlsym(RTLD_NEXT, "mbedtls_x509_crt_parse_file"));
  constexpr int kFileIoError = -0x2900;  // MBEDTLS_ERR_X509_FILE_IO_ERROR
  return parse ? parse(chain, path) : kFileIoError;
}
#endif

int main(int argc, char** argv) {
  return feeddiff::run_cli(argc, argv);
}
