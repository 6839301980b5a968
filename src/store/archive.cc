// The archive: a git repository whose branch gets one commit per recorded change.

#include <fcntl.h>
#include <git2/sys/commit.h>
#include <git2/sys/odb_backend.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "feeddiff/failpoint.h"
#include "feeddiff/message.h"
#include "feeddiff/store.h"
#include "store/abbreviator.h"
#include "store/archive_detail.h"
#include "store/archive_impl.h"
#include "store/git_handles.h"
#include "store/pack_writer.h"
#include "store/source_index.h"
#include "store/tree_splice.h"

namespace feeddiff {

namespace fs = std::filesystem;
using namespace archive_detail;

inline constexpr const char* kConfigFile = "feeddiff.toml";
inline constexpr const char* kIdentityName = "feeddiff";
inline constexpr const char* kIdentityEmail = "feeddiff@localhost";

Result<std::optional<git::CommitPtr>> Archive::Impl::head() const {
  if (pending_head) {
    git_commit* commit = nullptr;
    if (git_commit_lookup(&commit, repo.get(), &*pending_head) != 0)
      return git::last_error("reading the batch's newest commit");
    return std::optional<git::CommitPtr>(git::CommitPtr(commit));
  }
  return branch_head(repo.get());
}

const std::string* CommitInfo::trailer(std::string_view key) const {
  for (const auto& t : trailers)
    if (to_lower(t.key) == to_lower(key)) return &t.value;
  return nullptr;
}

Archive::Archive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Archive::Archive(Archive&&) noexcept = default;
Archive& Archive::operator=(Archive&&) noexcept = default;
Archive::~Archive() = default;

Result<Archive> Archive::init(const std::string& dir, TimeMs created) {
  git::ensure_initialized();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{Errc::io, fmt::format("cannot create {}: {}", dir, ec.message())};
  if (fs::exists(fs::path(dir) / ".git"))
    return Error{Errc::exists, fmt::format("{} already holds a git repository", dir)};
  git_repository_init_options options;
  git_repository_init_options_init(&options, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
  options.flags = GIT_REPOSITORY_INIT_MKPATH;
  options.initial_head = "main";
  git_repository* repo = nullptr;
  if (git_repository_init_ext(&repo, dir.c_str(), &options) != 0)
    return git::last_error(fmt::format("creating a git repository in {}", dir));
  git_repository_free(repo);
  auto archive = open_repository(dir);
  if (!archive) return archive.error();
  CommitRequest first;
  first.message = "feeddiff: archive created\n";
  first.author_time = first.commit_time = created;
  first.files.push_back(
      {kConfigFile, std::string("# feeddiff sources. Change them with `feeddiff add` and "
                                "`feeddiff remove`, or edit and commit.\n")});
  if (auto c = archive->commit(first); !c) return c.error();
  return std::move(*archive);
}

Result<Archive> Archive::open(const std::string& dir) {
  auto archive = open_repository(dir);
  if (!archive) return archive.error();
  if (!fs::exists(fs::path(archive->work_dir()) / kConfigFile))
    return Error{Errc::not_an_archive,
                 fmt::format("{} is a git repository, not a feeddiff archive (no {}; create one "
                             "with `feeddiff init`)",
                             archive->work_dir(), kConfigFile)};
  return archive;
}

Result<Archive> Archive::open_repository(const std::string& dir) {
  git::ensure_initialized();
  if (!fs::is_directory(dir))
    return Error{Errc::not_an_archive, fmt::format("{} is not a directory", dir)};
  git_repository* repo = nullptr;
  // Search upwards as git does, so `feeddiff` works from any directory inside an archive.
  if (git_repository_open_ext(&repo, dir.c_str(), 0, nullptr) != 0)
    return Error{
        Errc::not_an_archive,
        fmt::format("{} is not a feeddiff archive (create one with `feeddiff init`)", dir)};
  auto impl = std::make_unique<Impl>();
  impl->repo.reset(repo);
  ignore_commit_graph(repo);
  const char* workdir = git_repository_workdir(repo);
  if (!workdir)
    return Error{Errc::not_an_archive, fmt::format("{} is a bare repository, not an archive", dir)};
  impl->work_dir = strip_slash(workdir);
  impl->git_dir = strip_slash(git_repository_path(repo));
  return Archive(std::move(impl));
}

const std::string& Archive::work_dir() const {
  return impl_->work_dir;
}

std::string Archive::private_dir() const {
  std::string dir = impl_->git_dir + "/feeddiff";
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir;
}

Result<std::optional<std::string>> Archive::commit(const CommitRequest& request) {
  git_repository* repo = impl_->repo.get();
  auto head = impl_->head();
  if (!head) return head.error();
  git::TreePtr base;
  if (*head) {
    auto tree = tree_of(head->value().get());
    if (!tree) return tree.error();
    base = std::move(*tree);
  }

  std::vector<git_tree_update> updates;
  std::vector<tree_splice::Change> changes;
  for (const auto& file : request.files) {
    git_tree_update update{};
    update.path = file.path.c_str();
    if (const std::string* bytes = stored_bytes(file)) {
      update.action = GIT_TREE_UPDATE_UPSERT;
      update.filemode = GIT_FILEMODE_BLOB;
      if (impl_->batch) {
        // In a batch, a blob goes straight to the in-memory backend, shared with the
        // compressing thread: bytes handed over shared are not copied at all. An id hashed
        // ahead (on another thread, beside the transfers) is taken as it is.
        if (file.content_id.size() == GIT_OID_HEXSZ &&
            git_oid_fromstr(&update.id, file.content_id.c_str()) == 0) {
#ifndef NDEBUG
          // The id is trusted, and a wrong one would store bytes under another blob's name:
          // the test builds check every one the suite's polls hand in.
          if (feeddiff::blob_id(*bytes) != file.content_id)
            return Error{Errc::git,
                         fmt::format("{}: content_id is not the id of its bytes", file.path)};
#endif
        } else if (git_odb_hash(&update.id, bytes->data(), bytes->size(), GIT_OBJECT_BLOB) != 0) {
          return git::last_error(fmt::format("storing {}", file.path));
        }
        git::SharedBytes held =
            file.shared ? file.shared : std::make_shared<const std::string>(*bytes);
        impl_->batch->put(update.id, GIT_OBJECT_BLOB, held);
        impl_->precompressor->submit(update.id, std::move(held));
      } else if (git_blob_create_from_buffer(&update.id, repo, bytes->data(), bytes->size()) != 0) {
        return git::last_error(fmt::format("storing {}", file.path));
      }
    } else if (!file.blob.empty()) {
      update.action = GIT_TREE_UPDATE_UPSERT;
      update.filemode = GIT_FILEMODE_BLOB;
      if (file.blob.size() != GIT_OID_HEXSZ || git_oid_fromstr(&update.id, file.blob.c_str()) != 0)
        return Error{Errc::git, fmt::format("no blob {} for {}", file.blob, file.path)};
    } else {
      const git_oid existing = entry_id(base.get(), file.path);
      if (git_oid_is_zero(&existing) == 1) continue;
      update.action = GIT_TREE_UPDATE_REMOVE;
    }
    updates.push_back(update);
    changes.push_back({file.path, update.action == GIT_TREE_UPDATE_UPSERT
                                      ? std::optional<git_oid>(update.id)
                                      : std::nullopt});
  }
  git_oid tree_id{};
  std::optional<tree_splice::Spliced> spliced;
  if (!updates.empty()) {
    git_odb* odb = nullptr;
    if (git_repository_odb(&odb, repo) != 0) return git::last_error("opening the object database");
    git::OdbPtr odb_owned(odb);
    auto made = tree_splice::apply(odb, impl_->mempack, base ? git_tree_id(base.get()) : nullptr,
                                   std::move(changes));
    if (!made) return made.error();
    spliced = std::move(*made);
  }
  if (spliced) {
    tree_id = spliced->root;
  } else if (updates.empty()) {
    if (!base) return std::optional<std::string>{};
    tree_id = *git_tree_id(base.get());
  } else if (base) {
    if (git_tree_create_updated(&tree_id, repo, base.get(), updates.size(), updates.data()) != 0)
      return git::last_error("writing the tree");
  } else {
    // The first commit: build from an empty tree.
    git_treebuilder* builder = nullptr;
    if (git_treebuilder_new(&builder, repo, nullptr) != 0)
      return git::last_error("writing the tree");
    git_oid empty{};
    int rc = git_treebuilder_write(&empty, builder);
    git_treebuilder_free(builder);
    if (rc != 0) return git::last_error("writing the tree");
    git_tree* empty_tree = nullptr;
    if (git_tree_lookup(&empty_tree, repo, &empty) != 0) return git::last_error("writing the tree");
    git::TreePtr owned(empty_tree);
    if (git_tree_create_updated(&tree_id, repo, empty_tree, updates.size(), updates.data()) != 0)
      return git::last_error("writing the tree");
  }
  if (base && git_oid_equal(&tree_id, git_tree_id(base.get()))) return std::optional<std::string>{};

  git_signature *author = nullptr, *committer = nullptr;
  if (git_signature_new(&author, kIdentityName, kIdentityEmail, request.author_time / 1000, 0) != 0)
    return git::last_error("making the author");
  git::SignaturePtr author_owned(author);
  if (git_signature_new(&committer, kIdentityName, kIdentityEmail, request.commit_time / 1000, 0) !=
      0)
    return git::last_error("making the committer");
  git::SignaturePtr committer_owned(committer);

  const git_oid* parents[1] = {*head ? git_commit_id(head->value().get()) : nullptr};
  git_oid commit_id{};
  std::vector<std::string> paths;
  for (const auto& file : request.files) paths.push_back(file.path);

  if (impl_->batching) {
    // Everything goes to memory; flush() packs it and moves the branch. The commit goes
    // straight to the in-memory backend, as the blobs and trees do: git_odb_write would first
    // look for it everywhere (a new object never is there), rescanning objects/pack/ and
    // touching a loose path each time, 2.6% of a cold poll's CPU on its own thread.
    git_tree* root = nullptr;
    if (git_tree_lookup(&root, repo, &tree_id) != 0) return git::last_error("reading the new tree");
    git::TreePtr root_owned(root);
    const git_commit* parent_commits[1] = {*head ? head->value().get() : nullptr};
    git_buf text = GIT_BUF_INIT;
    if (git_commit_create_buffer(&text, repo, author, committer, "UTF-8", request.message.c_str(),
                                 root, *head ? 1 : 0, parent_commits) != 0)
      return git::last_error("writing the commit");
    const int rc = git_odb_hash(&commit_id, text.ptr, text.size, GIT_OBJECT_COMMIT) != 0
                       ? -1
                       : impl_->mempack->write(impl_->mempack, &commit_id, text.ptr, text.size,
                                               GIT_OBJECT_COMMIT);
    git_buf_dispose(&text);
    if (rc != 0) return git::last_error("writing the commit");
    if (auto ok = impl_->note_objects(request, tree_id, spliced ? &*spliced : nullptr, commit_id);
        !ok)
      return ok.error();
    if (!impl_->pending_head && *head) impl_->batch_base = *git_commit_id(head->value().get());
    impl_->pending_head = commit_id;
    impl_->pending_commits += 1;
    impl_->touched.insert(paths.begin(), paths.end());
    return std::optional<std::string>(git::to_hex(commit_id));
  }

  // If we die between moving the branch and the checkout, whoever takes the lock next
  // finishes the checkout (see finish_checkout).
  (void)private_dir();
  if (auto ok = write_file_atomic(impl_->checkout_marker(), join_lines(paths)); !ok)
    return ok.error();
  // The commit first, then the branch, through a lock file and a rename, and only if it did
  // not move since we read it: the branch never names a half-written commit.
  if (git_commit_create_from_ids(&commit_id, repo, nullptr, author, committer, "UTF-8",
                                 request.message.c_str(), &tree_id, *head ? 1 : 0, parents) != 0)
    return git::last_error("writing the commit");
  auto branch = head_branch(repo);
  if (!branch) return branch.error();
  git_commit* made = nullptr;
  if (git_commit_lookup(&made, repo, &commit_id) != 0) return git::last_error("reading the commit");
  git::CommitPtr made_owned(made);
  const char* summary = git_commit_summary(made);
  const std::string reflog =
      fmt::format("commit{}: {}", *head ? "" : " (initial)", summary ? summary : "");
  if (auto ok = locks::move_branch(repo, impl_->lock_places(), *branch,
                                   *head ? git_commit_id(head->value().get()) : nullptr, commit_id,
                                   reflog);
      !ok)
    return ok.error();
  if (auto ok = checkout_paths(repo, impl_->lock_places(), paths); !ok) return ok.error();
  std::remove(impl_->checkout_marker().c_str());
  update_source_index(repo, impl_->git_dir);
  return std::optional<std::string>(git::to_hex(commit_id));
}

Status Archive::Impl::note_objects(const CommitRequest& request, const git_oid& tree_id,
                                   const tree_splice::Spliced* spliced, const git_oid& commit_id) {
  Impl& b = *this;
  git_odb* odb = nullptr;
  git_repository_odb(&odb, b.repo.get());
  git::OdbPtr odb_owned(odb);
  auto add = [&](const git_oid& id, std::string path) {
    std::size_t size = 0;
    git_object_t type{};
    if (odb && git_odb_read_header(&size, &type, odb, &id) == 0) b.pending_bytes += size;
    b.objects.push_back({id, std::move(path)});
  };
  // The trees along each written path (new unless identical to an older one), then the
  // blobs, then the commit: in a pack, bases come first and readers like this order.
  if (spliced) {
    // Their ids and sizes are known: no tree is parsed again.
    for (const auto& t : spliced->trees) {
      b.pending_bytes += t.size;
      b.objects.push_back({t.id, t.dir.empty() ? "/" : t.dir + "/"});
    }
    for (const auto& file : request.files) {
      const std::string* bytes = stored_bytes(file);
      if (!bytes) continue;
      for (const auto& c : spliced->blobs)
        if (c.path == file.path && c.blob) {
          b.pending_bytes += bytes->size();
          b.objects.push_back({*c.blob, file.path});
          break;
        }
    }
    add(commit_id, "");
    return Ok{};
  }
  git_tree* tree_raw = nullptr;
  if (git_tree_lookup(&tree_raw, b.repo.get(), &tree_id) != 0)
    return git::last_error("reading the new tree");
  git::TreePtr tree_owned(tree_raw);
  const git_tree* tree = tree_raw;
  std::set<std::string> dirs = {""};
  for (const auto& file : request.files)
    for (auto slash = file.path.find('/'); slash != std::string::npos;
         slash = file.path.find('/', slash + 1))
      dirs.insert(file.path.substr(0, slash));
  for (const auto& dir : dirs) {
    const git_oid id = entry_id(tree, dir);
    if (git_oid_is_zero(&id) != 1) add(id, dir.empty() ? "/" : dir + "/");
  }
  for (const auto& file : request.files)
    if (stored_bytes(file)) {
      const git_oid id = entry_id(tree, file.path);
      if (git_oid_is_zero(&id) != 1) add(id, file.path);
    }
  add(commit_id, "");
  return Ok{};
}

Status Archive::begin_batch() {
  if (impl_->batching) return Ok{};
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, impl_->repo.get()) != 0)
    return git::last_error("opening the object database");
  // Highest priority: every write of the batch lands in memory.
  git::BatchBackend* batch = git::BatchBackend::add_to(odb, 999);
  git_odb_free(odb);
  if (!batch) return git::last_error("starting a batch of commits");
  impl_->batch = batch;
  impl_->mempack = batch->backend();
  impl_->precompressor = std::make_unique<pack::Precompressor>();
  impl_->batching = true;
  return Ok{};
}

std::size_t Archive::pending_bytes() const {
  return impl_->pending_bytes;
}

std::size_t Archive::pending_commits() const {
  return impl_->pending_commits;
}

namespace {

// The batch's objects regrouped by commit, newest commit first; each commit's objects keep
// their order (trees, blobs, then the commit itself, which ends its group).
void newest_first(std::vector<pack::PackObject>& objects) {
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // [begin, end)
  std::size_t begin = 0;
  for (std::size_t k = 0; k < objects.size(); ++k)
    if (objects[k].path.empty()) {
      groups.emplace_back(begin, k + 1);
      begin = k + 1;
    }
  if (begin < objects.size()) groups.emplace_back(begin, objects.size());
  if (groups.size() < 2) return;
  std::vector<pack::PackObject> out;
  out.reserve(objects.size());
  for (auto g = groups.rbegin(); g != groups.rend(); ++g)
    for (std::size_t k = g->first; k < g->second; ++k) out.push_back(std::move(objects[k]));
  objects = std::move(out);
}

}  // namespace

Status Archive::flush() {
  Impl& b = *impl_;
  if (!b.batching || !b.pending_head) return Ok{};
  git_repository* repo = b.repo.get();
  git_odb* odb_raw = nullptr;
  if (git_repository_odb(&odb_raw, repo) != 0)
    return git::last_error("opening the object database");
  std::unique_ptr<git_odb, decltype(&git_odb_free)> odb(odb_raw, &git_odb_free);

  // 1. The objects, as one pack, durable before anything names them. The newest commit's
  // objects first: each raw/ tree (1,000 entries at 1,000 sources) is then a delta against
  // the one after it, and the branch head's, which every show, log and status reads, is
  // stored whole. In commit order, after a poll of 100 changes over 1,000 sources the head's
  // was 33 deltas deep, and a reader applied them all (git's packs put the newest first too).
  newest_first(b.objects);
  if (auto ok = pack::write_pack(odb.get(), b.objects, b.git_dir + "/objects/pack",
                                 b.precompressor.get(), b.batch);
      !ok)
    return ok.error();
  if (b.precompressor) b.precompressor->clear();
  if (git_odb_refresh(odb.get()) != 0) return git::last_error("reading the new pack");
  failpoint(Failpoint::pack_in_place);

  // 2. The branch, once, atomically, and only if nobody moved it meanwhile.
  const std::vector<std::string> paths(b.touched.begin(), b.touched.end());
  (void)private_dir();
  if (auto ok = write_file_atomic(b.checkout_marker(), join_lines(paths)); !ok) return ok;
  failpoint(Failpoint::checkout_marked);
  auto branch = head_branch(repo);
  if (!branch) return branch.error();
  // Compare-and-swap against the branch the batch was built on: a writer that moved it
  // meanwhile is not overwritten.
  const std::string reflog =
      fmt::format("feeddiff: {} commit{}", b.pending_commits, b.pending_commits == 1 ? "" : "s");
  if (auto ok =
          locks::move_branch(repo, b.lock_places(), *branch,
                             b.batch_base ? &*b.batch_base : nullptr, *b.pending_head, reflog);
      !ok)
    return ok;
  failpoint(Failpoint::branch_moved);

  // 3. The index and work tree. The batch's objects are still in memory (and first in the
  // lookup order), so the checkout copies them instead of inflating them from the pack.
  if (auto ok = checkout_paths(repo, b.lock_places(), paths, b.batch); !ok) return ok;
  failpoint(Failpoint::checkout_done);
  std::remove(b.checkout_marker().c_str());
  failpoint(Failpoint::flushed);
  b.batch->reset();
  b.objects.clear();
  b.touched.clear();
  b.pending_bytes = 0;
  b.pending_commits = 0;
  b.pending_head.reset();
  b.batch_base.reset();
  return Ok{};
}

Status Archive::end_batch() {
  if (!impl_->batching) return Ok{};
  Status flushed = flush();
  // Once per batch rather than per flush: a catch-up pays for its files (one per source it
  // touched) each time, and a cold poll's two flushes wrote most of them twice.
  if (flushed) update_source_index(impl_->repo.get(), impl_->git_dir);
  // A fresh repository handle drops the in-memory backend (and anything still in it).
  git_repository* repo = nullptr;
  if (git_repository_open(&repo, impl_->work_dir.c_str()) != 0)
    return git::last_error("reopening the repository");
  impl_->head_trees.clear();  // before the handle they were read through goes
  impl_->repo.reset(repo);
  ignore_commit_graph(repo);
  impl_->batching = false;
  impl_->batch = nullptr;
  impl_->mempack = nullptr;
  impl_->precompressor.reset();
  impl_->objects.clear();
  impl_->touched.clear();
  impl_->pending_bytes = 0;
  impl_->pending_commits = 0;
  impl_->pending_head.reset();
  impl_->batch_base.reset();
  return flushed;
}

Status Archive::finish_checkout() const {
  const std::string marker = impl_->checkout_marker();
  if (!fs::exists(marker)) return Ok{};
  auto text = read_file(marker);
  if (!text) return text.error();
  git_repository* repo = impl_->repo.get();
  // The marker is written before the branch moves and removed after the index is written: a
  // feeddiff writer died in between. The lock files it took and noted are its leftovers and
  // go; any other lock of the branch, HEAD or the index is a live git's (or no one's anyone
  // can tell): it stays, and this is an error until it is gone.
  std::vector<std::string> candidates = {"HEAD.lock", "index.lock"};
  if (auto branch = head_branch(repo); branch && *branch != "HEAD")
    candidates.push_back(*branch + ".lock");
  if (auto ok = locks::clear_own_locks(impl_->lock_places(), *text, candidates); !ok) return ok;
  std::vector<std::string> paths;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && !locks::is_lock_line(line)) paths.push_back(line);
  // The checkout may have written some files but not the index: take the index entries from
  // HEAD first, or a file already at its new content would keep a stale entry.
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (*head && !paths.empty()) {
    git_index* index = nullptr;
    if (git_repository_index(&index, repo) != 0) return git::last_error("reading the index");
    git::IndexPtr index_owned(index);
    if (git_index_read(index, 1) != 0) return git::last_error("reading the index");
    auto tree = tree_of(head->value().get());
    if (!tree) return tree.error();
    for (const auto& p : paths) {
      git_tree_entry* entry = nullptr;
      if (git_tree_entry_bypath(&entry, tree->get(), p.c_str()) == 0) {
        git::TreeEntryPtr entry_owned(entry);
        git_index_entry e{};
        e.mode = static_cast<std::uint32_t>(git_tree_entry_filemode(entry));
        e.id = *git_tree_entry_id(entry);
        e.path = p.c_str();
        if (git_index_add(index, &e) != 0) return git::last_error("restoring the index");
      } else {
        (void)git_index_remove_bypath(index, p.c_str());
      }
    }
  }
  (void)private_dir();
  if (auto ok = checkout_paths(repo, impl_->lock_places(), paths); !ok) return ok;
  std::remove(marker.c_str());
  return Ok{};
}

}  // namespace feeddiff
