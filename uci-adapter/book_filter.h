// BookFilter: a CQL query that the position after a book move must match
// for the move to be played (the CQL engine of book/cql). The query is
// evaluated at that position in a game that starts at the current position
// with the book move as its only move, so filters about the position itself
// (material, piece placement, check, "move" of the last move) behave as
// expected; filters about the earlier history of the game see none.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "book/chess/position.h"
#include "uci-adapter/adapter_error.h"

namespace gb::uci_adapter {

class BookFilter {
 public:
  BookFilter() = default;  // no filter: every move passes
  // Compiles query; empty text gives no filter. An invalid query is nullopt
  // and an AdapterError::Code::Filter with the CQL parser's message
  // ("BookFilter:1:5: error: ..."). error may be nullptr.
  [[nodiscard]] static std::optional<BookFilter> compile(std::string_view query, AdapterError* error);

  bool active() const { return compiled_ != nullptr; }
  // True when the position after m (legal in pos) matches, or no filter is set.
  bool allows(const Position& pos, Move m) const;

 private:
  struct Compiled;
  std::shared_ptr<Compiled> compiled_;
};

}  // namespace gb::uci_adapter
