// The parsed form of a CQL query: a tree of filters, each with its static
// type. Transforms are expanded while parsing (each variant is its own
// subtree), functions are inlined, so evaluation never looks at names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "book/chess/bitboard.h"

namespace gb::cql {

enum class Type : std::uint8_t { Boolean, Numeric, String, Set, Position, Piece, Dictionary, None };
std::string_view to_string(Type t);

enum class Op : std::uint16_t {
  // literals and variables
  True,
  False,
  Number,
  String,
  Designator,
  Var,
  PieceAsSet,
  Assign,
  Unbind,
  IsBound,
  // operators
  Negate,
  Not,
  Cardinality,
  Complement,
  Add,
  Concat,
  Sub,
  Mul,
  Div,
  Mod,
  Union,
  Intersect,
  PositionIntersect,
  InSet,
  InString,
  Compare,
  NotEqual,
  And,
  Or,
  Block,
  WithPosition,
  Slice,
  Index,
  // board
  Attacks,
  AttackedBy,
  Check,
  Mate,
  Stalemate,
  Wtm,
  Btm,
  SideToMove,
  Power,
  ColorType,
  PieceType,
  File,
  Rank,
  MakeSquare,
  MakeSquareString,
  Light,
  Dark,
  Direction,
  Between,
  Ray,
  Xray,
  Pin,
  ConnectedPawns,
  IsolatedPawns,
  DoubledPawns,
  PassedPawns,
  PromotedPieces,
  FenMatch,
  CurrentFen,
  StandardFen,
  ZobristKey,
  HalfmoveClock,
  MoveNumber,
  Ply,
  Move,
  LegalPosition,
  // control
  If,
  While,
  Loop,
  SquareIter,
  PieceIter,
  PieceAssign,
  PieceId,
  Str,
  Comment,
  Message,
  Assert,
  Abs,
  Sqrt,
  Max,
  Min,
  Int,
  Lowercase,
  Uppercase,
  IndexOf,
  Transform,
  CurrentTransform,
  // metadata
  Result,
  TagValue,
  TagContains,
  Year,
  Elo,
  Tag,
  SetTag,
  RemoveTag,
  GameNumber,
  // game tree
  Initial,
  Terminal,
  Parent,
  Child,
  Mainline,
  Variation,
  Depth,
  PositionById,
  PositionId,
  CurrentPosition,
  InitialPosition,
  Find,
  Sort,
  Distance,
  Lca,
  Echo,
  VirtualMainline,
  OriginalComment,
  HasAnnotation,
  RemoveComment,
  Line,
  RegexMatch,
  RegexGroup,
  RegexGroupIndex,
  Replace,
  Imagine,
  DictGet,
  DictAssign,
  DictUnbind,
  DictSize,
  DictIter,
  ConsecutiveMoves,
  Ascii,
  // book statistics (graphbook query): Node::number is a BookStat
  BookNodeStat,
  BookMoveStat,
};

// Which count of a book node (bookgames ...) or of the book move that led to
// the position (bookmovegames ...) a book statistics filter yields.
enum class BookStat : std::uint8_t {
  Games,
  White,
  Draws,
  Black,
  Score,  // per mille for the side to move (a node) or the side that moved (an edge)
  Elo,
  Moves,  // nodes only
  Ply,    // nodes only
  LearnedWins,
  LearnedDraws,
  LearnedLosses,
};

enum class CompareOp : std::uint8_t { Eq, Lt, Le, Gt, Ge };
enum class AssignOp : std::uint8_t { Set, SetIfNonEmpty, Add, Sub, Mul, Div, Mod, Or, And };

// The eight basic directions as (file, rank) steps, in this bit order.
enum Direction : std::uint8_t { Up, Down, Left, Right, NorthEast, NorthWest, SouthEast, SouthWest };
constexpr int kDirFile[8] = {0, 0, -1, 1, 1, -1, 1, -1};
constexpr int kDirRank[8] = {1, -1, 0, 0, 1, 1, -1, -1};

struct MoveSpec {
  enum class Mode : std::uint8_t { Played, Previous, Legal, Pseudolegal };
  enum class Result : std::uint8_t { Boolean, From, To, Capture, Count };
  Mode mode = Mode::Played;
  Result result = Result::Boolean;
  bool reverse = false;
  int from = -1, to = -1, capture = -1;  // child index of the Set argument, -1 when absent
  int speculative = -1;                  // child index of the ":" target
  int adopted = -1;                      // child index of a trailing comment/message, run after the move
  bool all = false;                      // speculative "all"
  std::uint16_t promote = 0;             // piece-kind mask of "promote" (0 = no constraint)
  bool enpassant = false, castle = false, castle_short = false, castle_long = false, null_move = false;
  bool primary = false, secondary = false;
};

// The automaton of a line filter: kind Filter tests args[a] at the position
// and goes on to state b at the next position; Split goes to a and b without
// consuming; Accept ends a match. State 0 is the start.
enum class LineState : std::int32_t { Filter, Split, Accept };
// Node::number bits of a line filter's parameters.
enum LineFlag : std::int64_t {
  kLineFirstMatch = 1,
  kLineNestBan = 2,
  kLineSingleColor = 4,
  kLinePrimary = 8,
  kLineSecondary = 16,
  kLineHasRange = 32,
  kLineQuiet = 64,
};

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
  Op op;
  Type type = Type::Boolean;
  int line = 0, column = 0;
  std::vector<NodePtr> args;
  std::int64_t number = 0;   // literals, var slot, compare op, sort index, flags
  std::int64_t number2 = 0;  // ranges, assign op, ...
  std::int64_t number3 = 0;
  std::string text;              // strings, tag names, descriptions
  std::uint16_t piece_mask = 0;  // designators
  Bitboard squares = 0;          // designators, fen patterns
  std::uint8_t directions = 0;   // direction filters, ray
  bool flag = false;             // op-specific (count, all, quiet, min, ...)
  bool flag2 = false;
  bool parenthesized = false;
  MoveSpec move;
  std::vector<std::uint16_t> fen_pattern;  // 64 piece masks for FenMatch
  std::vector<std::int32_t> nfa;           // Line: states as (kind, a, b) triples, see LineState;
                                           // Imagine: specifiers as (kind, a, b) triples

  Node(Op o, Type t) : op(o), type(t) {}
  NodePtr clone() const;
};

NodePtr make_node(Op op, Type type);

// A byte string that differs whenever two trees could evaluate differently
// (used to elide duplicate transformations).
std::string fingerprint(const Node& n);

// A readable tree, one filter per line, indented; what --parse prints.
std::string print_tree(const Node& root);

}  // namespace gb::cql
