// The work tree written without libgit2's checkout (work_tree.h).

#include "store/work_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "store/git_handles.h"

namespace feeddiff::work_tree {

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Whether a setting or an attributes file outside the tree could ask a checkout to convert
// a file's bytes (line ends, ident, a filter driver).
bool conversions_possible(git_repository* repo) {
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, repo) != 0) {
    git_error_clear();
    return true;
  }
  git::ConfigPtr owned(config);
  for (const char* key : {"core.autocrlf", "core.eol", "core.attributesfile"}) {
    git_config_entry* entry = nullptr;
    if (git_config_get_entry(&entry, config, key) == 0) {
      const bool harmless = std::strcmp(key, "core.autocrlf") == 0 &&
                            (std::strcmp(entry->value, "false") == 0 || !*entry->value);
      git_config_entry_free(entry);
      if (!harmless) return true;
    }
    git_error_clear();
  }
  if (exists(std::string(git_repository_path(repo)) + "info/attributes")) return true;
  if (exists("/etc/gitattributes")) return true;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    if (exists(std::string(xdg) + "/git/attributes")) return true;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    if (exists(std::string(home) + "/.config/git/attributes")) return true;
  }
  return false;
}

class Writer {
 public:
  Writer(git_repository* repo, git_index* index, std::string work_dir,
         const git::BatchBackend* batch)
      : repo_(repo), index_(index), work_dir_(std::move(work_dir)), batch_(batch) {}

  // One path; false: declined.
  Result<bool> write(const git_tree* root, const std::string& path) {
    // HEAD's entry for path, each directory on the way checked for an attributes file.
    const git_tree* tree = root;
    std::size_t start = 0;
    const git_tree_entry* entry = nullptr;
    for (;;) {
      if (git_tree_entry_byname(tree, ".gitattributes")) return false;
      const std::size_t slash = path.find('/', start);
      const std::string name = path.substr(start, slash - start);
      entry = git_tree_entry_byname(tree, name.c_str());
      if (!entry || slash == std::string::npos) break;
      if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) {
        entry = nullptr;
        break;
      }
      // Kept: the paths share their directories (raw/ above all), and libgit2's object
      // cache is off (git_runtime.cc), so each lookup would parse the tree again.
      git::TreePtr& next = trees_[path.substr(0, slash)];
      if (!next) {
        git_tree* t = nullptr;
        if (git_tree_lookup(&t, repo_, git_tree_entry_id(entry)) != 0)
          return git::last_error("reading a tree");
        next.reset(t);
      }
      tree = next.get();
      start = slash + 1;
    }
    if (entry && git_tree_entry_type(entry) == GIT_OBJECT_TREE) return false;
    if (entry && git_tree_entry_filemode(entry) != GIT_FILEMODE_BLOB) return false;
    const std::string full = work_dir_ + "/" + path;
    if (!entry) return remove(path, full);

    // The batch's blobs in place (the poll's bodies, just committed), others from libgit2.
    git::BlobPtr blob;
    std::string_view bytes;
    const git::BatchObject* held = batch_ ? batch_->find(*git_tree_entry_id(entry)) : nullptr;
    if (held && held->type == GIT_OBJECT_BLOB) {
      bytes = *held->bytes;
    } else {
      git_blob* blob_raw = nullptr;
      if (git_blob_lookup(&blob_raw, repo_, git_tree_entry_id(entry)) != 0)
        return git::last_error(fmt::format("reading {}", path));
      blob.reset(blob_raw);
      bytes = std::string_view(static_cast<const char*>(git_blob_rawcontent(blob_raw)),
                               static_cast<std::size_t>(git_blob_rawsize(blob_raw)));
    }
    if (!directories_for(path)) return false;
    const int fd =
        ::open(full.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return false;  // a directory or a link there, say: libgit2 deals with it
    const char* data = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
      const ssize_t n = ::write(fd, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        Error e{Errc::io, fmt::format("cannot write {}: {}", full, std::strerror(errno))};
        ::close(fd);
        return e;
      }
      data += n;
      left -= static_cast<std::size_t>(n);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || ((st.st_mode & 0111) != 0 && ::fchmod(fd, 0644) != 0)) {
      Error e{Errc::io, fmt::format("cannot stat {}: {}", full, std::strerror(errno))};
      ::close(fd);
      return e;
    }
    if (::close(fd) != 0)
      return Error{Errc::io, fmt::format("cannot write {}: {}", full, std::strerror(errno))};
    git_index_entry e{};
    e.ctime.seconds = static_cast<std::int32_t>(st.st_ctim.tv_sec);
    e.ctime.nanoseconds = static_cast<std::uint32_t>(st.st_ctim.tv_nsec);
    e.mtime.seconds = static_cast<std::int32_t>(st.st_mtim.tv_sec);
    e.mtime.nanoseconds = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
    e.dev = static_cast<std::uint32_t>(st.st_dev);
    e.ino = static_cast<std::uint32_t>(st.st_ino);
    e.mode = GIT_FILEMODE_BLOB;
    e.uid = st.st_uid;
    e.gid = st.st_gid;
    e.file_size = static_cast<std::uint32_t>(st.st_size);
    e.id = *git_tree_entry_id(entry);
    e.path = path.c_str();
    if (git_index_add(index_, &e) != 0) return git::last_error("updating the index");
    return true;
  }

 private:
  // No file at full (nor its index entry), and no directory it leaves empty.
  Result<bool> remove(const std::string& path, const std::string& full) {
    // Through real directories only: a link in the way (a synced commit's, a user's) would
    // have unlink delete a file outside the work tree.
    if (!directories_for(path, false)) return false;
    if (::unlink(full.c_str()) != 0 && errno != ENOENT) return false;
    for (std::size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0;
         slash = path.rfind('/', slash - 1)) {
      if (::rmdir((work_dir_ + "/" + path.substr(0, slash)).c_str()) != 0) break;
      verified_.erase(path.substr(0, slash));
    }
    if (git_index_remove_bypath(index_, path.c_str()) != 0)
      return git::last_error("updating the index");
    return true;
  }

  // The directories above path, made where missing (when make); false when one is not a
  // directory (a file or a symbolic link there: libgit2's checkout knows what to do about
  // it), and, when !make, when one is missing.
  bool directories_for(const std::string& path, bool make = true) {
    for (std::size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      std::string dir = path.substr(0, slash);
      if (verified_.count(dir)) continue;
      const std::string full = work_dir_ + "/" + dir;
      struct stat st {};
      if (::lstat(full.c_str(), &st) != 0) {
        if (!make && errno == ENOENT) return true;  // nothing below it to remove
        if (!make || errno != ENOENT || ::mkdir(full.c_str(), 0777) != 0) return false;
      } else if (!S_ISDIR(st.st_mode)) {
        return false;
      }
      verified_.insert(std::move(dir));
    }
    return true;
  }

  git_repository* repo_;
  git_index* index_;
  std::string work_dir_;
  std::set<std::string> verified_;             // directories known to be real ones
  std::map<std::string, git::TreePtr> trees_;  // HEAD's trees read so far, by directory
  const git::BatchBackend* batch_;
};

}  // namespace

Result<bool> write_paths(git_repository* repo, const git_tree* head,
                         const std::vector<std::string>& paths, const git::BatchBackend* batch) {
  const char* work_dir = git_repository_workdir(repo);
  if (!work_dir || !head || conversions_possible(repo)) return false;
  std::string dir(work_dir);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  git_index* index_raw = nullptr;
  if (git_repository_index(&index_raw, repo) != 0) return git::last_error("reading the index");
  git::IndexPtr index(index_raw);
  // What is on disk, unless this handle read it since (as a checkout starts).
  if (git_index_read(index.get(), 0) != 0) return git::last_error("reading the index");
  Writer writer(repo, index.get(), dir, batch);
  for (const std::string& path : paths) {
    auto done = writer.write(head, path);
    if (!done) return done.error();
    if (!*done) return false;
  }
  return true;
}

}  // namespace feeddiff::work_tree
