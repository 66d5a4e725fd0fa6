#include "book/cql/board.h"

#include "book/chess/notation.h"
#include "book/cql/ast.h"

namespace gb::cql {

Bitboard same_pieces(const Position& a, const Position& b) {
  Bitboard same = ~(a.pieces() | b.pieces());
  for (Color c : {Color::White, Color::Black})
    for (int t = int(PieceType::Pawn); t <= int(PieceType::King); ++t)
      same |= a.pieces(c, PieceType(t)) & b.pieces(c, PieceType(t));
  return same;
}

Bitboard designated(const Position& pos, std::uint16_t mask, Bitboard squares) {
  if (!mask) return squares;
  Bitboard b = 0;
  if (mask & 1) b |= ~pos.pieces();
  for (int t = 1; t <= 6; ++t) {
    if (mask >> t & 1) b |= pos.pieces(Color::White, PieceType(t));
    if (mask >> (t + 8) & 1) b |= pos.pieces(Color::Black, PieceType(t));
  }
  return b & squares;
}

Bitboard attacks_from(const Position& pos, Square s) {
  Piece p = pos.piece_on(s);
  if (p == Piece::None) return 0;
  if (type_of(p) == PieceType::Pawn) return pawn_attacks(color_of(p), s);
  return attacks_bb(type_of(p), s, pos.pieces());
}

Bitboard attackers_in(const Position& pos, Bitboard pieces, Bitboard targets) {
  Bitboard out = 0;
  for (Bitboard b = pieces & pos.pieces(); b;) {
    Square s = pop_lsb(b);
    if (attacks_from(pos, s) & targets) out |= square_bb(s);
  }
  return out;
}

Bitboard attacked_in(const Position& pos, Bitboard squares, Bitboard attackers) {
  Bitboard attacked = 0;
  for (Bitboard b = attackers & pos.pieces(); b;) attacked |= attacks_from(pos, pop_lsb(b));
  return squares & attacked;
}

int power(const Position& pos, Bitboard squares) {
  static const int value[7] = {0, 1, 3, 3, 5, 9, 0};
  int total = 0;
  for (Bitboard b = squares & pos.pieces(); b;) total += value[int(type_of(pos.piece_on(pop_lsb(b))))];
  return total;
}

Bitboard direction_squares(Bitboard from, std::uint8_t dirs, int lo, int hi) {
  Bitboard out = 0;
  for (Bitboard b = from; b;) {
    Square s = pop_lsb(b);
    int f = file_of(s), r = rank_of(s);
    for (int d = 0; d < 8; ++d) {
      if (!(dirs >> d & 1)) continue;
      for (int k = lo; k <= hi; ++k) {
        int nf = f + kDirFile[d] * k, nr = r + kDirRank[d] * k;
        if (nf < 0 || nf > 7 || nr < 0 || nr > 7) continue;
        out |= square_bb(make_square(File(nf), Rank(nr)));
      }
    }
  }
  return out;
}

Bitboard ray_ends(const Position& pos, const std::vector<Bitboard>& sets, std::uint8_t dirs) {
  Bitboard out = 0;
  Bitboard occupied = pos.pieces();
  for (Bitboard b = sets[0]; b;) {
    Square start = pop_lsb(b);
    for (int d = 0; d < 8; ++d) {
      if (!(dirs >> d & 1)) continue;
      int f = file_of(start), r = rank_of(start);
      std::size_t next = 1;
      while (next < sets.size()) {
        f += kDirFile[d];
        r += kDirRank[d];
        if (f < 0 || f > 7 || r < 0 || r > 7) break;
        Bitboard sq = square_bb(make_square(File(f), Rank(r)));
        if (sets[next] & sq) {
          ++next;
          continue;
        }
        if (occupied & sq) break;
      }
      if (next == sets.size()) out |= square_bb(make_square(File(f), Rank(r)));
    }
  }
  return out;
}

PinSets pins(const Position& pos, Bitboard from, Bitboard through, Bitboard to) {
  PinSets out;
  Bitboard occupied = pos.pieces();
  for (Bitboard b = from & occupied; b;) {
    Square s = pop_lsb(b);
    Piece px = pos.piece_on(s);
    PieceType t = type_of(px);
    bool ortho = t == PieceType::Rook || t == PieceType::Queen;
    bool diag = t == PieceType::Bishop || t == PieceType::Queen;
    if (!ortho && !diag) continue;
    for (int d = 0; d < 8; ++d) {
      bool is_diag = kDirFile[d] != 0 && kDirRank[d] != 0;
      if (is_diag ? !diag : !ortho) continue;
      int f = file_of(s), r = rank_of(s);
      Square y = SQ_NONE;
      for (;;) {
        f += kDirFile[d];
        r += kDirRank[d];
        if (f < 0 || f > 7 || r < 0 || r > 7) break;
        Square q = make_square(File(f), Rank(r));
        if (y == SQ_NONE) {
          if (pos.empty(q)) continue;
          Piece py = pos.piece_on(q);
          if (color_of(py) == color_of(px) || !(through & square_bb(q))) break;
          y = q;
          continue;
        }
        bool empty = pos.empty(q);
        if (empty || color_of(pos.piece_on(q)) == color_of(pos.piece_on(y))) {
          if (to & square_bb(q)) {
            out.pinners |= square_bb(s);
            out.pinned |= square_bb(y);
            out.targets |= square_bb(q);
          }
        }
        if (!empty) break;
      }
    }
  }
  return out;
}

Bitboard pawn_structure(const Position& pos, PawnStructure kind) {
  Bitboard out = 0;
  for (Color c : {Color::White, Color::Black}) {
    Bitboard own = pos.pieces(c, PieceType::Pawn);
    Bitboard enemy = pos.pieces(~c, PieceType::Pawn);
    for (Bitboard b = own; b;) {
      Square s = pop_lsb(b);
      int f = file_of(s);
      Bitboard adjacent = (f > 0 ? file_bb(File(f - 1)) : 0) | (f < 7 ? file_bb(File(f + 1)) : 0);
      bool hit = false;
      switch (kind) {
        case PawnStructure::Connected: hit = own & adjacent; break;
        case PawnStructure::Isolated: hit = !(own & adjacent); break;
        case PawnStructure::Doubled: hit = more_than_one(own & file_bb(File(f))); break;
        case PawnStructure::Passed: {
          Bitboard ahead = 0;
          int r = rank_of(s);
          for (int rr = 0; rr < 8; ++rr)
            if (c == Color::White ? rr > r : rr < r) ahead |= rank_bb(Rank(rr));
          hit = !(enemy & ahead & (adjacent | file_bb(File(f))));
          break;
        }
      }
      if (hit) out |= square_bb(s);
    }
  }
  return out;
}

std::string fen_with_last_double_push(const Position& pos, Move last, const Position* before) {
  std::string f = pos.fen();
  if (!before || !last || last.kind() != Move::Kind::Normal) return f;
  if (type_of(before->piece_on(last.from())) != PieceType::Pawn) return f;
  int diff = int(last.to()) - int(last.from());
  if (diff != 16 && diff != -16) return f;
  Square ep = Square((int(last.to()) + int(last.from())) / 2);
  // Fields: placement side castling ep half full.
  std::size_t p1 = f.find(' '), p2 = f.find(' ', p1 + 1), p3 = f.find(' ', p2 + 1), p4 = f.find(' ', p3 + 1);
  return f.substr(0, p3 + 1) + square_name(ep) + f.substr(p4);
}

std::optional<Position> position_from_board(const std::array<Piece, 64>& board, Color side,
                                            const Position& like) {
  std::string fen = fen_placement(board) + (side == Color::White ? " w " : " b ");
  // Shredder letters name each castling rook by its file. K or Q would mean
  // the outermost rook on that side, another one when a rook stands beyond
  // the castling rook (Chess960).
  std::string castling;
  for (int i = 0; i < 4; ++i) {
    CastlingRights cr = CastlingRights(1 << i);
    if (!like.can_castle(cr)) continue;
    Color c = i < 2 ? Color::White : Color::Black;
    Square rook = like.castling_rook(cr);
    if (board[std::size_t(like.king_square(c))] == make_piece(c, PieceType::King) &&
        board[std::size_t(rook)] == make_piece(c, PieceType::Rook))
      castling += char((c == Color::White ? 'A' : 'a') + file_of(rook));
  }
  fen += (castling.empty() ? "-" : castling) + " - " + std::to_string(like.halfmove_clock()) + " " +
         std::to_string(like.fullmove_number());
  std::optional<Position> pos = Position::from_fen(fen);
  if (pos) pos->set_chess960(like.chess960());  // Shredder letters alone would mark every game Chess960
  return pos;
}

bool legal_position(const Position& pos) {
  for (Color c : {Color::White, Color::Black}) {
    if (popcount(pos.pieces(c, PieceType::King)) != 1) return false;
    if (popcount(pos.pieces(c, PieceType::Pawn)) > 8) return false;
    if (popcount(pos.pieces(c)) > 16) return false;
  }
  if (pos.pieces(PieceType::Pawn) & (rank_bb(RANK_1) | rank_bb(RANK_8))) return false;
  Color them = ~pos.side_to_move();
  if (pos.attacked_by(pos.side_to_move(), pos.king_square(them), pos.pieces())) return false;
  if (popcount(pos.checkers()) > 2) return false;
  return true;
}

void generate_pseudolegal(const Position& pos, MoveList& list) {
  Color us = pos.side_to_move();
  Bitboard own = pos.pieces(us), enemies = pos.pieces(~us), occupied = pos.pieces();
  for (Bitboard b = own; b;) {
    Square from = pop_lsb(b);
    PieceType t = type_of(pos.piece_on(from));
    if (t == PieceType::Pawn) {
      Bitboard targets = pawn_attacks(us, from) & enemies;
      int up = pawn_push(us);
      Square one = Square(from + up);
      if (is_ok(one) && pos.empty(one)) {
        targets |= square_bb(one);
        Square two = Square(from + 2 * up);
        if (relative_rank(us, rank_of(from)) == RANK_2 && pos.empty(two)) targets |= square_bb(two);
      }
      for (Bitboard tb = targets; tb;) {
        Square to = pop_lsb(tb);
        if (relative_rank(us, rank_of(to)) == RANK_8) {
          for (PieceType p : {PieceType::Queen, PieceType::Knight, PieceType::Rook, PieceType::Bishop})
            list.push_back(Move::make(from, to, Move::Kind::Promotion, p));
        } else {
          list.push_back(Move(from, to));
        }
      }
      if (pos.ep_square() != SQ_NONE && (pawn_attacks(us, from) & square_bb(pos.ep_square())))
        list.push_back(Move::make(from, pos.ep_square(), Move::Kind::EnPassant));
      continue;
    }
    Bitboard targets = (t == PieceType::King ? king_attacks(from) : attacks_bb(t, from, occupied)) & ~own;
    while (targets) list.push_back(Move(from, pop_lsb(targets)));
  }
  for (bool king_side : {true, false})
    if (Move m = castling_move(pos, king_side)) list.push_back(m);
}

namespace {

// The placement field of pos with the piece on `to` moved back to `from`.
std::string placement_with(const Position& pos, Square from, Square to, Piece moved,
                           Piece left = Piece::None) {
  std::array<Piece, 64> board;
  for (int s = 0; s < 64; ++s) board[std::size_t(s)] = pos.piece_on(Square(s));
  board[std::size_t(from)] = moved;
  board[std::size_t(to)] = left;
  return fen_placement(board);
}

}  // namespace

std::vector<ReverseMove> reverse_moves(const Position& pos) {
  std::vector<ReverseMove> out;
  const Color mover = ~pos.side_to_move();
  const Bitboard empty = ~pos.pieces();
  const std::string side = mover == Color::White ? " w - - 0 1" : " b - - 0 1";
  // capture: 0 never, 1 maybe, 2 always (a pawn's diagonal move). The captured
  // piece is unknown; a knight of the side to move stands in for it, which
  // is enough to decide legality (it blocks lines, is never a king).
  auto add = [&](Square from, Square to, Piece moved, int capture, PieceType promotion) {
    ReverseMove rm{from, to, capture == 2, promotion, std::nullopt};
    if (capture != 2) rm.before = Position::from_fen(placement_with(pos, from, to, moved) + side);
    if (!rm.before && capture) {
      rm.before = Position::from_fen(
          placement_with(pos, from, to, moved, make_piece(~mover, PieceType::Knight)) + side);
      if (rm.before) rm.capture = true;
    }
    out.push_back(std::move(rm));
  };
  for (Bitboard b = pos.pieces(mover); b;) {
    Square to = pop_lsb(b);
    Piece p = pos.piece_on(to);
    PieceType t = type_of(p);
    int back = -pawn_push(mover);
    if (t == PieceType::Pawn) {
      if (relative_rank(mover, rank_of(to)) <= RANK_2) continue;
      Square one = Square(to + back);
      if (empty & square_bb(one)) {
        add(one, to, p, 0, PieceType::None);
        Square two = Square(one + back);
        if (relative_rank(mover, rank_of(to)) == RANK_4 && (empty & square_bb(two)))
          add(two, to, p, 0, PieceType::None);
      }
      for (Bitboard f = pawn_attacks(~mover, to) & empty; f;) add(pop_lsb(f), to, p, 2, PieceType::None);
      continue;
    }
    Bitboard from = (t == PieceType::King ? king_attacks(to) : attacks_bb(t, to, pos.pieces())) & empty;
    while (from) add(pop_lsb(from), to, p, 1, PieceType::None);
    if (t != PieceType::King && relative_rank(mover, rank_of(to)) == RANK_8) {
      Piece pawn = make_piece(mover, PieceType::Pawn);
      Square straight = Square(to + back);
      if (empty & square_bb(straight)) add(straight, to, pawn, 0, t);
      for (Bitboard f = pawn_attacks(~mover, to) & empty; f;) add(pop_lsb(f), to, pawn, 2, t);
    }
  }
  return out;
}

MoveInfo describe_move(const Position& before, Move m, bool null_move, bool primary) {
  MoveInfo mi;
  mi.move = m;
  mi.primary = primary;
  Color us = before.side_to_move();
  if (null_move) {
    mi.null_move = true;
    mi.from = mi.to = before.king_square(us);
    return mi;
  }
  mi.from = m.from();
  mi.to = m.to();
  switch (m.kind()) {
    case Move::Kind::Castling: {
      bool king_side = m.to() > m.from();
      mi.to = Position::castle_king_to(us, king_side);
      (king_side ? mi.castle_short : mi.castle_long) = true;
      break;
    }
    case Move::Kind::EnPassant:
      mi.en_passant = true;
      mi.capture = Square(m.to() - pawn_push(us));
      break;
    case Move::Kind::Promotion: mi.promotion = m.promotion(); [[fallthrough]];
    case Move::Kind::Normal:
      if (!before.empty(m.to())) mi.capture = m.to();
      break;
  }
  return mi;
}

std::int64_t utf8_length(const std::string& s) {
  std::int64_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::vector<std::string> utf8_code_points(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i + 1;
    while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace gb::cql
