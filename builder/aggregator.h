// In-memory aggregation of (position, move) counters for one build thread.
//
// Each parse thread owns one Aggregator (no locks). Games are added as the
// sequence of positions they pass through; counters are summed in two flat
// hash tables (nodes by key, edges by key+move). When the tables outgrow the
// memory budget they are sorted and written to a run file ("spill"); at the
// end the in-memory tables become the last, sorted, in-memory run. The
// RunMerger (run_merger.h) merges all runs of all threads in key order.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "book/store/records.h"

namespace gb::builder {

// A node or edge with its key, as held in tables and run files.
struct NodeEntry {
  Key key = 0;
  std::uint32_t last_game = 0;  // the game that last counted it (0: free slot)
  std::uint32_t pad = 0;
  store::NodeRecord record;
};
struct EdgeEntry {
  Key key = 0;
  std::uint16_t move = 0;
  std::uint16_t pad = 0;
  std::uint32_t last_game = 0;  // 0: free slot
  store::EdgeRecord record;
};

// One position of a game: its key, its full-position hash and the move
// played from it (Move() for the final position).
struct PlyRecord {
  Key key;
  std::uint64_t position_hash;
  Move move;
};

struct GameFacts {
  store::Result result = store::Result::Unknown;
  int white_elo = 0;  // 0: no rating
  int black_elo = 0;
  int year = 0;  // 0: unknown
  Color first_mover = Color::White;
  int first_ply = 0;  // the game ply of plies[0] (0 for the standard start)
};

// Which side's moves become edges (--color).
enum class Side : std::uint8_t { Both, White, Black };

// A sorted run: in memory (the last one) or a spill file.
struct Run {
  std::vector<NodeEntry> nodes;  // in-memory runs only
  std::vector<EdgeEntry> edges;
  std::string path;  // spill file: nodes then edges
  std::uint64_t node_count = 0;
  std::uint64_t edge_count = 0;
  int level = 0;  // spill files: how many merges made it (see Aggregator::compact_runs)
};

class Aggregator {
 public:
  // memory_budget: bytes the two tables may use before a spill; spill_dir:
  // where run files go (removed by the destructor).
  Aggregator(std::size_t memory_budget, std::string spill_dir, Side side);
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // plies[0..n) are the positions a game passed through (plies[n-1].move is
  // Move()). Counts each node and edge once for the game, every occurrence
  // in the Polyglot counts. Returns false if a spill failed (see error()).
  [[nodiscard]] bool add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n);

  // Sorts what is in memory into a final run; after this only runs() is valid.
  [[nodiscard]] bool finish();
  const std::vector<Run>& runs() const { return runs_; }
  std::uint64_t collisions() const { return collisions_; }
  const std::string& error() const { return error_; }
  std::size_t spills() const { return spill_count_; }

 private:
  NodeEntry* find_node(Key key);
  EdgeEntry* find_edge(Key key, std::uint16_t move);
  void grow_nodes(std::size_t homes);  // rebuilds the table with this many home slots (or more)
  void grow_edges(std::size_t homes);
  bool over_budget() const;
  bool spill();
  bool compact_runs();
  std::string next_run_path();
  void take_sorted(std::vector<NodeEntry>& nodes, std::vector<EdgeEntry>& edges);

  std::vector<NodeEntry> nodes_;
  std::vector<EdgeEntry> edges_;
  std::size_t node_homes_, edge_homes_;  // home slots of the tables (they hold a slack more)
  std::size_t node_count_ = 0, edge_count_ = 0;
  std::size_t budget_;
  std::string spill_dir_;
  Side side_;
  std::uint32_t game_id_ = 0;
  std::uint64_t collisions_ = 0;
  std::size_t spill_count_ = 0;
  std::size_t run_serial_ = 0;  // names the run files
  std::vector<Run> runs_;
  std::string error_;
};

}  // namespace gb::builder
