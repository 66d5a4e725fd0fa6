// What the CQL evaluator tests share: a game built from SAN moves, and a
// query parsed once and evaluated at one position (or over a whole game).
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "book/cql/evaluator.h"

namespace gb::cql::test {

// The game of these SAN moves from fen ("" the start position).
inline Game game_from(const std::vector<std::string>& sans, const std::string& fen = "") {
  GameBuilder b;
  REQUIRE_FALSE(b.begin(fen));
  for (const auto& s : sans) {
    INFO(s);
    REQUIRE_FALSE(b.add_san(s));
  }
  return b.finish(1);
}

struct Query {
  Program program;
  explicit Query(const std::string& text) {
    auto r = parse(text);
    if (auto* e = std::get_if<ParseError>(&r)) FAIL(e->render(text, "query"));
    program = std::move(std::get<Program>(r));
  }
  Value at(const Game& g, int id, const EvalOptions& options = {}) {
    Evaluator e(program);
    return e.evaluate_at(g, id, options);
  }
  std::string text_at(const Game& g, int id, const EvalOptions& options = {}) {
    return portray(at(g, id, options), &g);
  }
  // One whole game on a fresh evaluator.
  GameResult run(const Game& g) {
    Evaluator e(program);
    return e.run(g, {});
  }
};

inline Value value_at(const Game& g, int id, const std::string& q, const EvalOptions& options = {}) {
  INFO(q);
  return Query(q).at(g, id, options);
}
inline std::string eval_text(const Game& g, int id, const std::string& q) { return Query(q).text_at(g, id); }
inline bool matches(const Game& g, int id, const std::string& q) { return Query(q).at(g, id).matches(); }

}  // namespace gb::cql::test
