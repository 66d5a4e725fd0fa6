// Bitboards and the attack tables: leapers by lookup, sliders by PEXT or
// magic multiplication. init_bitboards() is idempotent and thread-safe; every
// entry point of the library that needs the tables calls it (Position does).
#pragma once

#include <bit>
#include <cassert>

#include "book/chess/types.h"

#if defined(__BMI2__) && !defined(GRAPHBOOK_NO_PEXT)
#define GRAPHBOOK_PEXT 1
#include <immintrin.h>
#endif

namespace gb {

constexpr Bitboard FileABB = 0x0101010101010101ULL;
constexpr Bitboard Rank1BB = 0xFFULL;
constexpr Bitboard file_bb(File f) { return FileABB << f; }
constexpr Bitboard rank_bb(Rank r) { return Rank1BB << (8 * r); }
constexpr Bitboard square_bb(Square s) {
  assert(is_ok(s));
  return 1ULL << s;
}

inline int popcount(Bitboard b) { return std::popcount(b); }
// The lowest and highest square of a non-empty bitboard.
inline Square lsb(Bitboard b) {
  assert(b);
  return Square(std::countr_zero(b));
}
inline Square msb(Bitboard b) {
  assert(b);
  return Square(63 - std::countl_zero(b));
}
inline Square pop_lsb(Bitboard& b) {
  Square s = lsb(b);
  b &= b - 1;
  return s;
}
constexpr bool more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }

template <int D>
constexpr Bitboard shift(Bitboard b) {
  constexpr Bitboard notA = ~FileABB, notH = ~(FileABB << 7);
  if constexpr (D == 8)
    return b << 8;
  else if constexpr (D == -8)
    return b >> 8;
  else if constexpr (D == 9)
    return (b & notH) << 9;
  else if constexpr (D == 7)
    return (b & notA) << 7;
  else if constexpr (D == -7)
    return (b & notH) >> 7;
  else if constexpr (D == -9)
    return (b & notA) >> 9;
  else if constexpr (D == 1)
    return (b & notH) << 1;
  else if constexpr (D == -1)
    return (b & notA) >> 1;
}

// Slider attacks are looked up by an index of the occupied squares on the
// slider's rays: with BMI2, PEXT gathers those bits directly (no magic
// numbers, none to search for at start-up, a search every command would pay
// before its first move); otherwise the magic multiplication does. On AMD CPUs before Zen 3
// PEXT is microcoded and slow: build with -DGRAPHBOOK_NO_PEXT there.

struct Magic {
  Bitboard mask;
  Bitboard magic;
  Bitboard* attacks;
  unsigned shift;
  unsigned index(Bitboard occupied) const {
#ifdef GRAPHBOOK_PEXT
    return unsigned(_pext_u64(occupied, mask));
#else
    return unsigned(((occupied & mask) * magic) >> shift);
#endif
  }
};

namespace detail {
extern Bitboard pawn_attacks[2][64];
extern Bitboard knight_attacks[64];
extern Bitboard king_attacks[64];
extern Magic rook_magics[64];
extern Magic bishop_magics[64];
extern Bitboard between[64][64];  // squares strictly between two aligned squares
extern Bitboard line[64][64];     // the whole line through two aligned squares, else 0
}  // namespace detail

void init_bitboards();

inline Bitboard pawn_attacks(Color c, Square s) { return detail::pawn_attacks[int(c)][s]; }
inline Bitboard knight_attacks(Square s) { return detail::knight_attacks[s]; }
inline Bitboard king_attacks(Square s) { return detail::king_attacks[s]; }
inline Bitboard bishop_attacks(Square s, Bitboard occupied) {
  const Magic& m = detail::bishop_magics[s];
  return m.attacks[m.index(occupied)];
}
inline Bitboard rook_attacks(Square s, Bitboard occupied) {
  const Magic& m = detail::rook_magics[s];
  return m.attacks[m.index(occupied)];
}
inline Bitboard queen_attacks(Square s, Bitboard occupied) {
  return bishop_attacks(s, occupied) | rook_attacks(s, occupied);
}
inline Bitboard between_bb(Square a, Square b) { return detail::between[a][b]; }
inline Bitboard line_bb(Square a, Square b) { return detail::line[a][b]; }
inline bool aligned(Square a, Square b, Square c) { return line_bb(a, b) & square_bb(c); }

// Attacks of a non-pawn piece type from s with the given occupancy.
Bitboard attacks_bb(PieceType t, Square s, Bitboard occupied);

}  // namespace gb
