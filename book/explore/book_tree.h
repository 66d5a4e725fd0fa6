// `graphbook tree`: the graph below a position, pruned by games, as text,
// JSON, Graphviz DOT or SVG (through graphviz's `dot`). Nodes are positions,
// so lines that transpose meet at one node: an edge into a node that was
// already reached another way is a transposition.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "book/explore/book_reader.h"
#include "book/explore/explore_error.h"
#include "book/explore/opening_names.h"
#include "book/explore/position_arg.h"
#include "book/store/buckets.h"

namespace gb::explore {

struct TreeOptions {
  int depth = 3;                // plies below the root
  std::uint32_t min_games = 1;  // edges with fewer games are left out (not those of an imported .bin:
                                // they have a weight and no games; weight 0 is left out)
  std::size_t max_nodes = 400;  // stop adding positions beyond this (truncated is set)
  // Only the games of these buckets (--ratings, ...; book/explore/bucket_view.h):
  // every node's and edge's counters the selected sums, the edges no selected
  // game played left out, min_games applied to the selected games. The reader's
  // book must have buckets (store::filter_refusal). nullptr: the totals.
  const store::BucketFilter* filter = nullptr;
};

struct TreeNode {
  Key key;
  Position position;
  int depth;                               // plies from the root, by the shortest line found
  std::string label;                       // the move that first reached it, "2. Nf3" ("start" for the root)
  store::Counters counters;                // the node's totals (zero if the book has no node record)
  const OpeningName* opening = nullptr;    // exact name of this position
  const OpeningName* inherited = nullptr;  // nearest named ancestor along the first line found
  std::optional<store::Evaluation> eval;   // `graphbook analyse`'s, of the side to move
};

struct TreeEdge {
  std::size_t from, to;  // node indexes
  Move move;
  std::string san, uci;
  store::Counters counters;
  bool transposition;                            // `to` had already been reached by another line
  std::optional<std::uint32_t> imported_weight;  // a move without games: the imported .bin's weight
};

struct BookTree {
  std::vector<TreeNode> nodes;  // nodes[0] is the root, breadth first
  std::vector<TreeEdge> edges;
  bool truncated = false;  // max_nodes was reached
};

[[nodiscard]] std::optional<BookTree> build_tree(BookReader& reader, const ResolvedPosition& root,
                                                 const TreeOptions& options, const OpeningTable* table,
                                                 store::Error* error);

std::string tree_text(const BookTree& tree);
nlohmann::json tree_json(const BookTree& tree);
std::string tree_dot(const BookTree& tree);

// Runs graphviz's dot on the DOT text; nullopt and an ExploreError::Code::Render
// when dot is missing or fails. error may be nullptr.
[[nodiscard]] std::optional<std::string> render_svg(const std::string& dot, ExploreError* error);

}  // namespace gb::explore
