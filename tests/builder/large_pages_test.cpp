// Memory made resident in large pages before it is written (builder/large_pages.h),
// so that its first touches take no page faults: the heap grow_heap grows,
// and ReservedPages::use_large_pages. Each TEST_CASE runs in a process
// of its own (catch_discover_tests), so the heap is that of a fresh process.
#include "builder/large_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "resident_pages.h"

namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;

}  // namespace

using gb::test::pages_not_resident;

TEST_CASE(
    "grow_heap grows the heap at once, its pages made resident on another thread before they are written",
    "[builder][large_pages]") {
#if defined(__SANITIZE_ADDRESS__)
  std::puts("SKIPPED: AddressSanitizer replaces malloc, whose heap grow_heap grows");
  return;
#endif
  // As a build does: allocations of less than 1 MiB from the heap, grown
  // before other threads allocate, its pages made resident on a thread of
  // their own while this one allocates on.
  ::mallopt(M_MMAP_THRESHOLD, int(kMiB));
  const auto break_before = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  const auto [pages, bytes] = gb::builder::grow_heap(8 * kMiB);
  const auto break_after = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  REQUIRE(break_after - break_before >= 8 * kMiB);
  // The whole large pages of what the heap grew by are the pages returned.
  const std::uintptr_t large = gb::builder::kLargePageBytes;
  const std::uintptr_t first = (break_before + large - 1) / large * large, last = break_after / large * large;
  REQUIRE(last - first >= 6 * kMiB);
  const auto at = reinterpret_cast<std::uintptr_t>(pages);
  REQUIRE(bytes >= 6 * kMiB);
  REQUIRE(at % large == 0);
  REQUIRE(at >= break_before);
  REQUIRE(at + bytes <= break_after);
  std::vector<void*> buffers;
  std::thread resident([pages, bytes] { gb::builder::populate(pages, bytes); });
  for (int i = 0; i < 4; ++i) buffers.push_back(::malloc(kMiB / 2));  // meanwhile
  resident.join();
  CHECK(pages_not_resident(at, bytes) == 0);
  CHECK(pages_not_resident(first, last - first) == 0);
  // Some 6 MiB of buffers, as a build's blocks and their positions, come from
  // there (the heap does not grow for them), and given back they stay: the
  // top is not trimmed below what was made resident.
  for (int i = 4; i < 12; ++i) buffers.push_back(::malloc(kMiB / 2));
  for (void* b : buffers) {
    REQUIRE(b != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(b) + kMiB / 2 <= break_after);
  }
  CHECK(reinterpret_cast<std::uintptr_t>(::sbrk(0)) == break_after);
  for (void* b : buffers) ::free(b);
  CHECK(reinterpret_cast<std::uintptr_t>(::sbrk(0)) == break_after);
}

TEST_CASE("grow_heap leaves the heap as it was when asked for less than a large page",
          "[builder][large_pages]") {
  const auto break_before = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  gb::builder::grow_heap(gb::builder::kLargePageBytes - 1);
  CHECK(reinterpret_cast<std::uintptr_t>(::sbrk(0)) == break_before);
}

TEST_CASE("ReservedPages::use_large_pages makes whole large pages resident, as far as the reservation goes",
          "[builder][large_pages]") {
  const std::size_t large = gb::builder::kLargePageBytes;
  gb::builder::ReservedPages pages(large + large / 2);  // reserved in whole large pages: two
  REQUIRE(pages.reserved() == 2 * large);
  const auto base = reinterpret_cast<std::uintptr_t>(pages.data());
  REQUIRE(pages.use_large_pages(1));
  CHECK(pages_not_resident(base, large) == 0);
  REQUIRE(pages.use_large_pages(large + 1));
  CHECK(pages_not_resident(base, 2 * large) == 0);
  static_cast<char*>(pages.data())[2 * large - 1] = 1;  // usable to the end of the last one
  CHECK_FALSE(pages.use_large_pages(2 * large + 1));
  // use() keeps to the bytes it is asked for: a table's budget counts them.
  gb::builder::ReservedPages table(2 * large);
  REQUIRE(table.use(4096));
  CHECK(pages_not_resident(reinterpret_cast<std::uintptr_t>(table.data()), large) > 0);
}
