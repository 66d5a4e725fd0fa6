#include "builder/polyglot_validation.h"

#include <cinttypes>
#include <cstdio>

namespace gb::builder {

namespace {

std::string hex(std::uint64_t key) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, key);
  return buf;
}

// Why a Polyglot move does not decode, or nullptr. Fields: to in bits 0-5,
// from in 6-11, promotion piece in 12-14 (0 none, 1-4 knight to queen).
const char* move_problem(std::uint16_t pm) {
  const int to = pm & 63, from = (pm >> 6) & 63, promotion = (pm >> 12) & 7;
  if (pm & 0x8000) return "has bit 15 set, which Polyglot's move encoding leaves unused";
  if (from == to) return "moves a piece from a square to the same square";
  if (promotion > 4) return "names a promotion piece past queen";
  const int from_rank = from >> 3, to_rank = to >> 3;
  if (promotion && !((from_rank == 6 && to_rank == 7) || (from_rank == 1 && to_rank == 0)))
    return "promotes on a move that does not reach the last rank";
  return nullptr;
}

// "entry N (byte B)", N counted from 1.
std::string entry_at(std::size_t i) {
  return "entry " + std::to_string(i + 1) + " (byte " + std::to_string(i * 16) + ")";
}

}  // namespace

std::optional<PolyglotProblem> check_entries(const std::vector<store::PolyglotEntry>& entries) {
  if (entries.empty()) return PolyglotProblem{"it holds no entries"};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const store::PolyglotEntry& e = entries[i];
    if (i > 0 && e.key < entries[i - 1].key)
      return PolyglotProblem{entry_at(i) + " has key " + hex(e.key) + ", smaller than the key " +
                             hex(entries[i - 1].key) + " before it: a Polyglot book is in key order"};
    if (const char* why = move_problem(e.move)) {
      char move[8];
      std::snprintf(move, sizeof move, "%04x", unsigned(e.move));
      return PolyglotProblem{entry_at(i) + ": its move " + move + " " + why};
    }
  }
  return std::nullopt;
}

std::optional<PolyglotProblem> check_reached(std::uint64_t entries, std::uint64_t reached) {
  if (entries > 0 && double(reached) >= kMinReachedShare * double(entries)) return std::nullopt;
  char share[32];
  std::snprintf(share, sizeof share, "%.0f%%", kMinReachedShare * 100);
  return PolyglotProblem{"a walk from the start position reaches " + std::to_string(reached) + " of its " +
                         std::to_string(entries) + " entries (a book's moves reach at least " + share +
                         " of them)"};
}

}  // namespace gb::builder
