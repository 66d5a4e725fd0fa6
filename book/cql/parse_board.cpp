// The board filters: their keywords, move, pin, directions, fen patterns.
#include "book/cql/parser_impl.h"

namespace gb::cql {

namespace {

enum class BoardKeyword : std::uint8_t {
  Power,
  ColorType,
  Type,
  File,
  Rank,
  Light,
  Dark,
  PieceId,
  AttackNeedsLeft,
  Between,
  Ray,
  Pin,
  Move,
  MakeSquare,
  Fen,
};

const std::unordered_map<std::string_view, BoardKeyword> kBoardKeywords = {
    {"power", BoardKeyword::Power},
    {"colortype", BoardKeyword::ColorType},
    {"type", BoardKeyword::Type},
    {"file", BoardKeyword::File},
    {"rank", BoardKeyword::Rank},
    {"light", BoardKeyword::Light},
    {"dark", BoardKeyword::Dark},
    {"pieceid", BoardKeyword::PieceId},
    {"attackedby", BoardKeyword::AttackNeedsLeft},
    {"attacks", BoardKeyword::AttackNeedsLeft},
    {"between", BoardKeyword::Between},
    {"ray", BoardKeyword::Ray},
    {"xray", BoardKeyword::Ray},
    {"pin", BoardKeyword::Pin},
    {"move", BoardKeyword::Move},
    {"makesquare", BoardKeyword::MakeSquare},
    {"fen", BoardKeyword::Fen},
};

}  // namespace

NodePtr Parser::parse_board_keyword(const Token& t) {
  const std::string& w = t.text;
  auto it = kBoardKeywords.find(w);
  if (it == kBoardKeywords.end()) {
    if (auto d = direction_word(w)) return parse_direction(t, *d);
    return nullptr;
  }
  switch (it->second) {
    case BoardKeyword::Power:
      return unary(Op::Power, Type::Numeric, t, parse_typed(below(Prec::PieceFunction), Type::Set, "power"));
    case BoardKeyword::ColorType:
      return unary(Op::ColorType, Type::Numeric, t,
                   parse_typed(below(Prec::PieceFunction), Type::Set, "colortype"));
    case BoardKeyword::Type:
      return unary(Op::PieceType, Type::Numeric, t,
                   parse_typed(below(Prec::PieceFunction), Type::Set, "type"));
    case BoardKeyword::File:
      return unary(Op::File, Type::Numeric, t, parse_typed(below(Prec::PieceFunction), Type::Set, "file"));
    case BoardKeyword::Rank:
      return unary(Op::Rank, Type::Numeric, t, parse_typed(below(Prec::PieceFunction), Type::Set, "rank"));
    case BoardKeyword::Light:
      return unary(Op::Light, Type::Set, t, parse_typed(below(Prec::LightDark), Type::Set, "light"));
    case BoardKeyword::Dark:
      return unary(Op::Dark, Type::Set, t, parse_typed(below(Prec::LightDark), Type::Set, "dark"));
    case BoardKeyword::PieceId: {
      const Token& s = tok();
      NodePtr a = parse_expr(below(Prec::PieceFunction), true);
      if (a->type != Type::Piece) a = require(std::move(a), Type::Set, s, "pieceid");
      return unary(Op::PieceId, Type::Numeric, t, std::move(a));
    }
    case BoardKeyword::AttackNeedsLeft:
      fail_at(t, "'" + w + "' needs a Set on its left", "a filter before it");
    case BoardKeyword::Between: return typed_call(Op::Between, Type::Set, t, "between", Type::Set, 2, 2);
    case BoardKeyword::Ray: {
      std::uint8_t directions = 0;
      while (w == "ray" && tok().kind == TokenKind::Word) {
        auto d = direction_word(tok().text);
        if (!d) break;
        directions |= *d;
        ++pos_;
      }
      auto n = typed_call(w == "ray" ? Op::Ray : Op::Xray, Type::Set, t, w.c_str(), Type::Set, 2, 64);
      n->directions = directions ? directions : 0xFF;
      return n;
    }
    case BoardKeyword::Pin: return parse_pin(t);
    case BoardKeyword::Move: return parse_move(t);
    case BoardKeyword::MakeSquare: {
      auto args = parenthesised_args("makesquare", 1, 2);
      if (args.size() == 1) {
        auto n = node(Op::MakeSquareString, Type::Set, t);
        n->args.push_back(require(std::move(args[0]), Type::String, t, "makesquare"));
        return n;
      }
      auto n = node(Op::MakeSquare, Type::Set, t);
      for (auto& a : args) n->args.push_back(require(std::move(a), Type::Numeric, t, "makesquare"));
      return n;
    }
    case BoardKeyword::Fen: {
      if (tok().kind == TokenKind::String) {
        ++pos_;
        return parse_fen_pattern(t, t.text == "fen" ? toks_[pos_ - 1].text : "");
      }
      return node(Op::CurrentFen, Type::String, t);
    }
  }
  return nullptr;
}

NodePtr Parser::parse_direction(const Token& t, std::uint8_t dirs) {
  auto n = node(Op::Direction, Type::Set, t);
  n->directions = dirs;
  n->range = {true, 1, 7};
  if (auto r = parse_range()) n->range = {true, r->lo, r->hi};
  n->args.push_back(parse_typed(below(Prec::LightDark), Type::Set, t.text.c_str()));
  return n;
}

std::optional<std::uint8_t> Parser::direction_word(const std::string& w) const {
  static const std::map<std::string, std::uint8_t> dirs = {
      {"up", 1 << Up},
      {"down", 1 << Down},
      {"left", 1 << Left},
      {"right", 1 << Right},
      {"northeast", 1 << NorthEast},
      {"northwest", 1 << NorthWest},
      {"southeast", 1 << SouthEast},
      {"southwest", 1 << SouthWest},
      {"vertical", 1 << Up | 1 << Down},
      {"horizontal", 1 << Left | 1 << Right},
      {"orthogonal", 1 << Up | 1 << Down | 1 << Left | 1 << Right},
      {"maindiagonal", 1 << NorthEast | 1 << SouthWest},
      {"offdiagonal", 1 << NorthWest | 1 << SouthEast},
      {"diagonal", 1 << NorthEast | 1 << SouthWest | 1 << NorthWest | 1 << SouthEast},
      {"anydirection", 0xFF},
  };
  auto it = dirs.find(w);
  if (it == dirs.end()) return std::nullopt;
  return it->second;
}

NodePtr Parser::parse_move(const Token& t) {
  auto n = node(Op::Move, Type::Boolean, t);
  MoveSpec& m = n->move;
  std::set<std::string> seen;
  bool first = true;
  bool have_mode = false;
  auto once = [&](const Token& at, const std::string& w) {
    if (!seen.insert(w).second) fail_at(at, "move parameter '" + w + "' given twice");
  };
  for (;;) {
    const Token p = tok();
    if (p.kind == TokenKind::Punct && p.text == ":") {
      if (m.mode == MoveSpec::Mode::Previous)
        fail_at(p, "'move previous' cannot be speculative; use 'parent :'");
      ++pos_;
      m.speculative = int(n->args.size());
      n->args.push_back(parse_expr(below(Prec::MoveParameter)));
      break;
    }
    if (p.kind != TokenKind::Word) break;
    const std::string w = p.text;
    if (w == "legal" || w == "pseudolegal" || w == "previous") {
      if (have_mode) fail_at(p, "at most one of previous, legal, pseudolegal");
      have_mode = true;
      ++pos_;
      m.mode = w == "legal"         ? MoveSpec::Mode::Legal
               : w == "pseudolegal" ? MoveSpec::Mode::Pseudolegal
                                    : MoveSpec::Mode::Previous;
    } else if (w == "reverse") {
      once(p, w);
      ++pos_;
      m.reverse = true;
    } else if (w == "from" || w == "to" || w == "capture") {
      once(p, w);
      ++pos_;
      if (first)
        m.result = w == "from" ? MoveSpec::Result::From
                   : w == "to" ? MoveSpec::Result::To
                               : MoveSpec::Result::Capture;
      int idx = int(n->args.size());
      n->args.push_back(parse_typed(below(Prec::MoveParameter), Type::Set, w.c_str()));
      (w == "from" ? m.from : w == "to" ? m.to : m.capture) = idx;
    } else if (w == "promote") {
      once(p, w);
      ++pos_;
      if (tok().kind != TokenKind::Designator || tok().squares != ~Bitboard(0) || tok().piece_mask == 0)
        fail("unexpected " + describe(tok()), "a piece type designator such as Q or [BNR]");
      std::uint16_t mask = toks_[pos_++].piece_mask;
      m.promote = std::uint16_t((mask | mask >> 8 | mask << 8) & kAllPieceBits);
    } else if (w == "enpassant" || w == "castle" || w == "o-o" || w == "o-o-o" || w == "null" ||
               w == "primary" || w == "secondary" || w == "count" || w == "all") {
      once(p, w);
      if ((w == "castle" || w == "o-o" || w == "o-o-o") &&
          (seen.count("castle") + seen.count("o-o") + seen.count("o-o-o") > 1))
        fail_at(p, "at most one castling parameter");
      ++pos_;
      if (w == "enpassant") m.enpassant = true;
      if (w == "castle") m.castle = true;
      if (w == "o-o") m.castle_short = true;
      if (w == "o-o-o") m.castle_long = true;
      if (w == "null") m.null_move = true;
      if (w == "primary") m.primary = true;
      if (w == "secondary") m.secondary = true;
      if (w == "count") m.result = MoveSpec::Result::Count;
      if (w == "all") m.all = true;
    } else {
      break;
    }
    first = false;
  }
  if (seen.count("count")) m.result = MoveSpec::Result::Count;
  // A comment or message right after an ordinary move filter is run after the move (section 17).
  if (m.mode == MoveSpec::Mode::Played && m.speculative < 0 && (is_word("comment") || is_word("message"))) {
    const Token c = toks_[pos_++];
    m.adopted = int(n->args.size());
    n->args.push_back(c.text == "comment" ? parse_str_like(c, Op::Comment) : parse_message(c));
  }
  if (m.primary && m.secondary) fail_at(t, "move cannot be both primary and secondary");
  if ((m.primary || m.secondary) &&
      (m.mode == MoveSpec::Mode::Legal || m.mode == MoveSpec::Mode::Pseudolegal))
    fail_at(t, "primary/secondary cannot be combined with legal or pseudolegal");
  if (m.reverse && m.mode != MoveSpec::Mode::Legal && m.mode != MoveSpec::Mode::Pseudolegal)
    fail_at(t, "reverse needs legal or pseudolegal");
  if (m.all && m.speculative < 0) fail_at(t, "'all' needs a speculative move (move ... : filter)");
  switch (m.result) {
    case MoveSpec::Result::Count: n->type = Type::Numeric; break;
    case MoveSpec::Result::Boolean: n->type = Type::Boolean; break;
    default: n->type = Type::Set; break;
  }
  if (m.all && m.result != MoveSpec::Result::Count) n->type = Type::Boolean;
  return n;
}

NodePtr Parser::parse_pin(const Token& t) {
  auto n = node(Op::Pin, Type::Set, t);
  int result = 0;  // 0 pinned, 1 pinning, 2 pinned-to
  bool first = true;
  for (;;) {
    const Token p = tok();
    int* slot = nullptr;
    if (is_word("from"))
      slot = &n->pin.from;
    else if (is_word("through"))
      slot = &n->pin.through;
    else if (is_word("to"))
      slot = &n->pin.to;
    else
      break;
    if (*slot >= 0) fail_at(p, "pin parameter '" + p.text + "' given twice");
    ++pos_;
    if (first) result = p.text == "from" ? 1 : p.text == "to" ? 2 : 0;
    first = false;
    *slot = int(n->args.size());
    n->args.push_back(parse_typed(below(Prec::MoveParameter), Type::Set, p.text.c_str()));
  }
  n->directions = std::uint8_t(result);
  return n;
}

NodePtr Parser::parse_fen_pattern(const Token& t, const std::string& text) {
  auto n = node(Op::FenMatch, Type::Boolean, t);
  n->fen_pattern.assign(64, 0);
  int rank = 7, file = 0;
  for (char c : text) {
    if (c == ' ') break;
    if (c == '/') {
      if (file != 8)
        fail_at(toks_[pos_ - 1],
                "fen placement: rank " + std::to_string(rank + 1) + " does not have 8 squares");
      --rank;
      file = 0;
      if (rank < 0) fail_at(toks_[pos_ - 1], "fen placement has more than 8 ranks");
      continue;
    }
    if (c >= '1' && c <= '8') {
      for (int i = 0; i < c - '0'; ++i) {
        if (file > 7) fail_at(toks_[pos_ - 1], "fen placement: a rank has more than 8 squares");
        n->fen_pattern[rank * 8 + file++] = kEmptyBit;
      }
      continue;
    }
    std::uint16_t bits;
    if (Piece p = piece_from_char(c); p != Piece::None)
      bits = std::uint16_t(1u << int(p));  // the Piece code is the bit, as in the lexer's piece designators
    else if (c == 'A')
      bits = kWhitePieceBits;
    else if (c == 'a')
      bits = kBlackPieceBits;
    else if (c == '_')
      bits = kEmptyBit;
    else if (c == '.')
      bits = 0xFFFF;
    else
      fail_at(toks_[pos_ - 1], std::string("fen placement: unexpected character '") + c + "'");
    if (file > 7) fail_at(toks_[pos_ - 1], "fen placement: a rank has more than 8 squares");
    n->fen_pattern[rank * 8 + file++] = bits;
  }
  if (rank != 0 || file != 8) fail_at(toks_[pos_ - 1], "fen placement must describe 8 ranks of 8 squares");
  return n;
}

}  // namespace gb::cql
