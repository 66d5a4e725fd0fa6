// --weight SOURCE=x (book/store/buckets.h, sum_selected): a source's games
// count x times in probe and export. The expected counts are computed here
// from each file's games (selected_games.h), weighted and rounded as
// docs/FORMAT.md says; weight 0 is checked against a book built without the
// source.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "selected_games.h"

using namespace gb::test::buckets;

namespace {

void build(const std::string& book, const std::string& pgn, const std::string& more) {
  auto b = graphbook("build " + quote(book) + " " + quote(pgn) + " --max-ply " + std::to_string(kMaxPly) +
                     " --quiet " + more);
  INFO(b.out);
  REQUIRE(b.status == 0);
}

nlohmann::json probe(const std::string& book, const std::string& moves, const std::string& more) {
  auto p = graphbook("probe " + quote(book) + " --moves " + quote(moves) + " --json --no-names " + more);
  INFO(p.out);
  REQUIRE(p.status == 0);
  return nlohmann::json::parse(p.out);
}

int rounded(double x) { return int(std::floor(x + 0.5)); }

}  // namespace

TEST_CASE("A weight (--weight) counts a source's games that many times, rounded per result", "[buckets]") {
  TempDir dir;
  const std::string a = generate(dir, "a.pgn", 600, 31), b = generate(dir, "b.pgn", 600, 32);
  const std::string book = dir.file("ab.book");
  build(book, a, "--buckets --source alpha");
  build(book, b, "");
  const auto games_a = read_games(a), games_b = read_games(b);
  REQUIRE(games_a.size() == 600);

  for (const std::string moves : {"", "e4", "d4"}) {
    INFO("after '" << moves << "'");
    gb::Position pos;
    for (std::size_t at = 0; at < moves.size();) {
      std::size_t end = moves.find(' ', at);
      const std::string san = moves.substr(at, end - at);
      const gb::MoveParse m = gb::parse_san(pos, san);
      REQUIRE(m.ok());
      gb::UndoInfo undo;
      pos.do_move(m.move, undo);
      at = end == std::string::npos ? moves.size() : end + 1;
    }
    const Expected ea = expected(games_a, pos.key(), {}), eb = expected(games_b, pos.key(), {});
    for (double w : {2.0, 0.5, 0.3}) {
      INFO("alpha=" << w);
      auto j = probe(book, moves, "--weight alpha=" + std::to_string(w));
      CHECK(j["filter"]["weight"][0] == "alpha=" + std::to_string(w));
      std::size_t checked = 0;
      for (const auto& move : j["moves"]) {
        const std::string uci = move["uci"];
        const Counts ca = ea.moves.count(uci) ? ea.moves.at(uci) : Counts{};
        const Counts cb = eb.moves.count(uci) ? eb.moves.at(uci) : Counts{};
        const int white = rounded(w * ca.white + cb.white), draws = rounded(w * ca.draws + cb.draws),
                  black = rounded(w * ca.black + cb.black);
        const int unknown = rounded(w * (ca.games - ca.white - ca.draws - ca.black) +
                                    (cb.games - cb.white - cb.draws - cb.black));
        INFO(uci);
        CHECK(move["white"] == white);
        CHECK(move["draws"] == draws);
        CHECK(move["black"] == black);
        CHECK(move["games"] == white + draws + black + unknown);
        ++checked;
      }
      // Every move either file played with a weighted game left is listed.
      std::size_t expected_moves = 0;
      std::set<std::string> ucis;
      for (const auto& [uci, c] : ea.moves) ucis.insert(uci);
      for (const auto& [uci, c] : eb.moves) ucis.insert(uci);
      for (const std::string& uci : ucis) {
        const Counts ca = ea.moves.count(uci) ? ea.moves.at(uci) : Counts{};
        const Counts cb = eb.moves.count(uci) ? eb.moves.at(uci) : Counts{};
        const int unknown = rounded(w * (ca.games - ca.white - ca.draws - ca.black) +
                                    (cb.games - cb.white - cb.draws - cb.black));
        expected_moves += rounded(w * ca.white + cb.white) + rounded(w * ca.draws + cb.draws) +
                              rounded(w * ca.black + cb.black) + unknown >
                          0;
      }
      REQUIRE(expected_moves > 0);
      CHECK(checked == expected_moves);
    }
  }
}

TEST_CASE("Weight 0 (--weight SOURCE=0) answers as the book built without the source", "[buckets]") {
  TempDir dir;
  const std::string a = generate(dir, "a.pgn", 500, 41), b = generate(dir, "b.pgn", 500, 42);
  build(dir.file("ab.book"), a, "--buckets");
  build(dir.file("ab.book"), b, "--source beta");
  build(dir.file("a.book"), a, "--buckets");
  for (const std::string moves : {"", "e4", "d4 d5"}) {
    INFO("after '" << moves << "'");
    CHECK(probe(dir.file("ab.book"), moves, "--weight beta=0")["moves"] ==
          probe(dir.file("a.book"), moves, "")["moves"]);
  }
  auto exported = [&](const std::string& book, const std::string& more) {
    const std::string bin = dir.file("out.bin");
    auto e = graphbook("export " + quote(book) + " " + quote(bin) + " " + more);
    INFO(e.out);
    REQUIRE(e.status == 0);
    return bytes_of(bin);
  };
  const std::string without = exported(dir.file("a.book"), "");
  CHECK(exported(dir.file("ab.book"), "--weight beta=0") == without);
  CHECK(exported(dir.file("ab.book"), "") != without);

  // A name that is no source, and a weight that is none: refused, naming them.
  auto bad = graphbook("probe " + quote(dir.file("ab.book")) + " --weight gamma=1", true);
  CHECK(bad.status == 2);
  CHECK(bad.out.find("no source 'gamma' (its sources: " + a + ", beta)") != std::string::npos);
  auto nan = graphbook("probe " + quote(dir.file("ab.book")) + " --weight beta=-1", true);
  CHECK(nan.status == 2);
  CHECK(nan.out.find("--weight beta=-1: not SOURCE=WEIGHT") != std::string::npos);
}
