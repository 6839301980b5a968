// .git/feeddiff/cache: values feeddiff can always recompute (item summaries of changes), kept
// so that the next command need not. Nothing in it is part of the archive: deleting the
// directory loses nothing. The entries of which there is one per change live in one SQLite
// file (entry_db.h); the rest, a few per source, are files.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>

#include "feeddiff/store.h"
#include "store/archive_impl.h"

namespace feeddiff {

namespace {

// Lowercase letters, digits and '-', in at most two '/'-separated parts: a name can never
// climb out of the cache directory or hide as a dot file.
bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 200) return false;
  int slashes = 0;
  char previous = '/';
  for (char c : name) {
    if (c == '/') {
      if (previous == '/' || ++slashes > 1) return false;
    } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      return false;
    }
    previous = c;
  }
  return previous != '/';
}

}  // namespace

std::string Archive::cache_dir() const {
  return impl_->git_dir + "/feeddiff/cache";
}

EntryDb* Archive::Impl::entry_db() {
  const std::lock_guard<std::mutex> hold(entries_lock);
  if (!entries_tried) {
    entries_tried = true;
    entries = EntryDb::open(git_dir + "/feeddiff/cache/entries.sqlite");
  }
  return entries.get();
}

std::optional<std::string> Archive::cache_read(std::string_view name) const {
  if (!valid_name(name)) return std::nullopt;
  const std::string path = cache_dir() + "/" + std::string(name);
  if (impl_->cache_behind)
    if (auto queued = impl_->cache_behind->pending(path)) return queued;
  if (EntryDb::holds(name)) {
    EntryDb* db = impl_->entry_db();
    return db ? db->get(name) : std::nullopt;
  }
  if (impl_->cache_behind && !impl_->cache_behind->may_exist(path)) return std::nullopt;
  auto bytes = read_file(path);
  if (!bytes) return std::nullopt;
  return std::move(*bytes);
}

namespace {

// The file a valid name names under dir, its directory made; nullopt when it cannot be.
std::optional<std::string> entry_path(const std::string& dir, std::string_view name) {
  if (!valid_name(name)) return std::nullopt;
  std::string path = dir + "/" + std::string(name);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return std::nullopt;
  return path;
}

// Writes all of value to fd, then closes it; false when either failed.
bool write_and_close(int fd, std::string_view value) {
  std::size_t done = 0;
  bool ok = true;
  while (ok && done < value.size()) {
    const ssize_t n = ::write(fd, value.data() + done, value.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0 && ok;
}

// Writes an entry: beside it, then renamed, so a reader sees all of it or nothing; not
// fsync'd, as an entry a crash cuts short fails its own end check and is recomputed.
void write_entry(const std::string& path, std::string_view value) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (!write_and_close(fd, value) || ::rename(tmp.c_str(), path.c_str()) != 0)
    ::unlink(tmp.c_str());
}

}  // namespace

void Archive::cache_write(std::string_view name, std::string_view value) const {
  if (!valid_name(name)) return;
  std::string path = cache_dir() + "/" + std::string(name);
  if (impl_->cache_behind) {
    impl_->cache_behind->put(std::move(path), std::string(value));
  } else if (EntryDb::holds(name)) {
    if (EntryDb* db = impl_->entry_db()) db->put(name, value);
  } else {
    write_entry(path, value);
  }
}

void Archive::cache_write_all(
    const std::vector<std::pair<std::string, std::string>>& entries) const {
  EntryDb* db = nullptr;
  for (const auto& [name, value] : entries) {
    if (impl_->cache_behind || !EntryDb::holds(name) || !valid_name(name)) {
      cache_write(name, value);
    } else if (db || (db = impl_->entry_db())) {
      db->put_batched(name, value);
    }
  }
  if (db) db->commit();
}

void Archive::write_cache_behind(bool on) const {
  if (on && !impl_->cache_behind) {
    // The thread's writes to the entries file are batched into transactions, each
    // committed after CacheBehind::kIdleDelay without a write (or at EntryDb::kBatch): a
    // commit per entry was a write of the log's pages per entry.
    Impl* impl = impl_.get();
    const std::size_t prefix = cache_dir().size() + 1;
    impl_->cache_behind = std::make_unique<CacheBehind>(
        [impl, prefix](const std::string& path, const std::string& value) {
          const std::string_view name = std::string_view(path).substr(prefix);
          if (!EntryDb::holds(name)) return write_entry(path, value);
          if (EntryDb* db = impl->entry_db()) db->put_batched(name, value);
        },
        [impl] {
          // Only a file already open has a batch to commit (the thread may have written
          // per-source files alone); the commit runs outside the lock that opening takes.
          EntryDb* db = nullptr;
          {
            const std::lock_guard<std::mutex> hold(impl->entries_lock);
            db = impl->entries.get();
          }
          if (db) db->commit();
        });
  }
  if (!on) impl_->cache_behind.reset();  // writes what is queued, then stops
}

void Archive::release_cache() const {
  impl_->cache_behind.reset();
  const std::lock_guard<std::mutex> hold(impl_->entries_lock);
  impl_->entries.reset();
  impl_->entries_tried = false;
}

void Archive::cache_append(std::string_view name, std::string_view value) const {
  if (EntryDb::holds(name)) {
    std::string whole = cache_read(name).value_or("");
    whole += value;
    return cache_write(name, whole);
  }
  // An append goes after the writes of its entry queued before it.
  if (impl_->cache_behind && valid_name(name) &&
      impl_->cache_behind->has(cache_dir() + "/" + std::string(name)))
    impl_->cache_behind->drain();
  const auto path = entry_path(cache_dir(), name);
  if (!path) return;
  if (impl_->cache_behind) impl_->cache_behind->note(*path);
  // O_APPEND: two processes appending at once interleave whole writes, never overwrite.
  const int fd = ::open(path->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) write_and_close(fd, value);
}

}  // namespace feeddiff
