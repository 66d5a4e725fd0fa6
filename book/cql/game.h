// A game as CQL sees it: the initial position and the tree of recorded moves
// (mainline and variations), each position numbered by its position ID in
// depth-first order with the primary move first, so that the subtree of a
// position is the ID range [id, id + subtree_size).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "book/chess/notation.h"
#include "book/chess/position.h"

namespace gb::cql {

struct GameNode {
  // Position() parses the start FEN: construct nodes from a position instead.
  explicit GameNode(const Position& p) : position(p) {}

  Position position;
  Move move;               // the move from the parent (Move() at the root and for a null move)
  bool null_move = false;  // the move from the parent was "--"
  int parent = -1;
  std::vector<int> children;  // primary first
  int subtree_size = 1;
  int depth = 0;                             // variation depth: secondary moves on the way from the root
  int ply = 0;                               // plies from the root
  std::array<std::uint8_t, 64> piece_ids{};  // piece identity on each square, 0 when empty
  Bitboard promoted = 0;                     // squares holding promoted pieces
  std::vector<std::string> comments_before;  // original comments written before the move
  std::vector<std::string> comments;         // original comments after the move (at this position)
  std::vector<int> nags;
};

struct Game {
  std::vector<std::pair<std::string, std::string>> tags;  // in file order
  std::vector<GameNode> nodes;                            // by position ID; nodes[0] is the initial position
  std::string result = "*";                               // the game termination token
  std::int64_t number = 0;                                // one-based index in the input

  const std::string* tag(std::string_view name) const;
};

// Why GameBuilder::add_san refused a move (docs/DESIGN.md, "Errors: one
// convention per layer"): the chess layer's MoveError for the SAN, or a null
// move ("--") played in check, which the chess layer has no word for.
struct SanError {
  std::string san;                  // the move as written
  std::optional<MoveError> reason;  // empty: a null move while in check
  std::string message() const;      // "illegal move 'Nf6'", "null move while in check"
};

// Builds a game tree while reading a game's movetext in order. Moves are SAN;
// the builder decodes them against the position they are played from.
class GameBuilder {
 public:
  // Starts a game from the FEN tag (empty: the standard position).
  // Returns the chess layer's FenError when the FEN is invalid (the tree is
  // unchanged); a caller says "invalid FEN tag: " + its message().
  [[nodiscard]] std::optional<FenError> begin(std::string_view fen);
  // Tags may come before begin(); reset() drops everything of a game.
  void add_tag(std::string name, std::string value);
  void reset();
  // Starts a game from a known position (the PGN reader's start position).
  void begin(const Position& start);
  // Plays m, which must be legal where the last move left off (Move() with
  // null_move for "--").
  void add_move(Move m, bool null_move);
  // Parses SAN first; an error (tree unchanged) when it is illegal or unreadable.
  [[nodiscard]] std::optional<SanError> add_san(std::string_view san);
  void add_comment(std::string text);
  void add_nag(int nag);
  // A variation: an alternative to the last move played.
  [[nodiscard]] bool begin_variation();
  void end_variation();
  void set_result(std::string_view result);
  // Renumbers the tree in depth-first order and hands the game over.
  Game finish(std::int64_t number);

 private:
  std::vector<GameNode> nodes_;
  std::vector<std::pair<std::string, std::string>> tags_;
  std::string result_ = "*";
  int current_ = 0;                          // the node the next move is played from
  std::vector<int> stack_;                   // current_ saved at each open variation
  std::vector<std::string> pending_before_;  // comments waiting for the next move
  bool after_move_ = false;                  // a comment now belongs to current_
};

// Adds one node for move m (legal in nodes[parent].position) to a tree that is
// being built in ID order; used by the builder and by tests.
int add_child(std::vector<GameNode>& nodes, int parent, Move m, bool null_move);

}  // namespace gb::cql
