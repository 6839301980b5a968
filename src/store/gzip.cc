// gzip_member (store.h): pack_codec's deflate with the gzip wrapper.

#include <zlib.h>

#include "feeddiff/store.h"
#include "store/pack_codec.h"

namespace feeddiff {

std::string gzip_member(std::string_view data) {
  std::string out;
  // 15 bits of window, +16 for the gzip header and trailer instead of zlib's.
  pack::deflate_append(data, out, Z_DEFAULT_COMPRESSION, 15 + 16);
  return out;
}

}  // namespace feeddiff
