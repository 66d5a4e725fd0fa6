#include "book/cql/lexer.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <optional>

namespace gb::cql {

namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::optional<int> piece_bit(char c) {
  if (Piece p = piece_from_char(c); p != Piece::None) return int(p);  // the FEN letters
  switch (c) {
    case 'A': return -1;  // any white piece
    case 'a': return -2;  // any black piece
    case '_': return 0;
    default: return std::nullopt;
  }
}

std::uint16_t piece_bits(char c) {
  auto b = piece_bit(c);
  if (*b == -1) return kWhitePieceBits;
  if (*b == -2) return kBlackPieceBits;
  return std::uint16_t(1u << *b);
}

// Reads designators from a fixed text position; every reader returns the
// number of characters consumed, 0 when the text is not that kind of part.
struct DesignatorReader {
  std::string_view s;

  char at(std::size_t i) const { return i < s.size() ? s[i] : '\0'; }

  // a, a-h
  std::size_t range(std::size_t i, bool (*ok)(char), char base, int& lo, int& hi) const {
    if (!ok(at(i))) return 0;
    lo = hi = at(i) - base;
    if (at(i + 1) == '-' && ok(at(i + 2))) {
      hi = at(i + 2) - base;
      if (hi < lo) std::swap(lo, hi);
      return 3;
    }
    return 1;
  }

  std::size_t simple_square(std::size_t i, Bitboard& out) const {
    int f0, f1, r0, r1;
    std::size_t n = range(i, is_file, 'a', f0, f1);
    if (!n) return 0;
    std::size_t m = range(i + n, is_rank, '1', r0, r1);
    if (!m) return 0;
    out = 0;
    for (int f = f0; f <= f1; ++f)
      for (int r = r0; r <= r1; ++r) out |= square_bb(make_square(File(f), Rank(r)));
    return n + m;
  }

  // simple square or [sq,sq,...]
  std::size_t square_part(std::size_t i, Bitboard& out) const {
    if (at(i) != '[') return simple_square(i, out);
    std::size_t j = i + 1;
    out = 0;
    for (;;) {
      Bitboard b;
      std::size_t n = simple_square(j, b);
      if (!n) return 0;
      out |= b;
      j += n;
      if (at(j) == ',') {
        ++j;
        continue;
      }
      if (at(j) == ']') return j + 1 - i;
      return 0;
    }
  }

  std::size_t type_part(std::size_t i, std::uint16_t& mask) const {
    if (at(i) != '[') {
      if (!piece_bit(at(i))) return 0;
      mask = piece_bits(at(i));
      return 1;
    }
    std::size_t j = i + 1;
    mask = 0;
    while (piece_bit(at(j))) mask |= piece_bits(at(j++));
    if (j == i + 1 || at(j) != ']') return 0;
    return j + 1 - i;
  }

  std::size_t designator(std::size_t i, std::uint16_t& mask, Bitboard& squares) const {
    mask = 0;
    squares = ~Bitboard(0);
    if (at(i) == '.') return 1;
    if (at(i) == '[' && at(i + 1) == ']') {
      squares = 0;
      return 2;
    }
    if (std::size_t n = square_part(i, squares)) return n;
    std::size_t n = type_part(i, mask);
    if (!n) return 0;
    Bitboard sq;
    if (std::size_t m = square_part(i + n, sq)) {
      squares = sq;
      return n + m;
    }
    squares = ~Bitboard(0);
    return n;
  }
};

const char* const kPuncts[] = {"-->", "<--", "==", "!=", "<=", ">=", "=?", "+=", "-=", "*=", "/=", "%=", "|=",
                               "&=",  "~~",  "<",  ">",  "=",  "~",  "&",  "|",  "#",  "+",  "-",  "*",  "/",
                               "%",   ":",   "(",  ")",  "{",  "}",  "[",  "]",  "`",  ",",  "?"};

// True when the next token is the file name after "input" or "output" in the
// cql( ) header: a path such as games.pgn or out/mates.pgn, which the rest of
// the language would read as a designator and a stray '.'.
bool at_header_file_name(const std::vector<Token>& tokens) {
  if (tokens.size() < 3 || tokens.back().kind != TokenKind::Word ||
      (tokens.back().text != "input" && tokens.back().text != "output"))
    return false;
  if (tokens[0].kind != TokenKind::Word || tokens[0].text != "cql" || tokens[1].kind != TokenKind::Punct ||
      tokens[1].text != "(")
    return false;
  return std::none_of(tokens.begin() + 2, tokens.end(),
                      [](const Token& t) { return t.kind == TokenKind::Punct && t.text == ")"; });
}

}  // namespace

bool lex(std::string_view text, std::vector<Token>& tokens, LexError& error) {
  tokens.clear();
  int line = 1;
  std::size_t line_start = 0;
  std::size_t i = 0;
  bool space = true;
  auto fail = [&](std::size_t at, std::string message) {
    assert(at >= line_start);  // on the line being read
    error = {line, int(at - line_start) + 1, int(at), std::move(message)};
    return false;
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = ++i;
      space = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      space = true;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      space = true;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const std::size_t close = text.find("*/", i + 2);
      // Placed where the comment opens: its lines are counted once it is closed.
      if (close == std::string_view::npos) return fail(i, "unterminated /* comment");
      for (std::size_t j = i + 2; j < close; ++j)
        if (text[j] == '\n') {
          ++line;
          line_start = j + 1;
        }
      i = close + 2;
      space = true;
      continue;
    }
    Token t;
    t.line = line;
    t.column = int(i - line_start) + 1;
    t.offset = int(i);
    t.space_before = space;
    space = false;
    DesignatorReader reader{text};

    if (c != '"' && c != ')' && at_header_file_name(tokens)) {
      std::size_t j = i;
      while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j])) && text[j] != ')') ++j;
      t.kind = TokenKind::Word;
      t.text = std::string(text.substr(i, j - i));
      i = j;
      tokens.push_back(std::move(t));
      continue;
    }
    if (c == '"') {
      std::size_t end = text.find('"', i + 1);
      if (end == std::string_view::npos) return fail(i, "unterminated string literal");
      t.kind = TokenKind::String;
      t.text = std::string(text.substr(i + 1, end - i - 1));
      for (char ch : t.text)
        if (ch == '\n') {
          ++line;
        }
      if (t.text.find('\n') != std::string::npos) line_start = i + 1 + t.text.rfind('\n') + 1;
      i = end + 1;
      tokens.push_back(std::move(t));
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      std::int64_t v = 0;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
        if (v > (INT64_MAX - 9) / 10) return fail(i, "number too large");
        v = v * 10 + (text[j++] - '0');
      }
      if (j < text.size() && is_ident_char(text[j])) return fail(i, "a name may not start with a digit");
      t.kind = TokenKind::Number;
      t.number = v;
      t.text = std::string(text.substr(i, j - i));
      i = j;
      tokens.push_back(std::move(t));
      continue;
    }
    if (c == '\\') {
      char d = i + 1 < text.size() ? text[i + 1] : '\0';
      t.kind = TokenKind::Backslash;
      if (d == 'n' || d == 'r' || d == 't' || d == '"' || d == '\\') {
        t.text = d == 'n' ? "\n" : d == 'r' ? "\r" : d == 't' ? "\t" : std::string(1, d);
        i += 2;
      } else if (std::isdigit(static_cast<unsigned char>(d)) ||
                 (d == '-' && i + 2 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 2])))) {
        // \n: the text of capture group n; \-n: its start index.
        std::size_t j = i + (d == '-' ? 2 : 1);
        std::int64_t v = 0;
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) && v < 1000)
          v = v * 10 + (text[j++] - '0');
        t.text = d == '-' ? "group-index" : "group";
        t.number = v;
        i = j;
      } else {
        return fail(i, "unknown backslash filter (known: \\n \\r \\t \\\" \\\\ \\1 \\-1)");
      }
      tokens.push_back(std::move(t));
      continue;
    }
    if (c == '$' || std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '[' || c == '.') {
      // Castling names first: o-o, o-o-o (also O-O).
      if ((c == 'o' || c == 'O') && text.substr(i).size() >= 3 && text[i + 1] == '-' &&
          (text[i + 2] == 'o' || text[i + 2] == 'O')) {
        std::size_t n = 3;
        if (text.substr(i).size() >= 5 && text[i + 3] == '-' && (text[i + 4] == 'o' || text[i + 4] == 'O'))
          n = 5;
        t.kind = TokenKind::Word;
        t.text = n == 5 ? "o-o-o" : "o-o";
        i += n;
        tokens.push_back(std::move(t));
        continue;
      }
      std::size_t j = i;
      if (c != '[' && c != '.')
        while (j < text.size() && is_ident_char(text[j])) ++j;
      std::string word(text.substr(i, j - i));
      if (c == '$') {
        t.kind = TokenKind::Variable;
        t.text = word;
        i = j;
        tokens.push_back(std::move(t));
        continue;
      }
      std::uint16_t mask;
      Bitboard squares;
      std::size_t n = reader.designator(i, mask, squares);
      bool designator =
          n > 0 && (i + n >= text.size() || !is_ident_char(text[i + n]) || text[i + n - 1] == ']');
      // A longer word wins over a designator prefix: "and" is not "a" + "nd".
      if (designator && c != '[' && c != '.' && n < word.size()) designator = false;
      if (designator) {
        t.kind = TokenKind::Designator;
        t.piece_mask = mask;
        t.squares = squares;
        t.text = std::string(text.substr(i, n));
        i += n;
        tokens.push_back(std::move(t));
        continue;
      }
      if (c != '[' && c != '.') {
        t.kind = TokenKind::Word;
        t.text = word;
        i = j;
        tokens.push_back(std::move(t));
        continue;
      }
    }
    bool matched = false;
    for (const char* p : kPuncts) {
      std::string_view ps(p);
      if (text.substr(i, ps.size()) == ps) {
        t.kind = TokenKind::Punct;
        t.text = std::string(ps);
        i += ps.size();
        matched = true;
        break;
      }
    }
    if (!matched) return fail(i, std::string("unexpected character '") + c + "'");
    tokens.push_back(std::move(t));
  }
  // The end stands just after the last byte that is not white space, so that an
  // error at the end of a one-line query (given with a '\n' added) points into
  // that line, not at an empty line after it.
  std::size_t last = text.size();
  while (last > 0 && std::isspace(static_cast<unsigned char>(text[last - 1]))) --last;
  std::size_t last_line_start = text.rfind('\n', last == 0 ? 0 : last - 1);
  last_line_start = last == 0 || last_line_start == std::string_view::npos ? 0 : last_line_start + 1;
  Token end;
  end.kind = TokenKind::End;
  end.line = 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(last), '\n'));
  end.column = int(last - last_line_start) + 1;
  end.offset = int(last);
  end.space_before = true;
  tokens.push_back(end);
  return true;
}

}  // namespace gb::cql
