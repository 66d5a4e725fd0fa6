#include "book/chess/movegen.h"

#include <algorithm>

namespace gb {

bool MoveList::contains(Move m) const { return std::find(begin(), end(), m) != end(); }

namespace {

// Emits every move of the generator. The Counter sink only counts: that is
// what makes perft's last ply cheap. Both are on the hot path of every
// subcommand that replays games, so the sinks are templates, not callbacks.
struct Storer {
  MoveList& list;
  void add(Square from, Square to) { list.push_back(Move(from, to)); }
  void add_many(Square from, Bitboard targets) {
    while (targets) list.push_back(Move(from, pop_lsb(targets)));
  }
  void add_special(Move m) { list.push_back(m); }
  void add_promotions(Square from, Square to) {
    for (PieceType t : {PieceType::Queen, PieceType::Knight, PieceType::Rook, PieceType::Bishop})
      list.push_back(Move::make(from, to, Move::Kind::Promotion, t));
  }
};

struct Counter {
  int n = 0;
  void add(Square, Square) { ++n; }
  void add_many(Square, Bitboard targets) { n += popcount(targets); }
  void add_special(Move) { ++n; }
  void add_promotions(Square, Square) { n += 4; }
};

template <Color Us, typename Sink>
void generate_pawn_moves(const Position& pos, Sink& sink, Bitboard target, Bitboard pinned, Square ksq) {
  constexpr Color Them = ~Us;
  constexpr int Up = Us == Color::White ? 8 : -8;
  constexpr int UpRight = Us == Color::White ? 9 : -7;
  constexpr int UpLeft = Us == Color::White ? 7 : -9;
  constexpr Bitboard Rank7 = rank_bb(relative_rank(Us, RANK_7));
  constexpr Bitboard Rank3 = rank_bb(relative_rank(Us, RANK_3));

  const Bitboard empty = ~pos.pieces();
  const Bitboard enemies = pos.pieces(Them);
  const Bitboard pawns = pos.pieces(Us, PieceType::Pawn);
  const Bitboard free_pawns = pawns & ~pinned;

  auto emit_pinned = [&](Bitboard pinned_pawns) {
    // Rare: a pinned pawn moves only along the pin line.
    while (pinned_pawns) {
      Square from = pop_lsb(pinned_pawns);
      Bitboard line = line_bb(ksq, from);
      Bitboard push1 = shift<Up>(square_bb(from)) & empty;
      Bitboard push2 = shift<Up>(push1 & Rank3) & empty;
      Bitboard caps = pawn_attacks(Us, from) & enemies;
      Bitboard to = (push1 | push2 | caps) & line & target;
      while (to) {
        Square t = pop_lsb(to);
        if (square_bb(from) & Rank7)
          sink.add_promotions(from, t);
        else
          sink.add(from, t);
      }
    }
  };

  // Non-promoting pushes.
  Bitboard b1 = shift<Up>(free_pawns & ~Rank7) & empty;
  Bitboard b2 = shift<Up>(b1 & Rank3) & empty & target;
  b1 &= target;
  while (b1) {
    Square to = pop_lsb(b1);
    sink.add(Square(to - Up), to);
  }
  while (b2) {
    Square to = pop_lsb(b2);
    sink.add(Square(to - 2 * Up), to);
  }
  // Captures and promotions.
  Bitboard r = shift<UpRight>(free_pawns) & enemies & target;
  Bitboard l = shift<UpLeft>(free_pawns) & enemies & target;
  Bitboard p = shift<Up>(free_pawns & Rank7) & empty & target;
  constexpr Bitboard Rank8 = rank_bb(relative_rank(Us, RANK_8));
  while (r) {
    Square to = pop_lsb(r);
    if (square_bb(to) & Rank8)
      sink.add_promotions(Square(to - UpRight), to);
    else
      sink.add(Square(to - UpRight), to);
  }
  while (l) {
    Square to = pop_lsb(l);
    if (square_bb(to) & Rank8)
      sink.add_promotions(Square(to - UpLeft), to);
    else
      sink.add(Square(to - UpLeft), to);
  }
  while (p) {
    Square to = pop_lsb(p);
    sink.add_promotions(Square(to - Up), to);
  }
  if (pawns & pinned) emit_pinned(pawns & pinned);

  // En passant: checked by replaying the occupancy, since the capture removes
  // two pieces from one rank (the classic horizontal pin).
  if (Square ep = pos.ep_square(); ep != SQ_NONE) {
    Square cap = Square(ep - Up);
    // In check, the capture must take the checker or block on the ep square.
    if (!(target & (square_bb(cap) | square_bb(ep)))) return;
    Bitboard capturers = pawn_attacks(Them, ep) & pawns;
    while (capturers) {
      Square from = pop_lsb(capturers);
      Bitboard occ = (pos.pieces() ^ square_bb(from) ^ square_bb(cap)) | square_bb(ep);
      Bitboard attackers = ((rook_attacks(ksq, occ) & pos.pieces(PieceType::Rook, PieceType::Queen)) |
                            (bishop_attacks(ksq, occ) & pos.pieces(PieceType::Bishop, PieceType::Queen))) &
                           pos.pieces(Them);
      Bitboard other_checkers = pos.checkers() & ~square_bb(cap) &
                                ~pos.pieces(PieceType::Rook, PieceType::Queen) &
                                ~pos.pieces(PieceType::Bishop);
      if (!attackers && !other_checkers) sink.add_special(Move::make(from, ep, Move::Kind::EnPassant));
    }
  }
}

// The castling move of Us to king_side, Move() when it is not legal (Us not
// in check: the caller has seen to that).
template <Color Us>
Move castling(const Position& pos, Square ksq, bool king_side) {
  CastlingRights cr = castling_right(Us, king_side);
  if (!pos.can_castle(cr)) return Move();
  Square rook = pos.castling_rook(cr);
  if (pos.castling_path(cr) & pos.pieces()) return Move();
  Square kto = Position::castle_king_to(Us, king_side);
  Bitboard occ = pos.pieces() ^ square_bb(ksq) ^ square_bb(rook);
  Bitboard walk = between_bb(ksq, kto) | square_bb(kto) | square_bb(ksq);
  while (walk)
    if (pos.attacked_by(~Us, pop_lsb(walk), occ)) return Move();
  return Move::make(ksq, rook, Move::Kind::Castling);
}

template <Color Us, typename Sink>
void generate_castling(const Position& pos, Sink& sink, Square ksq) {
  for (bool king_side : {true, false})
    if (Move m = castling<Us>(pos, ksq, king_side)) sink.add_special(m);
}

template <Color Us, typename Sink>
void generate(const Position& pos, Sink& sink) {
  constexpr Color Them = ~Us;
  const Square ksq = pos.king_square(Us);
  const Bitboard us = pos.pieces(Us);
  const Bitboard occupied = pos.pieces();
  const Bitboard checkers = pos.checkers();

  // King moves: the king itself must not shadow a slider's ray.
  Bitboard king_targets = king_attacks(ksq) & ~us;
  Bitboard occ_without_king = occupied ^ square_bb(ksq);
  while (king_targets) {
    Square to = pop_lsb(king_targets);
    if (!pos.attacked_by(Them, to, occ_without_king)) sink.add(ksq, to);
  }
  if (more_than_one(checkers)) return;

  Bitboard target = ~us;
  if (checkers) target &= between_bb(ksq, lsb(checkers)) | checkers;

  const Bitboard pinned = pos.blockers_for_king(Us) & us;
  generate_pawn_moves<Us>(pos, sink, target, pinned, ksq);

  Bitboard knights = pos.pieces(Us, PieceType::Knight) & ~pinned;  // a pinned knight never moves
  while (knights) {
    Square from = pop_lsb(knights);
    sink.add_many(from, knight_attacks(from) & target);
  }
  Bitboard diag = pos.pieces(Us, PieceType::Bishop) | pos.pieces(Us, PieceType::Queen);
  while (diag) {
    Square from = pop_lsb(diag);
    Bitboard to = bishop_attacks(from, occupied) & target;
    if (pinned & square_bb(from)) to &= line_bb(ksq, from);
    sink.add_many(from, to);
  }
  Bitboard orth = pos.pieces(Us, PieceType::Rook) | pos.pieces(Us, PieceType::Queen);
  while (orth) {
    Square from = pop_lsb(orth);
    Bitboard to = rook_attacks(from, occupied) & target;
    if (pinned & square_bb(from)) to &= line_bb(ksq, from);
    sink.add_many(from, to);
  }
  if (!checkers && pos.castling_rights()) generate_castling<Us>(pos, sink, ksq);
}

}  // namespace

void generate_legal(const Position& pos, MoveList& list) {
  Storer sink{list};
  if (pos.side_to_move() == Color::White)
    generate<Color::White>(pos, sink);
  else
    generate<Color::Black>(pos, sink);
}

Move castling_move(const Position& pos, bool king_side) {
  if (pos.checkers() || !pos.castling_rights()) return Move();
  const Color us = pos.side_to_move();
  return us == Color::White ? castling<Color::White>(pos, pos.king_square(us), king_side)
                            : castling<Color::Black>(pos, pos.king_square(us), king_side);
}

int count_legal(const Position& pos) {
  Counter sink;
  if (pos.side_to_move() == Color::White)
    generate<Color::White>(pos, sink);
  else
    generate<Color::Black>(pos, sink);
  return sink.n;
}

std::uint64_t perft(Position& pos, int depth) {
  if (depth == 0) return 1;
  if (depth == 1) return std::uint64_t(count_legal(pos));
  MoveList moves;
  generate_legal(pos, moves);
  std::uint64_t nodes = 0;
  UndoInfo undo;
  for (Move m : moves) {
    pos.do_move(m, undo);
    nodes += perft(pos, depth - 1);
    pos.undo_move(m, undo);
  }
  return nodes;
}

}  // namespace gb
