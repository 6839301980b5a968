#include "store/git_handles.h"

#include <mutex>

namespace feeddiff::git {

void ensure_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    // Objects and refs reach the disk before the branch names them: a crash or power loss
    // cannot leave a ref pointing at a missing object.
    git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
    // libgit2 re-hashes every object it reads (SHA-1 with collision detection), which was
    // a third of a cold poll: packing and checking out re-read each new body. git itself
    // checks hashes in fsck and gc, not on every read; so do we (`feeddiff gc` and the
    // tests' `git fsck --strict`), and the pack we write carries its own checksums.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
  });
}

Error last_error(std::string_view what, Errc code) {
  const git_error* e = git_error_last();
  std::string message(what);
  if (e && e->message) {
    message += ": ";
    message += e->message;
  }
  return Error{code, message};
}

std::string to_hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

}  // namespace feeddiff::git
