// The book statistics filters of a query over the book graph (graphbook
// query): bookgames ... for the node at the current position, bookmovegames
// ... for the book move that led to it. Each is Numeric and None where the
// book has no such node or edge (and always outside a book). docs/CQL.md,
// "Book statistics", is the user's list.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "book/chess/types.h"
#include "book/cql/ast.h"
#include "book/cql/book_view.h"

namespace gb::cql {

// The filter a keyword names (Op::BookNodeStat or Op::BookMoveStat and the
// count), or nullopt when the word is no book statistics filter.
std::optional<std::pair<Op, BookStat>> book_stat_keyword(std::string_view word);
// The keyword of a filter; the inverse of book_stat_keyword.
std::string_view book_stat_name(Op op, BookStat stat);

// The same count seen with the colours swapped (a colour transform): White
// and Black wins trade places; everything else is colour-blind.
BookStat flip_color(BookStat stat);

// A node's count; side_to_move is the side bookscore scores for. None for
// Score when the node has no games, for the learned counts when the book has
// learned nothing there.
std::optional<std::int64_t> node_stat(const BookNode& node, BookStat stat, Color side_to_move);
// An edge's count; mover is the side that played the move, the side
// bookmovescore scores for. Moves and Ply are no edge counts (assert).
std::optional<std::int64_t> edge_stat(const BookCounts& edge, BookStat stat, Color mover);

}  // namespace gb::cql
