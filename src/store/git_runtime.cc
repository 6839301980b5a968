// How libgit2 is started: once per process, with only what feeddiff uses of it.
//
// feeddiff reads and writes a local repository through libgit2 and never reaches a remote
// through it: fetching is libcurl's (src/fetch), with its own TLS. Yet git_libgit2_init starts
// libgit2's remote transports too: mbedTLS (its entropy pool, then the whole system CA bundle,
// 54 M instructions) and libssh2 (OpenSSL's engines). That was most of the start-up of every
// command. With libgit2 linked statically (cmake/libgit2.cmake), the linker's --wrap sends
// libgit2's calls to those initializers here instead, where they do nothing, and makes its TLS
// stream fail closed, with a message, should anything ever ask for one. The shared build
// (FEEDDIFF_STATIC_LIBGIT2=OFF) keeps libgit2's own start-up, minus the CA bundle (main.cc).
#include <git2.h>
#include <git2/sys/alloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "store/git_handles.h"

#if FEEDDIFF_STATIC_LIBGIT2
extern "C" {

// libgit2's TLS (streams/mbedtls.c): never configured, so never usable.
int __wrap_git_mbedtls_stream_global_init() {
  return 0;
}
int __wrap_git_mbedtls_stream_new(void** out, const char* /*host*/, const char* /*port*/) {
  *out = nullptr;
  git_error_set_str(GIT_ERROR_SSL, "feeddiff does not use libgit2's TLS (libcurl fetches)");
  return -1;
}

// libssh2, only for libgit2's ssh:// transport. OpenSSL initializes itself on first use.
int __wrap_libssh2_init(int /*flags*/) {
  return 0;
}

// GSSAPI, only for libgit2's HTTP Negotiate authentication. Debian ships no static Kerberos,
// and the shared one would bring back six libraries at start-up; each call fails as
// GSS_S_FAILURE. These symbols stay inside the executable (it exports nothing), so the
// libcurl that fetch loads still gets the real GSSAPI.
constexpr unsigned kGssFailure = 13u << 16;
void* GSS_C_NT_HOSTBASED_SERVICE = nullptr;
#define FEEDDIFF_GSS_STUB(name)         \
  unsigned name(unsigned* minor, ...) { \
    if (minor) *minor = 0;              \
    return kGssFailure;                 \
  }
FEEDDIFF_GSS_STUB(gss_delete_sec_context)
FEEDDIFF_GSS_STUB(gss_display_status)
FEEDDIFF_GSS_STUB(gss_import_name)
FEEDDIFF_GSS_STUB(gss_indicate_mechs)
FEEDDIFF_GSS_STUB(gss_init_sec_context)
FEEDDIFF_GSS_STUB(gss_release_buffer)
FEEDDIFF_GSS_STUB(gss_release_name)
FEEDDIFF_GSS_STUB(gss_release_oid_set)
#undef FEEDDIFF_GSS_STUB

}  // extern "C"
#endif

namespace feeddiff::git {

namespace {

// libgit2 inflates each object it reads into a buffer of its own. For a body of a few hundred
// KB, malloc maps fresh pages, and each faults on its first write: on a VM ~10 us a page, as
// long as the inflating itself. The kernel fills them all at once for half that
// (MADV_POPULATE_WRITE, Linux 5.14; elsewhere the call fails and the pages fault as before).
// Only fresh allocations that size: object buffers, which are written whole. Everything else
// is malloc's as it was.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
constexpr std::size_t kPopulateBytes = std::size_t{128} << 10;

void* populated(void* p, std::size_t n) {
  if (p && n >= kPopulateBytes) {
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t begin = (at + page - 1) & ~(page - 1), end = (at + n) & ~(page - 1);
    if (end > begin)
      ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);  // best effort
  }
  return p;
}

bool overflows(std::size_t count, std::size_t size, std::size_t* total) {
  return __builtin_mul_overflow(count, size, total);
}

void* git_malloc(std::size_t n, const char*, int) {
  return populated(std::malloc(n), n);
}
void* git_calloc(std::size_t count, std::size_t size, const char*, int) {
  std::size_t n = 0;
  if (overflows(count, size, &n)) return nullptr;
  return populated(std::calloc(count, size), n);
}
char* git_strdup(const char* s, const char*, int) {
  return ::strdup(s);
}
char* git_strndup(const char* s, std::size_t n, const char*, int) {
  return ::strndup(s, n);
}
char* git_substrdup(const char* s, std::size_t n, const char*, int) {
  if (n == SIZE_MAX) return nullptr;
  auto* out = static_cast<char*>(std::malloc(n + 1));
  if (!out) return nullptr;
  std::memcpy(out, s, n);
  out[n] = '\0';
  return out;
}
void* git_realloc(void* p, std::size_t n, const char*, int) {
  return std::realloc(p, n);
}
void* git_reallocarray(void* p, std::size_t count, std::size_t size, const char*, int) {
  std::size_t n = 0;
  return overflows(count, size, &n) ? nullptr : std::realloc(p, n);
}
void* git_mallocarray(std::size_t count, std::size_t size, const char* file, int line) {
  std::size_t n = 0;
  return overflows(count, size, &n) ? nullptr : git_malloc(n, file, line);
}
void git_free(void* p) {
  std::free(p);
}

git_allocator kAllocator = {git_malloc,       git_calloc,      git_strdup,
                            git_strndup,      git_substrdup,   git_realloc,
                            git_reallocarray, git_mallocarray, git_free};

}  // namespace

void ensure_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    git_libgit2_opts(GIT_OPT_SET_ALLOCATOR, &kAllocator);
    // Objects and refs reach the disk before the branch names them: a crash or power loss
    // cannot leave a ref pointing at a missing object.
    git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
    // libgit2 re-hashes every object it reads (SHA-1 with collision detection), which was
    // a third of a cold poll: packing and checking out re-read each new body. git itself
    // checks hashes in fsck and gc, not on every read; so do we (`feeddiff gc` and the
    // tests' `git fsck --strict`), and the pack we write carries its own checksums.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    // Memory stays bounded however old the archive: by default libgit2 maps packs in windows
    // of 1 GB, up to 8 GB in all, and keeps up to 256 MB of parsed commits and trees, so a
    // command reading through 100,000 changes (site's first build) peaked near 400 MB, most
    // of it pack pages read once and commits parsed once. Windows of 32 MB, at most 96 MB
    // mapped (the least recently used unmapped first), and an object cache of 8 MB: the
    // limit counts the objects' raw bytes, and a parsed commit or tree takes about three
    // times that (heaptrack, site at 100k). What a command reads twice is recent, and the
    // page cache keeps the rest warm.
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, std::size_t{32} << 20);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, std::size_t{96} << 20);
    git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, static_cast<ssize_t>(std::size_t{8} << 20));
    // And no object cache at all: it keeps only objects under 4 KB (commits, root trees, a
    // source's directory; never a raw/ tree of many sources), and once its 8 MB are full
    // every store evicts by scanning its hash map from the start. Rebuilding the source
    // index at 100,000 changes spent 30% of its time there and took 4.0 s of CPU with the
    // cache, 2.9 s without; `site` at 10,000 changes took the same CPU with and without and
    // peaked at 75 MB with it, 45 MB without; log, show, status and history did not move.
    git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
  });
}

}  // namespace feeddiff::git

namespace feeddiff {

std::string blob_id(std::string_view bytes) {
  git_oid id{};
  if (git_odb_hash(&id, bytes.data(), bytes.size(), GIT_OBJECT_BLOB) != 0) return {};
  return git::to_hex(id);
}

std::string libgit2_version() {
  int major = 0, minor = 0, revision = 0;
  git_libgit2_version(&major, &minor, &revision);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision);
}

}  // namespace feeddiff
