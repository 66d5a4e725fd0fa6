// Memory for the build's large tables, in transparent huge pages where the
// system gives them (Linux, THP "always" or "madvise").
//
// A build's aggregation tables are hash tables far larger than the cache,
// allocated afresh at each growth and touched all over: with 4 KiB pages
// every growth is one page fault per 4 KiB, and on a virtual machine a fault
// costs some 15 µs (bench/build.sh: more than half a build's page faults were
// the tables' growth). A 2 MiB page takes one fault, and one TLB entry
// instead of 512. Stockfish allocates its transposition table the same way.
//
// Only the whole 2 MiB pages inside an allocation are advised: its tail stays
// in small pages, so a table takes no more resident memory than its bytes
// (the --memory budget counts them), and a small allocation is malloc's.
#pragma once

#include <cstddef>
#include <new>

namespace gb::builder {

// Allocations of at least this many bytes are mapped on their own, 2 MiB aligned.
inline constexpr std::size_t kLargePageBytes = std::size_t(2) << 20;

// bytes of memory, 2 MiB aligned when bytes >= kLargePageBytes; nullptr when
// there is none. Freed by large_pages_free with the same bytes.
void* large_pages_alloc(std::size_t bytes);
void large_pages_free(void* p, std::size_t bytes);

// A std::allocator for the vectors of large tables.
template <class T>
struct LargePageAllocator {
  using value_type = T;
  LargePageAllocator() = default;
  template <class U>
  LargePageAllocator(const LargePageAllocator<U>&) {}
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    void* p = large_pages_alloc(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) { large_pages_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const LargePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace gb::builder
