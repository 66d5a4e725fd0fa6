#include "book/pgn/san_decoder.h"

#include <cstdlib>

namespace gb::pgn {

namespace {

// What a legal non-king move must do in this position: the squares it may
// land on (all of them out of check; block or capture in single check; none in
// double check), and the pinned pieces, which may only move along the pin.
struct Constraints {
  Bitboard targets;
  Bitboard pinned;
  Square king;
};

Constraints constraints_of(const Position& pos) {
  Color us = pos.side_to_move();
  Square king = pos.king_square(us);
  Bitboard targets = ~Bitboard(0);
  if (Bitboard checkers = pos.checkers()) {
    targets = more_than_one(checkers) ? 0 : between_bb(king, lsb(checkers)) | checkers;
  }
  // Only pieces on a queen line from the king can be pinned; skip the pin
  // computation when no enemy slider stands on such a line at all.
  Bitboard sliders = pos.pieces(~us) & (pos.pieces(PieceType::Bishop, PieceType::Queen) |
                                        pos.pieces(PieceType::Rook, PieceType::Queen));
  Bitboard pinned = sliders & queen_attacks(king, 0) ? pos.blockers_for_king(us) & pos.pieces(us) : 0;
  return {targets, pinned, king};
}

bool legal_non_king(const Constraints& c, Square from, Square to) {
  return (c.targets & square_bb(to)) && (!(c.pinned & square_bb(from)) || aligned(from, to, c.king));
}

}  // namespace

// Measured hot path of the reader (bench/parse): keep the common shapes here,
// everything else falls through to parse_san.
MoveParse decode_san(const Position& pos, std::string_view san) {
  std::size_t n = san.size();
  while (n > 0 && (san[n - 1] == '+' || san[n - 1] == '#')) --n;
  if (n < 2) return parse_san(pos, san);
  const char* s = san.data();
  const Color us = pos.side_to_move();

  if (is_file(s[0])) {
    // Pawn moves: "e4" and "exd5", not promotions or en passant.
    Square to, from;
    if (n == 2 && is_rank(s[1])) {
      to = square_of(s[0], s[1]);
      Rank r = relative_rank(us, rank_of(to));
      if (r == RANK_8 || r <= RANK_2 || !pos.empty(to)) return parse_san(pos, san);
      from = Square(to - pawn_push(us));
      if (pos.empty(from) && r == RANK_4) from = Square(from - pawn_push(us));
    } else if (n == 4 && s[1] == 'x' && is_file(s[2]) && is_rank(s[3])) {
      to = square_of(s[2], s[3]);
      Rank r = relative_rank(us, rank_of(to));
      if (r == RANK_8 || r <= RANK_2 || pos.empty(to) || color_of(pos.piece_on(to)) == us ||
          type_of(pos.piece_on(to)) == PieceType::King || std::abs(s[0] - s[2]) != 1)
        return parse_san(pos, san);
      from = make_square(File(s[0] - 'a'), Rank(rank_of(to) - (us == Color::White ? 1 : -1)));
    } else {
      return parse_san(pos, san);
    }
    if (pos.piece_on(from) != make_piece(us, PieceType::Pawn)) return parse_san(pos, san);
    if (!legal_non_king(constraints_of(pos), from, to)) return {Move(), MoveError::Illegal};
    return {Move(from, to), {}};
  }

  // A piece move ("Nf3"); 'P' (long algebraic "Pe2-e4") is left to parse_san.
  PieceType piece = piece_type_of_letter(s[0]);
  if (piece == PieceType::None || piece == PieceType::Pawn) return parse_san(pos, san);
  // N[file][rank][x]to: collect the squares' characters, 'x' skipped.
  char c[4];
  int k = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (s[i] == 'x' || s[i] == ':') continue;
    if (k == 4 || !(is_file(s[i]) || is_rank(s[i]))) return parse_san(pos, san);
    c[k++] = s[i];
  }
  if (k < 2 || !is_file(c[k - 2]) || !is_rank(c[k - 1])) return parse_san(pos, san);
  Square to = square_of(c[k - 2], c[k - 1]);
  if (!pos.empty(to) && color_of(pos.piece_on(to)) == us) return parse_san(pos, san);

  if (piece == PieceType::King) {
    Square king = pos.king_square(us);
    if (k != 2 || !(king_attacks(king) & square_bb(to))) return parse_san(pos, san);  // castling as Kg1 etc.
    if (pos.attacked_by(~us, to, pos.pieces() ^ square_bb(king))) return {Move(), MoveError::Illegal};
    return {Move(king, to), {}};
  }

  Bitboard candidates = attacks_bb(piece, to, pos.pieces()) & pos.pieces(us, piece);
  if (k == 3)
    candidates &= is_file(c[0]) ? file_bb(File(c[0] - 'a')) : rank_bb(Rank(c[0] - '1'));
  else if (k == 4)
    candidates &= is_file(c[0]) && is_rank(c[1]) ? square_bb(square_of(c[0], c[1])) : 0;
  if (!candidates) return parse_san(pos, san);  // let the general parser name the error
  Constraints cons = constraints_of(pos);
  Move found;
  int legal = 0;
  while (candidates) {
    Square from = pop_lsb(candidates);
    if (legal_non_king(cons, from, to)) {
      found = Move(from, to);
      ++legal;
    }
  }
  if (legal == 1) return {found, {}};
  return {Move(), legal == 0 ? MoveError::Illegal : MoveError::Ambiguous};
}

}  // namespace gb::pgn
