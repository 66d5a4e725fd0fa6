// Writes a CQL game tree back as PGN: the tags (with the query's settag /
// removetag edits), the movetext with its variations, original comments and
// NAGs, and the comments CQL adds (header, match marks, sort values, comment
// filters), lines wrapped at 79 characters.
#pragma once

#include <string>

#include "book/cql/evaluator.h"
#include "book/cql/game.h"

namespace gb::cql {

struct WriteOptions {
  std::string match_string = "CQL";  // empty: no match comments
  bool header = true;                // "Game number N" at the initial position
  bool sort_comments = true;
  bool user_comments = true;       // comment filters
  bool auxiliary_comments = true;  // line's start/end comments
};

// The sort comments' text: "description: value" per key with a value.
std::string write_pgn(const Game& game, const GameResult& result, const Program& program,
                      const WriteOptions& options);

}  // namespace gb::cql
