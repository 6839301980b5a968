// The archive: a git repository whose branch gets one commit per recorded change.

#include <fcntl.h>
#include <git2/sys/mempack.h>
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

#include "core/failpoint.h"
#include "feeddiff/message.h"
#include "feeddiff/store.h"
#include "store/abbreviator.h"
#include "store/archive_impl.h"
#include "store/git_handles.h"
#include "store/pack_writer.h"
#include "store/source_index.h"

namespace feeddiff {

namespace fs = std::filesystem;

inline constexpr const char* kConfigFile = "feeddiff.toml";
inline constexpr const char* kIdentityName = "feeddiff";
inline constexpr const char* kIdentityEmail = "feeddiff@localhost";

namespace {

// A commit-graph a user wrote for git's own `log -- PATH` (docs/index.md) helps feeddiff with
// nothing: the source index answers path queries, and every walk feeddiff makes reads the
// commits' messages anyway. libgit2 checks the graph's SHA-1 when it first opens it, with
// collision detection: at 100,000 commits that is 4 MB hashed, three quarters of a
// `feeddiff log -n 10`. So feeddiff's handles do without it.
void ignore_commit_graph(git_repository* repo) {
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo) != 0) return;
  git_odb_set_commit_graph(odb, nullptr);
  git_odb_free(odb);
}

std::string strip_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Result<git::CommitPtr> lookup_commit(git_repository* repo, std::string_view revision) {
  git_object* obj = nullptr;
  std::string rev(revision);
  if (git_revparse_single(&obj, repo, rev.c_str()) != 0)
    return Error{Errc::not_found, fmt::format("unknown commit '{}'", revision)};
  git::ObjectPtr owned(obj);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) != 0)
    return Error{Errc::not_found, fmt::format("'{}' names no commit", revision)};
  return git::CommitPtr(reinterpret_cast<git_commit*>(peeled));
}

Result<std::optional<git::CommitPtr>> branch_head(git_repository* repo) {
  git_reference* ref = nullptr;
  int rc = git_repository_head(&ref, repo);
  if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) return std::optional<git::CommitPtr>{};
  if (rc != 0) return git::last_error("reading HEAD");
  git::ReferencePtr owned(ref);
  git_commit* commit = nullptr;
  if (git_commit_lookup(&commit, repo, git_reference_target(ref)) != 0)
    return git::last_error("reading the HEAD commit");
  return std::optional<git::CommitPtr>(git::CommitPtr(commit));
}

CommitInfo info_of(const git_commit* commit) {
  CommitInfo info;
  info.id = git::to_hex(*git_commit_id(commit));
  const char* message = git_commit_message(commit);
  info.message = message ? message : "";
  info.title = info.message.substr(0, info.message.find('\n'));
  info.trailers = message_trailers(info.message);
  info.author_time = static_cast<TimeMs>(git_commit_author(commit)->when.time) * 1000;
  info.commit_time = static_cast<TimeMs>(git_commit_time(commit)) * 1000;
  for (unsigned i = 0; i < git_commit_parentcount(commit); ++i)
    info.parents.push_back(git::to_hex(*git_commit_parent_id(commit, i)));
  return info;
}

// The id of the tree entry at path (a blob or a subtree), or a zero id when absent.
git_oid entry_id(const git_tree* tree, const std::string& path) {
  git_oid zero{};
  if (!tree) return zero;
  if (path.empty()) return *git_tree_id(tree);
  git_tree_entry* entry = nullptr;
  if (git_tree_entry_bypath(&entry, tree, path.c_str()) != 0) return zero;
  git_oid id = *git_tree_entry_id(entry);
  git_tree_entry_free(entry);
  return id;
}

Result<git::TreePtr> tree_of(const git_commit* commit) {
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, commit) != 0) return git::last_error("reading a commit's tree");
  return git::TreePtr(tree);
}

// Whether the commit changed what lies at path (a file or a directory) against its first
// parent; a root commit changed whatever it holds.
Result<bool> touches(git_commit* commit, const std::string& path) {
  auto tree = tree_of(commit);
  if (!tree) return tree.error();
  git::TreePtr parent_tree;
  if (git_commit_parentcount(commit) > 0) {
    git_commit* parent = nullptr;
    if (git_commit_parent(&parent, commit, 0) != 0) return git::last_error("reading a parent");
    git::CommitPtr parent_owned(parent);
    auto t = tree_of(parent);
    if (!t) return t.error();
    parent_tree = std::move(*t);
  }
  git_oid now = entry_id(tree->get(), path);
  git_oid before = entry_id(parent_tree.get(), path);
  return !git_oid_equal(&now, &before);
}

// The parent's tree, null for a root commit.
Result<git::TreePtr> first_parent_tree(git_commit* commit) {
  if (git_commit_parentcount(commit) == 0) return git::TreePtr();
  git_commit* parent = nullptr;
  if (git_commit_parent(&parent, commit, 0) != 0) return git::last_error("reading a parent");
  git::CommitPtr parent_owned(parent);
  return tree_of(parent);
}

// The id of source name's directory in a tree, in whichever layout holds it (a zero id when
// neither does), and that directory (flat when neither).
git_oid source_entry(const git_tree* tree, std::string_view name, std::string* dir = nullptr) {
  git_oid zero{};
  if (dir) *dir = source_dir(name, Layout::flat);
  if (!tree) return zero;
  // raw/hh/NAME is a directory only in the fan-out layout (a flat source's directory holds
  // files only), and raw/NAME only in the flat one unless NAME is two hex digits, a bucket's
  // name: so fan-out first for such a name, flat first otherwise (no SHA-1 to compute, and
  // libcrypto's first use costs more than the rest of a lookup).
  const bool bucket_like = name.size() == 2 && std::isxdigit(static_cast<unsigned char>(name[0])) &&
                           std::isxdigit(static_cast<unsigned char>(name[1]));
  const Layout first = bucket_like ? Layout::fanout : Layout::flat;
  const Layout second = bucket_like ? Layout::flat : Layout::fanout;
  for (Layout layout : {first, second}) {
    const std::string d = source_dir(name, layout);
    git_tree_entry* entry = nullptr;
    if (git_tree_entry_bypath(&entry, tree, d.substr(0, d.size() - 1).c_str()) != 0) continue;
    git::TreeEntryPtr owned(entry);
    if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) continue;
    if (dir) *dir = d;
    return *git_tree_entry_id(entry);
  }
  return zero;
}

// Whether the commit changed source name's files against its first parent, wherever each
// side keeps them: a move from one layout to the other is no change.
Result<bool> touches_source(git_commit* commit, std::string_view name) {
  auto tree = tree_of(commit);
  if (!tree) return tree.error();
  auto parent_tree = first_parent_tree(commit);
  if (!parent_tree) return parent_tree.error();
  git_oid now = source_entry(tree->get(), name);
  git_oid before = source_entry(parent_tree->get(), name);
  return !git_oid_equal(&now, &before);
}

// The differences between two trees (either may be null), each path prefixed.
Result<std::vector<PathChange>> diff_trees(git_repository* repo, git_tree* old_side,
                                           git_tree* new_side, const std::string& prefix) {
  git_diff* diff = nullptr;
  git_diff_options options;
  git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
  if (git_diff_tree_to_tree(&diff, repo, old_side, new_side, &options) != 0)
    return git::last_error("comparing trees");
  git::DiffPtr owned(diff);
  std::vector<PathChange> out;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff, i);
    PathChange change;
    switch (delta->status) {
      case GIT_DELTA_ADDED:
        change = {
            prefix + delta->new_file.path, ChangeKind::added, {}, git::to_hex(delta->new_file.id)};
        break;
      case GIT_DELTA_DELETED:
        change = {prefix + delta->old_file.path,
                  ChangeKind::deleted,
                  git::to_hex(delta->old_file.id),
                  {}};
        break;
      default:
        change = {prefix + delta->new_file.path, ChangeKind::modified,
                  git::to_hex(delta->old_file.id), git::to_hex(delta->new_file.id)};
    }
    out.push_back(std::move(change));
  }
  return out;
}

// A commit as log lists it: with the id abbreviated as git would. Only log prints ids for a
// person to type back, so the odb lookup is paid here, not by every reader of a commit.
CommitInfo listed_info(git_commit* commit, const Abbreviator& abbreviate) {
  CommitInfo info = info_of(commit);
  info.abbrev = abbreviate(*git_commit_id(commit));
  return info;
}

// Brings the index and work tree in step with HEAD for these paths (a removed path is
// deleted), whatever they hold now. The index is written through a lock file the marker
// names (locks::write_index), not by the checkout.
Status checkout_paths(git_repository* repo, const locks::Places& places,
                      const std::vector<std::string>& paths) {
  if (paths.empty()) return Ok{};
  std::vector<const char*> list;
  for (const auto& p : paths) list.push_back(p.c_str());
  // The *_options_init calls rather than the _INIT macros: the macros leave fields out, which
  // clang's -Wmissing-field-initializers rejects under -Werror.
  git_checkout_options checkout;
  git_checkout_options_init(&checkout, GIT_CHECKOUT_OPTIONS_VERSION);
  checkout.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH |
                               GIT_CHECKOUT_REMOVE_UNTRACKED | GIT_CHECKOUT_DONT_WRITE_INDEX;
  checkout.paths.strings = const_cast<char**>(list.data());
  checkout.paths.count = list.size();
  if (git_checkout_head(repo, &checkout) != 0) return git::last_error("updating the work tree");
  if (auto ok = locks::write_index(repo, places); !ok) return ok;
  // libgit2 renames index.lock over the index without an fsync of either (its
  // GIT_OPT_ENABLE_FSYNC_GITDIR covers objects, refs and reflogs, not the index): after a
  // power loss the index could come back old, or empty, once the checkout marker is gone.
  const std::string git_dir = strip_slash(git_repository_path(repo));
  const std::string index = git_dir + "/index";
  const int fd = ::open(index.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    Error e{Errc::io, fmt::format("cannot flush {}: {}", index, std::strerror(errno))};
    if (fd >= 0) ::close(fd);
    return e;
  }
  ::close(fd);
  return fsync_dir(git_dir);
}

// The branch HEAD names ("HEAD" itself when detached).
Result<std::string> head_branch(git_repository* repo) {
  git_reference* head_ref = nullptr;
  if (git_reference_lookup(&head_ref, repo, "HEAD") != 0) return git::last_error("reading HEAD");
  git::ReferencePtr owned(head_ref);
  if (git_reference_type(head_ref) == GIT_REFERENCE_SYMBOLIC)
    return std::string(git_reference_symbolic_target(head_ref));
  return std::string("HEAD");
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Brings the source index up to the branch (source_index.h); the caller holds the lock. Best
// effort: the commits are durable already, and a reader catches up from whatever is left.
void update_source_index(git_repository* repo, const std::string& git_dir) {
  auto head = branch_head(repo);
  if (!head || !*head) return;
  (void)source_index::update(repo, git_dir + "/feeddiff/index",
                             *git_commit_id(head->value().get()));
}

}  // namespace

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
  for (const auto& file : request.files) {
    git_tree_update update{};
    update.path = file.path.c_str();
    if (file.content) {
      update.action = GIT_TREE_UPDATE_UPSERT;
      update.filemode = GIT_FILEMODE_BLOB;
      if (git_blob_create_from_buffer(&update.id, repo, file.content->data(),
                                      file.content->size()) != 0)
        return git::last_error(fmt::format("storing {}", file.path));
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
  }
  git_oid tree_id{};
  if (updates.empty()) {
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

  git_tree* tree = nullptr;
  if (git_tree_lookup(&tree, repo, &tree_id) != 0) return git::last_error("reading the new tree");
  git::TreePtr tree_owned(tree);
  git_signature *author = nullptr, *committer = nullptr;
  if (git_signature_new(&author, kIdentityName, kIdentityEmail, request.author_time / 1000, 0) != 0)
    return git::last_error("making the author");
  git::SignaturePtr author_owned(author);
  if (git_signature_new(&committer, kIdentityName, kIdentityEmail, request.commit_time / 1000, 0) !=
      0)
    return git::last_error("making the committer");
  git::SignaturePtr committer_owned(committer);

  const git_commit* parents[1] = {*head ? head->value().get() : nullptr};
  git_oid commit_id{};
  std::vector<std::string> paths;
  for (const auto& file : request.files) paths.push_back(file.path);

  if (impl_->batching) {
    // Everything goes to memory; flush() packs it and moves the branch.
    if (git_commit_create(&commit_id, repo, nullptr, author, committer, "UTF-8",
                          request.message.c_str(), tree, *head ? 1 : 0, parents) != 0)
      return git::last_error("writing the commit");
    impl_->note_objects(request, tree, commit_id);
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
  if (git_commit_create(&commit_id, repo, nullptr, author, committer, "UTF-8",
                        request.message.c_str(), tree, *head ? 1 : 0, parents) != 0)
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

void Archive::Impl::note_objects(const CommitRequest& request, const git_tree* tree,
                                 const git_oid& commit_id) {
  Impl& b = *this;
  git_odb* odb = nullptr;
  git_repository_odb(&odb, b.repo.get());
  auto add = [&](const git_oid& id, std::string path) {
    std::size_t size = 0;
    git_object_t type{};
    if (odb && git_odb_read_header(&size, &type, odb, &id) == 0) b.pending_bytes += size;
    b.objects.push_back({id, std::move(path)});
  };
  // The trees along each written path (new unless identical to an older one), then the
  // blobs, then the commit: in a pack, bases come first and readers like this order.
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
    if (file.content) {
      const git_oid id = entry_id(tree, file.path);
      if (git_oid_is_zero(&id) != 1) add(id, file.path);
    }
  add(commit_id, "");
  git_odb_free(odb);
}

Status Archive::begin_batch() {
  if (impl_->batching) return Ok{};
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, impl_->repo.get()) != 0)
    return git::last_error("opening the object database");
  git_odb_backend* mempack = nullptr;
  int rc = git_mempack_new(&mempack);
  // Highest priority: every write of the batch lands in memory.
  if (rc == 0) rc = git_odb_add_backend(odb, mempack, 999);
  git_odb_free(odb);
  if (rc != 0) return git::last_error("starting a batch of commits");
  impl_->mempack = mempack;
  impl_->batching = true;
  return Ok{};
}

std::size_t Archive::pending_bytes() const {
  return impl_->pending_bytes;
}

std::size_t Archive::pending_commits() const {
  return impl_->pending_commits;
}

Status Archive::flush() {
  Impl& b = *impl_;
  if (!b.batching || !b.pending_head) return Ok{};
  git_repository* repo = b.repo.get();
  git_odb* odb_raw = nullptr;
  if (git_repository_odb(&odb_raw, repo) != 0)
    return git::last_error("opening the object database");
  std::unique_ptr<git_odb, decltype(&git_odb_free)> odb(odb_raw, &git_odb_free);

  // 1. The objects, as one pack, durable before anything names them.
  if (auto ok = pack::write_pack(odb.get(), b.objects, b.git_dir + "/objects/pack"); !ok)
    return ok.error();
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
  if (auto ok = checkout_paths(repo, b.lock_places(), paths); !ok) return ok;
  failpoint(Failpoint::checkout_done);
  std::remove(b.checkout_marker().c_str());
  failpoint(Failpoint::flushed);
  git_mempack_reset(b.mempack);
  b.objects.clear();
  b.touched.clear();
  b.pending_bytes = 0;
  b.pending_commits = 0;
  b.pending_head.reset();
  b.batch_base.reset();
  update_source_index(repo, b.git_dir);
  return Ok{};
}

Status Archive::end_batch() {
  if (!impl_->batching) return Ok{};
  Status flushed = flush();
  // A fresh repository handle drops the in-memory backend (and anything still in it).
  git_repository* repo = nullptr;
  if (git_repository_open(&repo, impl_->work_dir.c_str()) != 0)
    return git::last_error("reopening the repository");
  impl_->repo.reset(repo);
  ignore_commit_graph(repo);
  impl_->batching = false;
  impl_->mempack = nullptr;
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

Result<CommitInfo> Archive::resolve(std::string_view revision) const {
  auto commit = lookup_commit(impl_->repo.get(), revision);
  if (!commit) return commit.error();
  return info_of(commit->get());
}

namespace {

// The blob id of a file at a commit; nullopt when the path is not a file there.
Result<std::optional<git_oid>> file_at(git_repository* repo, std::string_view commit_id,
                                       std::string_view path) {
  auto commit = lookup_commit(repo, commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  git_tree_entry* entry = nullptr;
  const std::string p(path);
  if (git_tree_entry_bypath(&entry, tree->get(), p.c_str()) != 0) return std::optional<git_oid>{};
  git::TreeEntryPtr owned(entry);
  if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return std::optional<git_oid>{};
  return std::optional<git_oid>(*git_tree_entry_id(entry));
}

}  // namespace

Result<std::optional<std::string>> Archive::read(std::string_view commit_id,
                                                 std::string_view path) const {
  auto id = file_at(impl_->repo.get(), commit_id, path);
  if (!id) return id.error();
  if (!*id) return std::optional<std::string>{};
  git_blob* blob = nullptr;
  if (git_blob_lookup(&blob, impl_->repo.get(), &**id) != 0)
    return git::last_error(fmt::format("reading {}", path));
  git::BlobPtr blob_owned(blob);
  const char* data = static_cast<const char*>(git_blob_rawcontent(blob));
  return std::optional<std::string>(
      std::string(data, static_cast<std::size_t>(git_blob_rawsize(blob))));
}

Result<std::optional<std::string>> Archive::blob_id(std::string_view commit_id,
                                                    std::string_view path) const {
  auto id = file_at(impl_->repo.get(), commit_id, path);
  if (!id) return id.error();
  if (!*id) return std::optional<std::string>{};
  return std::optional<std::string>(git::to_hex(**id));
}

Result<std::optional<std::string>> Archive::read_head(std::string_view path) const {
  auto head = impl_->head();
  if (!head) return head.error();
  if (!*head) return std::optional<std::string>{};
  return read(git::to_hex(*git_commit_id(head->value().get())), path);
}

Result<std::optional<std::pair<std::string, std::size_t>>> Archive::unpublished() const {
  using Answer = std::optional<std::pair<std::string, std::size_t>>;
  git_repository* repo = impl_->repo.get();
  git_reference* head_raw = nullptr;
  if (git_repository_head(&head_raw, repo) != 0) return Answer{};  // unborn or detached
  git::ReferencePtr head(head_raw);
  // branch.NAME.remote and branch.NAME.merge read by hand, the upstream taken to be
  // refs/remotes/REMOTE/BRANCH as `git clone` sets it up: git_branch_upstream looks the remote
  // up, and libgit2 1.5's remote lookup leaks its config regex matches (LeakSanitizer).
  const char* branch = git_reference_shorthand(head.get());
  git_config* config_raw = nullptr;
  if (!branch || git_repository_config_snapshot(&config_raw, repo) != 0) return Answer{};
  std::unique_ptr<git_config, decltype(&git_config_free)> config(config_raw, &git_config_free);
  const auto get = [&](const std::string& key) -> std::string {
    const char* value = nullptr;
    if (git_config_get_string(&value, config.get(), key.c_str()) != 0 || !value) return "";
    return value;
  };
  const std::string remote = get(fmt::format("branch.{}.remote", branch));
  std::string merge = get(fmt::format("branch.{}.merge", branch));
  if (remote.empty() || remote == "." || !merge.starts_with("refs/heads/")) return Answer{};
  const std::string short_name = remote + "/" + merge.substr(11);
  git_oid remote_id;
  if (git_reference_name_to_id(&remote_id, repo, ("refs/remotes/" + short_name).c_str()) != 0)
    return Answer{};
  const git_oid* local = git_reference_target(head.get());
  if (!local) return Answer{};
  std::size_t ahead = 0, behind = 0;
  if (git_graph_ahead_behind(&ahead, &behind, repo, local, &remote_id) != 0)
    return git::last_error("comparing the branch with its upstream");
  return Answer{std::pair<std::string, std::size_t>{short_name, ahead}};
}

Result<bool> Archive::uncommitted(std::string_view path) const {
  const std::string p(path);
  unsigned int flags = 0;
  const int rc = git_status_file(&flags, impl_->repo.get(), p.c_str());
  if (rc == GIT_ENOTFOUND) return false;
  if (rc != 0) return git::last_error("reading the status of " + p);
  return (flags & ~static_cast<unsigned int>(GIT_STATUS_IGNORED)) != 0;
}

Result<std::vector<PathChange>> Archive::changes(std::string_view commit_id,
                                                 std::string_view under) const {
  git_repository* repo = impl_->repo.get();
  auto commit = lookup_commit(repo, commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  git::TreePtr parent_tree;
  if (git_commit_parentcount(commit->get()) > 0) {
    git_commit* parent = nullptr;
    if (git_commit_parent(&parent, commit->get(), 0) != 0)
      return git::last_error("reading a parent");
    git::CommitPtr parent_owned(parent);
    auto t = tree_of(parent);
    if (!t) return t.error();
    parent_tree = std::move(*t);
  }
  // Under a directory, its two trees are found by name (a binary search in each tree on the
  // way down) and only they are compared: comparing the root trees would step through every
  // entry of raw/, one per source, for a commit that changed one of them.
  std::string prefix;
  git::TreePtr old_under, new_under;
  git_tree* old_side = parent_tree.get();
  git_tree* new_side = tree->get();
  if (!under.empty()) {
    prefix = std::string(under);
    if (!prefix.ends_with('/')) prefix += '/';
    const std::string dir = prefix.substr(0, prefix.size() - 1);
    auto subtree = [&](const git_tree* root, git::TreePtr& out) -> Status {
      if (!root) return Ok{};
      git_tree_entry* entry = nullptr;
      if (git_tree_entry_bypath(&entry, root, dir.c_str()) != 0) return Ok{};
      git::TreeEntryPtr owned(entry);
      if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) return Ok{};
      git_tree* found = nullptr;
      if (git_tree_lookup(&found, repo, git_tree_entry_id(entry)) != 0)
        return git::last_error(fmt::format("reading {}", dir));
      out.reset(found);
      return Ok{};
    };
    if (auto ok = subtree(old_side, old_under); !ok) return ok.error();
    if (auto ok = subtree(new_side, new_under); !ok) return ok.error();
    if (!old_under && !new_under) return std::vector<PathChange>{};
    if (old_under && new_under &&
        git_oid_equal(git_tree_id(old_under.get()), git_tree_id(new_under.get())))
      return std::vector<PathChange>{};
    old_side = old_under.get();
    new_side = new_under.get();
  }
  return diff_trees(repo, old_side, new_side, prefix);
}

Result<std::string> Archive::source_dir_at(std::string_view commit_id,
                                           std::string_view name) const {
  auto commit = lookup_commit(impl_->repo.get(), commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  std::string dir;
  source_entry(tree->get(), name, &dir);
  return dir;
}

Result<std::vector<PathChange>> Archive::source_changes(std::string_view commit_id,
                                                        std::string_view name) const {
  git_repository* repo = impl_->repo.get();
  auto commit = lookup_commit(repo, commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  auto parent_tree = first_parent_tree(commit->get());
  if (!parent_tree) return parent_tree.error();
  std::string new_dir, old_dir;
  const git_oid now = source_entry(tree->get(), name, &new_dir);
  const git_oid before = source_entry(parent_tree->get(), name, &old_dir);
  if (git_oid_equal(&now, &before)) return std::vector<PathChange>{};
  auto load = [&](const git_oid& id) -> Result<git::TreePtr> {
    if (git_oid_is_zero(&id) == 1) return git::TreePtr();
    git_tree* found = nullptr;
    if (git_tree_lookup(&found, repo, &id) != 0)
      return git::last_error(fmt::format("reading the directory of {}", name));
    return git::TreePtr(found);
  };
  auto old_side = load(before);
  if (!old_side) return old_side.error();
  auto new_side = load(now);
  if (!new_side) return new_side.error();
  return diff_trees(repo, old_side->get(), new_side->get(),
                    git_oid_is_zero(&now) == 1 ? old_dir : new_dir);
}

Result<std::vector<PathChange>> Archive::files_under(std::string_view commit_id,
                                                     std::string_view dir) const {
  git_repository* repo = impl_->repo.get();
  auto commit = lookup_commit(repo, commit_id);
  if (!commit) return commit.error();
  auto tree = tree_of(commit->get());
  if (!tree) return tree.error();
  std::string prefix(dir);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  git::TreePtr under;
  git_tree* top = tree->get();
  if (!prefix.empty()) {
    git_tree_entry* entry = nullptr;
    if (git_tree_entry_bypath(&entry, top, prefix.c_str()) != 0) return std::vector<PathChange>{};
    git::TreeEntryPtr owned(entry);
    if (git_tree_entry_type(entry) != GIT_OBJECT_TREE) return std::vector<PathChange>{};
    git_tree* found = nullptr;
    if (git_tree_lookup(&found, repo, git_tree_entry_id(entry)) != 0)
      return git::last_error(fmt::format("reading {}", prefix));
    under.reset(found);
    top = found;
    prefix += '/';
  }
  struct Walk {
    std::string prefix;
    std::vector<PathChange> out;
  } walk{prefix, {}};
  auto visit = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    auto* w = static_cast<Walk*>(payload);
    if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB)
      w->out.push_back({w->prefix + root + git_tree_entry_name(entry),
                        ChangeKind::added,
                        {},
                        git::to_hex(*git_tree_entry_id(entry))});
    return 0;
  };
  if (git_tree_walk(top, GIT_TREEWALK_PRE, visit, &walk) != 0)
    return git::last_error(fmt::format("listing {}", dir));
  return std::move(walk.out);
}

Blob::Blob(std::string bytes) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  bytes_ = *owned;
  owner_ = std::move(owned);
}

Result<Blob> Archive::read_blob(std::string_view blob_id) const {
  git_oid id;
  const std::string hex(blob_id);
  if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstr(&id, hex.c_str()) != 0)
    return Error{Errc::not_found, fmt::format("no blob {}", blob_id)};
  // libgit2 objects are not to be shared between threads, so each call opens the object
  // database anew: a directory listing and the pack indexes' headers, which are mapped.
  git_odb* odb = nullptr;
  if (git_odb_open(&odb, (impl_->git_dir + "/objects").c_str()) != 0)
    return git::last_error("opening the object database");
  git::OdbPtr odb_owned(odb);
  git_odb_object* object = nullptr;
  if (const int rc = git_odb_read(&object, odb, &id); rc != 0)
    return git::last_error(fmt::format("reading blob {}", blob_id),
                           rc == GIT_ENOTFOUND ? Errc::not_found : Errc::git);
  git::OdbObjectPtr object_owned(object);
  if (git_odb_object_type(object) != GIT_OBJECT_BLOB)
    return Error{Errc::not_found, fmt::format("{} is not a blob", blob_id)};
  // The bytes stay in the object's buffer: a copy of a 225 KB body cost as much again as
  // inflating it, nearly all of it page faults on the copy's fresh pages. The object is
  // reference-counted apart from the database, so it outlives odb.
  const std::string_view bytes(static_cast<const char*>(git_odb_object_data(object)),
                               git_odb_object_size(object));
  std::shared_ptr<git_odb_object> owner(object_owned.release(), git_odb_object_free);
  return Blob(std::move(owner), bytes);
}

namespace {

// The commits from head, newest first, that keep accepts, at most limit (0: all). No sorting
// flag: libgit2 then walks lazily, parent by parent (the branch is linear and written in time
// order), so `log -n N` reads N commits. GIT_SORT_TOPOLOGICAL would first read every commit
// of the history to sort them.
Result<std::vector<CommitInfo>> walk_log(git_repository* repo, const git_oid& head,
                                         std::size_t limit,
                                         const std::function<Result<bool>(git_commit*)>& keep) {
  std::vector<CommitInfo> out;
  git_revwalk* walk = nullptr;
  if (git_revwalk_new(&walk, repo) != 0) return git::last_error("walking history");
  git::RevwalkPtr owned(walk);
  git_revwalk_sorting(walk, GIT_SORT_NONE);
  if (git_revwalk_push(walk, &head) != 0) return git::last_error("walking history");
  const Abbreviator abbreviate(repo);
  git_oid id;
  for (;;) {
    if (int rc = git_revwalk_next(&id, walk); rc == GIT_ITEROVER)
      break;
    else if (rc != 0)
      return git::last_error("walking history");
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
    git::CommitPtr commit(c);
    auto kept = keep(c);
    if (!kept) return kept.error();
    if (!*kept) continue;
    out.push_back(listed_info(c, abbreviate));
    if (limit && out.size() >= limit) break;
  }
  return out;
}

// The commits of source name from the per-source index, newest first, at most limit (0: all);
// nullopt when the index cannot answer (then the caller walks). The index writes what it
// caught up only when no writer holds the lock: a reader never waits for a poll.
std::optional<std::vector<git_oid>> indexed_commits(const Archive& archive, git_repository* repo,
                                                    const std::string& git_dir, const git_oid& head,
                                                    std::string_view name, std::size_t limit,
                                                    std::vector<std::uint32_t>* depths = nullptr) {
  std::optional<ArchiveLock> lock;
  auto ids = source_index::commits_of(
      repo, git_dir + "/feeddiff/index", head, name, limit,
      [&] {
        auto l = ArchiveLock::acquire(archive, false);
        if (!l) return false;
        lock.emplace(std::move(*l));
        return true;
      },
      depths);
  if (!ids || !*ids) return std::nullopt;
  return std::move(**ids);
}

}  // namespace

Result<std::vector<CommitInfo>> Archive::log(std::string_view path_prefix,
                                             std::size_t limit) const {
  std::string prefix(path_prefix);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (prefix.starts_with("raw/") && prefix.size() > 4 && prefix.find('/', 4) == std::string::npos)
    return source_log(std::string_view(prefix).substr(4), limit);
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return std::vector<CommitInfo>{};
  return walk_log(repo, *git_commit_id(head->value().get()), limit,
                  [&](git_commit* c) -> Result<bool> {
                    if (prefix.empty()) return true;
                    return touches(c, prefix);
                  });
}

Result<std::vector<CommitInfo>> Archive::source_log(std::string_view name,
                                                    std::size_t limit) const {
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return std::vector<CommitInfo>{};
  const git_oid& tip = *git_commit_id(head->value().get());
  if (auto ids = indexed_commits(*this, repo, impl_->git_dir, tip, name, limit)) {
    std::vector<CommitInfo> found;
    const Abbreviator abbreviate(repo);
    bool ok = true;
    for (const git_oid& oid : *ids) {
      git_commit* c = nullptr;
      if (git_commit_lookup(&c, repo, &oid) != 0) {
        ok = false;  // a record naming no commit: walk instead
        break;
      }
      git::CommitPtr commit(c);
      found.push_back(listed_info(c, abbreviate));
    }
    if (ok) return found;
  }
  return walk_log(repo, tip, limit, [name](git_commit* c) { return touches_source(c, name); });
}

Result<std::vector<std::string>> Archive::source_commit_ids(std::string_view name) const {
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return std::vector<std::string>{};
  if (auto ids = indexed_commits(*this, repo, impl_->git_dir, *git_commit_id(head->value().get()),
                                 name, 0)) {
    // No commit is read, nor looked up: an index file's records are checked against the
    // branch when it is read, and each lookup in a pack index of millions of objects costs
    // page faults (1,000 of them were half of `show` at 1M changes).
    std::vector<std::string> found;
    found.reserve(ids->size());
    for (const git_oid& oid : *ids) found.push_back(git::to_hex(oid));
    return found;
  }
  auto commits = source_log(name, 0);
  if (!commits) return commits.error();
  std::vector<std::string> out;
  out.reserve(commits->size());
  for (auto& c : *commits) out.push_back(std::move(c.id));
  return out;
}

Result<std::optional<CommitInfo>> Archive::source_change_at(std::string_view name,
                                                            std::string_view revision) const {
  using Answer = std::optional<CommitInfo>;
  git_repository* repo = impl_->repo.get();
  auto start = lookup_commit(repo, revision);
  if (!start) return start.error();
  const Abbreviator abbreviate(repo);
  auto found = [&](const git_oid& id) -> Result<Answer> {
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
    git::CommitPtr commit(c);
    return Answer(listed_info(c, abbreviate));
  };
  auto head = branch_head(repo);
  if (!head) return head.error();
  std::optional<std::vector<git_oid>> ids;
  std::vector<std::uint32_t> depths;
  git_oid tip{};
  if (*head) {
    tip = *git_commit_id(head->value().get());
    ids = indexed_commits(*this, repo, impl_->git_dir, tip, name, 0, &depths);
  }
  // Back from the revision along first parents to the first commit that changed the source,
  // or, sooner, to one whose depth on the branch the index knows (the branch's head, or a
  // version commit, found in its own source's records: nearly every commit of an archive):
  // the source's newest record below that depth is the answer. A few commits, whatever the
  // history's length; the whole walk only where the index cannot answer (a merge on the
  // branch, a revision off it whose chain never meets an indexed commit).
  git::CommitPtr commit = std::move(*start);
  for (;;) {
    git_commit* c = commit.get();
    const git_oid id = *git_commit_id(c);
    auto touched = touches_source(c, name);
    if (!touched) return touched.error();
    if (*touched) return found(id);
    if (ids) {
      std::optional<std::uint32_t> depth;
      if (git_oid_equal(&id, &tip)) {
        depth = UINT32_MAX;
      } else {
        const CommitInfo info = info_of(c);
        const std::string* source = info.trailer("Source");
        std::vector<std::uint32_t> its_depths;
        if (source && *source != name && check_source_name(*source))
          if (auto its = indexed_commits(*this, repo, impl_->git_dir, tip, *source, 0, &its_depths))
            for (std::size_t i = 0; i < its->size(); ++i)
              if (git_oid_equal(&(*its)[i], &id)) {
                depth = its_depths[i];
                break;
              }
      }
      if (depth) {
        for (std::size_t i = 0; i < ids->size(); ++i)  // newest first
          if (depths[i] < *depth) return found((*ids)[i]);
        return Answer{};
      }
    }
    if (git_commit_parentcount(c) == 0) return Answer{};
    git_commit* p = nullptr;
    if (git_commit_parent(&p, c, 0) != 0) return git::last_error("reading a parent");
    commit.reset(p);
  }
}

Status Archive::walk_first_parent(
    std::string_view path_prefix,
    const std::function<bool(const std::string& id, bool touched)>& visit) const {
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return Ok{};
  std::string prefix(path_prefix);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  git::CommitPtr commit = std::move(**head);
  for (;;) {
    git_commit* c = commit.get();
    bool touched = true;
    if (!prefix.empty()) {
      auto t = touches(c, prefix);
      if (!t) return t.error();
      touched = *t;
    }
    git::CommitPtr parent;
    if (git_commit_parentcount(c) > 0) {
      git_commit* p = nullptr;
      if (git_commit_parent(&p, c, 0) != 0) return git::last_error("reading a parent");
      parent.reset(p);
    }
    if (!visit(git::to_hex(*git_commit_id(c)), touched) || !parent) return Ok{};
    commit = std::move(parent);
  }
}

std::optional<std::string> Archive::origin_url() const {
  // remote.origin.url as configured, read straight from the configuration: git_remote_lookup
  // would also apply url.*.insteadOf rules, and libgit2 1.5 leaks the regex match data it
  // uses to find them (LeakSanitizer reports it on every `show --format html`).
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, impl_->repo.get()) != 0) return std::nullopt;
  git::ConfigPtr owned(config);
  const char* url = nullptr;
  if (git_config_get_string(&url, config, "remote.origin.url") != 0 || !url) return std::nullopt;
  return std::string(url);
}

}  // namespace feeddiff

namespace feeddiff {

namespace {

// A tree entry as replay compares them: same id and mode, same entry.
struct Entry {
  git_oid id{};
  git_filemode_t mode = GIT_FILEMODE_UNREADABLE;
  bool operator==(const Entry& o) const { return git_oid_equal(&id, &o.id) && mode == o.mode; }
};

std::map<std::string, Entry> entries_of(const git_tree* tree) {
  std::map<std::string, Entry> out;
  if (!tree) return out;
  for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree, i);
    out[git_tree_entry_name(e)] = {*git_tree_entry_id(e), git_tree_entry_filemode(e)};
  }
  return out;
}

std::optional<Entry> find_entry(const std::map<std::string, Entry>& entries,
                                const std::string& name) {
  auto it = entries.find(name);
  if (it == entries.end()) return std::nullopt;
  return it->second;
}

Result<git::TreePtr> subtree(git_repository* repo, const std::optional<Entry>& entry) {
  if (!entry || entry->mode != GIT_FILEMODE_TREE) return git::TreePtr();
  git_tree* tree = nullptr;
  if (git_tree_lookup(&tree, repo, &entry->id) != 0) return git::last_error("reading a tree");
  return git::TreePtr(tree);
}

Result<std::optional<std::string>> blob_text(git_repository* repo,
                                             const std::optional<Entry>& entry) {
  if (!entry) return std::optional<std::string>{};
  git_blob* blob = nullptr;
  if (git_blob_lookup(&blob, repo, &entry->id) != 0) return git::last_error("reading a file");
  git::BlobPtr owned(blob);
  return std::optional<std::string>(std::string(static_cast<const char*>(git_blob_rawcontent(blob)),
                                                static_cast<std::size_t>(git_blob_rawsize(blob))));
}

struct Builder {
  git_treebuilder* b = nullptr;
  ~Builder() { git_treebuilder_free(b); }
};

Status put(git_treebuilder* b, const std::string& name, const std::optional<Entry>& entry) {
  if (entry) {
    if (git_treebuilder_insert(nullptr, b, name.c_str(), &entry->id, entry->mode) != 0)
      return git::last_error("writing a tree");
  } else if (git_treebuilder_get(b, name.c_str()) && git_treebuilder_remove(b, name.c_str()) != 0) {
    return git::last_error("writing a tree");
  }
  return Ok{};
}

// Whether an entry is absent or a directory of directories (a fan-out bucket holds sources'
// directories only; a source's directory holds files only).
Result<bool> absent_or_bucket(git_repository* repo, const std::optional<Entry>& entry) {
  if (!entry) return true;
  if (entry->mode != GIT_FILEMODE_TREE) return false;
  auto tree = subtree(repo, entry);
  if (!tree) return tree.error();
  const std::size_t n = git_tree_entrycount(tree->get());
  for (std::size_t i = 0; i < n; ++i)
    if (git_tree_entry_type(git_tree_entry_byindex(tree->get(), i)) != GIT_OBJECT_TREE)
      return false;
  return n > 0;
}

// Onto's directory (eo) with each entry that base -> local (eb -> el) changed as local left
// it. At raw/ (buckets), an entry named by two hex digits that is a fan-out bucket on every
// side (raw/hh/, see source_dir) is merged the same way one level down, so that sources
// sharing a bucket keep the versions both sides recorded.
Result<std::optional<Entry>> replay_dir(git_repository* repo, const std::optional<Entry>& eb,
                                        const std::optional<Entry>& el,
                                        const std::optional<Entry>& eo, bool buckets) {
  auto tb = subtree(repo, eb), tl = subtree(repo, el), to = subtree(repo, eo);
  if (!tb) return tb.error();
  if (!tl) return tl.error();
  if (!to) return to.error();
  const auto rb = entries_of(tb->get()), rl = entries_of(tl->get()), ro = entries_of(to->get());
  std::set<std::string> names;
  for (const auto& [n, e] : rb) names.insert(n);
  for (const auto& [n, e] : rl) names.insert(n);
  Builder dir;
  if (git_treebuilder_new(&dir.b, repo, to->get()) != 0) return git::last_error("writing a tree");
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  for (const std::string& s : names) {
    const auto sb = find_entry(rb, s), sl = find_entry(rl, s);
    if (sb == sl) continue;
    std::optional<Entry> merged = sl;
    if (buckets && s.size() == 2 && hex(s[0]) && hex(s[1])) {
      bool all = true;
      for (const auto* side : {&sb, &sl}) {
        auto b = absent_or_bucket(repo, *side);
        if (!b) return b.error();
        all = all && *b;
      }
      auto b = absent_or_bucket(repo, find_entry(ro, s));
      if (!b) return b.error();
      if (all && *b) {
        auto inner = replay_dir(repo, sb, sl, find_entry(ro, s), false);
        if (!inner) return inner.error();
        merged = *inner;
      }
    }
    if (auto ok = put(dir.b, s, merged); !ok) return ok.error();
  }
  std::optional<Entry> out;
  if (git_treebuilder_entrycount(dir.b) > 0) {
    out.emplace();
    out->mode = GIT_FILEMODE_TREE;
    if (git_treebuilder_write(&out->id, dir.b) != 0) return git::last_error("writing a tree");
  }
  return out;
}

// The tree of `local` (a commit whose first parent is `base`) replayed onto `onto`: onto's
// tree plus the change base -> local.
Result<git_oid> replayed_tree(git_repository* repo, git_commit* base, git_commit* local,
                              git_commit* onto, const ReplayMerge& merge) {
  auto base_tree = tree_of(base);
  if (!base_tree) return base_tree.error();
  auto local_tree = tree_of(local);
  if (!local_tree) return local_tree.error();
  auto onto_tree = tree_of(onto);
  if (!onto_tree) return onto_tree.error();
  const auto b = entries_of(base_tree->get());
  const auto l = entries_of(local_tree->get());
  const auto o = entries_of(onto_tree->get());
  std::set<std::string> names;
  for (const auto& [n, e] : b) names.insert(n);
  for (const auto& [n, e] : l) names.insert(n);
  Builder root;
  if (git_treebuilder_new(&root.b, repo, onto_tree->get()) != 0)
    return git::last_error("writing a tree");
  for (const std::string& name : names) {
    const auto eb = find_entry(b, name), el = find_entry(l, name), eo = find_entry(o, name);
    if (eb == el) continue;
    const bool trees = (!eb || eb->mode == GIT_FILEMODE_TREE) &&
                       (!el || el->mode == GIT_FILEMODE_TREE) &&
                       (!eo || eo->mode == GIT_FILEMODE_TREE);
    if (name == "raw" && trees) {
      // Each source's subtree as the local commit left it: only its poller writes it.
      auto new_raw = replay_dir(repo, eb, el, eo, true);
      if (!new_raw) return new_raw.error();
      if (auto ok = put(root.b, name, *new_raw); !ok) return ok.error();
      continue;
    }
    if (eo == eb) {  // only the local side changed it
      if (auto ok = put(root.b, name, el); !ok) return ok.error();
      continue;
    }
    if (eo == el) continue;  // both made the same change
    const bool blobs = (!eb || eb->mode != GIT_FILEMODE_TREE) &&
                       (!el || el->mode != GIT_FILEMODE_TREE) &&
                       (!eo || eo->mode != GIT_FILEMODE_TREE);
    if (!blobs)
      return Error{Errc::git,
                   fmt::format("{} changed both here and upstream; cannot replay", name)};
    auto tb = blob_text(repo, eb), tl = blob_text(repo, el), to = blob_text(repo, eo);
    if (!tb) return tb.error();
    if (!tl) return tl.error();
    if (!to) return to.error();
    auto merged = merge(name, *tb, *to, *tl);
    if (!merged) return merged.error();
    Entry m;
    m.mode = GIT_FILEMODE_BLOB;
    if (git_blob_create_from_buffer(&m.id, repo, merged->data(), merged->size()) != 0)
      return git::last_error(fmt::format("storing {}", name));
    if (auto ok = put(root.b, name, m); !ok) return ok.error();
  }
  git_oid id{};
  if (git_treebuilder_write(&id, root.b) != 0) return git::last_error("writing a tree");
  return id;
}

// The files that differ between two commits' trees, for the checkout after the branch moved.
Result<std::vector<std::string>> changed_files(git_repository* repo, git_commit* from,
                                               git_commit* to) {
  auto a = tree_of(from);
  if (!a) return a.error();
  auto b = tree_of(to);
  if (!b) return b.error();
  git_diff* diff = nullptr;
  git_diff_options options;
  git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
  if (git_diff_tree_to_tree(&diff, repo, a->get(), b->get(), &options) != 0)
    return git::last_error("comparing trees");
  git::DiffPtr owned(diff);
  std::set<std::string> paths;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff, i);
    if (delta->old_file.path) paths.insert(delta->old_file.path);
    if (delta->new_file.path) paths.insert(delta->new_file.path);
  }
  return std::vector<std::string>(paths.begin(), paths.end());
}

Result<git_oid> oid_of(git_repository* repo, std::string_view revision) {
  auto commit = lookup_commit(repo, revision);
  if (!commit) return commit.error();
  return *git_commit_id(commit->get());
}

}  // namespace

Result<bool> Archive::descends_from(std::string_view commit, std::string_view ancestor) const {
  git_repository* repo = impl_->repo.get();
  auto a = oid_of(repo, commit);
  if (!a) return a.error();
  auto b = oid_of(repo, ancestor);
  if (!b) return b.error();
  if (git_oid_equal(&*a, &*b)) return true;
  const int rc = git_graph_descendant_of(repo, &*a, &*b);
  if (rc < 0) return git::last_error("comparing commits");
  return rc == 1;
}

Status Archive::delete_ref(std::string_view name) {
  const std::string n(name);
  git_reference* ref = nullptr;
  const int rc = git_reference_lookup(&ref, impl_->repo.get(), n.c_str());
  if (rc == GIT_ENOTFOUND) return Ok{};
  if (rc != 0) return git::last_error("reading " + n);
  git::ReferencePtr owned(ref);
  if (git_reference_delete(ref) != 0) return git::last_error("deleting " + n);
  return Ok{};
}

Result<ReplayReport> Archive::replay_onto(std::string_view upstream, const ReplayMerge& merge) {
  if (impl_->batching) return Error{Errc::internal, "replay_onto during a batch"};
  git_repository* repo = impl_->repo.get();
  auto head = branch_head(repo);
  if (!head) return head.error();
  if (!*head) return Error{Errc::git, "the branch has no commit yet"};
  auto onto = lookup_commit(repo, upstream);
  if (!onto) return onto.error();
  const git_oid head_id = *git_commit_id(head->value().get());
  const git_oid onto_id = *git_commit_id(onto->get());
  ReplayReport report;
  report.head = git::to_hex(head_id);
  if (git_oid_equal(&head_id, &onto_id) || git_graph_descendant_of(repo, &head_id, &onto_id) == 1) {
    // The branch has all upstream has.
    std::size_t behind = 0;
    if (git_graph_ahead_behind(&report.ahead, &behind, repo, &head_id, &onto_id) != 0)
      return git::last_error("counting the local commits");
    return report;
  }
  git_oid base{};
  if (git_merge_base(&base, repo, &head_id, &onto_id) != 0)
    return Error{Errc::git, fmt::format("the branch and {} share no history", upstream)};
  std::size_t behind = 0;
  if (git_graph_ahead_behind(&report.upstream, &behind, repo, &onto_id, &base) != 0)
    return git::last_error("counting the upstream's commits");

  // The local commits, newest first: the first-parent chain back to the merge base.
  std::vector<git::CommitPtr> local;
  for (git_oid id = head_id; !git_oid_equal(&id, &base);) {
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo, &id) != 0) return git::last_error("reading a commit");
    local.emplace_back(c);
    if (git_commit_parentcount(c) != 1)
      return Error{Errc::git,
                   fmt::format("commit {} is a merge or a root: only a linear history of local "
                               "commits can be replayed",
                               git::to_hex(id).substr(0, 7))};
    id = *git_commit_parent_id(c, 0);
  }

  git::CommitPtr tip = std::move(*onto);
  // What the replay writes, packed below: libgit2 writes each object loose, and a fleet
  // syncing every round would pile up three files per commit for ever.
  std::vector<pack::PackObject> written;
  for (auto it = local.rbegin(); it != local.rend(); ++it) {
    git_commit* c = it->get();
    git_commit* parent = nullptr;
    if (git_commit_parent(&parent, c, 0) != 0) return git::last_error("reading a parent");
    git::CommitPtr parent_owned(parent);
    auto tree_id = replayed_tree(repo, parent, c, tip.get(), merge);
    if (!tree_id) {
      Error e = tree_id.error();
      e.message = fmt::format("replaying {} ({}): {}", git::to_hex(*git_commit_id(c)).substr(0, 7),
                              git_commit_summary(c) ? git_commit_summary(c) : "", e.message);
      return e;
    }
    git_tree* tree = nullptr;
    if (git_tree_lookup(&tree, repo, &*tree_id) != 0) return git::last_error("reading a tree");
    git::TreePtr tree_owned(tree);
    const git_commit* parents[1] = {tip.get()};
    git_oid made{};
    if (git_commit_create(&made, repo, nullptr, git_commit_author(c), git_commit_committer(c),
                          git_commit_message_encoding(c), git_commit_message_raw(c), tree, 1,
                          parents) != 0)
      return git::last_error("writing a replayed commit");
    report.renamed.emplace_back(git::to_hex(*git_commit_id(c)), git::to_hex(made));
    written.push_back({made, ""});
    written.push_back({*tree_id, ""});
    git_tree* before = nullptr;
    if (git_commit_tree(&before, tip.get()) != 0) return git::last_error("reading a tree");
    git::TreePtr before_owned(before);
    for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
      const git_tree_entry* e = git_tree_entry_byindex(tree, i);
      const git_tree_entry* old = git_tree_entry_byname(before, git_tree_entry_name(e));
      if (!old || !git_oid_equal(git_tree_entry_id(old), git_tree_entry_id(e)))
        written.push_back({*git_tree_entry_id(e), git_tree_entry_name(e)});
    }
    git_commit* next = nullptr;
    if (git_commit_lookup(&next, repo, &made) != 0) return git::last_error("reading a commit");
    tip.reset(next);
  }
  report.replayed = report.ahead = local.size();
  const git_oid new_head = *git_commit_id(tip.get());
  report.head = git::to_hex(new_head);
  // The checkout below forces the paths the replay changes: an edit of feeddiff.toml not
  // committed here would be lost without a word (poll leaves such edits alone too).
  auto paths = changed_files(repo, head->value().get(), tip.get());
  if (!paths) return paths.error();
  if (std::find(paths->begin(), paths->end(), "feeddiff.toml") != paths->end()) {
    auto dirty = uncommitted("feeddiff.toml");
    if (!dirty) return dirty.error();
    if (*dirty)
      return Error{Errc::conflict,
                   "feeddiff.toml has edits not committed, which the remote's version would "
                   "overwrite: commit or undo them, then sync again (nothing was changed)"};
  }

  if (!written.empty()) {
    // One durable pack before the branch moves; then the loose copies go (a kill in between
    // leaves both, which is harmless).
    git_odb* odb = nullptr;
    if (git_repository_odb(&odb, repo) != 0) return git::last_error("opening the object store");
    std::unique_ptr<git_odb, decltype(&git_odb_free)> odb_owned(odb, &git_odb_free);
    if (auto ok = pack::write_pack(odb, written, impl_->git_dir + "/objects/pack"); !ok)
      return ok.error();
    if (git_odb_refresh(odb) != 0) return git::last_error("reading the new pack");
    for (const pack::PackObject& o : written) {
      const std::string hex = git::to_hex(o.id);
      std::remove((impl_->git_dir + "/objects/" + hex.substr(0, 2) + "/" + hex.substr(2)).c_str());
    }
  }
  // The old commits stay reachable by a ref until a push has published the new ones.
  if (!local.empty()) {
    git_reference* ref = nullptr;
    if (git_reference_create(&ref, repo, kUnsyncedRef, &head_id, 1,
                             "feeddiff sync: the branch before replay") != 0)
      return git::last_error(fmt::format("writing {}", kUnsyncedRef));
    git_reference_free(ref);
  }
  (void)private_dir();
  if (auto ok = write_file_atomic(impl_->checkout_marker(), join_lines(*paths)); !ok)
    return ok.error();
  auto branch = head_branch(repo);
  if (!branch) return branch.error();
  const std::string reflog =
      local.empty() ? fmt::format("feeddiff sync: fast-forward to {}", upstream)
                    : fmt::format("feeddiff sync: {} commit{} replayed onto {}", local.size(),
                                  local.size() == 1 ? "" : "s", upstream);
  if (auto ok = locks::move_branch(repo, impl_->lock_places(), *branch, &head_id, new_head, reflog);
      !ok)
    return ok.error();
  failpoint(Failpoint::branch_moved);
  if (auto ok = checkout_paths(repo, impl_->lock_places(), *paths); !ok) return ok.error();
  std::remove(impl_->checkout_marker().c_str());
  update_source_index(repo, impl_->git_dir);
  return report;
}

}  // namespace feeddiff
