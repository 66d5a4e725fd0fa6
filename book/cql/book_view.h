// What a query over the book graph sees of the book: for a position of the
// game it is evaluated in, the node's counters and those of the edge that
// led to it. The CQL engine only reads it (the book statistics filters);
// `graphbook query` fills it from the LMDB book for the window of the graph
// it evaluates a node in. book/cql does not depend on the store: these are
// plain counts.
#pragma once

#include <cstdint>
#include <optional>

namespace gb::cql {

struct BookCounts {
  std::int64_t games = 0;
  std::int64_t white = 0;  // white wins
  std::int64_t draws = 0;
  std::int64_t black = 0;                   // black wins
  std::optional<std::int64_t> average_elo;  // none when no game had a rated mover
  // The learning counters, from the point of view of the side that played
  // the move (an edge) or of the side to move (a node); none when the book
  // has learned nothing here.
  struct Learned {
    std::int64_t wins = 0, draws = 0, losses = 0;
  };
  std::optional<Learned> learned;
};

struct BookNode {
  BookCounts counts;
  int book_moves = 0;  // edges leaving the node
  int ply = 0;         // fewest plies from the book's root (the start position)
};

class BookView {
 public:
  virtual ~BookView() = default;
  // The book node at a position ID of the game being evaluated; nullptr when
  // that position is not in the book.
  virtual const BookNode* node(int position_id) const = 0;
  // The book edge that leads from the parent of position_id to it; nullptr
  // when there is none (the root of the game, or a move not in the book).
  virtual const BookCounts* edge(int position_id) const = 0;
};

}  // namespace gb::cql
