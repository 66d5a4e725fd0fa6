// Runs a CQL query at every node of a book graph: breadth-first from a start
// position, so that each node is evaluated once, with one shortest line from
// the start, however many move orders reach it (docs/QUERY.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "book/cql/evaluator.h"
#include "book/store/book.h"
#include "book/store/buckets.h"
#include "query/query_error.h"

namespace gb::query {

struct QueryOptions {
  int max_ply = 0;       // only nodes at most this many plies from the start of the game; 0: all
  int depth = -1;        // only nodes at most this many plies below the start; -1: all
  int window = 4;        // plies of book edges below a node that find and line --> see
  int start_ply = 0;     // the start position's ply in the game (the --from line's length)
  bool messages = true;  // print the output of message filters
  // The budget: the walk stops before visiting a node past max_nodes (0: no
  // limit), or at the first look at the clock (every kClockInterval nodes,
  // the first before the start position) on or after deadline.
  std::uint64_t max_nodes = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Only the games of these buckets (--ratings, ...): the book is walked as
  // BookSections::set_filter shows it. nullptr: the totals. The book must
  // have buckets (store::filter_refusal, checked by the caller).
  const store::BucketFilter* filter = nullptr;
};

// Nodes visited between two looks at the clock. A look costs far less than
// evaluating a query at a node (bench_query prints the nodes per second), but
// need not be made at every node: a walk stops within some milliseconds of
// its deadline, later for a query slow at each node.
inline constexpr std::uint64_t kClockInterval = 1024;

// Why a walk ended before it visited every node below its start.
enum class StopReason { None, NodeBudget, TimeBudget };

// "node budget", "time budget"; "" for None.
const char* stop_reason_name(StopReason reason);

struct NodeMatch {
  Key key = 0;
  std::uint32_t visit = 0;  // the node's index in the traversal (QueryRun::line)
  int ply = 0;              // plies from the start of the game along the shortest line
  store::NodeRecord record;
  std::vector<std::optional<cql::SortValue>> sort;  // per sort filter of the query
};

struct QueryRun {
  std::uint64_t nodes_visited = 0;
  std::vector<NodeMatch> matches;       // in traversal order
  std::vector<std::string> persistent;  // "name = value" of the query's persistent variables
  std::string fatal;                    // an assert that failed, or a storage error: the run stopped
  // The walk stopped at its budget: nodes_visited, matches and persistent
  // are those of the nodes visited before, the nearest the start (level by
  // level, each level in key order).
  StopReason stopped = StopReason::None;

  // The shortest line from the start to a visited node.
  std::vector<Move> line(std::uint32_t visit) const;

  struct Step {
    std::uint32_t parent;  // visit index of the node the line came from
    Move move;
  };
  std::vector<Step> steps;  // by visit index; steps[0] is the start
};

// Runs program over the graph below start. nullopt with error when the book
// cannot be read at all; a start not in the book visits nothing.
[[nodiscard]] std::optional<QueryRun> run_graph_query(store::Book& book, const cql::Program& program,
                                                      const Position& start, const QueryOptions& options,
                                                      std::FILE* messages, QueryError* error);

// Sorts matches by the query's sort filters (each maximised unless it says
// min; a node without a value last), else by games, most first; ties keep
// traversal order.
void sort_matches(const cql::Program& program, std::vector<NodeMatch>& matches);

}  // namespace gb::query
