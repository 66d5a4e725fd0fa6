#include "book/cql/ast.h"

#include <sstream>

#include "book/chess/notation.h"
#include "book/cql/book_stats.h"

namespace gb::cql {

std::string_view to_string(Type t) {
  switch (t) {
    case Type::Boolean: return "Boolean";
    case Type::Numeric: return "Numeric";
    case Type::String: return "String";
    case Type::Set: return "Set";
    case Type::Position: return "Position";
    case Type::Piece: return "Piece";
    case Type::Dictionary: return "Dictionary";
    case Type::None: return "None";
  }
  return "?";
}

NodePtr make_node(Op op, Type type) { return std::make_unique<Node>(op, type); }

NodePtr Node::clone() const {
  auto n = std::make_unique<Node>(op, type);
  n->line = line;
  n->column = column;
  n->number = number;
  n->text = text;
  n->piece_mask = piece_mask;
  n->squares = squares;
  n->directions = directions;
  n->parenthesized = parenthesized;
  n->compare = compare;
  n->assign = assign;
  n->range = range;
  n->color_constant = color_constant;
  n->negated = negated;
  n->slice_start = slice_start;
  n->slice_end = slice_end;
  n->iterate_all = iterate_all;
  n->quiet = quiet;
  n->transform_count = transform_count;
  n->no_transform = no_transform;
  n->dictionary = dictionary;
  n->move = move;
  n->pin = pin;
  n->find = find;
  n->echo = echo;
  n->line_spec = line_spec;
  n->fen_pattern = fen_pattern;
  n->nfa = nfa;
  n->args.reserve(args.size());
  for (const auto& a : args) n->args.push_back(a->clone());
  return n;
}

namespace {

const char* op_name(Op op) {
  switch (op) {
    case Op::True: return "true";
    case Op::False: return "false";
    case Op::Number: return "number";
    case Op::String: return "string";
    case Op::Designator: return "designator";
    case Op::Var: return "variable";
    case Op::PieceAsSet: return "piece-as-set";
    case Op::Assign: return "assign";
    case Op::Unbind: return "unbind";
    case Op::IsBound: return "isbound";
    case Op::Negate: return "negate";
    case Op::Not: return "not";
    case Op::Cardinality: return "#";
    case Op::Complement: return "~";
    case Op::Add: return "+";
    case Op::Concat: return "+(string)";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Mod: return "%";
    case Op::Union: return "|";
    case Op::Intersect: return "&";
    case Op::PositionIntersect: return "&(positions)";
    case Op::InSet: return "in";
    case Op::InString: return "in(string)";
    case Op::Compare: return "compare";
    case Op::NotEqual: return "!=";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Block: return "{}";
    case Op::WithPosition: return ":";
    case Op::Slice: return "slice";
    case Op::Index: return "index";
    case Op::Attacks: return "attacks";
    case Op::AttackedBy: return "attackedby";
    case Op::Check: return "check";
    case Op::Mate: return "mate";
    case Op::Stalemate: return "stalemate";
    case Op::Wtm: return "wtm";
    case Op::Btm: return "btm";
    case Op::SideToMove: return "sidetomove";
    case Op::Power: return "power";
    case Op::ColorType: return "colortype";
    case Op::PieceType: return "type";
    case Op::File: return "file";
    case Op::Rank: return "rank";
    case Op::MakeSquare: return "makesquare";
    case Op::MakeSquareString: return "makesquare(string)";
    case Op::Light: return "light";
    case Op::Dark: return "dark";
    case Op::Direction: return "direction";
    case Op::Between: return "between";
    case Op::Ray: return "ray";
    case Op::Xray: return "xray";
    case Op::Pin: return "pin";
    case Op::ConnectedPawns: return "connectedpawns";
    case Op::IsolatedPawns: return "isolatedpawns";
    case Op::DoubledPawns: return "doubledpawns";
    case Op::PassedPawns: return "passedpawns";
    case Op::PromotedPieces: return "promotedpieces";
    case Op::FenMatch: return "fen";
    case Op::CurrentFen: return "currentfen";
    case Op::StandardFen: return "standardfen";
    case Op::ZobristKey: return "zobristkey";
    case Op::HalfmoveClock: return "halfmoveclock";
    case Op::MoveNumber: return "movenumber";
    case Op::Ply: return "ply";
    case Op::Move: return "move";
    case Op::LegalPosition: return "legalposition";
    case Op::If: return "if";
    case Op::While: return "while";
    case Op::Loop: return "loop";
    case Op::SquareIter: return "square";
    case Op::PieceIter: return "piece";
    case Op::PieceAssign: return "piece=";
    case Op::PieceId: return "pieceid";
    case Op::Str: return "str";
    case Op::Comment: return "comment";
    case Op::Message: return "message";
    case Op::Assert: return "assert";
    case Op::Abs: return "abs";
    case Op::Sqrt: return "sqrt";
    case Op::Max: return "max";
    case Op::Min: return "min";
    case Op::Int: return "int";
    case Op::Lowercase: return "lowercase";
    case Op::Uppercase: return "uppercase";
    case Op::IndexOf: return "indexof";
    case Op::Transform: return "transform";
    case Op::CurrentTransform: return "currenttransform";
    case Op::Result: return "result";
    case Op::TagValue: return "tag-value";
    case Op::TagContains: return "tag-contains";
    case Op::Year: return "year";
    case Op::Elo: return "elo";
    case Op::Tag: return "tag";
    case Op::SetTag: return "settag";
    case Op::RemoveTag: return "removetag";
    case Op::GameNumber: return "gamenumber";
    case Op::Initial: return "initial";
    case Op::Terminal: return "terminal";
    case Op::Parent: return "parent";
    case Op::Child: return "child";
    case Op::Mainline: return "mainline";
    case Op::Variation: return "variation";
    case Op::Depth: return "depth";
    case Op::PositionById: return "position";
    case Op::PositionId: return "positionid";
    case Op::CurrentPosition: return "currentposition";
    case Op::InitialPosition: return "initialposition";
    case Op::Find: return "find";
    case Op::Sort: return "sort";
    case Op::Distance: return "distance";
    case Op::Lca: return "lca";
    case Op::Echo: return "echo";
    case Op::VirtualMainline: return "virtualmainline";
    case Op::OriginalComment: return "originalcomment";
    case Op::HasAnnotation: return "originalcomment(annotation)";
    case Op::RemoveComment: return "removecomment";
    case Op::Line: return "line";
    case Op::RegexMatch: return "~~";
    case Op::RegexGroup: return "group";
    case Op::RegexGroupIndex: return "group-index";
    case Op::Replace: return "replace";
    case Op::Imagine: return "imagine";
    case Op::DictGet: return "dictionary[]";
    case Op::DictAssign: return "dictionary[]=";
    case Op::DictUnbind: return "unbind dictionary";
    case Op::DictSize: return "#dictionary";
    case Op::DictIter: return "key";
    case Op::ConsecutiveMoves: return "consecutivemoves";
    case Op::Ascii: return "ascii";
    case Op::BookNodeStat: return "booknode";
    case Op::BookMoveStat: return "bookmove";
  }
  return "?";
}

std::string squares_text(Bitboard b) {
  if (b == ~Bitboard(0)) return ".";
  std::string s = "[";
  bool first = true;
  for (int sq = 0; sq < 64; ++sq)
    if (b >> sq & 1) {
      if (!first) s += ",";
      first = false;
      s += square_name(Square(sq));
    }
  return s + "]";
}

void print(const Node& n, int indent, std::ostringstream& out) {
  out << std::string(indent * 2, ' ') << op_name(n.op);
  switch (n.op) {
    case Op::Number:
    case Op::Elo: out << ' ' << n.number; break;
    case Op::Result: out << ' ' << n.text; break;
    case Op::String:
    case Op::Tag:
    case Op::TagValue:
    case Op::TagContains:
    case Op::CurrentTransform:
      out << " \""
          << (n.op == Op::TagValue || n.op == Op::TagContains ? (n.number == 1    ? "White"
                                                                 : n.number == -1 ? "Black"
                                                                                  : n.text)
                                                              : n.text)
          << '"';
      break;
    case Op::Designator: {
      out << ' ';
      if (n.piece_mask) {
        static const char letters[] = "_PNBRQK??pnbrqk";
        out << '[';
        for (int b = 0; b < 15; ++b)
          if (n.piece_mask >> b & 1) out << letters[b];
        out << ']';
      }
      out << squares_text(n.squares);
      break;
    }
    case Op::BookNodeStat:
    case Op::BookMoveStat: out << ' ' << book_stat_name(n.op, BookStat(n.number)); break;
    case Op::Var: out << " #" << n.number << (n.text.empty() ? "" : " " + n.text); break;
    case Op::Direction:
    case Op::Ray: {
      static const char* names[] = {"up",        "down",      "left",      "right",
                                    "northeast", "northwest", "southeast", "southwest"};
      for (int d = 0; d < 8; ++d)
        if (n.directions >> d & 1) out << ' ' << names[d];
      if (n.op == Op::Direction) out << " range " << n.range.lo << ".." << n.range.hi;
      break;
    }
    case Op::Compare: {
      static const char* names[] = {"==", "<", "<=", ">", ">="};
      out << ' ' << names[int(n.compare)];
      break;
    }
    case Op::Line:
      out << (n.line_spec.backward ? " <--" : " -->") << " (" << n.nfa.size() / 3 << " states)";
      break;
    case Op::Transform:
      out << (n.transform_count ? " count" : "") << " (" << n.args.size() << " variants)";
      break;
    case Op::Move: {
      static const char* modes[] = {"", " previous", " legal", " pseudolegal"};
      static const char* results[] = {"", " from", " to", " capture", " count"};
      out << modes[int(n.move.mode)] << (n.move.reverse ? " reverse" : "") << " result"
          << results[int(n.move.result)];
      break;
    }
    default: break;
  }
  out << " : " << to_string(n.type) << '\n';
  for (const auto& a : n.args) print(*a, indent + 1, out);
}

void fingerprint_into(const Node& n, std::string& out) {
  auto raw = [&](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  raw(n.op);
  raw(n.type);
  raw(n.number);
  raw(n.piece_mask);
  raw(n.squares);
  raw(n.directions);
  raw(n.compare);
  raw(n.assign);
  raw(n.range.present);
  raw(n.range.lo);
  raw(n.range.hi);
  raw(n.color_constant);
  raw(n.negated);
  raw(n.slice_start);
  raw(n.slice_end);
  raw(n.iterate_all);
  raw(n.quiet);
  raw(n.transform_count);
  raw(n.no_transform);
  raw(n.dictionary);
  raw(n.pin.from);
  raw(n.pin.through);
  raw(n.pin.to);
  raw(n.find.all);
  raw(n.find.backward);
  raw(n.echo.source);
  raw(n.echo.target);
  raw(n.echo.in_all);
  raw(n.line_spec.flags);
  raw(n.line_spec.backward);
  raw(n.line_spec.last_position);
  raw(n.line_spec.focus);
  raw(n.line_spec.maximize);
  raw(n.line_spec.piecepath);
  const MoveSpec& m = n.move;
  raw(m.mode);
  raw(m.result);
  raw(m.promote);
  raw(m.adopted);
  raw(m.speculative);
  out += std::to_string(n.text.size()) + ":" + n.text;
  for (auto f : n.fen_pattern) raw(f);
  for (auto f : n.nfa) raw(f);
  out += "(";
  for (const auto& a : n.args) fingerprint_into(*a, out);
  out += ")";
}

}  // namespace

std::string fingerprint(const Node& n) {
  std::string out;
  fingerprint_into(n, out);
  return out;
}

std::size_t node_count(const Node& n) {
  std::size_t count = 1;
  for (const auto& a : n.args) count += node_count(*a);
  return count;
}

std::string print_tree(const Node& root) {
  std::ostringstream out;
  print(root, 0, out);
  return out.str();
}

}  // namespace gb::cql
