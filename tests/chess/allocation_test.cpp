// The move generator and make/unmake allocate nothing: the caller owns every
// MoveList and UndoInfo. This file replaces the global operator new to count.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"

namespace {
std::atomic<std::uint64_t> g_allocations{0};
}

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (Catch2 allocates its test cases with it): replaced
// delete frees what malloc gave, so no new may come from elsewhere (with
// AddressSanitizer, its own nothrow new paired with this delete is a
// reported alloc-dealloc mismatch).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size ? size : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

using namespace gb;

TEST_CASE("Perft allocates nothing", "[chess]") {
  auto pos = Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
  REQUIRE(pos);
  std::uint64_t before = g_allocations.load();
  std::uint64_t nodes = perft(*pos, 4);
  CHECK(g_allocations.load() == before);
  CHECK(nodes == 4085603);  // Kiwipete, chessprogramming wiki
}

TEST_CASE("Parsing SAN allocates nothing", "[chess][san]") {
  Position pos;
  std::uint64_t before = g_allocations.load();
  for (const char* san : {"e4", "Nf3", "O-O", "exd5", "Qh4+", "e8=Q"}) (void)parse_san(pos, san);
  CHECK(g_allocations.load() == before);
}
