#pragma once
// Compresses a batch's objects on a thread of its own while the poll goes on (normalizing,
// committing the next feeds), so that the pack written at the batch's flush finds most of
// its zlib streams done: compression is the largest single cost of a cold poll, and the
// poll's own thread leaves a core free. The bytes are the ones write_pack would produce
// (zlib_compress, same level), so the pack is byte for byte the same either way.

#include <git2.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "store/git_handles.h"

namespace feeddiff::pack {

/// Objects smaller than this are left to write_pack: not worth a copy and a hand-over.
inline constexpr std::size_t kPrecompressMinBytes = 1024;
/// Bytes waiting for the thread at most; past this, submit() declines (write_pack then
/// compresses the object itself), so memory stays bounded when the thread falls behind.
inline constexpr std::size_t kPrecompressMaxQueued = std::size_t{16} << 20;

/// One compressing thread and what it has made, keyed by object id.
class Precompressor {
 public:
  Precompressor() = default;
  Precompressor(const Precompressor&) = delete;
  Precompressor& operator=(const Precompressor&) = delete;
  /// Stops the thread (what is queued is dropped).
  ~Precompressor();

  /// Queues an object's bytes (its content, without git's header), shared, for
  /// compression; declines (returns false) below kPrecompressMinBytes or when the queue is
  /// full. The thread starts at the first call.
  bool submit(const git_oid& id, std::shared_ptr<const std::string> bytes);
  /// The compressed bytes of an object submitted, once ready (waits for the thread);
  /// nullopt for one not submitted. Each is handed out once.
  std::optional<std::string> take(const git_oid& id);
  /// Drops everything made and queued (after a flush: its objects are packed).
  void clear();

 private:
  struct Job {
    git_oid id;
    std::shared_ptr<const std::string> bytes;
  };
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;  // a job queued, or stopping
  std::condition_variable done_;  // a job finished
  std::deque<Job> queue_;
  std::size_t queued_bytes_ = 0;
  // Submitted and not yet taken: empty until compressed (a zlib stream is never empty).
  std::unordered_map<git_oid, std::string, git::OidHash, git::OidEqual> made_;
  std::optional<git_oid> working_;  // the job the thread holds outside the lock
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace feeddiff::pack
