// `graphbook build BOOK GAMES --player NAME [--color white|black]`: a
// player's repertoire, checked against counts taken in the test from the
// PGN's own tags and first moves.
#include <catch2/catch.hpp>
#include <map>

#include "process.h"
#include "test_data.h"

using gb::test::graphbook;
using gb::test::info_json;
using gb::test::Output;
using gb::test::read_file;
using gb::test::TempDir;

namespace {

struct Tally {
  std::size_t games = 0, as_white = 0, as_black = 0;
  std::map<std::string, std::size_t> first_moves_as_white;  // SAN -> games
};

std::string tag(const std::string& game, const std::string& name) {
  const std::string open = "[" + name + " \"";
  std::size_t at = game.find(open);
  if (at == std::string::npos) return "";
  at += open.size();
  return game.substr(at, game.find('"', at) - at);
}

// The player's games in the PGN files, by the tags' text alone.
Tally tally(const std::vector<std::string>& files, const std::string& player) {
  Tally t;
  for (const std::string& file : files) {
    const std::string pgn = read_file(file);
    for (std::size_t at = pgn.find("[Event "); at != std::string::npos;) {
      std::size_t next = pgn.find("\n[Event ", at + 1);
      const std::string game = pgn.substr(at, next == std::string::npos ? std::string::npos : next - at);
      at = next == std::string::npos ? next : next + 1;
      const bool white = tag(game, "White").find(player) != std::string::npos;
      const bool black = tag(game, "Black").find(player) != std::string::npos;
      t.games += white || black;
      t.as_white += white;
      t.as_black += black;
      if (!white) continue;
      // The movetext follows the last tag; its first move follows "1." (a game without moves has none).
      std::size_t move = game.find("1.", game.rfind("\"]") + 2);
      if (move == std::string::npos) continue;
      move += 2;
      while (game[move] == ' ' || game[move] == '\r' || game[move] == '\n') ++move;
      t.first_moves_as_white[game.substr(move, game.find_first_of(" \r\n", move) - move)] += 1;
    }
  }
  return t;
}

// The moves of the start position in a book: SAN -> games.
std::map<std::string, std::size_t> start_moves(const std::string& book) {
  Output o = graphbook({"probe", book, "--json"});
  std::map<std::string, std::size_t> out;
  INFO(o.err);
  REQUIRE((o.status == 0 || o.status == 1));  // 1: the start position has no move
  if (o.status != 0) return out;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  for (const auto& m : j["moves"]) out[m["san"].get<std::string>()] = m["games"].get<std::size_t>();
  return out;
}

}  // namespace

TEST_CASE("A build with --player keeps that player's games, one-sided per game", "[builder][player]") {
  TempDir dir("graphbook-player");
  const std::vector<std::string> files = {gb::test::data_path("pgn/small/twic0920.pgn"),
                                          gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn")};
  const Tally expected = tally(files, "Carlsen");
  REQUIRE(expected.as_white > 100);
  REQUIRE(expected.as_black > 100);
  auto build = [&](const std::string& book, std::vector<std::string> options) {
    std::vector<std::string> args = {"build",      dir.file(book), files[0],   files[1],
                                     "--no-dedup", "--quiet",      "--player", "Carlsen"};
    args.insert(args.end(), options.begin(), options.end());
    Output o = graphbook(args);
    INFO(o.err);
    REQUIRE(o.status == 0);
    return info_json(dir.file(book));
  };

  nlohmann::json both = build("both.book", {});
  CHECK(both["games"] == expected.games);
  CHECK(both["bad_games_skipped"] == 0);
  CHECK(both["games_at_start_position"] == expected.games);
  // At the start only White moves: the book's moves there are his first moves as White.
  CHECK(start_moves(dir.file("both.book")) == expected.first_moves_as_white);

  nlohmann::json white = build("white.book", {"--color", "white"});
  CHECK(white["games"] == expected.as_white);
  CHECK(start_moves(dir.file("white.book")) == expected.first_moves_as_white);

  nlohmann::json black = build("black.book", {"--color", "black"});
  CHECK(black["games"] == expected.as_black);
  CHECK(start_moves(dir.file("black.book")).empty());  // White's first moves are his opponents'

  // An edge of his White games is a move from a position with White to move,
  // one of his Black games one with Black to move: the two books' edges are
  // the one book's, none shared.
  CHECK(both["edges"].get<std::size_t>() ==
        white["edges"].get<std::size_t>() + black["edges"].get<std::size_t>());
}
