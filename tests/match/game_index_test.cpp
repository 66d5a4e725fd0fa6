// The stored-game encoding and the index rows through the store API
// (book/store/game_index.h), on a temporary book.
#include "book/store/game_index.h"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "book/chess/notation.h"
#include "match_helpers.h"

using gb::Move;
using gb::Position;
using gb::store::GameToIndex;
using gb::store::IndexRow;

namespace {

// The game of `moves` (SAN from the start), with its keys.
GameToIndex game_of(std::initializer_list<const char*> moves, std::string white) {
  GameToIndex g;
  g.game.tags = {{"White", std::move(white)}, {"Black", "?"}};
  Position pos;
  for (const char* san : moves) {
    g.keys.push_back(pos.key());
    Move m = gb::parse_san(pos, san).move;
    REQUIRE(m);
    g.game.moves.push_back(m);
    gb::UndoInfo undo;
    pos.do_move(m, undo);
  }
  g.keys.push_back(pos.key());
  return g;
}

}  // namespace

TEST_CASE("A stored game survives encoding, and truncated bytes are refused", "[match][store]") {
  gb::store::StoredGame g;
  g.source = 3;
  g.number = 123456789012ull;
  g.tags = {{"Event", "Tata Steel"}, {"White", "Timman"}, {"Annotator", std::string(70000, 'x')}};
  g.start_fen = "8/8/8/4k3/8/8/4K3/8 w - - 0 1";
  g.moves = {Move(0x1234), Move(), Move(0xffff)};
  std::string bytes = gb::store::encode_game(g);
  gb::store::StoredGame back;
  REQUIRE(gb::store::decode_game(bytes, back));
  CHECK(back.source == 3);
  CHECK(back.number == 123456789012ull);
  CHECK(back.tags == g.tags);
  CHECK(back.tag("White") == "Timman");
  CHECK(back.tag("Round").empty());
  CHECK(back.start_fen == g.start_fen);
  CHECK(back.moves == g.moves);
  for (std::size_t cut : {std::size_t(0), std::size_t(5), bytes.size() / 2, bytes.size() - 1})
    CHECK_FALSE(gb::store::decode_game(std::string_view(bytes).substr(0, cut), back));
  CHECK_FALSE(gb::store::decode_game(bytes + "x", back));
}

TEST_CASE("Index rows of a key come in game order across two writes", "[match][store]") {
  std::string path = gb::test::match_temp_dir() + "/store.book";
  gb::store::BookError be;
  auto book = gb::store::Book::open(path, gb::store::OpenMode::Create, &be);
  REQUIRE(book);
  // Two writes: games 0-1, then game 2. All three reach 1. e4 e5 (ply 2);
  // game 1 reaches it again at ply 6 (the bishops go out and back).
  std::vector<GameToIndex> first = {game_of({"e4", "e5", "Nf3"}, "G0"),
                                    game_of({"e4", "e5", "Bc4", "Bc5", "Bf1", "Bf8", "d4"}, "G1")};
  std::vector<GameToIndex> second = {game_of({"e4", "e5"}, "G2")};
  std::uint32_t id = 99;
  REQUIRE_FALSE(
      book->write([&](gb::store::WriteTxn& t) { return gb::store::add_indexed_games(t, first, &id); }));
  CHECK(id == 0);
  REQUIRE_FALSE(
      book->write([&](gb::store::WriteTxn& t) { return gb::store::add_indexed_games(t, second, &id); }));
  CHECK(id == 2);

  gb::store::Error e;
  auto index = gb::store::GameIndexReader::open(*book, &e);
  REQUIRE(index);
  CHECK(index->game_count() == 3);
  std::vector<IndexRow> rows;
  gb::Key after_e5 = first[0].keys[2];
  REQUIRE_FALSE(index->rows(after_e5, rows));
  Move nf3 = first[0].game.moves[2], bc4 = first[1].game.moves[2], d4 = first[1].game.moves[6];
  std::vector<IndexRow> expected = {{0, 2, nf3}, {1, 2, bc4}, {1, 6, d4}, {2, 2, Move()}};
  CHECK(rows == expected);
  auto g1 = index->game(1);
  REQUIRE(g1);
  CHECK(g1->tag("White") == "G1");
  CHECK(g1->moves.size() == 7);
  CHECK_FALSE(index->game(3));
  rows.clear();
  REQUIRE_FALSE(index->rows(0x1234, rows));
  CHECK(rows.empty());
}

TEST_CASE("A book without stored games says so", "[match][store]") {
  std::string path = gb::test::match_temp_dir() + "/empty.book";
  gb::store::BookError be;
  auto book = gb::store::Book::open(path, gb::store::OpenMode::Create, &be);
  REQUIRE(book);
  gb::store::Error e;
  CHECK_FALSE(gb::store::GameIndexReader::open(*book, &e));
  CHECK(e.code == MDB_NOTFOUND);
}
