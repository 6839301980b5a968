#pragma once
// Writes a set of objects from an object database as one pack with its index, durably:
// both files are fsync'd and renamed into objects/pack, the directory fsync'd after each
// rename, before the caller moves any ref.

#include <git2.h>

#include <string>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::pack {

/// An object to pack, and the path it was written at: an object may be stored as a delta
/// against the previous object of the same path in the same pack (successive versions of
/// raw/ trees differ by one entry).
struct PackObject {
  git_oid id;        ///< the object
  std::string path;  ///< "" for commits, the tree's or blob's path otherwise
};

/// Writes the objects (read from odb) as `pack-<checksum>.pack` and `.idx` in pack_dir.
/// The caller must hold the archive lock: leftover temporary files of an earlier writer that
/// was killed are removed first.
Status write_pack(git_odb* odb, const std::vector<PackObject>& objects,
                  const std::string& pack_dir);

}  // namespace feeddiff::pack
