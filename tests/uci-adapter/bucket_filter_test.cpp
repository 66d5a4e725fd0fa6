// The adapter's bucket filter (BookRatings, BookSpeeds, BookSince,
// BookUntil; --ratings ... on the command line): book moves come from the
// games the filter selects, end to end with the real binary and the real
// Stockfish. The book is made here from games whose tags decide the
// selection; the moves the selected games played, and the one the best
// policy takes among them, are worked out here from those tags.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>

#include "run_graphbook.h"
#include "scripted_gui.h"
#include "uci-adapter/protocol.h"

using namespace gb;
using namespace gb::test;

namespace {

struct Opening {
  const char* first_uci;  // White's first move
  const char* movetext;
  int games;
  int white_elo;
  const char* time_control;
  const char* result;
};
// 1.e4 is the most played and the heaviest (ten wins), all by White players
// under 1600; the 2200 band (2200-2499) played 1.d4, 1.c4 and 1.Nf3 (two
// games only: below BookMinGames 3), 2500 and over 1.b3.
const std::vector<Opening> kOpenings = {
    {"e2e4", "1. e4 e5 2. Nf3 Nc6", 10, 1500, "180+2", "1-0"},
    {"d2d4", "1. d4 d5 2. c4 e6", 4, 2250, "600+0", "1-0"},
    {"c2c4", "1. c4 e5 2. Nc3 Nf6", 3, 2300, "180+2", "1/2-1/2"},
    {"g1f3", "1. Nf3 d5 2. g3 Nf6", 2, 2400, "180+2", "1-0"},
    {"b2b3", "1. b3 e5 2. Bb2 Nc6", 3, 2600, "180+2", "1-0"},
};

bool in_band_2200(int elo) { return elo >= 2200 && elo < 2500; }

// White's first moves of the games whose White is in the 2200 band and with min_games of them.
std::set<std::string> moves_2200(int min_games) {
  std::set<std::string> out;
  for (const Opening& o : kOpenings)
    if (in_band_2200(o.white_elo) && o.games >= min_games) out.insert(o.first_uci);
  return out;
}

// Polyglot's weight (2 x wins + draws of the mover) is what the best policy
// takes the heaviest of: the heaviest first move of the games that pass.
std::string heaviest(bool only_2200) {
  std::string best;
  int best_weight = -1;
  for (const Opening& o : kOpenings) {
    if (only_2200 && !in_band_2200(o.white_elo)) continue;
    if (o.games < 3) continue;
    int per_game = std::string(o.result) == "1-0" ? 2 : std::string(o.result) == "1/2-1/2" ? 1 : 0;
    if (o.games * per_game > best_weight) best = o.first_uci, best_weight = o.games * per_game;
  }
  return best;
}

struct Books {
  std::string buckets, plain;
};
const Books& books() {
  static const Books b = [] {
    std::string dir = temp_dir("bucket-filter");
    std::ofstream out(dir + "/games.pgn");
    int round = 0;
    for (const Opening& o : kOpenings)
      for (int i = 0; i < o.games; ++i, ++round)
        out << "[Event \"f\"]\n[Round \"" << round << "\"]\n[White \"w" << round
            << "\"]\n[Black \"b\"]\n[Date \"2019.04.01\"]\n[WhiteElo \"" << o.white_elo
            << "\"]\n[BlackElo \"1700\"]\n[TimeControl \"" << o.time_control << "\"]\n[Result \"" << o.result
            << "\"]\n\n"
            << o.movetext << " " << o.result << "\n\n";
    out.close();
    Books b{dir + "/buckets.book", dir + "/plain.book"};
    REQUIRE(graphbook("build " + quote(b.buckets) + " " + quote(dir + "/games.pgn") + " --buckets --quiet")
                .status == 0);
    REQUIRE(graphbook("build " + quote(b.plain) + " " + quote(dir + "/games.pgn") + " --quiet").status == 0);
    return b;
  }();
  return b;
}

std::vector<std::string> adapter(const std::string& book, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{graphbook_binary(), "uci", "--book", book};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back("--");
  args.push_back(kStockfish);
  return args;
}

// The book's answer at the start position: its move, "" when the engine searched instead.
std::string book_move(ScriptedGui& gui) {
  gui.send("position startpos");
  gui.send("go movetime 100");
  auto lines = gui.until_prefix("bestmove");
  REQUIRE(lines);
  bool from_book = std::any_of(lines->begin(), lines->end(),
                               [](const auto& l) { return starts_with(l, "info string book "); });
  return from_book ? uci_adapter::parse_bestmove(lines->back())->move : "";
}

// setoption, then what the adapter said about it before readyok.
std::vector<std::string> set(ScriptedGui& gui, const std::string& name, const std::string& value) {
  gui.send("setoption name " + name + " value " + value);
  gui.send("isready");
  auto lines = gui.until_prefix("readyok");
  REQUIRE(lines);
  std::vector<std::string> said;
  for (const auto& l : *lines)
    if (starts_with(l, "info string graphbook")) said.push_back(l);
  return said;
}

}  // namespace

TEST_CASE("With --ratings the adapter plays only moves of the selected games, without it the most popular",
          "[uci-adapter]") {
  const Books& b = books();
  const std::string unfiltered = heaviest(false), filtered = heaviest(true);
  REQUIRE(unfiltered == "e2e4");
  REQUIRE(filtered != unfiltered);
  {
    ScriptedGui gui(adapter(b.buckets));
    handshake(gui);
    CHECK(book_move(gui) == unfiltered);
    gui.send("quit");
    CHECK(gui.wait_exit());
  }
  {
    ScriptedGui gui(adapter(b.buckets, {"--ratings", "2200"}));
    handshake(gui);
    CHECK(book_move(gui) == filtered);
    gui.send("quit");
    CHECK(gui.wait_exit());
  }
  // Uniform over every move of one game or more: each answer is a move the selected games played, and
  // over the seeds every one of them comes up.
  const std::set<std::string> allowed = moves_2200(1);
  REQUIRE(allowed.size() == 3);
  std::set<std::string> seen;
  for (int seed = 1; seed <= 24; ++seed) {
    ScriptedGui gui(adapter(b.buckets, {"--ratings", "2200", "--policy", "uniform", "--min-games", "1",
                                        "--seed", std::to_string(seed)}));
    handshake(gui);
    std::string move = book_move(gui);
    INFO("seed " << seed);
    CHECK(allowed.count(move) == 1);
    seen.insert(move);
    gui.send("quit");
    CHECK(gui.wait_exit());
  }
  CHECK(seen == allowed);
}

TEST_CASE("BookRatings set by the GUI changes the book's move, and an empty value gives every game back",
          "[uci-adapter]") {
  const Books& b = books();
  ScriptedGui gui(adapter(b.buckets));
  handshake(gui);
  CHECK(book_move(gui) == heaviest(false));
  CHECK(set(gui, "BookRatings", "2200").empty());
  CHECK(book_move(gui) == heaviest(true));
  // A speed no selected game has: no book move, the engine searches.
  CHECK(set(gui, "BookSpeeds", "classical").empty());
  CHECK(book_move(gui).empty());
  CHECK(set(gui, "BookSpeeds", "<empty>").empty());
  CHECK(set(gui, "BookRatings", "<empty>").empty());
  CHECK(book_move(gui) == heaviest(false));
  // A bad value is said and changes nothing.
  auto said = set(gui, "BookSpeeds", "hyperbullet");
  REQUIRE(said.size() == 1);
  CHECK(said[0].find("BookSpeeds") != std::string::npos);
  CHECK(said[0].find("'hyperbullet' is no speed") != std::string::npos);
  said = set(gui, "BookSince", "2020-13");
  REQUIRE(said.size() == 1);
  CHECK(said[0].find("BookSince") != std::string::npos);
  CHECK(book_move(gui) == heaviest(false));
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE(
    "A filter the book cannot answer: refused at start with exit status 2, said and kept out by setoption",
    "[uci-adapter]") {
  const Books& b = books();
  // The GUI side is empty: an adapter that started anyway would run, see the end of input and exit 0.
  Run plain = graphbook("uci --book " + quote(b.plain) + " --ratings 2200 -- " + kStockfish + " </dev/null");
  CHECK(plain.status == 2);
  CHECK(plain.err.find("graphbook uci: " + b.plain + " was built without buckets") != std::string::npos);
  CHECK(starts_with(plain.out,
                    "info string graphbook: no book moves: " + b.plain + " was built without buckets"));
  CHECK(plain.out.find("uciok") == std::string::npos);
  // Months of a book of years.
  Run months =
      graphbook("uci --book " + quote(b.buckets) + " --since 2019-04 -- " + kStockfish + " </dev/null");
  CHECK(months.status == 2);
  CHECK(months.err.find("hold years") != std::string::npos);
  // A value that is no filter at all.
  Run bad = graphbook("uci --book " + quote(b.buckets) + " --ratings 1400 -- " + kStockfish + " </dev/null");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("BookRatings") != std::string::npos);

  ScriptedGui gui(adapter(b.plain));
  handshake(gui);
  auto said = set(gui, "BookRatings", "2200");
  REQUIRE(said.size() == 1);
  CHECK(said[0].find("BookRatings: " + b.plain + " was built without buckets") != std::string::npos);
  // The option kept its value (none): the book plays as before.
  CHECK(book_move(gui) == heaviest(false));
  gui.send("quit");
  CHECK(gui.wait_exit());
}

TEST_CASE("BookWeights and --weight weigh a source's games, and a source the book lacks is refused",
          "[uci-adapter]") {
  // The 1.e4 games in a source of their own ("club"), the others in another.
  std::string dir = temp_dir("bucket-weights");
  std::ofstream club(dir + "/club.pgn"), rest(dir + "/rest.pgn");
  int round = 0;
  for (const Opening& o : kOpenings)
    for (int i = 0; i < o.games; ++i, ++round)
      (std::string(o.first_uci) == "e2e4" ? club : rest)
          << "[Event \"w\"]\n[Round \"" << round << "\"]\n[White \"w" << round
          << "\"]\n[Black \"b\"]\n[WhiteElo \"" << o.white_elo << "\"]\n[Result \"" << o.result << "\"]\n\n"
          << o.movetext << " " << o.result << "\n\n";
  club.close();
  rest.close();
  const std::string book = dir + "/weights.book";
  REQUIRE(graphbook("build " + quote(book) + " " + quote(dir + "/rest.pgn") + " --buckets --quiet").status ==
          0);
  REQUIRE(
      graphbook("build " + quote(book) + " " + quote(dir + "/club.pgn") + " --source club --quiet").status ==
      0);
  // Without the club's games the heaviest first move is the heaviest of the others (worked out from
  // kOpenings).
  std::string without_club;
  int best = -1;
  for (const Opening& o : kOpenings) {
    if (std::string(o.first_uci) == "e2e4" || o.games < 3) continue;
    int per_game = std::string(o.result) == "1-0" ? 2 : std::string(o.result) == "1/2-1/2" ? 1 : 0;
    if (o.games * per_game > best) without_club = o.first_uci, best = o.games * per_game;
  }
  REQUIRE(without_club != heaviest(false));
  {
    ScriptedGui gui(adapter(book));
    handshake(gui);
    CHECK(book_move(gui) == heaviest(false));
    CHECK(set(gui, "BookWeights", "club=0").empty());
    CHECK(book_move(gui) == without_club);
    auto said = set(gui, "BookWeights", "nobody=1");
    REQUIRE(said.size() == 1);
    CHECK(said[0].find("no source 'nobody'") != std::string::npos);
    CHECK(book_move(gui) == without_club);  // the option kept its value
    gui.send("quit");
    CHECK(gui.wait_exit());
  }
  {
    ScriptedGui gui(adapter(book, {"--weight", "club=0"}));
    handshake(gui);
    CHECK(book_move(gui) == without_club);
    gui.send("quit");
    CHECK(gui.wait_exit());
  }
  Run unknown =
      graphbook("uci --book " + quote(book) + " --weight nobody=1 -- " + kStockfish + " </dev/null");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("no source 'nobody'") != std::string::npos);
}
