#include "book/cql/evaluator.h"

#include "book/cql/evaluator_impl.h"

namespace gb::cql {

std::string portray(const Value& v, const Game* game) {
  switch (v.kind) {
    case Value::Kind::None: return "";
    case Value::Kind::Boolean: return v.number ? "true" : "false";
    case Value::Kind::Numeric: return std::to_string(v.number);
    case Value::Kind::String: return v.text;
    case Value::Kind::Set: {
      if (v.set && !more_than_one(v.set)) return square_name(lsb(v.set));
      std::string s = "[";
      for (Bitboard b = v.set; b;) {
        s += square_name(pop_lsb(b));
        if (b) s += ",";
      }
      return s + "]";
    }
    case Value::Kind::Position: {
      if (!game) return "position " + std::to_string(v.number);
      const GameNode& n = game->nodes[std::size_t(v.number)];
      std::string s = "move " + std::to_string(n.position.fullmove_number()) +
                      (n.position.side_to_move() == Color::White ? "(wtm)" : "(btm)");
      if (n.depth > 0) s += "[" + std::to_string(v.number) + "]";
      return s;
    }
    case Value::Kind::Piece: return "piece " + std::to_string(v.number);
  }
  return "";
}

Value Evaluator::Impl::dispatch(const Node& n) {
  switch (n.op) {
    // literals, variables, operators, dictionaries
    case Op::True:
    case Op::False:
    case Op::Number:
    case Op::String:
    case Op::Designator:
    case Op::Var:
    case Op::PieceAsSet:
    case Op::Assign:
    case Op::Unbind:
    case Op::IsBound:
    case Op::Negate:
    case Op::Not:
    case Op::Cardinality:
    case Op::Complement:
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Mod:
    case Op::Concat:
    case Op::Union:
    case Op::Intersect:
    case Op::PositionIntersect:
    case Op::InSet:
    case Op::InString:
    case Op::Compare:
    case Op::NotEqual:
    case Op::And:
    case Op::Or:
    case Op::Block:
    case Op::WithPosition:
    case Op::Slice:
    case Op::Index:
    case Op::DictGet:
    case Op::DictAssign:
    case Op::DictUnbind:
    case Op::DictSize:
    case Op::DictIter: return eval_value(n);
    // the board
    case Op::Attacks:
    case Op::AttackedBy:
    case Op::Check:
    case Op::Mate:
    case Op::Stalemate:
    case Op::Wtm:
    case Op::Btm:
    case Op::SideToMove:
    case Op::Power:
    case Op::ColorType:
    case Op::PieceType:
    case Op::File:
    case Op::Rank:
    case Op::MakeSquare:
    case Op::MakeSquareString:
    case Op::Light:
    case Op::Dark:
    case Op::Direction:
    case Op::Between:
    case Op::Ray:
    case Op::Xray:
    case Op::Pin:
    case Op::ConnectedPawns:
    case Op::IsolatedPawns:
    case Op::DoubledPawns:
    case Op::PassedPawns:
    case Op::PromotedPieces:
    case Op::FenMatch:
    case Op::CurrentFen:
    case Op::StandardFen:
    case Op::ZobristKey:
    case Op::HalfmoveClock:
    case Op::MoveNumber:
    case Op::Ply:
    case Op::Move:
    case Op::LegalPosition: return eval_board(n);
    // control flow, strings, transforms
    case Op::If:
    case Op::While:
    case Op::Loop:
    case Op::SquareIter:
    case Op::PieceIter:
    case Op::PieceAssign:
    case Op::PieceId:
    case Op::Str:
    case Op::Comment:
    case Op::Message:
    case Op::Assert:
    case Op::Abs:
    case Op::Sqrt:
    case Op::Max:
    case Op::Min:
    case Op::Int:
    case Op::Lowercase:
    case Op::Uppercase:
    case Op::IndexOf:
    case Op::Transform:
    case Op::CurrentTransform:
    case Op::Ascii:
    case Op::RegexMatch:
    case Op::RegexGroup:
    case Op::RegexGroupIndex:
    case Op::Replace: return eval_control(n);
    // tags, result, book statistics
    case Op::Result:
    case Op::TagValue:
    case Op::TagContains:
    case Op::Year:
    case Op::Elo:
    case Op::Tag:
    case Op::SetTag:
    case Op::RemoveTag:
    case Op::GameNumber:
    case Op::BookNodeStat:
    case Op::BookMoveStat: return eval_metadata(n);
    // the game tree
    case Op::Initial:
    case Op::Terminal:
    case Op::Parent:
    case Op::Child:
    case Op::Mainline:
    case Op::Variation:
    case Op::Depth:
    case Op::PositionById:
    case Op::PositionId:
    case Op::CurrentPosition:
    case Op::InitialPosition:
    case Op::Find:
    case Op::Sort:
    case Op::ConsecutiveMoves:
    case Op::Imagine:
    case Op::Echo:
    case Op::VirtualMainline:
    case Op::OriginalComment:
    case Op::HasAnnotation:
    case Op::RemoveComment:
    case Op::Distance:
    case Op::Lca: return eval_game_tree(n);
    // line
    case Op::Line: return eval_line(n);
  }
  return Value::none();
}

Evaluator::Evaluator(const Program& program) : impl_(std::make_shared<Impl>(program)) {}

GameResult Evaluator::run(const Game& game, const EvalOptions& options) {
  Impl& e = *impl_;
  GameResult result;
  e.begin_game(game, options, result);
  for (int id = 0; id < int(game.nodes.size()); ++id) {
    if (!e.visible(id)) continue;
    e.node = id;
    e.pos = &game.nodes[std::size_t(id)].position;
    e.imaginary = false;
    if (e.matches(*e.program.root)) result.matched_positions.push_back(id);
    if (result.assert_failure) break;
  }
  if (result.matched())
    for (auto& list : e.sort_comments)
      for (auto& c : list) result.comments.push_back(std::move(c));
  e.sort_comments.clear();
  e.out = nullptr;
  return result;
}

GameResult Evaluator::run_at(const Game& game, int position_id, const EvalOptions& options) {
  assert(position_id >= 0 && position_id < int(game.nodes.size()));
  Impl& e = *impl_;
  GameResult result;
  e.begin_game(game, options, result);
  e.node = position_id;
  e.pos = &game.nodes[std::size_t(position_id)].position;
  e.imaginary = false;
  if (e.matches(*e.program.root)) {
    result.matched_positions.push_back(position_id);
    for (auto& list : e.sort_comments)
      for (auto& c : list) result.comments.push_back(std::move(c));
  }
  e.sort_comments.clear();
  e.out = nullptr;
  return result;
}

std::vector<std::string> Evaluator::persistent_values() const {
  std::vector<std::string> out;
  if (!impl_->started) return out;  // no game run yet: vars is still empty
  const auto& info = impl_->program.variables;
  for (std::size_t i = 0; i < info.size(); ++i)
    if (info[i].persistent && !info[i].quiet)
      out.push_back(info[i].name + " = " + portray(impl_->vars[i], nullptr));
  return out;
}

Value Evaluator::evaluate_at(const Game& game, int position_id, const EvalOptions& options) {
  Impl& e = *impl_;
  GameResult scratch;
  e.started = false;  // no persistent variable carries over
  e.begin_game(game, options, scratch);
  e.node = position_id;
  e.pos = &game.nodes[std::size_t(position_id)].position;
  e.imaginary = false;
  // Each top-level filter in turn; the last one's value, None if an earlier one fails.
  Value v;
  const auto& filters = e.program.root->args;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    v = e.eval(*filters[i]);
    if (i + 1 < filters.size() && !v.matches()) {
      v = Value::none();
      break;
    }
  }
  e.out = nullptr;
  return v;
}

}  // namespace gb::cql
