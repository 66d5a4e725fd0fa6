// Matching a game against the stored games of a book: the longest run of
// positions the two share one ply after another (the specification "The
// Longest Run").
//
// Every key the submitted game reaches is looked up in the game index; each
// row found pairs a submitted ply with a stored game's ply. Along a run the
// stored ply less the submitted ply stays the same, so the pairs are grouped
// by stored game and by that difference, and a group is split wherever the
// submitted plies stop following one another. The longest run wins; ties go
// to the run starting earliest in the submitted game, then to the stored game
// the index holds first (the lower game id).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "book/store/game_index.h"

namespace gb::match {

struct MatchRun {
  std::uint32_t game = 0;       // stored game id (index order)
  int length = 0;               // positions in the run
  int submitted_start_ply = 0;  // the run's first position in each game (0 = start position)
  int stored_start_ply = 0;
  Move parting_move;  // the stored game's move from the run's last position; Move() where it ended

  int submitted_end_ply() const { return submitted_start_ply + length - 1; }
  int stored_end_ply() const { return stored_start_ply + length - 1; }
  bool operator==(const MatchRun&) const = default;
};

// True when a ranks before b: longer, then earlier in the submitted game, then
// earlier in the index (then earlier in the stored game).
bool ranks_before(const MatchRun& a, const MatchRun& b);

// Finds, for every stored game sharing a position with the submitted game,
// its best run. Feed the rows of the submitted positions ply by ply; the
// finder keeps its memory between games (clear() reuses it).
class RunFinder {
 public:
  // The index rows of the submitted game's position at `ply`. Call with ply
  // 0, 1, 2, ... in order (a ply with no rows is given as an empty span).
  // Rows in index order (game, then ply) are taken as they are, others are
  // sorted first.
  void add_ply(int ply, std::span<const store::IndexRow> rows);
  // The best run of each of the `top` best stored games, best first; all of
  // them when top is 0. Ends the game: call clear() before the next one.
  std::vector<MatchRun> best(std::size_t top);
  void clear();

 private:
  struct Active {  // a run still open at the previous ply
    std::uint32_t game;
    int stored_ply;  // the stored ply at the previous submitted ply
    int submitted_start, stored_start, length;
    Move move;  // the stored game's move from its last position
  };
  void close(const Active& a);

  int ply_ = -1;
  std::vector<Active> active_, next_;
  std::vector<store::IndexRow> sorted_;
  std::vector<MatchRun> best_by_game_;  // indexed by game id; length 0 = none
  std::vector<std::uint32_t> touched_;  // games with a run
};

// The pure form: rows_by_ply[i] holds the rows of the submitted position at
// ply i.
std::vector<MatchRun> longest_runs(std::span<const std::vector<store::IndexRow>> rows_by_ply,
                                   std::size_t top);

// Looks up every key of the submitted game (keys[i] = its position at ply i)
// in the index and returns the best `top` runs. rows is scratch memory.
[[nodiscard]] store::Status match_keys(store::GameIndexReader& index, std::span<const Key> keys,
                                       std::size_t top, RunFinder& finder, std::vector<store::IndexRow>& rows,
                                       std::vector<MatchRun>& out);

}  // namespace gb::match
