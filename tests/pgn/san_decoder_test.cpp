// The reader's fast SAN decoder gives exactly what the chess core's parse_san
// gives, on every legal move of real positions and on near-miss spellings.
#include "book/pgn/san_decoder.h"

#include <catch2/catch.hpp>

#include "book/chess/movegen.h"
#include "book/pgn/game_record.h"
#include "test_data.h"

using namespace gb;
using namespace gb::pgn;

namespace {

// Spellings around a legal move's SAN: as written, without suffix or 'x',
// other pieces and squares, so that illegal and ambiguous answers are compared too.
std::vector<std::string> spellings(const std::string& san) {
  std::vector<std::string> out{san};
  std::string bare = san;
  while (!bare.empty() && (bare.back() == '+' || bare.back() == '#')) bare.pop_back();
  out.push_back(bare);
  std::string no_x;
  for (char c : bare)
    if (c != 'x') no_x += c;
  out.push_back(no_x);
  for (char piece : std::string("NBRQK")) {
    if (bare.size() >= 2 && bare[0] >= 'A' && bare[0] <= 'Z' && bare[0] != 'O') {
      std::string other = bare;
      other[0] = piece;
      out.push_back(other);
    }
  }
  if (bare.size() >= 2) {
    std::string shifted = bare;
    char& file = shifted[shifted.size() - 2];
    if (file >= 'a' && file <= 'g') ++file;
    out.push_back(shifted);
    if (bare[0] >= 'a' && bare[0] <= 'h')
      out.push_back(std::string(1, bare[0]) + "x" + bare.substr(bare.size() - 2));
  }
  return out;
}

}  // namespace

TEST_CASE("decode_san agrees with parse_san on every legal move of TWIC positions", "[pgn]") {
  std::uint64_t compared = 0;
  int mismatches = 0;
  read_games(gb::test::data_path("pgn/small/twic0920.pgn"), [&](const GameRecord& g) {
    if (g.game_number % 8 != 0) return;  // every eighth game keeps the test under a few seconds
    Position pos = g.start;
    UndoInfo undo;
    for (const auto& ply : g.mainline) {
      MoveList moves;
      generate_legal(pos, moves);
      for (Move m : moves) {
        for (const std::string& text : spellings(to_san(pos, m))) {
          MoveParse fast = decode_san(pos, text);
          MoveParse slow = parse_san(pos, text);
          ++compared;
          bool same = fast.move == slow.move && (slow.ok() || fast.error == slow.error);
          if (!same && ++mismatches <= 5) FAIL_CHECK(pos.fen() << " '" << text << "'");
        }
      }
      pos.do_move(ply.move, undo);
    }
  });
  CHECK(compared > 200000);
  CHECK(mismatches == 0);
}
