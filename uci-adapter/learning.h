// Online learning into the book: the result of a game the adapter played.
//
// Learning itself is book/learning's (learning::learn_played_game, `graphbook
// learn`'s code, for the side the adapter played), as is the store of pending
// games, games whose result was not on the board (pending_games.h). Each learn
// is one LMDB write transaction that reads and updates the counters inside
// it, so several adapter processes learning into one book serialize on LMDB's
// writer lock and lose no update; a map grown by another process
// (MDB_MAP_RESIZED) is adopted when a transaction begins
// (store::WriteTxn::begin).
#pragma once

#include <optional>
#include <string>

#include "book/learning/pending_games.h"
#include "book/store/book.h"
#include "uci-adapter/adapter_error.h"
#include "uci-adapter/game_end.h"

namespace gb::uci_adapter {

struct LearnSummary {
  std::size_t moves_learned = 0;  // book moves credited (learning's moves_credited)
};
// Learns outcome (for side) on side's moves while the game stays in the book.
// Each call is a new game (its PGN gets a unique Round tag), so two equal
// games both count. An AdapterError::Learn (naming the book) on failure.
[[nodiscard]] AdapterStatus learn_game(store::Book& book, const learning::PlayedGame& game, Color side,
                                       Outcome outcome, LearnSummary* summary = nullptr);

}  // namespace gb::uci_adapter
