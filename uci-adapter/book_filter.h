// BookFilter: a CQL query that the position after a book move must match
// for the move to be played (the CQL engine of book/cql). The query is
// evaluated at that position in a game that starts at the current position
// with the book move as its only move, so filters about the position itself
// (material, piece placement, check, "move" of the last move) behave as
// expected; filters about the earlier history of the game see none.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "book/chess/position.h"

namespace gb::uci_adapter {

class BookFilter {
 public:
  BookFilter() = default;  // no filter: every move passes
  // Compiles query; empty text gives no filter. An invalid query gives the
  // CQL parser's message ("BookFilter:1:5: error: ...").
  [[nodiscard]] static std::variant<BookFilter, std::string> compile(std::string_view query);

  bool active() const { return compiled_ != nullptr; }
  // True when the position after m (legal in pos) matches, or no filter is set.
  bool allows(const Position& pos, Move m) const;

 private:
  struct Compiled;
  std::shared_ptr<Compiled> compiled_;
};

}  // namespace gb::uci_adapter
