// Huge pages for large buffers. A 20 MB feed is read, copied for repair and parsed: tens of
// thousands of 4 KB page faults, each costly where the kernel runs virtualized (a third of
// `feeddiff diff` on two 20 MB files went to faults). glibc asks for huge pages only when
// told by an environment tunable read at startup, so the few buffers that grow that large
// ask for themselves.

#include <sys/mman.h>

#include <cstdint>
#include <string>

#include "feeddiff/core.h"

namespace feeddiff {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}  // namespace

void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(MADV_HUGEPAGE)
  if (bytes < 2 * kHugePage) return;
  // The whole huge pages inside the allocation; the kernel backs them as they are touched.
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t end = start + bytes;
  const std::uintptr_t first = (start + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = end & ~(kHugePage - 1);
  if (last > first)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // a hint only
#else
  (void)data;
  (void)bytes;
#endif
}

void reserve_large(std::string& buffer, std::size_t bytes) {
  buffer.reserve(bytes);
  advise_huge_pages(buffer.data(), buffer.capacity());
}

}  // namespace feeddiff
