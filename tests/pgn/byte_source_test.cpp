// Where PGN bytes come from: plain and zstd files, byte ranges, memory.
#include <catch2/catch.hpp>

#include "book/pgn/game_record.h"
#include "temp_dir.h"
#include "test_data.h"

using namespace gb::pgn;
using gb::test::TempDir;

TEST_CASE("A truncated zstd file is an input error after the games before the cut", "[pgn]") {
  std::string zst = gb::test::read_file(gb::test::data_path("pgn/small/sfbooks-2moves_v2.pgn.zst"));
  REQUIRE(zst.size() > 1000);
  TempDir dir;
  std::string path = dir.write("truncated", zst.substr(0, zst.size() / 2));
  std::uint64_t games = 0;
  ReadSummary s = read_games(path, [&](const GameRecord&) { ++games; });
  CHECK(games > 1000);
  CHECK(games < 12092);
  REQUIRE(s.input_errors.size() == 1);
  CHECK(s.input_errors[0].find("zstd") != std::string::npos);
}

TEST_CASE("A zstd file is recognised by its magic number whatever its name", "[pgn]") {
  TempDir dir;
  std::string path =
      dir.write("games", gb::test::read_file(gb::test::data_path("pgn/small/sfbooks-2moves_v2.pgn.zst")));
  std::uint64_t games = 0;
  ReadSummary s = read_games(path, [&](const GameRecord&) { ++games; });
  CHECK(s.input_errors.empty());
  CHECK(games == 12092);
}

TEST_CASE("Many files are read in one run and their summaries add up", "[pgn]") {
  std::uint64_t games = 0;
  ReadSummary s =
      read_games(std::vector<std::string>{gb::test::data_path("pgn/python-chess/kasparov-deep-blue-1997.pgn"),
                                          gb::test::data_path("pgn/python-chess/no-such.pgn"),
                                          gb::test::data_path("pgn/small/twic0920.pgn")},
                 [&](const GameRecord& g) {
                   ++games;
                   if (games == 7) CHECK(g.file.find("twic0920.pgn") != std::string::npos);
                 });
  CHECK(games == 6 + 2245);
  CHECK(s.games_read == 6 + 2245);
  CHECK(s.input_errors.size() == 1);
}

TEST_CASE("A GameRecord carries tags, location, mainline keys and the final position", "[pgn]") {
  std::vector<GameRecord> games;
  read_games(ByteSource::from_memory(
                 "[Event \"E\"]\n[White \"W\"]\n\n1. e4 e5 1-0\n\n[Event \"F\"]\n\n1. d4 *\n", "mem"),
             [&](const GameRecord& g) { games.push_back(g); });
  REQUIRE(games.size() == 2);
  CHECK(games[0].tag("White") == "W");
  CHECK(games[0].tag("Black").empty());
  CHECK(games[0].outcome == Outcome::WhiteWins);
  CHECK(games[1].line == 6);
  CHECK(games[1].game_number == 2);
  CHECK(games[1].file == "mem");
  REQUIRE(games[0].mainline.size() == 2);
  CHECK(games[0].mainline[0].key_before == 0x463b96181691fc9cULL);  // the start position (Polyglot spec)
  CHECK(games[0].mainline[1].key_before == 0x823c9b50fd114196ULL);  // after e4 (Polyglot spec)
  CHECK(games[0].final_position.key() == 0x0844931a6ef4b9a0ULL);    // after e4 e5 (Polyglot spec)
}
