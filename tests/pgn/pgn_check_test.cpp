// graphbook pgn-check end to end, through the real binary.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "run_graphbook.h"

namespace {

using gb::test::Run;

Run run(const std::string& args) { return gb::test::graphbook("pgn-check " + args, true); }

std::string data(const std::string& relative) { return gb::test::quote(gb::test::data_path(relative)); }

}  // namespace

TEST_CASE("pgn-check exits 0 and counts games and plies of a clean file", "[pgn][cli]") {
  Run r = run(data("pgn/small/twic0920.pgn"));
  CHECK(r.status == 0);
  CHECK(r.out.find("2245 games, 2245 kept, 0 skipped, 182591 plies, 0 errors") != std::string::npos);
}

TEST_CASE("pgn-check exits 1 and names file, line, column, game, move and FEN of skipped games",
          "[pgn][cli]") {
  Run r = run(data("malformed/pgn-extract-test/odds.pgn"));
  CHECK(r.status == 1);
  CHECK(r.out.find("odds.pgn:672:7: game 29: null move '--' in "
                   "rnbqkbnr/ppppp1pp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1") != std::string::npos);
  CHECK(r.out.find("32 games, 30 kept, 2 skipped") != std::string::npos);
  CHECK(run("--keep-null-moves " + data("malformed/pgn-extract-test/odds.pgn")).status == 0);
}

TEST_CASE("pgn-check exits 2 when an input cannot be read", "[pgn][cli]") {
  Run r = run(data("pgn/small/twic0920.pgn") + " /nonexistent/games.pgn");
  CHECK(r.status == 2);
  CHECK(r.out.find("cannot open /nonexistent/games.pgn") != std::string::npos);
}

TEST_CASE("pgn-check reads compressed files and stdin and writes a JSON summary", "[pgn][cli]") {
  Run r = run("--json " + data("pgn/small/sfbooks-2moves_v2.pgn.zst") + " - < " +
              data("malformed/disservin-chess-library/corrupted.pgn"));
  CHECK(r.status == 1);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["files"].size() == 2);
  CHECK(j["files"][0]["games"] == 12092);
  CHECK(j["files"][0]["plies"] == 12092 * 4);
  CHECK(j["files"][1]["games"] == 1);
  CHECK(j["files"][1]["skipped_by_reason"]["unparseable move"] == 1);
  const auto& e = j["files"][1]["error_list"][0];
  CHECK(e["move"] == "Kx");
  CHECK(e["line"] == 57);
  CHECK(e["fen"] == "8/8/7k/7P/8/2K4P/1p6/8 w - - 0 63");
  CHECK(j["total"]["games"] == 12093);
}

TEST_CASE("pgn-check --help shows an example", "[pgn][cli]") {
  Run r = run("--help");
  CHECK(r.status == 0);
  CHECK(r.out.find("Example:") != std::string::npos);
}
