#include "builder/large_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace gb::builder {

namespace {

std::size_t page_bytes() {
  static const auto page = std::size_t(::sysconf(_SC_PAGESIZE));
  return page;
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

constexpr std::size_t kDefaultTopPad = std::size_t(128) << 10;  // glibc's M_TOP_PAD

}  // namespace

void populate(void* data, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const auto at = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = round_up(at, page_bytes()), last = (at + bytes) / page_bytes() * page_bytes();
  if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)bytes;
#endif
}

std::pair<void*, std::size_t> grow_heap(std::size_t bytes) {
  bytes =
      std::min<std::size_t>(bytes, 1u << 30) / kLargePageBytes * kLargePageBytes;  // (mallopt takes an int)
  if (bytes == 0) return {nullptr, 0};
  ::mallopt(M_ARENA_MAX, 1);
  // Grown by `bytes` now, and trimmed only once more than a large page past
  // them is free at its top. The pad goes back to malloc's default after
  // the growth, so that a heap grown far past them and then freed (a
  // build's fingerprints, once they spill) is trimmed as it was before.
  ::mallopt(M_TOP_PAD, int(bytes));
  ::mallopt(M_TRIM_THRESHOLD, int(bytes + kLargePageBytes));
  // A request larger than the free top of the heap grows it by the request
  // and the pad; what lies from the request to the new break is the heap's
  // own (the request, then the top it goes back to when freed).
  const struct mallinfo2 info = ::mallinfo2();
  const std::size_t request = info.keepcost + page_bytes();
  void* grown = ::malloc(request);
  const auto from = reinterpret_cast<std::uintptr_t>(grown),
             top = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  // Nothing when the request did not come from the top of a heap grown in
  // place (it was mapped on its own, or the heap is not contiguous).
  std::pair<void*, std::size_t> pages{nullptr, 0};
  if (grown && from < top && top - from >= bytes) {
    const std::uintptr_t first = round_up(from, kLargePageBytes),
                         last = top / kLargePageBytes * kLargePageBytes;
    if (last > first) {
      pages = {reinterpret_cast<void*>(first), last - first};
      ::madvise(pages.first, pages.second, MADV_HUGEPAGE);
    }
  }
  ::free(grown);
  ::mallopt(M_TOP_PAD, int(kDefaultTopPad));
  return pages;
}

ReservedPages::ReservedPages(std::size_t max_bytes) {
  const std::size_t length = round_up(std::max<std::size_t>(max_bytes, 1), kLargePageBytes);
  // No access and no reserve: address space only, which the system does not
  // count against its memory until use() makes it writable.
  void* map = ::mmap(nullptr, length + kLargePageBytes, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return;  // reserved() is 0: every use() fails
  const auto at = reinterpret_cast<std::uintptr_t>(map);
  const std::uintptr_t start = round_up(at, kLargePageBytes);
  if (start > at) ::munmap(map, start - at);
  const std::uintptr_t end = at + length + kLargePageBytes;
  if (end > start + length) ::munmap(reinterpret_cast<void*>(start + length), end - (start + length));
  base_ = reinterpret_cast<void*>(start);
  reserved_ = length;
}

ReservedPages::~ReservedPages() {
  if (base_) ::munmap(base_, reserved_);
}

void ReservedPages::swap(ReservedPages& o) noexcept {
  std::swap(base_, o.base_);
  std::swap(reserved_, o.reserved_);
  std::swap(usable_, o.usable_);
  std::swap(advised_, o.advised_);
  std::swap(written_, o.written_);
}

bool ReservedPages::use(std::size_t bytes) {
  if (bytes > reserved_) return false;
  const std::size_t upto = round_up(bytes, page_bytes());
  if (upto > usable_) {
    if (::mprotect(static_cast<char*>(base_) + usable_, upto - usable_, PROT_READ | PROT_WRITE) != 0)
      return false;
    usable_ = upto;
  }
  // Advice only: where THP is off the table is in small pages, as any memory.
  const std::size_t whole = bytes / kLargePageBytes * kLargePageBytes;
  if (whole > advised_) {
    ::madvise(static_cast<char*>(base_) + advised_, whole - advised_, MADV_HUGEPAGE);
    advised_ = whole;
  }
  // Made writable now, not first read: a page a table reads first is the
  // shared zero page, and the write after it a copy-on-write fault whose TLB
  // flush interrupts every thread of the build (perf:
  // smp_call_function_many_cond, 2 % of a build's time). In one call where
  // the kernel has MADV_POPULATE_WRITE (Linux 5.14): written, each 4 KiB page
  // was a fault of its own, a trap into the kernel, costly on a virtual
  // machine. (The pages past written_ hold zeros either way: never used, or
  // given back by zero_from.)
  if (upto > written_) {
    char* from = static_cast<char*>(base_) + written_;
#ifdef MADV_POPULATE_WRITE
    if (::madvise(from, upto - written_, MADV_POPULATE_WRITE) != 0)
#endif
      std::memset(from, 0, upto - written_);
    written_ = upto;
  }
  return true;
}

bool ReservedPages::use_large_pages(std::size_t bytes) {
  return use(std::max(bytes, std::min(round_up(bytes, kLargePageBytes), reserved_)));
}

void ReservedPages::zero_from(std::size_t bytes) {
  if (bytes >= usable_) return;
  const std::size_t page = std::min(round_up(bytes, page_bytes()), usable_);
  std::memset(static_cast<char*>(base_) + bytes, 0, page - bytes);
  if (page < usable_) ::madvise(static_cast<char*>(base_) + page, usable_ - page, MADV_DONTNEED);
  written_ = std::min(written_, page);
}

}  // namespace gb::builder
