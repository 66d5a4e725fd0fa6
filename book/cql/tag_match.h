// How CQL's tag filters match a string: `player "NAME"`, `player white
// "NAME"`, `event "X"`, `site "X"` ... are true when the tag's value contains
// it, case-sensitive (CQLi 1.0.8). `graphbook cql --player` injects `player`,
// and `graphbook build --player` selects games by the same rule.
#pragma once

#include <string_view>

namespace gb::cql {

inline bool tag_contains(std::string_view tag_value, std::string_view text) {
  return tag_value.find(text) != std::string_view::npos;
}

}  // namespace gb::cql
