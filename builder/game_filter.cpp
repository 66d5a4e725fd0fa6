#include "builder/game_filter.h"

#include <cctype>
#include <charconv>

#include "book/cql/tag_match.h"

namespace gb::builder {

namespace {

std::optional<int> number(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<int> parse_pgn_date(std::string_view value) {
  if (value.size() < 4) return std::nullopt;
  auto year = number(value.substr(0, 4));
  if (!year || *year <= 0) return std::nullopt;
  int month = 0, day = 0;
  if (value.size() >= 7) month = number(value.substr(5, 2)).value_or(0);
  if (value.size() >= 10) day = number(value.substr(8, 2)).value_or(0);
  return *year * 10000 + month * 100 + day;
}

std::optional<int> parse_date_bound(std::string_view text, bool upper) {
  if (text.size() != 4 && text.size() != 7 && text.size() != 10) return std::nullopt;
  for (std::size_t at : {std::size_t(4), std::size_t(7)})
    if (text.size() > at && text[at] != '.' && text[at] != '-') return std::nullopt;
  // from_chars alone would take a sign: every part must be digits only.
  auto digits = [&](std::size_t from, std::size_t n) -> std::optional<int> {
    for (char c : text.substr(from, n))
      if (c < '0' || c > '9') return std::nullopt;
    return number(text.substr(from, n));
  };
  auto year = digits(0, 4);
  if (!year || *year == 0) return std::nullopt;
  int month = upper ? 99 : 0, day = upper ? 99 : 0;
  if (text.size() >= 7) {
    auto m = digits(5, 2);
    if (!m || *m < 1 || *m > 12) return std::nullopt;
    month = *m;
  }
  if (text.size() == 10) {
    auto d = digits(8, 2);
    if (!d || *d < 1 || *d > 31) return std::nullopt;
    day = *d;
  }
  return *year * 10000 + month * 100 + day;
}

int parse_elo(std::string_view value) {
  auto v = number(value);
  return v && *v > 0 ? *v : 0;
}

std::optional<Side> player_side(std::string_view white, std::string_view black, std::string_view name,
                                Side side) {
  const bool as_white = side != Side::Black && cql::tag_contains(white, name);
  const bool as_black = side != Side::White && cql::tag_contains(black, name);
  if (as_white && as_black) return Side::Both;
  if (as_white) return Side::White;
  if (as_black) return Side::Black;
  return std::nullopt;
}

}  // namespace gb::builder
