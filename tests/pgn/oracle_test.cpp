// Game by game against python-chess: the final FEN, the Polyglot key after the
// mainline, the ply count and the players of every game equal the
// .oracle.tsv beside the file, and every mainline move written back as SAN
// (gb::to_san) parses (gb::parse_san) to the same move.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "book/chess/notation.h"
#include "book/pgn/reader.h"
#include "test_data.h"

using namespace gb;
using namespace gb::pgn;

namespace {

struct OracleRow {
  std::string plies, fen, key, white, black, result;
};

// Columns: index plies errors sidelines final_fen final_polyglot_key White Black Result.
std::vector<OracleRow> read_oracle(const std::string& path) {
  std::vector<OracleRow> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> c;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) c.push_back(field);
    while (c.size() < 9) c.emplace_back();
    rows.push_back({c[1], c[4], c[5], c[6], c[7], c[8]});
  }
  return rows;
}

struct GameSeen {
  std::string plies, fen, key, white = "?", black = "?", result = "*";
  SkipReason skipped;
  int bad_round_trips = 0;
};

// Records what the oracle has, and checks SAN round trips on the way.
struct OracleVisitor : VisitorBase {
  std::vector<GameSeen> games;
  GameSeen current;
  void begin_game(const GameLocation&) { current = GameSeen{}; }
  void tag(std::string_view name, std::string_view value) {
    if (name == "White")
      current.white = value;
    else if (name == "Black")
      current.black = value;
    else if (name == "Result")
      current.result = value;
  }
  Control move(const MoveEvent& e) {
    if (e.move) {
      std::string san = to_san(e.before, e.move);
      if (parse_san(e.before, san).move != e.move) ++current.bad_round_trips;
    }
    return Control::Continue;
  }
  void end_game(const GameEnd& end) {
    current.plies = std::to_string(end.plies);
    current.fen = end.final_position.fen();
    current.key = key_hex(end.final_position.key());
    current.skipped = end.skipped;
    games.push_back(current);
  }
};

// Compares every game; games the reader skips on purpose (other variants) are
// listed in skipped_games (0-based) and must be skipped.
void check_file(const std::string& relative, std::vector<std::size_t> skipped_games = {},
                ReadOptions options = {}) {
  INFO(relative);
  std::string path = gb::test::data_path(relative);
  auto oracle = read_oracle(path + ".oracle.tsv");
  REQUIRE(!oracle.empty());
  PgnReader reader(ByteSource::open(path), options);
  OracleVisitor v;
  reader.read_all(v);
  REQUIRE(v.games.size() == oracle.size());
  for (std::size_t i = 0; i < oracle.size(); ++i) {
    INFO("game " << i + 1);
    const GameSeen& g = v.games[i];
    if (std::find(skipped_games.begin(), skipped_games.end(), i) != skipped_games.end()) {
      CHECK(g.skipped == SkipReason::UnsupportedVariant);
      continue;
    }
    CHECK(g.skipped == SkipReason::None);
    CHECK(g.plies == oracle[i].plies);
    CHECK(g.fen == oracle[i].fen);
    CHECK(g.key == oracle[i].key);
    CHECK(g.white == oracle[i].white);
    CHECK(g.black == oracle[i].black);
    CHECK(g.result == oracle[i].result);
    CHECK(g.bad_round_trips == 0);
  }
}

}  // namespace

TEST_CASE("TWIC 920 games end in python-chess's positions and keys", "[pgn]") {
  check_file("pgn/small/twic0920.pgn");
}

TEST_CASE("Carlsen's games with CRLF and 1.d4 without a space end in python-chess's positions", "[pgn]") {
  check_file("pgn/small/pgnmentor-Carlsen.pgn");
}

TEST_CASE("Annotated games with comments, NAGs and nested variations keep python-chess's mainline", "[pgn]") {
  check_file("pgn/annotated/TCEC_Season_1_-_Division_1.pgn");
  check_file("pgn/annotated/TCEC_Season_20_-_Divp_Vs_Komodo14_Ccrl_Testing_2.pgn");
  check_file("pgn/annotated/scalachess-wcc2023-annotated.pgn");
  check_file("pgn/annotated/scalachess-pgn-render-mixed.pgn", {2});  // game 3 is crazyhouse
}

TEST_CASE("python-chess's standard chess test games end in its positions", "[pgn]") {
  for (const char* f :
       {"chessbase-empty-line.pgn", "cutechess-fischerrandom.pgn", "kasparov-deep-blue-1997.pgn",
        "molinari-bordais-1979.pgn", "nepomniachtchi-liren-game1.pgn", "stockfish-learning.pgn",
        "uci-moves.pgn", "utf8-bom.pgn"})
    check_file(std::string("pgn/python-chess/") + f);
}

TEST_CASE("A game with a Z0 null move matches python-chess when null moves are kept", "[pgn]") {
  ReadOptions o;
  o.keep_null_move_games = true;
  check_file("pgn/python-chess/anastasian-lewis.pgn", {}, o);
}

TEST_CASE("Variant games of python-chess's tests are skipped, not misread", "[pgn]") {
  check_file("pgn/python-chess/antichess-programfox.pgn", {0, 1});
  check_file("pgn/python-chess/knightvuillaume-jannlee-zh-lichess.pgn", {0});
  check_file("pgn/python-chess/saturs-jannlee-zh-lichess.pgn", {0});
}

TEST_CASE("The compressed two-move book has 12,092 games of 4 plies", "[pgn]") {
  struct Plies : VisitorBase {
    std::uint64_t games = 0, four = 0;
    void end_game(const GameEnd& e) {
      ++games;
      four += e.plies == 4;
    }
  } v;
  PgnReader reader(ByteSource::open(gb::test::data_path("pgn/small/sfbooks-2moves_v2.pgn.zst")));
  reader.read_all(v);
  CHECK(reader.input_ok());
  CHECK(v.games == 12092);
  CHECK(v.four == 12092);
}
