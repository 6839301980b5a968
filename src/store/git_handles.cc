#include "store/git_handles.h"

namespace feeddiff::git {

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
