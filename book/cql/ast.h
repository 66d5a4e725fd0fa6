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

// A range of a filter (find, line, consecutivemoves, a direction filter, the
// count of a transform): lo..hi inclusive, when present.
struct RangeSpec {
  bool present = false;
  std::int64_t lo = 0, hi = 0;
  bool contains(std::int64_t v) const { return lo <= v && v <= hi; }
};

// pin: the child index of each Set parameter, -1 when absent.
struct PinSpec {
  int from = -1, through = -1, to = -1;
};

// find: all (count the matches) and <-- (search the ancestors); its range is Node::range.
struct FindSpec {
  bool all = false, backward = false;
};

// echo (source target): the two Position variables' slots; in all visits the current position too.
struct EchoSpec {
  int source = -1, target = -1;
  bool in_all = false;
};

// line: the parameters (LineFlag bits), the direction, lastposition (yield
// the end of the match), focus, max and piecepath; its length range is Node::range.
struct LineSpec {
  std::int64_t flags = 0;
  bool backward = false;
  bool last_position = false;
  int focus = -1;      // child index of focus's filter: only positions matching it take part
  int maximize = -1;   // child index of max's Numeric filter: the sequence maximising it at its end wins
  int piecepath = -1;  // child index of piecepath's Set filter: the pieces whose paths are commented
};

// The automaton of a line filter: kind Filter tests args[a] at the position
// and goes on to state b at the next position; Split goes to a and b without
// consuming; Accept ends a match. State 0 is the start.
enum class LineState : std::int32_t { Filter, Split, Accept };
// LineSpec::flags bits of a line filter's parameters.
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
  // One number whose meaning the op gives: a literal's value; a variable's
  // slot (Var, Assign, Unbind, IsBound, the iterations, the dictionary
  // filters); a sort key's index; a NAG; a regex group; the colour of
  // elo/player (1 White, -1 Black, 2 both, 0 none); a BookStat.
  std::int64_t number = 0;
  std::string text;              // strings, tag names, descriptions
  std::uint16_t piece_mask = 0;  // designators
  Bitboard squares = 0;          // designators, fen patterns
  std::uint8_t directions = 0;   // direction filters, ray
  bool parenthesized = false;
  // The payloads of op families; an op reads only its own.
  CompareOp compare = CompareOp::Eq;  // Compare
  AssignOp assign = AssignOp::Set;    // Assign, DictAssign
  RangeSpec range;                    // Find, Line, ConsecutiveMoves, Direction, Transform
  bool color_constant = false;        // Number: the constants white and black (colour transforms negate them)
  bool negated = false;               // IsBound: isunbound
  bool slice_start = false, slice_end = false;  // Slice, Index: which bounds are given (args 1, 2)
  bool iterate_all = false;                     // SquareIter, PieceIter: square all, piece all
  bool quiet = false;                           // Message: message quiet
  bool transform_count = false;                 // Transform: count
  bool no_transform = false;                    // Block: notransform
  int dictionary = -1;                          // DictIter: the dictionary's slot (number: the key variable)
  MoveSpec move;
  PinSpec pin;
  FindSpec find;
  EchoSpec echo;
  LineSpec line_spec;
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

// The nodes of the tree at n, n included.
std::size_t node_count(const Node& n);

// A readable tree, one filter per line, indented; what --parse prints.
std::string print_tree(const Node& root);

}  // namespace gb::cql
