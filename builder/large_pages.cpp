#include "builder/large_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace gb::builder {

namespace {

std::size_t page_bytes() {
  static const auto page = std::size_t(::sysconf(_SC_PAGESIZE));
  return page;
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void* large_pages_alloc(std::size_t bytes) {
  if (bytes < kLargePageBytes) return std::malloc(bytes == 0 ? 1 : bytes);
  const std::size_t length = round_up(bytes, page_bytes());
  // Mapped with a large page's worth to spare, then trimmed to an aligned start.
  void* map =
      ::mmap(nullptr, length + kLargePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(map);
  const std::uintptr_t start = round_up(at, kLargePageBytes);
  if (start > at) ::munmap(map, start - at);
  const std::uintptr_t end = at + length + kLargePageBytes;
  if (end > start + length) ::munmap(reinterpret_cast<void*>(start + length), end - (start + length));
  // Advice only: where THP is off the table is in small pages, as any allocation.
  ::madvise(reinterpret_cast<void*>(start), bytes / kLargePageBytes * kLargePageBytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(start);
}

void large_pages_free(void* p, std::size_t bytes) {
  if (!p) return;
  if (bytes < kLargePageBytes) return std::free(p);
  ::munmap(p, round_up(bytes, page_bytes()));
}

}  // namespace gb::builder
