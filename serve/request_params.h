// The query parameters of the explorer API, parsed without the server: the
// position (`fen` and/or `play`), bounded numbers (`moves`, `topGames`,
// `depth`, ...) and years (`since`, `until`). Pure functions over strings, so
// that the fuzz target (fuzz/serve_params_fuzz.cpp) and the tests call them
// as the server does. A bad value comes back as a ParamError whose message
// names the parameter and says what is wrong; it is what a 400 answer says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "book/explore/position_arg.h"

namespace gb::serve {

struct ParamError {
  std::string message;  // "play: move 2 'e7e9' is not UCI (like e2e4 or e7e8q)"
};

// The longest `fen` or `play` value read; longer ones are refused, so that a
// request cannot make the server replay thousands of moves.
inline constexpr std::size_t kMaxFenLength = 120;
inline constexpr std::size_t kMaxPlayMoves = 600;

// The position of `fen` (lichess also accepts '_' for the spaces) and `play`
// (comma-separated UCI moves from it, or from the start when fen is empty),
// with the keys of the line for opening names. nullopt and error when the
// FEN does not parse or a move is not UCI or not legal.
[[nodiscard]] std::optional<explore::ResolvedPosition> parse_position(std::string_view fen,
                                                                      std::string_view play,
                                                                      ParamError* error);

// A whole number in [min, max] (decimal digits only, an optional leading '-');
// an empty value gives fallback. name is the parameter, for the message.
[[nodiscard]] std::optional<std::int64_t> parse_bounded(std::string_view name, std::string_view value,
                                                        std::int64_t min, std::int64_t max,
                                                        std::int64_t fallback, ParamError* error);

// A year "YYYY" or a month "YYYY-MM" (lichess's forms of since/until); the
// year is what the book keeps. Empty gives fallback.
[[nodiscard]] std::optional<int> parse_year(std::string_view name, std::string_view value, int fallback,
                                            ParamError* error);

// One of the words allowed (format=json|svg); empty gives the first.
[[nodiscard]] std::optional<std::string> parse_choice(std::string_view name, std::string_view value,
                                                      std::initializer_list<std::string_view> allowed,
                                                      ParamError* error);

}  // namespace gb::serve
