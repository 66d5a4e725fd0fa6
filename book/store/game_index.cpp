#include "book/store/game_index.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "book/store/records.h"

namespace gb::store {

namespace {

constexpr std::size_t kRowSize = 8;  // game id (4, BE) + ply (2, BE) + move (2, BE)

template <class T>
void append_le(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out.append(bytes, sizeof(T));
}

// Reads little-endian fields off the front of a byte string; ok() turns false
// at the first read past the end.
class FieldReader {
 public:
  explicit FieldReader(std::string_view bytes) : rest_(bytes) {}
  template <class T>
  T number() {
    T v{};
    if (rest_.size() < sizeof(T)) return ok_ = false, v;
    std::memcpy(&v, rest_.data(), sizeof(T));
    rest_.remove_prefix(sizeof(T));
    return v;
  }
  std::string text(std::size_t size) {
    if (rest_.size() < size) return ok_ = false, std::string();
    std::string s(rest_.substr(0, size));
    rest_.remove_prefix(size);
    return s;
  }
  bool ok() const { return ok_; }
  bool at_end() const { return rest_.empty(); }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

struct RowBytes {
  Key key;
  char value[kRowSize];
  bool operator<(const RowBytes& o) const {
    return key != o.key ? key < o.key : std::memcmp(value, o.value, kRowSize) < 0;
  }
};

void encode_row(char* out, std::uint32_t game, std::uint16_t ply, Move move) {
  put_be32(out, game);
  put_be16(out + 4, ply);
  put_be16(out + 6, move.raw());
}

}  // namespace

std::string_view StoredGame::tag(std::string_view name) const {
  for (const auto& [n, v] : tags)
    if (n == name) return v;
  return {};
}

std::string encode_game(const StoredGame& g) {
  std::string out;
  append_le<std::uint32_t>(out, g.source);
  append_le<std::uint64_t>(out, g.number);
  append_le<std::uint16_t>(out, std::uint16_t(g.tags.size()));
  for (const auto& [name, value] : g.tags) {
    append_le<std::uint16_t>(out, std::uint16_t(name.size()));
    out += name;
    append_le<std::uint32_t>(out, std::uint32_t(value.size()));
    out += value;
  }
  append_le<std::uint16_t>(out, std::uint16_t(g.start_fen.size()));
  out += g.start_fen;
  append_le<std::uint32_t>(out, std::uint32_t(g.moves.size()));
  for (Move m : g.moves) append_le<std::uint16_t>(out, m.raw());
  return out;
}

bool decode_game(std::string_view bytes, StoredGame& g) {
  FieldReader in(bytes);
  g.source = in.number<std::uint32_t>();
  g.number = in.number<std::uint64_t>();
  auto tag_count = in.number<std::uint16_t>();
  g.tags.clear();
  for (unsigned i = 0; i < tag_count && in.ok(); ++i) {
    std::string name = in.text(in.number<std::uint16_t>());
    std::string value = in.text(in.number<std::uint32_t>());
    g.tags.emplace_back(std::move(name), std::move(value));
  }
  g.start_fen = in.text(in.number<std::uint16_t>());
  auto move_count = in.number<std::uint32_t>();
  g.moves.clear();
  if (in.ok() && move_count <= bytes.size()) g.moves.reserve(move_count);
  for (std::uint32_t i = 0; i < move_count && in.ok(); ++i) g.moves.emplace_back(in.number<std::uint16_t>());
  return in.ok() && in.at_end();
}

Status add_indexed_games(WriteTxn& txn, std::span<const GameToIndex> games, std::uint32_t* first_id) {
  Error e;
  auto games_db = txn.open_db(kStoredGamesDb, MDB_CREATE, &e);
  if (!games_db) return e;
  auto index_db = txn.open_db(kGameIndexDb, MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED, &e);
  if (!index_db) return e;
  MDB_stat st{};
  if (auto s = txn.stat(*games_db, st)) return s;
  if (st.ms_entries + games.size() > UINT32_MAX)
    return Error{MDB_MAP_FULL, "game index: more than 2^32 games"};
  auto first = std::uint32_t(st.ms_entries);
  if (first_id) *first_id = first;

  std::vector<RowBytes> rows;
  std::size_t row_count = 0;
  for (const auto& g : games) row_count += std::min(g.keys.size(), kMaxIndexedPly + 1);
  rows.reserve(row_count);
  for (std::size_t i = 0; i < games.size(); ++i) {
    auto id = std::uint32_t(first + i);
    const GameToIndex& g = games[i];
    char key[4];
    put_be32(key, id);
    if (auto s = txn.put(*games_db, std::string_view(key, 4), encode_game(g.game), MDB_APPEND)) return s;
    std::size_t plies = std::min(g.keys.size(), kMaxIndexedPly + 1);
    for (std::size_t p = 0; p < plies; ++p) {
      RowBytes r;
      r.key = g.keys[p];
      encode_row(r.value, id, std::uint16_t(p), p < g.game.moves.size() ? g.game.moves[p] : Move());
      rows.push_back(r);
    }
  }
  std::sort(rows.begin(), rows.end());
  // New ids are above every stored id, so each row goes at the end of its key's range.
  for (const RowBytes& r : rows) {
    NodeKey key(r.key);
    if (auto s = txn.put(*index_db, key.view(), std::string_view(r.value, kRowSize), MDB_APPENDDUP)) return s;
  }
  return std::nullopt;
}

std::optional<GameToIndex> positions_of(StoredGame game) {
  std::optional<Position> start = game.start_fen.empty() ? Position() : Position::from_fen(game.start_fen);
  if (!start) return std::nullopt;
  Position pos = *start;
  if (game.tag("Variant").find("960") != std::string_view::npos) pos.set_chess960(true);
  GameToIndex out;
  out.keys.reserve(game.moves.size() + 1);
  out.keys.push_back(pos.key());
  for (Move m : game.moves) {
    UndoInfo undo;
    if (m)
      pos.do_move(m, undo);
    else
      pos.do_null_move(undo);
    out.keys.push_back(pos.key());
  }
  out.game = std::move(game);
  return out;
}

Status truncate_indexed_games(WriteTxn& txn, std::uint32_t first_id) {
  Error e;
  auto games_db = txn.open_db(kStoredGamesDb, 0, &e);
  if (!games_db) return e.code == MDB_NOTFOUND ? Status() : Status(e);
  auto index_db = txn.open_db(kGameIndexDb, MDB_DUPSORT | MDB_DUPFIXED, &e);
  if (!index_db) return e;
  std::vector<std::uint32_t> ids;
  {
    auto cursor = Cursor::open(txn, *games_db, &e);
    if (!cursor) return e;
    char from[4];
    put_be32(from, first_id);
    StoredGame game;
    for (auto item = cursor->seek(std::string_view(from, 4), &e); item; item = cursor->next(&e)) {
      if (item->key.size() != 4 || !decode_game(item->value, game))
        return Error{EIO, "game index: a stored game is damaged"};
      const std::uint32_t id = get_be32(item->key.data());
      auto indexed = positions_of(std::move(game));
      if (!indexed) return Error{EIO, "game index: stored game " + std::to_string(id) + " does not replay"};
      const std::size_t plies = std::min(indexed->keys.size(), kMaxIndexedPly + 1);
      for (std::size_t p = 0; p < plies; ++p) {
        char row[kRowSize];
        encode_row(row, id, std::uint16_t(p),
                   p < indexed->game.moves.size() ? indexed->game.moves[p] : Move());
        if (auto s = txn.del(*index_db, NodeKey(indexed->keys[p]).view(), std::string_view(row, kRowSize)))
          return s;
      }
      ids.push_back(id);
    }
    if (e.code) return e;
  }
  for (std::uint32_t id : ids) {
    char key[4];
    put_be32(key, id);
    if (auto s = txn.del(*games_db, std::string_view(key, 4))) return s;
  }
  return std::nullopt;
}

GameIndexReader::GameIndexReader(GameIndexReader&& o) noexcept
    : txn_(std::move(o.txn_)),
      games_(o.games_),
      index_(o.index_),
      cursor_(o.cursor_),
      game_count_(o.game_count_) {
  o.cursor_ = nullptr;
}

GameIndexReader::~GameIndexReader() {
  if (cursor_) mdb_cursor_close(cursor_);
}

std::optional<GameIndexReader> GameIndexReader::open(Book& book, Error* error) {
  Error e;
  auto txn = ReadTxn::begin(book.env(), &e);
  if (!txn) {
    if (error) *error = e;
    return std::nullopt;
  }
  auto games = txn->open_db(kStoredGamesDb, 0, &e);
  auto index = games ? txn->open_db(kGameIndexDb, 0, &e) : std::nullopt;
  if (!index) {
    if (error) *error = e;
    return std::nullopt;
  }
  MDB_stat st{};
  if (auto s = txn->stat(*games, st)) {
    if (error) *error = *s;
    return std::nullopt;
  }
  MDB_cursor* cursor = nullptr;
  if (int rc = mdb_cursor_open(txn->get(), *index, &cursor)) {
    if (error) *error = Error{rc, "open a cursor on the game index"};
    return std::nullopt;
  }
  return GameIndexReader(std::move(*txn), *games, *index, cursor, st.ms_entries);
}

Status GameIndexReader::rows(Key key, std::vector<IndexRow>& out) {
  NodeKey k(key);
  MDB_val mk = to_val(k.view()), mv{};
  int rc = mdb_cursor_get(cursor_, &mk, &mv, MDB_SET_KEY);
  if (rc == MDB_NOTFOUND) return std::nullopt;
  if (rc) return Error{rc, "read the game index"};
  // DUPFIXED: a page of rows per call.
  for (rc = mdb_cursor_get(cursor_, &mk, &mv, MDB_GET_MULTIPLE); rc == 0;
       rc = mdb_cursor_get(cursor_, &mk, &mv, MDB_NEXT_MULTIPLE)) {
    const char* p = static_cast<const char*>(mv.mv_data);
    for (std::size_t n = mv.mv_size / kRowSize; n > 0; --n, p += kRowSize)
      out.push_back(IndexRow{get_be32(p), get_be16(p + 4), Move(get_be16(p + 6))});
  }
  if (rc != MDB_NOTFOUND) return Error{rc, "read the game index"};
  return std::nullopt;
}

std::optional<StoredGame> GameIndexReader::game(std::uint32_t id, Error* error) {
  char key[4];
  put_be32(key, id);
  auto v = txn_.get(games_, std::string_view(key, 4), error);
  if (!v) return std::nullopt;
  StoredGame g;
  if (!decode_game(*v, g)) {
    if (error) *error = Error{MDB_CORRUPTED, "stored game " + std::to_string(id)};
    return std::nullopt;
  }
  return g;
}

}  // namespace gb::store
