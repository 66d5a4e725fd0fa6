// End-to-end tests of probe, pick, learn, unlearn and tree through the real
// binary, on a book that `graphbook build` makes from twic0920.pgn.
#include <catch2/catch.hpp>
#include <set>

#include "polyglot_reference.h"
#include "probe_helpers.h"

using namespace gb;
using namespace gb::test;

namespace {

std::string book_arg() { return quote(twic_book()); }

const nlohmann::json* find_move(const nlohmann::json& moves, const std::string& uci) {
  for (const auto& m : moves)
    if (m["uci"] == uci) return &m;
  return nullptr;
}

}  // namespace

// Expected: Debian polyglot make-book's weights in ref-twic0920-ply16-min1.bin (make-book
// run on twic0920.pgn by the test: polyglot_reference.h)
// (2 * wins + draws of the side to move), read by hand.
TEST_CASE("Probe and pick give the moves and weights of polyglot make-book from the same games",
          "[probe][e2e]") {
  for (auto line : {std::vector<const char*>{}, {"e4"}, {"d4", "Nf6"}, {"e4", "c5", "Nf3"}}) {
    Position pos;
    std::string moves;
    for (const char* san : line) {
      UndoInfo undo;
      pos.do_move(parse_san(pos, san).move, undo);
      moves += std::string(moves.empty() ? "" : " ") + san;
    }
    auto expected = polyglot_weights(reference_book("ref-twic0920-ply16-min1.bin"), pos.key());
    REQUIRE(!expected.empty());
    auto j = graphbook_json("pick " + book_arg() + " --moves '" + moves +
                            "' --explain --json --no-names --seed 1");
    REQUIRE(j.is_object());
    std::map<std::uint16_t, std::uint16_t> got;
    for (const auto& c : j["candidates"])
      got[polyglot_move(c["uci"])] = std::uint16_t(c["weight"].get<double>());
    // make-book drops moves of weight 0; we keep them (with weight 0) in the candidates.
    std::erase_if(got, [](const auto& kv) { return kv.second == 0; });
    INFO("after '" << moves << "'");
    CHECK(got == expected);

    // Probe lists the same moves with the same weights, in its weight field and from its counters.
    auto probe = graphbook_json("probe " + book_arg() + " --moves '" + moves + "' --json --no-names");
    REQUIRE(probe.is_object());
    bool white = pos.side_to_move() == Color::White;
    std::map<std::uint16_t, std::uint16_t> shown, counted;
    for (const auto& m : probe["moves"]) {
      shown[polyglot_move(m["uci"])] = m["weight"].get<std::uint16_t>();
      counted[polyglot_move(m["uci"])] =
          std::uint16_t(2 * m[white ? "white" : "black"].get<int>() + m["draws"].get<int>());
    }
    std::erase_if(shown, [](const auto& kv) { return kv.second == 0; });
    std::erase_if(counted, [](const auto& kv) { return kv.second == 0; });
    CHECK(shown == expected);
    CHECK(counted == expected);
  }
}

// Expected: the games of twic0920.pgn replayed move by move with the chess core in this test.
TEST_CASE("Probe finds a position reached by a transposed move order, with totals over both orders",
          "[probe][e2e]") {
  Key after_d4_d5 = play({"d4", "d5"}).key();
  Move nf3 = parse_san(play({"d4", "d5"}), "Nf3").move;
  Key target = play({"d4", "d5", "Nf3"}).key();
  int edge_games = 0, reached_games = 0;
  for (const ReplayedGame& g : replay_simple_pgn(data_path("pgn/small/twic0920.pgn"))) {
    bool edge = false, reached = false;
    for (std::size_t i = 0; i < g.keys.size() && i <= 40; ++i) {
      reached = reached || g.keys[i] == target;
      edge = edge || (i < g.moves.size() && i < 40 && g.keys[i] == after_d4_d5 && g.moves[i] == nf3);
    }
    edge_games += edge, reached_games += reached;
  }
  REQUIRE(reached_games > edge_games);  // twic0920 has games that reach it by 1.Nf3 d5 2.d4

  auto j = graphbook_json("probe " + book_arg() + " --moves 'd4 d5' --json --no-names");
  const nlohmann::json* m = find_move(j["moves"], "g1f3");
  REQUIRE(m);
  CHECK((*m)["games"] == edge_games);
  CHECK((*m)["position"]["games"] == reached_games);
  CHECK((*m)["position"]["transposition"] == true);

  auto other_order = graphbook_json("probe " + book_arg() + " --moves 'g1f3 d7d5 d2d4' --json --no-names");
  CHECK(other_order["games"] == reached_games);
  auto fields = [](const std::string& fen) { return fen.substr(0, fen.rfind(' ', fen.rfind(' ') - 1)); };
  CHECK(fields(other_order["fen"]) == fields(play({"d4", "d5", "Nf3"}).fen()));  // clocks differ

  Run text = graphbook("probe " + book_arg() + " --moves 'd4 d5' --no-names");
  CHECK(text.status == 0);
  CHECK(text.out.find(std::to_string(reached_games) + "*") != std::string::npos);
}

// Expected: d.tsv names "1. d4 d5 2. Nf3" D02 "Queen's Pawn Game: Zukertort Variation".
TEST_CASE("Probe names the position and each resulting position by position", "[probe][e2e][names]") {
  std::string eco;
  for (const char* f : {"a", "b", "c", "d", "e"})
    eco += " --eco " + quote(data_path(std::string("eco/") + f + ".tsv"));
  auto j = graphbook_json("probe " + book_arg() + " --moves 'Nf3 d5 d4'" + eco + " --json");
  REQUIRE(j.is_object());
  CHECK(j["opening"]["eco"] == "D02");
  CHECK(j["opening"]["name"] == "Queen's Pawn Game: Zukertort Variation");
  auto d4 = graphbook_json("probe " + book_arg() + " --moves 'd4 d5'" + eco + " --json");
  const nlohmann::json* m = find_move(d4["moves"], "g1f3");
  REQUIRE(m);
  CHECK((*m)["opening"]["name"] == "Queen's Pawn Game: Zukertort Variation");
}

TEST_CASE("Probe exits 1 off the book and 2 on a bad FEN or move", "[probe][e2e]") {
  Run off = graphbook("probe " + book_arg() + " --moves 'a3 a6 h3 h6 b3' --no-names", true);
  CHECK(off.status == 1);
  CHECK(off.out.find("Not in the book") != std::string::npos);
  Run bad_fen =
      graphbook("probe " + book_arg() + " --fen 'rnbqkbnr/pppppppp/8/8 w KQkq - 0 1' --no-names", true);
  CHECK(bad_fen.status == 2);
  CHECK(bad_fen.out.find("bad FEN") != std::string::npos);
  Run bad_move = graphbook("probe " + book_arg() + " --moves 'e4 Ke3' --no-names", true);
  CHECK(bad_move.status == 2);
  CHECK(bad_move.out.find("move 2 'Ke3'") != std::string::npos);
  Run no_book = graphbook("probe /nonexistent/x.book --no-names", true);
  CHECK(no_book.status == 2);
  CHECK(no_book.out.find("/nonexistent/x.book") != std::string::npos);
  Run pick_off = graphbook("pick " + book_arg() + " --moves 'a3 a6 h3 h6 b3' --no-names", true);
  CHECK(pick_off.status == 1);
}

TEST_CASE("Pick repeats its choice for a seed and best takes the heaviest move", "[probe][e2e][pick]") {
  Run a = graphbook("pick " + book_arg() + " --seed 42 --no-names");
  Run b = graphbook("pick " + book_arg() + " --seed 42 --no-names");
  CHECK(a.status == 0);
  CHECK(a.out == b.out);
  // make-book's heaviest start move in ref-twic0920-ply16-min1.bin is e2e4 (weight 1133).
  Run best = graphbook("pick " + book_arg() + " --policy best --no-names");
  CHECK(best.out == "e2e4 e4\n");
  auto j =
      graphbook_json("pick " + book_arg() +
                     " --moves 'e4' --policy uniform --min-games 50 --explain --json --no-names --seed 9");
  int kept = 0, left_out = 0;
  for (const auto& c : j["candidates"]) {
    CHECK((c["games"] >= 50) == (c["weight"] > 0));
    (c["games"] >= 50 ? kept : left_out) += 1;
  }
  // After 1.e4 twic0920 has replies played 50 times and more (c5, e5) and rarer ones: both kinds are tested.
  CHECK(kept >= 2);
  CHECK(left_out >= 2);
}

TEST_CASE("Pick --pgn takes the position from a game and ply", "[probe][e2e]") {
  // twic0920.pgn game 1 begins 1. Nf3 g6 2. e4 c5 (read in the file).
  const std::string pgn = " --pgn " + quote(data_path("pgn/small/twic0920.pgn"));
  const Position after = play({"Nf3", "g6"});
  auto j =
      graphbook_json("pick " + book_arg() + pgn + " --game 1 --ply 2 --explain --json --no-names --seed 3");
  REQUIRE(j.is_object());
  CHECK(j["fen"] == after.fen());
  // The candidates are the book's moves of that position, and the choice is one of them.
  auto probed = graphbook_json("probe " + book_arg() + " --fen " + quote(after.fen()) + " --json --no-names");
  REQUIRE(probed["moves"].size() >= 2);
  std::set<std::string> book_moves, candidates;
  for (const auto& m : probed["moves"]) book_moves.insert(m["uci"].get<std::string>());
  for (const auto& c : j["candidates"]) candidates.insert(c["uci"].get<std::string>());
  CHECK(candidates == book_moves);
  REQUIRE(j["move"].is_object());
  CHECK(book_moves.count(j["move"]["uci"].get<std::string>()) == 1);
  Run bad = graphbook("pick " + book_arg() + pgn + " --game 99999 --no-names", true);
  CHECK(bad.status == 2);
  CHECK(bad.out.find("99999") != std::string::npos);
}

// Expected: the counters the same book shows for the source games (every twic0920 game has a result).
TEST_CASE("Learning the source games gives learned counters equal to the source counters, once",
          "[probe][e2e][learning]") {
  std::string book = twic_book_copy("learn-all.book");
  std::string pgn = quote(data_path("pgn/small/twic0920.pgn"));
  std::string before = graphbook("probe " + quote(book) + " --moves 'e4' --json --no-names").out;
  auto learned = graphbook_json("learn " + quote(book) + " " + pgn + " --json");
  REQUIRE(learned.is_array());
  CHECK(learned[0]["games_learned"] == 2234);  // 2245 games, 11 without moves
  auto again = graphbook_json("learn " + quote(book) + " " + pgn + " --json");
  CHECK(again[0]["games_learned"] == 0);
  CHECK(again[0]["already_learned"] == 2234);

  for (const char* moves : {"", "e4", "d4 Nf6 c4"}) {
    auto j = graphbook_json("probe " + quote(book) + " --moves '" + moves + "' --json --no-names");
    bool white = j["fen"].get<std::string>().find(" w ") != std::string::npos;
    REQUIRE(j["moves"].size() >= 2);
    for (const auto& m : j["moves"]) {
      INFO(moves << " " << m["uci"]);
      CHECK(m["learning"]["wins"] == m[white ? "white" : "black"]);
      CHECK(m["learning"]["losses"] == m[white ? "black" : "white"]);
      CHECK(m["learning"]["draws"] == m["draws"]);
    }
  }
  // Since nodes are positions, both move orders see the same learning.
  auto a = graphbook_json("probe " + quote(book) + " --moves 'd4 d5 Nf3' --json --no-names");
  auto b = graphbook_json("probe " + quote(book) + " --moves 'Nf3 d5 d4' --json --no-names");
  REQUIRE(a["moves"].size() >= 2);
  CHECK(a["moves"] == b["moves"]);
  CHECK(a["moves"][0]["learning"]["wins"].get<int>() + a["moves"][0]["learning"]["draws"].get<int>() +
            a["moves"][0]["learning"]["losses"].get<int>() >
        0);

  auto un = graphbook_json("unlearn " + quote(book) + " " + pgn + " --json");
  CHECK(un[0]["games_unlearned"] == 2234);
  CHECK(graphbook("probe " + quote(book) + " --moves 'e4' --json --no-names").out == before);
}

TEST_CASE("Learn --side and --player credit only the chosen side's moves, and --reset clears",
          "[probe][e2e][learning]") {
  std::string book = twic_book_copy("learn-side.book");
  std::string pgn = quote(data_path("pgn/small/twic0920.pgn"));
  REQUIRE(graphbook("learn " + quote(book) + " " + pgn + " --side white").status == 0);
  auto start = graphbook_json("probe " + quote(book) + " --json --no-names");
  auto e4 = graphbook_json("probe " + quote(book) + " --moves e4 --json --no-names");
  REQUIRE(find_move(start["moves"], "e2e4"));
  CHECK(find_move(start["moves"], "e2e4")->at("learning")["wins"] ==
        find_move(start["moves"], "e2e4")->at("white"));
  CHECK(find_move(start["moves"], "e2e4")->at("learning")["wins"] > 0);
  REQUIRE(e4["moves"].size() >= 2);
  for (const auto& m : e4["moves"]) CHECK(m["learning"]["wins"] == 0);
  REQUIRE(graphbook("learn " + quote(book) + " --reset").status == 0);
  start = graphbook_json("probe " + quote(book) + " --json --no-names");
  REQUIRE(start["moves"].size() >= 2);
  for (const auto& m : start["moves"]) CHECK(m["learning"]["wins"] == 0);

  // Game 1 of twic0920: Navara,D (White) - Svidler,P 1/2-1/2, 1. Nf3 g6 2. e4.
  auto player =
      graphbook_json("learn " + quote(book) + " " + pgn + " --player 'Svidler,P' --side black --json");
  CHECK(player[0]["games_learned"] > 0);
  auto after_nf3 = graphbook_json("probe " + quote(book) + " --moves Nf3 --json --no-names");
  const nlohmann::json* g6 = find_move(after_nf3["moves"], "g7g6");
  REQUIRE(g6);
  CHECK((*g6)["learning"]["draws"].get<int>() >= 1);
  start = graphbook_json("probe " + quote(book) + " --json --no-names");
  REQUIRE(start["moves"].size() >= 2);
  for (const auto& m : start["moves"]) CHECK(m["learning"]["draws"] == 0);  // White's moves: not learned
}

TEST_CASE("After a learned loss the learned policy avoids the move while a comparable one exists",
          "[probe][e2e][learning]") {
  std::string book = twic_book_copy("learn-loss.book");
  std::string pgn = temp_dir() + "/lost.pgn";
  std::ofstream(pgn) << "[Event \"t\"]\n[White \"me\"]\n[Black \"you\"]\n[Result \"0-1\"]\n\n1. e4 c5 0-1\n";
  REQUIRE(graphbook("learn " + quote(book) + " " + quote(pgn) + " --player me").status == 0);
  auto j = graphbook_json("pick " + quote(book) + " --policy learned --explain --json --no-names --seed 5");
  const nlohmann::json* e4 = find_move(j["candidates"], "e2e4");
  REQUIRE(e4);
  CHECK((*e4)["weight"] == 0);
  CHECK((*e4)["reason"].get<std::string>().find("lost last time") != std::string::npos);
  for (int seed = 0; seed < 20; ++seed)
    CHECK(graphbook("pick " + quote(book) + " --policy learned --no-names --seed " + std::to_string(seed))
              .out != "e2e4 e4\n");
  // The weighted policy ignores learning.
  auto w = graphbook_json("pick " + quote(book) + " --policy weighted --explain --json --no-names --seed 5");
  CHECK(find_move(w["candidates"], "e2e4")->at("weight") == 1133);
}

TEST_CASE("Tree shows transpositions as edges meeting at one node", "[probe][e2e][tree]") {
  auto j =
      graphbook_json("tree " + book_arg() + " --moves d4 --depth 4 --min-games 15 --format json --no-names");
  REQUIRE(j.is_object());
  REQUIRE(j["nodes"].size() >= 10);
  REQUIRE(j["edges"].size() >= j["nodes"].size());  // a tree has one edge less; transpositions add more
  std::set<std::string> ids;
  for (const auto& n : j["nodes"]) CHECK(ids.insert(n["id"].get<std::string>()).second);
  std::map<std::string, int> in_degree;
  int transpositions = 0;
  for (const auto& e : j["edges"]) {
    CHECK(ids.count(e["from"].get<std::string>()));
    CHECK(ids.count(e["to"].get<std::string>()));
    ++in_degree[e["to"].get<std::string>()];
    transpositions += e["transposition"].get<bool>();
  }
  CHECK(transpositions > 0);
  int met = 0;
  for (auto& [id, n] : in_degree) met += n > 1;
  CHECK(met == transpositions);  // each transposition edge enters a node that already had one

  Run dot = graphbook("tree " + book_arg() + " --depth 2 --min-games 50 --format dot --no-names");
  CHECK(dot.status == 0);
  CHECK(dot.out.starts_with("digraph"));
  CHECK(dot.out.find("penwidth") != std::string::npos);
  if (std::system("command -v dot >/dev/null 2>&1") == 0) {
    Run svg = graphbook("tree " + book_arg() + " --depth 2 --min-games 50 --format svg --no-names");
    CHECK(svg.status == 0);
    CHECK(svg.out.find("<svg") != std::string::npos);
  }
  // Without graphviz on the PATH: a clear message, and --format dot still works.
  Run no_dot =
      graphbook("tree " + book_arg() + " --depth 1 --format svg --no-names", true, "PATH=/nonexistent");
  CHECK(no_dot.status == 2);
  CHECK(no_dot.out.find("graphviz") != std::string::npos);

  Run text = graphbook("tree " + book_arg() + " --depth 2 --min-games 100 --no-names");
  // grep: 1050 of the 2245 games of twic0920.pgn begin "1. e4".
  CHECK(text.out.find("e4  1050 games") != std::string::npos);
}

TEST_CASE("On a book without learning the learned policy picks what weighted picks",
          "[probe][e2e][learning]") {
  for (int seed = 0; seed < 12; ++seed) {
    std::string args = " --moves 'e4' --no-names --seed " + std::to_string(seed);
    Run weighted = graphbook("pick " + book_arg() + args + " --policy weighted");
    Run learned = graphbook("pick " + book_arg() + args + " --policy learned");
    CHECK(weighted.status == 0);
    CHECK(weighted.out == learned.out);
  }
}
