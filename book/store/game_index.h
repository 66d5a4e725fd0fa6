// The stored games of a book and their position index (docs/FORMAT.md, "Stored
// games and the game index"): what `graphbook build --index-games` writes and
// `graphbook match` reads.
//
// Two named databases: `stored_games` (game id -> the game: source, place in
// the source, tags, start, moves) and `game_index` (Polyglot key -> one
// fixed-size row per position of each stored game: game id, ply, move played
// from it). The rows of one key are one cursor range sorted by (game id, ply),
// and game ids follow the order of sources, then the order within a source,
// so index order is game order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "book/chess/types.h"
#include "book/store/book.h"

namespace gb::store {

struct StoredGame {
  std::uint32_t source = 0;  // index into Book::sources() (0 = the first source added)
  std::uint64_t number = 0;  // 1-based place of the game within its source
  std::vector<std::pair<std::string, std::string>> tags;  // in file order
  std::string start_fen;                                  // empty: the standard start position
  std::vector<Move> moves;                                // the mainline

  // The value of a tag; empty when absent.
  std::string_view tag(std::string_view name) const;
};

// One row of the index: a stored game stood at the position at `ply` (0 =
// its start position) and played `move` from it (Move() where it ended).
struct IndexRow {
  std::uint32_t game = 0;
  std::uint16_t ply = 0;
  Move move;
  bool operator==(const IndexRow&) const = default;
};

// A game to add, with the keys of its positions: keys[p] is the key of the
// position at ply p, so keys.size() == game.moves.size() + 1.
struct GameToIndex {
  StoredGame game;
  std::vector<Key> keys;
};

// The serialized forms (exposed for tests; docs/FORMAT.md describes them).
std::string encode_game(const StoredGame& game);
[[nodiscard]] bool decode_game(std::string_view bytes, StoredGame& out);

inline constexpr const char* kStoredGamesDb = "stored_games";
inline constexpr const char* kGameIndexDb = "game_index";
// Ply numbers are 16-bit: positions past this ply of a game are not indexed.
inline constexpr std::size_t kMaxIndexedPly = 65535;

// Adds games (in this order) to the stored games and the index, inside the
// caller's write transaction, with ids following the ids already stored.
// Safe to repeat in a fresh transaction (Book::write's map-growth retry).
// first_id, when given, receives the id of games[0].
[[nodiscard]] Status add_indexed_games(WriteTxn& txn, std::span<const GameToIndex> games,
                                       std::uint32_t* first_id = nullptr);

// A stored game with the keys of its positions, replayed from its start
// (a Variant tag naming 960 makes it a Chess960 game, as the reader does);
// nullopt when its start FEN does not read.
[[nodiscard]] std::optional<GameToIndex> positions_of(StoredGame game);

// Removes the stored games whose ids are first_id and above, with their index
// rows, inside the caller's write transaction: the next add_indexed_games
// numbers its games from first_id. Its cost is that of the games removed.
[[nodiscard]] Status truncate_indexed_games(WriteTxn& txn, std::uint32_t first_id);

// Reads the stored games and the index of a book with one read transaction
// kept open (like explore::BookReader). Not thread-safe; the Book must outlive it.
class GameIndexReader {
 public:
  GameIndexReader(GameIndexReader&& o) noexcept;
  GameIndexReader& operator=(GameIndexReader&&) = delete;
  ~GameIndexReader();

  // nullopt with error->code == MDB_NOTFOUND when the book holds no game
  // index (built without --index-games); another code on a storage failure.
  [[nodiscard]] static std::optional<GameIndexReader> open(Book& book, Error* error);

  // Appends the rows of key to out in index order (game id, then ply). The
  // caller owns out and keeps it to reuse its memory.
  [[nodiscard]] Status rows(Key key, std::vector<IndexRow>& out);
  // The stored game with this id; nullopt when absent or unreadable (error
  // set on a storage failure).
  [[nodiscard]] std::optional<StoredGame> game(std::uint32_t id, Error* error = nullptr);
  std::uint64_t game_count() const { return game_count_; }

 private:
  GameIndexReader(ReadTxn txn, MDB_dbi games, MDB_dbi index, MDB_cursor* cursor, std::uint64_t count)
      : txn_(std::move(txn)), games_(games), index_(index), cursor_(cursor), game_count_(count) {}
  ReadTxn txn_;
  MDB_dbi games_;
  MDB_dbi index_;
  MDB_cursor* cursor_;  // over game_index; owned (GET_MULTIPLE is not in Cursor)
  std::uint64_t game_count_;
};

}  // namespace gb::store
