#pragma once
// Errors are values: every fallible call returns a Result<T> holding either a value or an
// Error{code, message}. No exception crosses a module boundary; only main prints errors.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace feeddiff {

/// What kind of failure an Error is; callers branch on this, people read the message.
enum class Errc {
  usage,           ///< the command line or an argument is wrong
  not_found,       ///< a commit, source, file or path does not exist
  not_an_archive,  ///< the directory holds no feeddiff archive
  exists,          ///< the thing to create is already there
  bad_name,        ///< a source name that could escape the archive or is otherwise unusable
  bad_url,         ///< a URL feeddiff cannot or will not fetch
  bad_config,      ///< feeddiff.toml or state.json cannot be read
  io,              ///< the file system said no
  git,             ///< libgit2 said no
  locked,          ///< another feeddiff process holds the archive's lock
  network,         ///< DNS, connection refused or reset, TLS
  timeout,         ///< connect, total or low-speed timeout
  http_status,     ///< the server answered with a status that carries no feed
  body,            ///< the body is empty, truncated, too large or not decodable
  bad_xml,         ///< the document is not well-formed
  bad_encoding,    ///< the bytes are not in the encoding they claim
  unsupported,     ///< a format or feature feeddiff does not handle
  internal,        ///< a bug in feeddiff
  conflict,        ///< two writers changed the same thing (sync: one source on two machines)
};

/// A failure: what kind, and one line that names what failed and why.
struct Error {
  Errc code = Errc::internal;
  std::string message;
};

/// Either a value or an Error. Test it like a pointer: `if (!r) return r.error();`.
template <class T>
class [[nodiscard]] Result {
 public:
  /// A successful result.
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  /// A failed result.
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  /// True when this holds a value.
  explicit operator bool() const { return v_.index() == 0; }
  /// True when this holds a value.
  bool ok() const { return v_.index() == 0; }

  /// The value; only call when ok().
  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  /// The value; only call when ok().
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  /// The value, moved out; only call when ok().
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  /// The value.
  T& operator*() & { return value(); }
  /// The value.
  const T& operator*() const& { return value(); }
  /// The value, moved out.
  T&& operator*() && { return std::move(*this).value(); }
  /// Member access to the value.
  T* operator->() { return &value(); }
  /// Member access to the value.
  const T* operator->() const { return &value(); }

  /// The error; only call when !ok().
  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }
  /// A one-line description of the error, or "" when ok.
  std::string description() const { return ok() ? std::string() : error().message; }

 private:
  std::variant<T, Error> v_;
};

/// A success that carries nothing.
struct Ok {};

/// Result of an operation that returns nothing but may fail.
using Status = Result<Ok>;

}  // namespace feeddiff
