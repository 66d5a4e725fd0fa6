// The reader's hot path allocates nothing per move: this file replaces the
// global operator new to count allocations while a whole file is parsed.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>

#include "book/pgn/game_record.h"
#include "test_data.h"

namespace {
std::atomic<std::uint64_t> g_allocations{0};
}

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (Catch2 allocates its test cases with it), so that the
// delete below frees only what this malloc gave (AddressSanitizer reports the
// mixed pair as an alloc-dealloc mismatch).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size ? size : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

using namespace gb;
using namespace gb::pgn;

namespace {
struct CountingVisitor : VisitorBase {
  std::uint64_t moves = 0;
  Key keys = 0;
  Control move(const MoveEvent& e) {
    ++moves;
    keys ^= e.before.key();
    return Control::Continue;
  }
  Control begin_variation() { return Control::Continue; }
};
}  // namespace

TEST_CASE("A full parse with SAN decoding and variations allocates nothing per move", "[pgn]") {
  // Annotated games: comments, NAGs and nested variations on every move.
  for (const char* file : {"pgn/small/twic0920.pgn", "pgn/annotated/scalachess-wcc2023-annotated.pgn",
                           "pgn/annotated/TCEC_Season_1_-_Division_1.pgn"}) {
    INFO(file);
    PgnReader reader(ByteSource::open(gb::test::data_path(file)));
    CountingVisitor v;
    std::uint64_t before = g_allocations.load();
    reader.read_all(v);
    std::uint64_t allocations = g_allocations.load() - before;
    CHECK(v.moves > 100);
    CHECK(reader.summary().errors == 0);
    CHECK(allocations == 0);
  }
}

TEST_CASE("read_games allocates per game at most, not per move", "[pgn]") {
  std::uint64_t games = 0, plies = 0;
  std::uint64_t before = g_allocations.load();
  ReadSummary s = read_games(gb::test::data_path("pgn/small/twic0920.pgn"), [&](const GameRecord& g) {
    ++games;
    plies += g.mainline.size();
  });
  std::uint64_t allocations = g_allocations.load() - before;
  CHECK(games == 2245);
  CHECK(plies == s.plies);
  // Tag strings longer than the small-string buffer cost a few allocations
  // per game; 182,591 plies must not show up here.
  CHECK(allocations < games * 20);
}
