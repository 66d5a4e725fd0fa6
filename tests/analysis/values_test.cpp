// graphbook values: negamax through a hand-made book, worked out by hand here
// (docs/VALUES.md has the rule): a transposition, a repetition back to the
// start, leaves valued by their games and one by Stockfish.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "polyglot_bin.h"
#include "run_graphbook.h"
#include "temp_dir.h"

namespace {

using gb::test::graphbook;
using gb::test::quote;
using gb::test::Run;

// G1 and G2 meet after 2...Nc6 / 2...e5 (a transposition, T); G4 goes back to
// the start position (1.Nf3 Nf6 2.Ng1 Ng8) and ends at 3...Nf6.
const char* const kGames = R"([Event "G1"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 1-0

[Event "G2"]
[Result "0-1"]

1. Nf3 Nc6 2. e4 e5 0-1

[Event "G3"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nf6 1/2-1/2

[Event "G4"]
[Result "1/2-1/2"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 1/2-1/2

[Event "G5"]
[Result "1-0"]

1. d4 d5 1-0
)";

constexpr double kOwn = 4;  // a position's own value counts as four games

// v = (g*m + 4*own) / (g + 4): the best move's value m over its g games, mixed with the position's own.
double mix(double m, double g, double own) { return (g * m + kOwn * own) / (g + kOwn); }

nlohmann::json probe(const std::string& book, const std::string& moves) {
  Run r = graphbook("probe " + quote(book) + (moves.empty() ? "" : " --moves " + quote(moves)) +
                    " --json --no-names");
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE(!j.is_discarded());
  return j;
}

const nlohmann::json& move(const nlohmann::json& position, const std::string& uci) {
  for (const auto& m : position["moves"])
    if (m["uci"] == uci) return m;
  FAIL("no move " << uci);
  static nlohmann::json none;
  return none;
}

std::string make_book(const gb::test::TempDir& dir) {
  std::string pgn = dir.write("games.pgn", kGames);
  std::string book = dir.file("hand.book");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(pgn) + " --quiet").status == 0);
  return book;
}

}  // namespace

TEST_CASE("values backs up a hand-made book's negamax over a transposition and a repetition", "[analysis]") {
  gb::test::TempDir dir("graphbook-values");
  std::string book = make_book(dir);
  Run r = graphbook("values " + quote(book) + " --json");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  auto summary = nlohmann::json::parse(r.out);
  CHECK(summary["positions"] == 13);
  CHECK(summary["valued"] == 13);
  CHECK(summary["repetitions"] == 1);  // 2...Ng8 back to the start

  // By hand, each position's own score is its games' for the side to move.
  const double T = 0.5;                  // 1.e4 e5 2.Nf3 Nc6 = 1.Nf3 Nc6 2.e4 e5: G1 1-0, G2 0-1; a leaf
  const double F = 0.5;                  // ... 2...Nf6: G3 drawn; a leaf
  const double E = 1.0;                  // 1.d4 d5: G5 1-0, White to move; a leaf
  const double D = mix(1 - E, 1, 0);     // 1.d4: Black scored 0
  const double C = mix(1 - T, 1, 0.25);  // 2.Nf3: Nc6 and Nf6 tie at 1/2; Black scored 1/4
  const double B = mix(1 - C, 2, 0.75);  // 1...e5: White scored 3/4
  const double A = mix(1 - B, 2, 0.25);  // 1.e4
  const double Q = mix(1 - T, 1, 1.0);   // 1.Nf3 Nc6 2.e4: Black won G2
  const double P = mix(1 - Q, 1, 0.0);   // 1.Nf3 Nc6
  const double U = mix(0.5, 1, 0.5);     // 1.Nf3 Nf6 2.Ng1: Ng8 repeats the start, a draw
  const double S = mix(1 - U, 1, 0.5);   // 1.Nf3 Nf6
  const double N = mix(std::max(1 - P, 1 - S), 1, 0.75);          // 1.Nf3: Nc6 (1 - P) beats Nf6
  const double R = mix(std::max({1 - A, 1 - N, 1 - D}), 1, 0.6);  // d4 (1 - D) is best; White scored 3/5
  REQUIRE(1 - D > 1 - A);
  REQUIRE(1 - D > 1 - N);

  auto root = probe(book, "");
  CHECK(root["value"]["score"].get<double>() == Approx(R).epsilon(1e-9));
  CHECK(root["value"]["depth"] == 2);    // d4 d5
  CHECK(!root["value"].contains("cp"));  // no engine evaluation under it
  CHECK(move(root, "e2e4")["value"]["score"].get<double>() == Approx(1 - A));
  CHECK(move(root, "e2e4")["value"]["depth"] == 4);  // e4 e5 Nf3 Nc6
  CHECK(move(root, "g1f3")["value"]["score"].get<double>() == Approx(1 - N));
  CHECK(move(root, "g1f3")["value"]["depth"] == 4);  // Nf3 Nc6 e4 e5
  CHECK(move(root, "d2d4")["value"]["score"].get<double>() == Approx(1 - D));
  auto after_nf3 = probe(book, "Nf3");
  CHECK(move(after_nf3, "g8f6")["value"]["score"].get<double>() == Approx(1 - S));
  CHECK(move(after_nf3, "g8f6")["value"]["depth"] == 3);  // Nf6 Ng1 Ng8(repeats)
  CHECK(probe(book, "Nf3 Nf6 Ng1")["value"]["score"].get<double>() == Approx(U));
  // The transposed position has one value, whichever way it is reached.
  CHECK(move(probe(book, "e4 e5 Nf3"), "b8c6")["value"] == move(probe(book, "Nf3 Nc6 e4"), "e7e5")["value"]);
  CHECK(probe(book, "e4 e5 Nf3")["value"]["score"].get<double>() == Approx(C));
  CHECK(probe(book, "Nf3 Nc6")["value"]["score"].get<double>() == Approx(P));
  (void)F;
}

TEST_CASE("values with --min-games counts only moves with that many games", "[analysis]") {
  gb::test::TempDir dir("graphbook-values");
  std::string book = make_book(dir);
  REQUIRE(graphbook("values " + quote(book) + " --min-games 2").status == 0);
  // Moves of 2 games: 1.e4, 1.Nf3, 1...e5, 2.Nf3; the rest are leaves.
  const double C = 0.25, N = 0.75;
  const double B = mix(1 - C, 2, 0.75), A = mix(1 - B, 2, 0.25);
  const double R = mix(std::max(1 - A, 1 - N), 2, 0.6);
  auto root = probe(book, "");
  CHECK(root["value"]["score"].get<double>() == Approx(R));
  CHECK(root["value"]["depth"] == 3);
  CHECK(move(root, "d2d4")["value"]["score"].get<double>() == Approx(1.0));  // 1.d4's own: Black scored 0
  CHECK(move(root, "d2d4")["value"]["depth"] == 1);
}

TEST_CASE("An analysed leaf is valued by its evaluation on the logistic curve and gives the value centipawns",
          "[analysis]") {
  gb::test::TempDir dir("graphbook-values");
  std::string book = make_book(dir);
  REQUIRE(graphbook("analyse " + quote(book) + " --from " + quote("d4 d5") +
                    " --depth 8 --engine-option Threads=1")
              .status == 0);
  REQUIRE(graphbook("values " + quote(book)).status == 0);
  auto leaf = probe(book, "d4 d5");
  REQUIRE(leaf["eval"].contains("cp"));
  double cp = leaf["eval"]["cp"].get<double>();
  const double E = 1 / (1 + std::exp(-0.00368208 * cp));  // docs/VALUES.md
  CHECK(leaf["value"]["score"].get<double>() == Approx(E));
  CHECK(leaf["value"]["cp"].get<double>() == Approx(cp).margin(1));
  auto root = probe(book, "");
  const double D = mix(1 - E, 1, 0);
  CHECK(move(root, "d2d4")["value"]["score"].get<double>() == Approx(1 - D));
  CHECK(move(root, "d2d4")["value"].contains("cp"));
  CHECK(move(root, "e2e4")["value"].contains("cp") == false);
}

TEST_CASE("export --eval-learn puts each move's evaluation for the mover in the learn field, 0 where none",
          "[analysis]") {
  gb::test::TempDir dir("graphbook-values");
  std::string book = make_book(dir);
  // 1.d4, 1.d4 d5 and the positions from 1.e4 e5 on are analysed; 1.e4 itself is not.
  for (const char* from : {"d4", "e4 e5"})
    REQUIRE(graphbook("analyse " + quote(book) + " --from " + quote(from) +
                      " --depth 6 --engine-option Threads=1")
                .status == 0);
  std::string bin = dir.file("book.bin");
  REQUIRE(graphbook("export " + quote(book) + " " + quote(bin) + " --eval-learn").status == 0);
  auto key = [&](const std::string& moves) {
    return std::stoull(probe(book, moves)["key"].get<std::string>(), nullptr, 16);
  };
  auto learn = [&](const std::string& moves, const std::string& uci) {
    for (const auto& e : gb::test::read_bin_entries(bin, key(moves)))
      if (gb::test::bin_move_uci(e.move) == uci) return std::optional<std::uint32_t>(e.learn);
    return std::optional<std::uint32_t>();
  };
  const std::int64_t offset = std::int64_t(1) << 31;                            // docs/FORMAT.md: cp + 2^31
  std::int64_t after_d4 = probe(book, "d4")["eval"]["cp"].get<std::int64_t>();  // Black to move
  std::int64_t after_e5 = probe(book, "e4 e5")["eval"]["cp"].get<std::int64_t>();       // White to move
  std::int64_t after_nf3 = probe(book, "e4 e5 Nf3")["eval"]["cp"].get<std::int64_t>();  // Black to move
  REQUIRE(learn("", "d2d4"));
  CHECK(std::int64_t(*learn("", "d2d4")) == offset - after_d4);  // for White: minus Black's view
  REQUIRE(learn("e4", "e7e5"));
  CHECK(std::int64_t(*learn("e4", "e7e5")) == offset - after_e5);
  REQUIRE(learn("e4 e5", "g1f3"));
  CHECK(std::int64_t(*learn("e4 e5", "g1f3")) == offset - after_nf3);
  REQUIRE(learn("", "e2e4"));
  CHECK(*learn("", "e2e4") == 0u);  // 1.e4 not analysed
  // Without the flag the learn field stays 0.
  REQUIRE(graphbook("export " + quote(book) + " " + quote(bin)).status == 0);
  CHECK(*learn("", "d2d4") == 0u);
}
