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
