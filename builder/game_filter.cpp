#include "builder/game_filter.h"

#include <cctype>
#include <charconv>

#include "book/cql/tag_match.h"
#include "book/store/buckets.h"

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
  return store::parse_date_bound(text, upper);
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
