#include "store/batch_backend.h"

#include <cstring>
#include <new>
#include <utility>

namespace feeddiff::git {

// Standard layout, so that libgit2's pointer to `parent` is a pointer to the whole.
struct BatchBackend::Backend {
  git_odb_backend parent;
  BatchBackend* self;

  static BatchBackend& of(git_odb_backend* b) { return *reinterpret_cast<Backend*>(b)->self; }

  static int read(void** out, std::size_t* size, git_object_t* type, git_odb_backend* b,
                  const git_oid* id) {
    const BatchObject* o = of(b).find(*id);
    if (!o) return GIT_ENOTFOUND;
    // libgit2 frees what it reads: the copy is its own.
    void* data = git_odb_backend_data_alloc(b, o->bytes->size());
    if (!data && !o->bytes->empty()) return -1;
    if (!o->bytes->empty()) std::memcpy(data, o->bytes->data(), o->bytes->size());
    *out = data;
    *size = o->bytes->size();
    *type = o->type;
    return 0;
  }

  static int read_header(std::size_t* size, git_object_t* type, git_odb_backend* b,
                         const git_oid* id) {
    const BatchObject* o = of(b).find(*id);
    if (!o) return GIT_ENOTFOUND;
    *size = o->bytes->size();
    *type = o->type;
    return 0;
  }

  static int write(git_odb_backend* b, const git_oid* id, const void* data, std::size_t size,
                   git_object_t type) {
    BatchBackend& self = of(b);
    if (self.find(*id)) return 0;
    try {
      self.put(*id, type,
               std::make_shared<const std::string>(static_cast<const char*>(data), size));
    } catch (const std::bad_alloc&) {
      return -1;
    }
    return 0;
  }

  static int exists(git_odb_backend* b, const git_oid* id) { return of(b).find(*id) ? 1 : 0; }

  static void free(git_odb_backend* b) {
    auto* whole = reinterpret_cast<Backend*>(b);
    delete whole->self;
    delete whole;
  }
};

BatchBackend* BatchBackend::add_to(git_odb* odb, int priority) {
  auto* whole = new (std::nothrow) Backend{};
  if (!whole) return nullptr;
  if (git_odb_init_backend(&whole->parent, GIT_ODB_BACKEND_VERSION) != 0) {
    delete whole;
    return nullptr;
  }
  whole->self = new (std::nothrow) BatchBackend(whole);
  if (!whole->self) {
    delete whole;
    return nullptr;
  }
  whole->parent.read = &Backend::read;
  whole->parent.read_header = &Backend::read_header;
  whole->parent.write = &Backend::write;
  whole->parent.exists = &Backend::exists;
  whole->parent.free = &Backend::free;
  if (git_odb_add_backend(odb, &whole->parent, priority) != 0) {
    Backend::free(&whole->parent);
    return nullptr;
  }
  return whole->self;
}

git_odb_backend* BatchBackend::backend() {
  return &owner_->parent;
}

void BatchBackend::put(const git_oid& id, git_object_t type, SharedBytes bytes) {
  objects_.try_emplace(id, BatchObject{type, std::move(bytes)});
}

const BatchObject* BatchBackend::find(const git_oid& id) const {
  const auto it = objects_.find(id);
  return it == objects_.end() ? nullptr : &it->second;
}

void BatchBackend::reset() {
  objects_.clear();
}

}  // namespace feeddiff::git
