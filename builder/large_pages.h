// Memory for the build's large tables, in transparent huge pages where the
// system gives them (Linux, THP "always" or "madvise").
//
// A build's aggregation tables are hash tables far larger than the cache,
// grown as games come and touched all over: with 4 KiB pages every growth is
// one page fault per 4 KiB, and on a virtual machine a fault costs some 15 µs
// (bench/build.sh: more than half a build's page faults were the tables'
// growth). A 2 MiB page takes one fault, and one TLB entry instead of 512.
// Stockfish allocates its transposition table the same way.
//
// Only the whole 2 MiB pages inside a table's bytes are advised: its tail
// stays in small pages, so a table takes no more resident memory than its
// bytes (the --memory budget counts them).
#pragma once

#include <cstddef>
#include <utility>

namespace gb::builder {

// Makes the whole pages inside [data, data + bytes) resident and writable in
// one call (MADV_POPULATE_WRITE, Linux 5.14; what they hold is kept), for
// memory about to be written for the first time: written, each 4 KiB page is
// a fault of its own, and on a virtual machine a fault costs many times what a
// page populated in bulk does (perf stat's page-faults and task-clock of a
// build show both). Advice only: a kernel without it leaves the pages to fault.
void populate(void* data, std::size_t bytes);

// The size of a large page, which a reservation is aligned to and used in.
inline constexpr std::size_t kLargePageBytes = std::size_t(2) << 20;

// Gives malloc's heap `bytes` more, advised into large pages where the
// system gives them, and keeps them: one arena for all threads (each
// thread's own arena would be fresh pages again), and its top trimmed only
// when a large page more than them is free. Returns the whole large pages
// of what it grew by, for populate() to make resident at once, on any thread
// while the caller goes on (the pages are malloc's, and populating keeps
// what they hold).
// A build's heap is many buffers grown once and reused (each block's games
// and positions, a slice's entries, LMDB's pages); on this virtual machine
// the first write to a 4 KiB page costs some 5 to 10 µs, made resident in
// small pages first still 5, and in a 2 MiB page made resident in bulk
// nothing (docs/SCALE.md, "Pages touched for the first time"). Advice only:
// where the heap cannot grow in place (or bytes is under a large page) the
// heap stays as it was, and the pages are {nullptr, 0}. Call it before other
// threads allocate.
std::pair<void*, std::size_t> grow_heap(std::size_t bytes);

// Address space reserved for a table that grows in place: a build's
// aggregation table doubles as games come, and a table rebuilt from a copy of
// itself held both at once, so the budget let the last growth reach only
// what the old copy left. The pages are made usable as the table grows
// (zero-filled, in large pages where the system gives them, 2 MiB aligned)
// and never copied; reserved pages that are not yet used take no memory.
class ReservedPages {
 public:
  ReservedPages() = default;
  // Reserves address space for at least max_bytes.
  explicit ReservedPages(std::size_t max_bytes);
  ~ReservedPages();
  ReservedPages(ReservedPages&& o) noexcept { swap(o); }
  ReservedPages& operator=(ReservedPages&& o) noexcept {
    ReservedPages(std::move(o)).swap(*this);
    return *this;
  }
  void swap(ReservedPages& o) noexcept;

  void* data() const { return base_; }
  std::size_t reserved() const { return reserved_; }
  // Makes the first `bytes` usable and resident (pages never used are zeros);
  // false when that is past the reservation or the system has no memory for it.
  [[nodiscard]] bool use(std::size_t bytes);
  // The same, in whole large pages (as far as the reservation goes): for
  // scratch that is used again at other sizes, where the rest of the last
  // large page is wanted soon, and in small pages each would cost its first
  // touch (docs/SCALE.md, "Pages touched for the first time").
  [[nodiscard]] bool use_large_pages(std::size_t bytes);
  // Makes the bytes from `bytes` on zero: their whole pages go back to the
  // system (and read as zeros when used again).
  void zero_from(std::size_t bytes);

 private:
  void* base_ = nullptr;
  std::size_t reserved_ = 0, usable_ = 0, advised_ = 0;  // bytes from base_
  std::size_t written_ = 0;  // bytes from base_ in pages written (not the zero page)
};

}  // namespace gb::builder
