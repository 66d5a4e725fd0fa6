// The line parameters focus and max (section 18 of the reference) on the
// games of twic0920. Expected values are counted here with the chess core
// alone: each game's mainline positions, walked by hand.
#include <catch2/catch.hpp>
#include <optional>
#include <vector>

#include "book/cql/evaluator.h"
#include "book/cql/game_reader.h"
#include "query_helpers.h"
#include "test_data.h"

using namespace gb;
using namespace gb::cql;

namespace {

constexpr int kGames = 300;  // the first games of twic0920 are plenty, and keep the test fast

std::vector<Game> twic_games() {
  std::vector<Game> games;
  pgn::PgnReader reader(pgn::ByteSource::open(gb::test::data_path("pgn/small/twic0920.pgn")),
                        cql_read_options());
  GameTreeVisitor visitor([&](Game& g) {
    if (g.number <= kGames) games.push_back(std::move(g));
  });
  reader.read_all(visitor);
  REQUIRE(games.size() == kGames);
  return games;
}

// The mainline's position IDs, in order.
std::vector<int> mainline(const Game& g) {
  std::vector<int> ids{0};
  while (!g.nodes[std::size_t(ids.back())].children.empty())
    ids.push_back(g.nodes[std::size_t(ids.back())].children[0]);
  return ids;
}

// White's material minus Black's, pawns 1, knights and bishops 3, rooks 5, queens 9.
int material(const Position& p) {
  static const std::pair<PieceType, int> values[] = {{PieceType::Pawn, 1},
                                                     {PieceType::Knight, 3},
                                                     {PieceType::Bishop, 3},
                                                     {PieceType::Rook, 5},
                                                     {PieceType::Queen, 9}};
  int m = 0;
  for (auto [t, v] : values)
    m += v * (popcount(p.pieces(Color::White, t)) - popcount(p.pieces(Color::Black, t)));
  return m;
}

std::optional<std::int64_t> number_of(const Value& v) {
  if (v.kind != Value::Kind::Numeric) return std::nullopt;
  return v.number;
}

}  // namespace

TEST_CASE("line focus steps over the positions out of focus: Black in check at Black's turns running",
          "[cql][line]") {
  // line focus btm --> check{+}: from a Black-to-move position, the number of
  // Black's turns in a row (White's in between skipped) with Black in check.
  cql::test::Query q("line focus btm --> check{+}");
  int runs_of_two = 0, checked = 0;
  for (const Game& g : twic_games()) {
    const std::vector<int> ids = mainline(g);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const Position& p = g.nodes[std::size_t(ids[i])].position;
      std::int64_t run = 0;
      if (p.side_to_move() == Color::Black)
        for (std::size_t j = i; j < ids.size() && g.nodes[std::size_t(ids[j])].position.in_check(); j += 2)
          ++run;
      INFO("game " << g.number << " position " << ids[i]);
      std::optional<std::int64_t> got = number_of(q.at(g, ids[i]));
      CHECK(got == (run > 0 ? std::optional<std::int64_t>(run) : std::nullopt));
      if (run >= 2) ++runs_of_two;
      ++checked;
    }
  }
  CHECK(checked > 20000);
  CHECK(runs_of_two > 10);  // the expected set is not empty: the test can tell focus from its absence
}

TEST_CASE("line max chooses the sequence whose end maximises its filter, not the longest", "[cql][line]") {
  // The reference's example: the capture run that ends with the best material balance for White.
  cql::test::Query q("line max power A - power a --> move capture .{+}");
  cql::test::Query longest("line --> move capture .{+}");
  int shorter_than_longest = 0, runs = 0;
  for (const Game& g : twic_games()) {
    const std::vector<int> ids = mainline(g);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      // The run of positions from ids[i] whose mainline move is a capture.
      std::size_t k = 0;
      while (i + k + 1 < ids.size()) {
        const Position& p = g.nodes[std::size_t(ids[i + k])].position;
        const Move m = g.nodes[std::size_t(ids[i + k + 1])].move;
        const bool capture = m.kind() == Move::Kind::EnPassant ||
                             (m.kind() != Move::Kind::Castling && p.piece_on(m.to()) != Piece::None);
        if (!capture) break;
        ++k;
      }
      std::optional<std::int64_t> expected;
      if (k > 0) {
        std::size_t best = i;
        for (std::size_t e = i; e < i + k; ++e)
          if (material(g.nodes[std::size_t(ids[e])].position) >
              material(g.nodes[std::size_t(ids[best])].position))
            best = e;
        expected = std::int64_t(best - i + 1);
        ++runs;
        if (*expected != std::int64_t(k)) ++shorter_than_longest;
        CHECK(number_of(longest.at(g, ids[i])) == std::optional<std::int64_t>(k));
      }
      INFO("game " << g.number << " position " << ids[i]);
      CHECK(number_of(q.at(g, ids[i])) == expected);
    }
  }
  CHECK(runs > 1000);
  CHECK(shorter_than_longest > 10);  // max is seen to choose another sequence than the longest
}

TEST_CASE("line focus and max are parsed as the reference writes them, and misuse is a parse error",
          "[cql][line]") {
  for (const char* ok : {"line focus wtm --> check {3,}", "line max power A - power a --> move capture .{+}",
                         "line focus wtm max ply singlecolor --> check"}) {
    INFO(ok);
    CHECK(std::holds_alternative<Program>(parse(ok)));
  }
  for (const char* bad : {"line firstmatch max ply --> check", "line max \"x\" --> check",
                          "line focus check focus mate --> check"}) {
    INFO(bad);
    CHECK(std::holds_alternative<ParseError>(parse(bad)));
  }
}

TEST_CASE("line piecepath comments the squares each designated piece visited at the sequence's end",
          "[cql][line]") {
  // The reference's own example (section 18): {Path of Ng1: g1-f3-g5}.
  Game g = cql::test::game_from({"Nf3", "Nc6", "Ng5", "e5"});
  cql::test::Query q("initial line quiet piecepath Ng1 --> true --> true --> true --> true");
  GameResult r = q.run(g);
  REQUIRE(r.matched());
  REQUIRE(r.comments.size() == 1);  // quiet drops the Start/End comments, not the path
  CHECK(r.comments[0].text == "Path of Ng1: g1-f3-g5");
  CHECK(r.comments[0].position == 3);  // the end of the sequence, after 2.Ng5
  CHECK(r.comments[0].auxiliary);      // --quiet drops it

  // Traced by hand: 1.Nf3 d5 2.Ne5 Nd7 3.Nxd7 Bxd7; a captured piece's path ends where it was taken.
  Game h = cql::test::game_from({"Nf3", "d5", "Ne5", "Nd7", "Nxd7", "Bxd7"});
  cql::test::Query all("initial line quiet piecepath [Nn] --> true{7}");
  GameResult s = all.run(h);
  std::vector<std::string> texts;
  for (const auto& c : s.comments) texts.push_back(c.text);
  CHECK(texts == std::vector<std::string>{"Path of Nb1: b1", "Path of Ng1: g1-f3-e5-d7", "Path of nb8: b8-d7",
                                          "Path of ng8: g8"});
}
