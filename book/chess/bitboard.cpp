#include "book/chess/bitboard.h"

#include <cstdlib>
#include <mutex>

namespace gb {
namespace detail {
Bitboard pawn_attacks[2][64];
Bitboard knight_attacks[64];
Bitboard king_attacks[64];
Magic rook_magics[64];
Magic bishop_magics[64];
Bitboard between[64][64];
Bitboard line[64][64];
}  // namespace detail

namespace {

Bitboard rook_table[0x19000];
Bitboard bishop_table[0x1480];

// Attacks by slow ray walking; used only to fill the tables.
Bitboard sliding_attacks(PieceType t, Square s, Bitboard occupied) {
  static constexpr int rook_dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  static constexpr int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  const auto& dirs = t == PieceType::Rook ? rook_dirs : bishop_dirs;
  Bitboard attacks = 0;
  for (const auto& d : dirs) {
    int f = file_of(s) + d[0], r = rank_of(s) + d[1];
    while (f >= 0 && f < 8 && r >= 0 && r < 8) {
      Square to = make_square(File(f), Rank(r));
      attacks |= square_bb(to);
      if (occupied & square_bb(to)) break;
      f += d[0];
      r += d[1];
    }
  }
  return attacks;
}

// xorshift64*: a fixed seed so that the magics are the same on every run.
struct Prng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
  }
  std::uint64_t sparse() { return next() & next() & next(); }
};

void init_magics(PieceType t, Bitboard* table, Magic* magics) {
  Bitboard occupancy[4096], reference[4096];
  int epoch[4096] = {}, current = 0;
  // Per-rank seeds known to find magics after few tries (the values Stockfish
  // uses for this generator); any seed works, these only make start-up fast.
  constexpr std::uint64_t seeds[8] = {728, 10316, 55013, 32803, 12281, 15100, 16645, 255};
  Bitboard* next_table = table;
  for (int sq = 0; sq < 64; ++sq) {
    Square s = Square(sq);
    Prng rng{seeds[rank_of(s)]};
    Bitboard edges = ((Rank1BB | rank_bb(RANK_8)) & ~rank_bb(rank_of(s))) |
                     ((FileABB | file_bb(FILE_H)) & ~file_bb(file_of(s)));
    Magic& m = magics[sq];
    m.mask = sliding_attacks(t, s, 0) & ~edges;
    m.shift = 64 - popcount(m.mask);
    m.attacks = next_table;
    int size = 0;
    Bitboard b = 0;
    do {  // Carry-Rippler enumeration of every subset of the mask
      occupancy[size] = b;
      reference[size] = sliding_attacks(t, s, b);
      ++size;
      b = (b - m.mask) & m.mask;
    } while (b);
    next_table += size;
#ifdef GRAPHBOOK_PEXT
    for (int i = 0; i < size; ++i) m.attacks[m.index(occupancy[i])] = reference[i];
    continue;
#endif
    for (int i = 0; i < size;) {
      for (m.magic = 0; popcount((m.magic * m.mask) >> 56) < 6;) m.magic = rng.sparse();
      for (++current, i = 0; i < size; ++i) {
        unsigned idx = m.index(occupancy[i]);
        if (epoch[idx] < current) {
          epoch[idx] = current;
          m.attacks[idx] = reference[i];
        } else if (m.attacks[idx] != reference[i]) {
          break;
        }
      }
    }
  }
}

void init_all() {
  for (int sq = 0; sq < 64; ++sq) {
    Square s = Square(sq);
    Bitboard b = square_bb(s);
    detail::pawn_attacks[0][sq] = shift<7>(b) | shift<9>(b);
    detail::pawn_attacks[1][sq] = shift<-7>(b) | shift<-9>(b);
    Bitboard k = 0, n = 0;
    for (int df = -2; df <= 2; ++df)
      for (int dr = -2; dr <= 2; ++dr) {
        int f = file_of(s) + df, r = rank_of(s) + dr;
        if (f < 0 || f > 7 || r < 0 || r > 7 || (df == 0 && dr == 0)) continue;
        Bitboard to = square_bb(make_square(File(f), Rank(r)));
        if (std::abs(df) <= 1 && std::abs(dr) <= 1) k |= to;
        if (std::abs(df) * std::abs(dr) == 2) n |= to;
      }
    detail::king_attacks[sq] = k;
    detail::knight_attacks[sq] = n;
  }
  init_magics(PieceType::Rook, rook_table, detail::rook_magics);
  init_magics(PieceType::Bishop, bishop_table, detail::bishop_magics);
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b) {
      detail::between[a][b] = detail::line[a][b] = 0;
      if (a == b) continue;
      for (PieceType t : {PieceType::Bishop, PieceType::Rook}) {
        if (sliding_attacks(t, Square(a), 0) & square_bb(Square(b))) {
          detail::line[a][b] = (sliding_attacks(t, Square(a), 0) & sliding_attacks(t, Square(b), 0)) |
                               square_bb(Square(a)) | square_bb(Square(b));
          detail::between[a][b] = sliding_attacks(t, Square(a), square_bb(Square(b))) &
                                  sliding_attacks(t, Square(b), square_bb(Square(a)));
        }
      }
    }
}

}  // namespace

void init_bitboards() {
  static std::once_flag once;
  std::call_once(once, init_all);
}

Bitboard attacks_bb(PieceType t, Square s, Bitboard occupied) {
  switch (t) {
    case PieceType::Knight: return knight_attacks(s);
    case PieceType::Bishop: return bishop_attacks(s, occupied);
    case PieceType::Rook: return rook_attacks(s, occupied);
    case PieceType::Queen: return queen_attacks(s, occupied);
    case PieceType::King: return king_attacks(s);
    case PieceType::Pawn:
    case PieceType::None: return 0;
  }
  return 0;
}

}  // namespace gb
