// The lichess opening explorer's answer for a position of the book, and the
// stored games behind it: what GET /masters, /lichess and /masters/pgn/{id}
// return. The position's data is book/explore's (explore::make_report and
// explore::format_json, the answer of `graphbook probe --json`); this adds the
// lichess fields probe has no need of (`topGames`, each move's `game`), cuts
// the moves to `moves`, and keeps every field of probe's answer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "book/explore/position_report.h"
#include "book/store/game_index.h"

namespace gb::serve {

struct ExplorerQuery {
  int moves = 12;     // most moves listed
  int top_games = 4;  // games listed in topGames (books with stored games)
  int since = 0;      // topGames: games of this year or later ...
  int until = 9999;   // ... to this year (the book's counters keep no dates)
};

// A stored game as lichess lists it in topGames and in a move's `game`.
struct GameSummary {
  std::uint32_t id = 0;
  std::string white, black;
  int white_rating = 0, black_rating = 0;  // 0: no Elo tag
  int year = 0;                            // 0: no year in Date
  int month = 0;                           // 0: no month
  char winner = 0;                         // 'w', 'b', 'd' (draw) or 0 (unknown)
  std::string uci;                         // the move the game played from the position
};

// The games of one position: the best rated (topGames) and, for each move
// played by exactly one stored game, that game (a move's `game`).
struct PositionGames {
  std::vector<GameSummary> top;                               // best first: rating sum, then the later game
  std::vector<std::pair<std::uint16_t, GameSummary>> single;  // raw move -> its one game
};

// The most games a position's topGames are chosen from: the last this many
// games the index holds for it (the latest added). Bounds the work of a
// position every game passes through (the start position).
inline constexpr std::size_t kTopGameCandidates = 2048;
inline constexpr int kMaxTopGames = 15;

// Chooses the games of a position from the index (rows: the index rows of
// its key) within [since, until].
[[nodiscard]] std::optional<PositionGames> position_games(store::GameIndexReader& index, const Position& pos,
                                                          std::span<const store::IndexRow> rows, int since,
                                                          int until, store::Error* error);

// position_games is the costly part of an answer (it decodes stored games):
// kept per (book generation, key, since, until), in shards with a lock each.
class GamesCache {
 public:
  // Shared, not copied: an answer only reads them.
  std::shared_ptr<const PositionGames> find(std::uint64_t generation, Key key, int since, int until);
  void put(std::uint64_t generation, Key key, int since, int until,
           std::shared_ptr<const PositionGames> games);

 private:
  static constexpr std::size_t kShards = 16, kShardEntries = 4096;
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, std::shared_ptr<const PositionGames>> map;
  };
  static std::string cache_key(std::uint64_t generation, Key key, int since, int until);
  Shard& shard(Key key) { return shards_[key % kShards]; }
  std::array<Shard, kShards> shards_;
};

// The lichess-shaped JSON of a report: probe's fields, moves cut to
// query.moves, `topGames` and each move's `game` from games (empty when the
// book has no stored games).
nlohmann::json explorer_json(const explore::PositionReport& report, const ExplorerQuery& query,
                             const PositionGames* games);

nlohmann::json game_summary_json(const GameSummary& g);
// The summary of a stored game (names, ratings, year, month, winner).
GameSummary summarize(std::uint32_t id, const store::StoredGame& game);

// A stored game as PGN: its tags in their order, then the movetext in SAN
// with move numbers, wrapped at 80 columns, ending with the result.
std::string stored_game_pgn(const store::StoredGame& game);

}  // namespace gb::serve
