#include "book/chess/bitboard.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
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

// The squares a slider on s attacks along direction D (a shift: 8 north, 9
// north-east...), up to and including the first occupied one.
template <int D>
Bitboard ray(Square s, Bitboard occupied) {
  Bitboard attacks = 0;
  for (Bitboard b = shift<D>(square_bb(s)); b; b = shift<D>(b & ~occupied)) attacks |= b;
  return attacks;
}

// Attacks by ray walking, used only to fill the tables: some 110,000 calls
// at the start of every command that sets up a position, so by shifts of
// bitboards rather than square by square.
Bitboard sliding_attacks(PieceType t, Square s, Bitboard occupied) {
  if (t == PieceType::Rook)
    return ray<8>(s, occupied) | ray<-8>(s, occupied) | ray<1>(s, occupied) | ray<-1>(s, occupied);
  return ray<9>(s, occupied) | ray<7>(s, occupied) | ray<-7>(s, occupied) | ray<-9>(s, occupied);
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

// Makes the pages of a table that is about to be filled writable in one
// call, where the first write to each would fault: 200 traps into the kernel
// for the rook table, each costly on a virtual machine. A kernel without
// MADV_POPULATE_WRITE (before Linux 5.14) refuses it, and the writes fault.
void populate(void* table, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(table) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(table) + bytes) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)table;
  (void)bytes;
#endif
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
  populate(rook_table, sizeof rook_table);
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
