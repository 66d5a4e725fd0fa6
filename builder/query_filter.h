// build --filter QUERY: a visitor between the PGN reader and a part's
// BuildVisitor that reads each game also as CQL's game tree, runs the query
// over it as `graphbook cql` would (the mainline, or the variations too when
// the query's header says so), and takes back from the build a game it
// accepted that the query did not match. Only built when --filter is given:
// a build without it reads no game tree.
#pragma once

#include <cstdint>

#include "book/cql/evaluator.h"
#include "book/cql/game_reader.h"
#include "builder/build_visitor.h"

namespace gb::builder {

class QueryFilterVisitor : public pgn::VisitorBase {
 public:
  // The program must outlive the visitor; one visitor per thread.
  QueryFilterVisitor(const cql::Program& program, BuildVisitor& build);

  void begin_game(const pgn::GameLocation& location);
  void tag(std::string_view name, std::string_view value);
  pgn::Control begin_movetext(const Position& start);
  pgn::Control move(const pgn::MoveEvent& e);
  void comment(std::string_view text) { tree_.comment(text); }
  void nag(int n) { tree_.nag(n); }
  pgn::Control begin_variation() { return tree_.begin_variation(); }
  void end_variation() { tree_.end_variation(); }
  void outcome(pgn::Outcome o) {
    build_.outcome(o);
    tree_.outcome(o);
  }
  void end_game(const pgn::GameEnd& end);

 private:
  BuildVisitor& build_;
  cql::Evaluator evaluator_;
  cql::EvalOptions eval_;
  cql::GameTreeVisitor tree_;
  bool matched_ = false;
  bool build_reads_moves_ = true;  // the build still wants this game's mainline moves
};

}  // namespace gb::builder
