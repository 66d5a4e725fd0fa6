// The window of the book graph a query sees at one node, presented to the
// CQL evaluator as a game: the shortest line from the traversal's start as
// mainline (when the query reads ancestors; else the node alone, with its
// real ply), the node's book moves as its children, most games first (the
// first is the mainline's continuation, the others variations), and, when
// the query searches forward, the book edges below them to a depth. It is
// also the BookView the statistics filters read: a node's counters are
// looked up in the book the first time a filter asks for them.
//
// One BookWindow is reused from node to node (its buffers keep their
// memory). The game and the view stay valid until the next build().
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "book/cql/book_view.h"
#include "book/cql/game.h"
#include "book/store/records.h"
#include "query/book_section.h"
#include "query/query_shape.h"

namespace gb::query {

// What the traversal knows of the node being evaluated.
struct NodeVisit {
  const Position* position;         // the node's position
  Key key;                          // its Polyglot key
  int ply;                          // plies from the start of the game (the line's length + the start's)
  std::span<const Move> line;       // the shortest line from the traversal's start
  const Position* start;            // where line begins
  const store::NodeRecord* record;  // the node's record, nullptr when the section has none
  std::string_view section;         // the node's section (its book moves)
  // The edge the line arrived by (none at the start).
  const store::Counters* arrival = nullptr;
  Key parent_key = 0;
};

class BookWindow final : public cql::BookView {
 public:
  BookWindow(BookSections& sections, QueryShape shape, int window_depth)
      : sections_(sections),
        shape_(shape),
        window_depth_(window_depth),
        scratch_(std::size_t(window_depth) + 2) {}

  // Builds the window of the node; returns the game and sets current() to
  // the node's position ID in it.
  const cql::Game& build(const NodeVisit& visit);
  int current() const { return current_; }

  const cql::BookNode* node(int position_id) const override;
  const cql::BookCounts* edge(int position_id) const override;

 private:
  enum class Known : std::uint8_t { No, Yes, Absent };
  struct Slot {
    Known node_known = Known::No, edge_known = Known::No;
    cql::BookNode node;
    cql::BookCounts edge;
  };
  struct Move_ {
    Move move;
    store::EdgeRecord record;
  };
  // The book moves of the node at pos, most games first, into out.
  void book_moves(const Position& pos, std::string_view section, std::vector<Move_>& out) const;
  // Adds the book moves of parent (its key and section given) as its
  // children, then theirs below, to the window's depth.
  void add_book_moves(int parent, Key parent_key, std::string_view section, int depth);
  Slot& slot(int id) const;

  BookSections& sections_;
  QueryShape shape_;
  int window_depth_;
  cql::Game game_;
  int current_ = 0;
  std::vector<std::vector<Move_>> scratch_;  // one list of book moves per depth, sized once
  mutable std::vector<Slot> slots_;          // by position ID
};

// Numbers the pieces of a game's initial position as the CQL game builder
// does (piece identity for piece variables).
void number_pieces(cql::GameNode& root);

}  // namespace gb::query
