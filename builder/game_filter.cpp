#include "builder/game_filter.h"

#include <cctype>
#include <charconv>

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
  if (text.size() < 4) return std::nullopt;
  auto year = number(text.substr(0, 4));
  if (!year) return std::nullopt;
  int month = upper ? 99 : 0, day = upper ? 99 : 0;
  if (text.size() >= 7) {
    auto m = number(text.substr(5, 2));
    if (!m) return std::nullopt;
    month = *m;
  }
  if (text.size() >= 10) {
    auto d = number(text.substr(8, 2));
    if (!d) return std::nullopt;
    day = *d;
  }
  return *year * 10000 + month * 100 + day;
}

int parse_elo(std::string_view value) {
  auto v = number(value);
  return v && *v > 0 ? *v : 0;
}

}  // namespace gb::builder
