#include "serve/request_params.h"

#include <charconv>

#include "book/chess/notation.h"

namespace gb::serve {

namespace {

bool fail(ParamError* error, std::string message) {
  if (error) error->message = std::move(message);
  return false;
}

// Shown in messages: a value cut to a readable length.
std::string quoted(std::string_view v) {
  constexpr std::size_t kShown = 40;
  std::string s(v.substr(0, kShown));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return "'" + s + (v.size() > kShown ? "...'" : "'");
}

// UCI move text: from and to squares, then an optional promotion piece.
bool looks_like_uci(std::string_view m) {
  auto file = [](char c) { return c >= 'a' && c <= 'h'; };
  auto rank = [](char c) { return c >= '1' && c <= '8'; };
  if (m.size() != 4 && m.size() != 5) return false;
  if (!file(m[0]) || !rank(m[1]) || !file(m[2]) || !rank(m[3])) return false;
  return m.size() == 4 || m[4] == 'q' || m[4] == 'r' || m[4] == 'b' || m[4] == 'n';
}

// The FEN's halfmove clock or fullmove number when one is a number past
// kMaxFenCounter: the chess core keeps plies in an int (2 * fullmove; found
// by fuzz/serve_params_fuzz), and no game comes near.
constexpr std::uint64_t kMaxFenCounter = 1000000;
std::optional<std::string_view> oversized_counter(std::string_view fen) {
  std::size_t field = 0;
  for (std::size_t i = 0; i < fen.size();) {
    while (i < fen.size() && fen[i] == ' ') ++i;
    std::size_t end = fen.find(' ', i);
    if (end == std::string_view::npos) end = fen.size();
    std::string_view word = fen.substr(i, end - i);
    if (!word.empty() && ++field >= 5) {
      std::uint64_t n = 0;
      auto [last, ec] = std::from_chars(word.data(), word.data() + word.size(), n);
      if (ec == std::errc::result_out_of_range || (ec == std::errc() && n > kMaxFenCounter)) return word;
    }
    i = end;
  }
  return std::nullopt;
}

}  // namespace

std::optional<explore::ResolvedPosition> parse_position(std::string_view fen, std::string_view play,
                                                        ParamError* error) {
  explore::ResolvedPosition r;
  if (!fen.empty()) {
    if (fen.size() > kMaxFenLength) {
      fail(error, "fen: longer than " + std::to_string(kMaxFenLength) + " characters");
      return std::nullopt;
    }
    std::string text(fen);
    for (char& c : text)
      if (c == '_') c = ' ';
    if (auto counter = oversized_counter(text)) {
      fail(error,
           "fen: the move counter " + quoted(*counter) + " is larger than " + std::to_string(kMaxFenCounter));
      return std::nullopt;
    }
    FenError fen_error;
    auto pos = Position::from_fen(text, &fen_error);
    if (!pos) {
      fail(error, "fen: " + quoted(fen) + " is not a FEN: " + fen_error.message());
      return std::nullopt;
    }
    r.position = *pos;
  }
  r.line = {r.position.key()};
  std::size_t index = 0;
  while (!play.empty()) {
    std::size_t comma = play.find(',');
    std::string_view token = play.substr(0, comma);
    play = comma == std::string_view::npos ? std::string_view() : play.substr(comma + 1);
    if (++index > kMaxPlayMoves) {
      fail(error, "play: more than " + std::to_string(kMaxPlayMoves) + " moves");
      return std::nullopt;
    }
    std::string where = "play: move " + std::to_string(index) + " " + quoted(token);
    if (!looks_like_uci(token)) {
      fail(error, where + " is not UCI (like e2e4 or e7e8q)");
      return std::nullopt;
    }
    auto move = parse_uci(r.position, token);
    if (!move) {
      fail(error, where + " is not legal in " + r.position.fen());
      return std::nullopt;
    }
    bool numbered = r.position.side_to_move() == Color::White || r.moves_san.empty();
    if (!r.moves_san.empty()) r.moves_san += ' ';
    r.moves_san += numbered ? numbered_san(r.position, *move) : to_san(r.position, *move);
    UndoInfo undo;
    r.position.do_move(*move, undo);
    r.line.push_back(r.position.key());
  }
  return r;
}

std::optional<std::int64_t> parse_bounded(std::string_view name, std::string_view value, std::int64_t min,
                                          std::int64_t max, std::int64_t fallback, ParamError* error) {
  if (value.empty()) return fallback;
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec == std::errc::result_out_of_range ||
      (ec == std::errc() && end == value.data() + value.size() && (n < min || n > max))) {
    fail(error, std::string(name) + ": " + quoted(value) + " is out of range: from " + std::to_string(min) +
                    " to " + std::to_string(max));
    return std::nullopt;
  }
  if (ec != std::errc() || end != value.data() + value.size()) {
    fail(error, std::string(name) + ": " + quoted(value) + " is not a whole number");
    return std::nullopt;
  }
  return n;
}

std::optional<int> parse_year(std::string_view name, std::string_view value, int fallback,
                              ParamError* error) {
  if (value.empty()) return fallback;
  auto digits = [](std::string_view s) {
    for (char c : s)
      if (c < '0' || c > '9') return false;
    return !s.empty();
  };
  std::string_view year = value.substr(0, 4);
  bool month_ok = value.size() == 4 || (value.size() == 7 && value[4] == '-' && digits(value.substr(5)) &&
                                        value.substr(5) >= "01" && value.substr(5) <= "12");
  if (value.size() < 4 || !digits(year) || !month_ok) {
    fail(error, std::string(name) + ": " + quoted(value) + " is not a year (YYYY) or a month (YYYY-MM)");
    return std::nullopt;
  }
  return (year[0] - '0') * 1000 + (year[1] - '0') * 100 + (year[2] - '0') * 10 + (year[3] - '0');
}

std::optional<std::string> parse_choice(std::string_view name, std::string_view value,
                                        std::initializer_list<std::string_view> allowed, ParamError* error) {
  if (value.empty()) return std::string(*allowed.begin());
  std::string list;
  for (std::string_view a : allowed) {
    if (a == value) return std::string(a);
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  fail(error, std::string(name) + ": " + quoted(value) + " is not one of " + list);
  return std::nullopt;
}

}  // namespace gb::serve
