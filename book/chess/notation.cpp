#include "book/chess/notation.h"

#include <cassert>
#include <cctype>
#include <cinttypes>
#include <cstdio>

#include "book/chess/movegen.h"

namespace gb {

namespace {

// SAN writes a piece as its White FEN letter.
constexpr char san_letter(PieceType t) { return piece_char(make_piece(Color::White, t)); }

// The promotion piece of a letter in either case (UCI writes "e7e8q").
std::optional<PieceType> promotion_from_letter(char c) {
  PieceType t = piece_type_of_letter(char(std::toupper(static_cast<unsigned char>(c))));
  if (t >= PieceType::Knight && t <= PieceType::Queen) return t;
  return std::nullopt;
}

MoveParse parse_castling(const Position& pos, bool king_side) {
  if (Move m = castling_move(pos, king_side)) return {m, {}};
  return {Move(), MoveError::Illegal};
}

}  // namespace

std::string_view to_string(MoveError e) {
  switch (e) {
    case MoveError::Syntax: return "not a move";
    case MoveError::Illegal: return "illegal move";
    case MoveError::Ambiguous: return "ambiguous move";
  }
  return "?";
}

std::string square_name(Square s) { return {char('a' + file_of(s)), char('1' + rank_of(s))}; }

MoveParse parse_san(const Position& pos, std::string_view text) {
  // Strip check, mate and annotation suffixes.
  while (!text.empty() &&
         (text.back() == '+' || text.back() == '#' || text.back() == '!' || text.back() == '?'))
    text.remove_suffix(1);
  if (text.size() > 4 && text.substr(text.size() - 4) == "e.p.") text.remove_suffix(4);
  if (text.empty()) return {Move(), MoveError::Syntax};

  if (text == "O-O" || text == "0-0" || text == "OO") return parse_castling(pos, true);
  if (text == "O-O-O" || text == "0-0-0" || text == "OOO") return parse_castling(pos, false);

  PieceType piece = PieceType::Pawn;
  std::size_t i = 0;
  if (PieceType p = piece_type_of_letter(text[0]); p != PieceType::None) {
    piece = p;
    i = 1;
  }
  // What remains: [from file][from rank][x|-|:]to-file to-rank [=promo]
  char buf[8];
  std::size_t n = 0;
  PieceType promotion = PieceType::None;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == 'x' || c == '-' || c == ':') continue;
    if (c == '=' || c == '(' || c == ')') continue;
    if (is_file(c) || is_rank(c)) {
      if (n == sizeof buf) return {Move(), MoveError::Syntax};
      buf[n++] = c;
    } else if (auto pr = promotion_from_letter(c); pr && piece == PieceType::Pawn && n >= 2) {
      promotion = *pr;
    } else {
      return {Move(), MoveError::Syntax};
    }
  }
  // A lowercase bishop promotion ("e7e8b", "e8=b") arrives as a file letter.
  if (piece == PieceType::Pawn && promotion == PieceType::None && n >= 3 && buf[n - 1] == 'b' &&
      is_rank(buf[n - 2])) {
    promotion = PieceType::Bishop;
    --n;
  }
  if (n < 2 || !is_file(buf[n - 2]) || !is_rank(buf[n - 1])) return {Move(), MoveError::Syntax};
  Square to = square_of(buf[n - 2], buf[n - 1]);
  int from_file = -1, from_rank = -1;
  if (n == 3) {
    if (is_file(buf[0]))
      from_file = buf[0] - 'a';
    else
      from_rank = buf[0] - '1';
  } else if (n == 4) {
    if (!is_file(buf[0]) || !is_rank(buf[1])) return {Move(), MoveError::Syntax};
    from_file = buf[0] - 'a';
    from_rank = buf[1] - '1';
  } else if (n != 2) {
    return {Move(), MoveError::Syntax};
  }

  MoveList moves;
  generate_legal(pos, moves);
  Move found;
  int matches = 0;
  for (Move m : moves) {
    Square from = m.from();
    PieceType moved = type_of(pos.piece_on(from));
    Square dest = m.to();
    if (m.kind() == Move::Kind::Castling) {
      // Castling written in UCI form ("e1g1" or "e1h1"); SAN has O-O for it.
      if (!(piece == PieceType::Pawn && n == 4)) continue;
      bool king_side = m.to() > m.from();
      if (to != Position::castle_king_to(pos.side_to_move(), king_side) && to != m.to()) continue;
      dest = to;
      moved = PieceType::King;
    }
    if (dest != to) continue;
    // A bare "e2e4" names the piece by its square, whatever it is.
    if (!(piece == PieceType::Pawn && n == 4) && moved != piece) continue;
    if (from_file >= 0 && file_of(from) != from_file) continue;
    if (from_rank >= 0 && rank_of(from) != from_rank) continue;
    if (m.promotion() != promotion) continue;  // a promotion must name its piece
    if (piece == PieceType::Pawn && n == 2 && moved == PieceType::Pawn && file_of(from) != file_of(to))
      continue;  // "d5" is a push, never a capture
    found = m;
    ++matches;
  }
  if (matches == 1) return {found, {}};
  return {Move(), matches == 0 ? MoveError::Illegal : MoveError::Ambiguous};
}

void append_san_body(const Position& pos, const MoveList& legal, Move m, std::string& san) {
  if (m.kind() == Move::Kind::Castling) {
    san += m.to() > m.from() ? "O-O" : "O-O-O";
    return;
  }
  PieceType piece = type_of(pos.piece_on(m.from()));
  assert(piece != PieceType::None && color_of(pos.piece_on(m.from())) == pos.side_to_move());
  bool capture = !pos.empty(m.to()) || m.kind() == Move::Kind::EnPassant;
  if (piece == PieceType::Pawn) {
    if (capture) {
      san += char('a' + file_of(m.from()));
      san += 'x';
    }
    san += square_name(m.to());
    if (m.kind() == Move::Kind::Promotion) {
      san += '=';
      san += san_letter(m.promotion());
    }
    return;
  }
  san += san_letter(piece);
  bool ambiguous = false, same_file = false, same_rank = false;
  for (Move o : legal) {
    if (o == m || o.to() != m.to() || o.kind() == Move::Kind::Castling) continue;
    if (type_of(pos.piece_on(o.from())) != piece) continue;
    ambiguous = true;
    same_file |= file_of(o.from()) == file_of(m.from());
    same_rank |= rank_of(o.from()) == rank_of(m.from());
  }
  if (ambiguous) {
    if (!same_file)
      san += char('a' + file_of(m.from()));
    else if (!same_rank)
      san += char('1' + rank_of(m.from()));
    else
      san += square_name(m.from());
  }
  if (capture) san += 'x';
  san += square_name(m.to());
}

std::string to_san(const Position& pos, Move m) {
  std::string san;
  MoveList moves;  // only a piece move may need telling apart from another
  if (m.kind() != Move::Kind::Castling && type_of(pos.piece_on(m.from())) != PieceType::Pawn)
    generate_legal(pos, moves);
  append_san_body(pos, moves, m, san);
  Position next = pos;
  UndoInfo undo;
  next.do_move(m, undo);
  if (next.in_check()) san += count_legal(next) == 0 ? '#' : '+';
  return san;
}

std::string key_hex(Key k) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, k);
  return buf;
}

std::string numbered_san(const Position& pos, Move m) {
  return std::to_string(pos.fullmove_number()) + (pos.side_to_move() == Color::White ? ". " : "... ") +
         to_san(pos, m);
}

std::string to_uci(Move m, bool chess960) {
  if (m.is_null()) return "0000";
  Square to = m.to();
  if (m.kind() == Move::Kind::Castling && !chess960) {
    Color c = rank_of(m.from()) == RANK_1 ? Color::White : Color::Black;
    to = Position::castle_king_to(c, m.to() > m.from());
  }
  std::string s = square_name(m.from()) + square_name(to);
  if (m.kind() == Move::Kind::Promotion) s += " pnbrqk"[int(m.promotion())];
  return s;
}

std::optional<Move> parse_uci(const Position& pos, std::string_view text) {
  if (text.size() < 4 || text.size() > 5 || !is_file(text[0]) || !is_rank(text[1]) || !is_file(text[2]) ||
      !is_rank(text[3]))
    return std::nullopt;
  Square from = square_of(text[0], text[1]);
  Square to = square_of(text[2], text[3]);
  PieceType promo = PieceType::None;
  if (text.size() == 5) {
    auto p = promotion_from_letter(text[4]);
    if (!p) return std::nullopt;
    promo = *p;
  }
  MoveList moves;
  generate_legal(pos, moves);
  for (Move m : moves) {
    if (m.from() != from || m.promotion() != promo) continue;
    if (m.to() == to) return m;
    if (m.kind() == Move::Kind::Castling && !pos.chess960() &&
        to == Position::castle_king_to(pos.side_to_move(), m.to() > m.from()))
      return m;
  }
  return std::nullopt;
}

}  // namespace gb
