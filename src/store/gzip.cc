// gzip_member (store.h): zlib's deflate with the gzip wrapper.

#include <zlib.h>

#include <algorithm>
#include <cstdlib>

#include "feeddiff/store.h"

namespace feeddiff {

std::string gzip_member(std::string_view data) {
  z_stream z{};
  // 15 bits of window, +16 for the gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    std::abort();  // only when out of memory
  std::string out;
  std::size_t written = 0;
  // zlib counts in 32-bit units: larger inputs go through in pieces.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  int status = Z_OK;
  do {
    const std::size_t take = std::min(data.size(), kPiece);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));  // zlib is not const
    z.avail_in = static_cast<uInt>(take);
    data.remove_prefix(take);
    const int flush = data.empty() ? Z_FINISH : Z_NO_FLUSH;
    do {
      if (out.size() == written)
        out.resize(written + std::max<std::size_t>(4096, deflateBound(&z, z.avail_in)));
      const std::size_t room = std::min(out.size() - written, kPiece);
      z.next_out = reinterpret_cast<Bytef*>(out.data() + written);
      z.avail_out = static_cast<uInt>(room);
      status = deflate(&z, flush);
      if (status == Z_STREAM_ERROR) std::abort();  // a misuse of zlib, not a data error
      written += room - z.avail_out;
    } while (z.avail_in != 0 || (flush == Z_FINISH && status != Z_STREAM_END));
  } while (!data.empty());
  deflateEnd(&z);
  out.resize(written);
  return out;
}

}  // namespace feeddiff
