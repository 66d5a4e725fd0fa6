#include "book/chess/position.h"

#include <cassert>
#include <cctype>
#include <charconv>

#include "book/chess/polyglot_random.h"

namespace gb {

namespace {

constexpr int kCastleOffset = 768;
constexpr int kEpOffset = 772;
constexpr int kTurnOffset = 780;

inline Key piece_key(Piece p, Square s) {
  int kind = 2 * (int(type_of(p)) - 1) + (color_of(p) == Color::White ? 1 : 0);
  return polyglot::kRandom64[64 * kind + s];
}
inline Key castling_key(CastlingRights cr) {
  Key k = 0;
  for (int i = 0; i < 4; ++i)
    if (cr & (1 << i)) k ^= polyglot::kRandom64[kCastleOffset + i];
  return k;
}

std::string_view field_name(FenError::Field f) {
  switch (f) {
    case FenError::Field::Placement: return "piece placement";
    case FenError::Field::SideToMove: return "side to move";
    case FenError::Field::Castling: return "castling";
    case FenError::Field::EnPassant: return "en passant";
    case FenError::Field::HalfmoveClock: return "halfmove clock";
    case FenError::Field::FullmoveNumber: return "fullmove number";
    case FenError::Field::Position: return "position";
  }
  return "?";
}

constexpr int kMaxFullmoveNumber = 1'000'000'000;

std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::string FenError::message() const { return std::string(field_name(field)) + " field: " + reason; }

Position::Position() { *this = *from_fen(kStartFen); }

void Position::put_piece(Piece p, Square s) {
  assert(is_ok(s) && board_[s] == Piece::None);
  assert(type_of(p) != PieceType::None && piece_char(p) != ' ');
  board_[s] = p;
  by_color_[int(color_of(p))] |= square_bb(s);
  by_type_[int(type_of(p))] |= square_bb(s);
  key_ ^= piece_key(p, s);
}

void Position::remove_piece(Square s) {
  Piece p = board_[s];
  assert(is_ok(s) && p != Piece::None);
  by_color_[int(color_of(p))] ^= square_bb(s);
  by_type_[int(type_of(p))] ^= square_bb(s);
  board_[s] = Piece::None;
  key_ ^= piece_key(p, s);
}

void Position::move_piece(Square from, Square to) {
  Piece p = board_[from];
  assert(p != Piece::None && board_[to] == Piece::None);
  Bitboard ft = square_bb(from) | square_bb(to);
  by_color_[int(color_of(p))] ^= ft;
  by_type_[int(type_of(p))] ^= ft;
  board_[from] = Piece::None;
  board_[to] = p;
  key_ ^= piece_key(p, from) ^ piece_key(p, to);
}

void Position::set_castling_right(Color c, Square rook) {
  Square ksq = king_square(c);
  bool king_side = file_of(rook) > file_of(ksq);
  CastlingRights cr = castling_right(c, king_side);
  castling_ = CastlingRights(castling_ | cr);
  int i = index_of(cr);
  castling_rook_[i] = rook;
  castling_mask_[ksq] |= castling_right(c, true) | castling_right(c, false);
  castling_mask_[rook] |= cr;
  Square kto = castle_king_to(c, king_side), rto = castle_rook_to(c, king_side);
  castling_path_[i] = (between_bb(ksq, kto) | between_bb(rook, rto) | square_bb(kto) | square_bb(rto)) &
                      ~(square_bb(ksq) | square_bb(rook));
  if (file_of(ksq) != FILE_E || (file_of(rook) != FILE_A && file_of(rook) != FILE_H)) chess960_ = true;
}

void Position::set_ep_if_capturable(Square ep) {
  Color pusher = ~side_;
  if (pawn_attacks(pusher, ep) & pieces(side_, PieceType::Pawn)) ep_square_ = ep;
}

Key Position::key() const {
  return ep_square_ == SQ_NONE ? key_ : key_ ^ polyglot::kRandom64[kEpOffset + file_of(ep_square_)];
}

std::optional<Position> Position::from_fen(std::string_view fen, FenError* error) {
  init_bitboards();
  auto fail = [&](FenError::Field f, std::string reason) -> std::optional<Position> {
    if (error) *error = FenError{f, std::move(reason)};
    return std::nullopt;
  };
  std::string_view fields[6];
  int n = 0;
  for (size_t i = 0; i < fen.size();) {
    while (i < fen.size() && std::isspace((unsigned char)fen[i])) ++i;
    size_t j = i;
    while (j < fen.size() && !std::isspace((unsigned char)fen[j])) ++j;
    if (j > i) {
      if (n == 6) return fail(FenError::Field::Position, "more than six fields");
      fields[n++] = fen.substr(i, j - i);
    }
    i = j;
  }
  if (n < 4) return fail(n == 0 ? FenError::Field::Placement : FenError::Field(n), "missing");

  Position pos{Empty{}};
  // 1. Placement, rank 8 first.
  int rank = 7, file = 0;
  for (char c : fields[0]) {
    if (c == '/') {
      if (file != 8)
        return fail(FenError::Field::Placement,
                    "rank " + std::to_string(rank + 1) + " does not have 8 squares");
      if (--rank < 0) return fail(FenError::Field::Placement, "more than 8 ranks");
      file = 0;
    } else if (c >= '1' && c <= '8') {
      file += c - '0';
      if (file > 8)
        return fail(FenError::Field::Placement,
                    "rank " + std::to_string(rank + 1) + " has more than 8 squares");
    } else if (Piece p = piece_from_char(c); p != Piece::None) {
      if (file > 7)
        return fail(FenError::Field::Placement,
                    "rank " + std::to_string(rank + 1) + " has more than 8 squares");
      pos.put_piece(p, make_square(File(file++), Rank(rank)));
    } else {
      return fail(FenError::Field::Placement, std::string("unexpected character '") + c + "'");
    }
  }
  if (rank != 0 || file != 8) return fail(FenError::Field::Placement, "expected 8 ranks of 8 squares");
  for (Color c : {Color::White, Color::Black})
    if (popcount(pos.pieces(c, PieceType::King)) != 1)
      return fail(FenError::Field::Placement,
                  std::string(c == Color::White ? "White" : "Black") + " must have exactly one king");
  if (pos.pieces(PieceType::Pawn) & (rank_bb(RANK_1) | rank_bb(RANK_8)))
    return fail(FenError::Field::Placement, "a pawn stands on the first or eighth rank");

  // 2. Side to move.
  if (fields[1] == "w")
    pos.side_ = Color::White;
  else if (fields[1] == "b")
    pos.side_ = Color::Black;
  else
    return fail(FenError::Field::SideToMove, "expected 'w' or 'b', got '" + std::string(fields[1]) + "'");

  // 3. Castling: KQkq (outermost rook), X-FEN/Shredder file letters, or '-'.
  if (fields[2] != "-") {
    for (char c : fields[2]) {
      Color color = std::isupper((unsigned char)c) ? Color::White : Color::Black;
      char u = char(std::toupper((unsigned char)c));
      Square ksq = pos.king_square(color);
      Rank back = relative_rank(color, RANK_1);
      if (rank_of(ksq) != back)
        return fail(FenError::Field::Castling,
                    std::string("'") + c + "' but the king is not on its back rank");
      Bitboard rooks = pos.pieces(color, PieceType::Rook) & rank_bb(back);
      Square rook = SQ_NONE;
      if (u == 'K') {
        for (int f = FILE_H; f > file_of(ksq) && rook == SQ_NONE; --f)
          if (rooks & square_bb(make_square(File(f), back))) rook = make_square(File(f), back);
      } else if (u == 'Q') {
        for (int f = FILE_A; f < file_of(ksq) && rook == SQ_NONE; ++f)
          if (rooks & square_bb(make_square(File(f), back))) rook = make_square(File(f), back);
      } else if (u >= 'A' && u <= 'H') {
        Square s = make_square(File(u - 'A'), back);
        if (rooks & square_bb(s)) rook = s;
        pos.chess960_ = true;
      } else {
        return fail(FenError::Field::Castling, std::string("unexpected character '") + c + "'");
      }
      if (rook == SQ_NONE)
        return fail(FenError::Field::Castling,
                    std::string("'") + c + "' but there is no rook to castle with");
      pos.set_castling_right(color, rook);
    }
    pos.key_ ^= castling_key(pos.castling_);
  }

  // 4. En passant.
  if (fields[3] != "-") {
    std::string_view ep = fields[3];
    if (ep.size() != 2 || !is_file(ep[0]) || !is_rank(ep[1]))
      return fail(FenError::Field::EnPassant, "'" + std::string(ep) + "' is not a square");
    Square s = square_of(ep[0], ep[1]);
    if (rank_of(s) != relative_rank(pos.side_, RANK_6))
      return fail(FenError::Field::EnPassant, std::string(ep) + " is not on the " +
                                                  (pos.side_ == Color::White ? "sixth" : "third") + " rank");
    Square pushed = Square(s - pawn_push(pos.side_));
    if (pos.piece_on(pushed) != make_piece(~pos.side_, PieceType::Pawn) || !pos.empty(s) ||
        !pos.empty(Square(s + pawn_push(pos.side_))))
      return fail(FenError::Field::EnPassant, std::string(ep) + " does not follow a double pawn push");
    pos.set_ep_if_capturable(s);
  }

  // 5, 6. Counters (optional, as in EPD).
  if (n >= 5) {
    auto v = parse_int(fields[4]);
    if (!v)
      return fail(FenError::Field::HalfmoveClock,
                  "'" + std::string(fields[4]) + "' is not a non-negative number");
    pos.halfmove_clock_ = *v;
  }
  if (n >= 6) {
    auto v = parse_int(fields[5]);
    if (!v) return fail(FenError::Field::FullmoveNumber, "'" + std::string(fields[5]) + "' is not a number");
    // The position counts plies in an int: 2 * (fullmove - 1) + 1 must fit.
    if (*v > kMaxFullmoveNumber)
      return fail(FenError::Field::FullmoveNumber,
                  "'" + std::string(fields[5]) + "' is larger than " + std::to_string(kMaxFullmoveNumber));
    pos.game_ply_ = 2 * std::max(*v - 1, 0) + (pos.side_ == Color::Black);
  } else {
    pos.game_ply_ = pos.side_ == Color::Black;
  }

  if (pos.side_ == Color::White) pos.key_ ^= polyglot::kRandom64[kTurnOffset];
  if (pos.attacked_by(pos.side_, pos.king_square(~pos.side_), pos.pieces()))
    return fail(FenError::Field::Position, "the side not to move is in check");
  pos.checkers_ = pos.attackers_to(pos.king_square(pos.side_), pos.pieces()) & pos.pieces(~pos.side_);
  return pos;
}

std::string fen_placement(std::span<const Piece, 64> board) {
  std::string s;
  for (int r = 7; r >= 0; --r) {
    int empties = 0;
    for (int f = 0; f < 8; ++f) {
      Piece p = board[make_square(File(f), Rank(r))];
      if (p == Piece::None) {
        ++empties;
        continue;
      }
      if (empties) s += char('0' + empties), empties = 0;
      s += piece_char(p);
    }
    if (empties) s += char('0' + empties);
    if (r) s += '/';
  }
  return s;
}

std::string Position::fen(bool shredder) const {
  std::string s = fen_placement(board_);
  s += side_ == Color::White ? " w " : " b ";
  if (!castling_) s += '-';
  for (int i = 0; i < 4; ++i) {
    if (!(castling_ & (1 << i))) continue;
    Color c = i < 2 ? Color::White : Color::Black;
    bool king_side = (i & 1) == 0;
    Square rook = castling_rook_[i];
    // X-FEN: the letter only when another rook stands further out on that side.
    Bitboard outer = 0;
    Square ksq = king_square(c);
    for (int f = king_side ? file_of(rook) + 1 : 0; f < (king_side ? 8 : file_of(rook)); ++f)
      outer |= square_bb(make_square(File(f), rank_of(rook)));
    char ch;
    if (shredder || (outer & pieces(c, PieceType::Rook)) || file_of(ksq) == FILE_A || file_of(ksq) == FILE_H)
      ch = char('A' + file_of(rook));
    else
      ch = king_side ? 'K' : 'Q';
    s += c == Color::White ? ch : char(std::tolower(ch));
  }
  s += ' ';
  if (ep_square_ != SQ_NONE && has_legal_ep_capture()) {
    s += char('a' + file_of(ep_square_));
    s += char('1' + rank_of(ep_square_));
  } else {
    s += '-';
  }
  s += ' ' + std::to_string(halfmove_clock_) + ' ' + std::to_string(fullmove_number());
  return s;
}

Bitboard Position::attackers_to(Square s, Bitboard occupied) const {
  return (pawn_attacks(Color::Black, s) & pieces(Color::White, PieceType::Pawn)) |
         (pawn_attacks(Color::White, s) & pieces(Color::Black, PieceType::Pawn)) |
         (knight_attacks(s) & pieces(PieceType::Knight)) |
         (rook_attacks(s, occupied) & pieces(PieceType::Rook, PieceType::Queen)) |
         (bishop_attacks(s, occupied) & pieces(PieceType::Bishop, PieceType::Queen)) |
         (king_attacks(s) & pieces(PieceType::King));
}

bool Position::attacked_by(Color c, Square s, Bitboard occupied) const {
  return (pawn_attacks(~c, s) & pieces(c, PieceType::Pawn)) ||
         (knight_attacks(s) & pieces(c, PieceType::Knight)) ||
         (king_attacks(s) & pieces(c, PieceType::King)) ||
         (rook_attacks(s, occupied) & (pieces(c, PieceType::Rook) | pieces(c, PieceType::Queen))) ||
         (bishop_attacks(s, occupied) & (pieces(c, PieceType::Bishop) | pieces(c, PieceType::Queen)));
}

Bitboard Position::blockers_for_king(Color c) const {
  Square ksq = king_square(c);
  Bitboard snipers = ((rook_attacks(ksq, 0) & pieces(PieceType::Rook, PieceType::Queen)) |
                      (bishop_attacks(ksq, 0) & pieces(PieceType::Bishop, PieceType::Queen))) &
                     pieces(~c);
  Bitboard blockers = 0, occupied = pieces() ^ snipers;
  while (snipers) {
    Square s = pop_lsb(snipers);
    Bitboard b = between_bb(ksq, s) & occupied;
    if (b && !more_than_one(b)) blockers |= b;
  }
  return blockers;
}

void Position::save_state(UndoInfo& undo) const {
  undo.key = key_;
  undo.checkers = checkers_;
  undo.castling = castling_;
  undo.ep_square = ep_square_;
  undo.halfmove_clock = halfmove_clock_;
  undo.captured = Piece::None;
}

void Position::restore_state(const UndoInfo& undo) {
  key_ = undo.key;
  checkers_ = undo.checkers;
  castling_ = undo.castling;
  ep_square_ = undo.ep_square;
  halfmove_clock_ = undo.halfmove_clock;
  --game_ply_;
}

void Position::do_move(Move m, UndoInfo& undo) {
  save_state(undo);

  const Color us = side_, them = ~us;
  const Square from = m.from(), to = m.to();
  const Piece moved = board_[from];
  // A legal move (the contract): our piece moves, never onto our own piece
  // (castling, king takes own rook, aside) nor onto a king.
  assert(m && moved != Piece::None && color_of(moved) == us);
  assert(m.kind() == Move::Kind::Castling
             ? type_of(moved) == PieceType::King && board_[to] == make_piece(us, PieceType::Rook)
             : board_[to] == Piece::None ||
                   (color_of(board_[to]) == them && type_of(board_[to]) != PieceType::King));
  assert(m.kind() != Move::Kind::EnPassant ||
         (type_of(moved) == PieceType::Pawn && to == undo.ep_square &&
          board_[Square(to - pawn_push(us))] == make_piece(them, PieceType::Pawn)));
  assert(m.kind() != Move::Kind::Promotion ||
         (type_of(moved) == PieceType::Pawn && relative_rank(us, rank_of(to)) == RANK_8));
  ++halfmove_clock_;
  ++game_ply_;
  ep_square_ = SQ_NONE;

  if (m.kind() == Move::Kind::Castling) {
    bool king_side = to > from;
    Square kto = castle_king_to(us, king_side), rto = castle_rook_to(us, king_side);
    Piece rook = board_[to];
    remove_piece(from);
    remove_piece(to);
    put_piece(moved, kto);
    put_piece(rook, rto);
  } else {
    if (m.kind() == Move::Kind::EnPassant) {
      Square cap = Square(to - pawn_push(us));
      undo.captured = board_[cap];
      remove_piece(cap);
      halfmove_clock_ = 0;
    } else if (board_[to] != Piece::None) {
      undo.captured = board_[to];
      remove_piece(to);
      halfmove_clock_ = 0;
    }
    move_piece(from, to);
    if (type_of(moved) == PieceType::Pawn) {
      halfmove_clock_ = 0;
      if (m.kind() == Move::Kind::Promotion) {
        remove_piece(to);
        put_piece(make_piece(us, m.promotion()), to);
      } else if ((int(to) ^ int(from)) == 16) {
        side_ = them;  // set_ep_if_capturable looks from the side about to move
        set_ep_if_capturable(Square((from + to) / 2));
        side_ = us;
      }
    }
  }
  if (CastlingRights lost = CastlingRights(castling_ & (castling_mask_[from] | castling_mask_[to]))) {
    key_ ^= castling_key(lost);
    castling_ = CastlingRights(castling_ ^ lost);
  }
  side_ = them;
  key_ ^= polyglot::kRandom64[kTurnOffset];
  // Legal: the side that moved does not stand in check; each side keeps one king.
  assert(popcount(pieces(us, PieceType::King)) == 1 && popcount(pieces(them, PieceType::King)) == 1);
  assert(!attacked_by(them, king_square(us), pieces()));
  checkers_ = attackers_to(king_square(them), pieces()) & pieces(us);
}

void Position::undo_move(Move m, const UndoInfo& undo) {
  side_ = ~side_;
  const Color us = side_;
  const Square from = m.from(), to = m.to();
  if (m.kind() == Move::Kind::Castling) {
    bool king_side = to > from;
    Square kto = castle_king_to(us, king_side), rto = castle_rook_to(us, king_side);
    Piece king = board_[kto], rook = board_[rto];
    remove_piece(kto);
    remove_piece(rto);
    put_piece(king, from);
    put_piece(rook, to);
  } else {
    if (m.kind() == Move::Kind::Promotion) {
      remove_piece(to);
      put_piece(make_piece(us, PieceType::Pawn), to);
    }
    move_piece(to, from);
    if (undo.captured != Piece::None)
      put_piece(undo.captured, m.kind() == Move::Kind::EnPassant ? Square(to - pawn_push(us)) : to);
  }
  restore_state(undo);
}

void Position::do_null_move(UndoInfo& undo) {
  assert(!in_check());  // the caller checks (position.h)
  save_state(undo);
  ep_square_ = SQ_NONE;
  ++halfmove_clock_;
  ++game_ply_;
  side_ = ~side_;
  key_ ^= polyglot::kRandom64[kTurnOffset];
  checkers_ = attackers_to(king_square(side_), pieces()) & pieces(~side_);
}

void Position::undo_null_move(const UndoInfo& undo) {
  side_ = ~side_;
  restore_state(undo);
}

bool Position::gives_check(Move m) const {
  Position next = *this;
  UndoInfo undo;
  next.do_move(m, undo);
  return next.in_check();
}

bool Position::has_legal_ep_capture() const {
  if (ep_square_ == SQ_NONE) return false;
  const Color us = side_;
  const Square ksq = king_square(us);
  const Square cap = Square(ep_square_ - pawn_push(us));
  Bitboard capturers = pawn_attacks(~us, ep_square_) & pieces(us, PieceType::Pawn);
  while (capturers) {
    Square from = pop_lsb(capturers);
    Bitboard occ = (pieces() ^ square_bb(from) ^ square_bb(cap)) | square_bb(ep_square_);
    if (!(attackers_to(ksq, occ) & pieces(~us) & ~square_bb(cap))) return true;
  }
  return false;
}

bool Position::insufficient_material() const {
  if (pieces(PieceType::Pawn) | pieces(PieceType::Rook) | pieces(PieceType::Queen)) return false;
  Bitboard minors = pieces(PieceType::Knight) | pieces(PieceType::Bishop);
  if (popcount(minors) <= 1) return true;
  if (pieces(PieceType::Knight)) return false;
  constexpr Bitboard dark = 0xAA55AA55AA55AA55ULL;
  Bitboard bishops = pieces(PieceType::Bishop);
  return (bishops & dark) == 0 || (bishops & ~dark) == 0;
}

bool Position::operator==(const Position& o) const {
  return by_color_[0] == o.by_color_[0] && by_color_[1] == o.by_color_[1] &&
         std::equal(std::begin(board_), std::end(board_), std::begin(o.board_)) && side_ == o.side_ &&
         castling_ == o.castling_ && ep_square_ == o.ep_square_;
}

}  // namespace gb
