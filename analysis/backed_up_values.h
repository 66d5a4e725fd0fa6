// Values backed up through the book's graph (docs/VALUES.md): for every
// position, a negamax over its moves with at least min_games games, from the
// positions where the book's lines end, mixed with the position's own value.
//
//   own(n)   the engine's evaluation of n as an expected score where analysed
//            (store::expected_score), else the score of n's games for the
//            side to move (unknown results as draws); none when n has neither
//   q(e)     = 1 - v(child) for a counted move e (its child has a value);
//            a move into a position already on the current path (a
//            repetition) counts as a draw, 1/2, one ply deep
//   v(n)     = own(n) when no move counts; else, with m = max q(e) and g the
//            games of the move that gives it (ties: more games, then the
//            lower move): (g*m + kOwnWeight*own(n)) / (g + kOwnWeight), or m
//            when n has no own value
//   depth(n) = 0 when no move counts, else 1 + the depth of the best move's child
//
// The graph is walked depth first from every position in the order (fewest
// plies from the start, key), each position valued once, when its walk ends;
// a position first met inside a cycle keeps the value it got with the
// repetition cut there.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "book/store/book.h"
#include "book/store/evaluation.h"

namespace gb::analysis {

inline constexpr double kOwnWeight = 4.0;  // a position's own value counts as this many games

struct ValuesSummary {
  std::size_t positions = 0;    // stored nodes read
  std::size_t valued = 0;       // with a value
  std::size_t analysed = 0;     // with an engine evaluation
  std::size_t repetitions = 0;  // moves into a position on the path, counted as draws
};

// Every position's value, read from the book's nodes, edges and evaluations.
[[nodiscard]] std::optional<std::unordered_map<Key, store::BackedUpValue>> back_up_values(
    store::Book& book, std::uint32_t min_games, ValuesSummary& summary, store::Error* error);

// Replaces the book's values with these in one write transaction, and records
// min_games in the meta record `values_params`.
[[nodiscard]] store::Status store_values(store::Book& book,
                                         const std::unordered_map<Key, store::BackedUpValue>& values,
                                         std::uint32_t min_games);

}  // namespace gb::analysis
