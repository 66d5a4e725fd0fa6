// graphbook cql end to end: the real binary on real files.
#include <catch2/catch.hpp>
#include <sstream>

#include "book/pgn/reader.h"
#include "run_graphbook.h"
#include "temp_dir.h"
#include "test_data.h"

namespace {

using gb::test::graphbook;
using gb::test::read_file;
using gb::test::Run;

// What the PGN reader sees in a text: games, moves (all lines), comments, NAGs, variations.
struct Counts : gb::pgn::VisitorBase {
  int games = 0, moves = 0, comments = 0, nags = 0, variations = 0;
  void begin_game(const gb::pgn::GameLocation&) { ++games; }
  gb::pgn::Control move(const gb::pgn::MoveEvent&) {
    ++moves;
    return gb::pgn::Control::Continue;
  }
  void comment(std::string_view) { ++comments; }
  void nag(int) { ++nags; }
  gb::pgn::Control begin_variation() {
    ++variations;
    return gb::pgn::Control::Continue;
  }
};

Counts count(gb::pgn::ByteSource source) {
  Counts c;
  gb::pgn::PgnReader reader(std::move(source));
  reader.read_all(c);
  return c;
}

const std::string kTwic = gb::test::data_path("pgn/small/twic0920.pgn");

}  // namespace

TEST_CASE("cql writes the same games in the same order whatever the thread count", "[cql][cli]") {
  Run one = graphbook("cql -i " + kTwic + " --cql 'check move previous capture .' --threads 1");
  Run two = graphbook("cql -i " + kTwic + " --cql 'check move previous capture .' --threads 2");
  REQUIRE(one.status == 0);
  REQUIRE(two.status == 0);
  CHECK(one.out.size() > 10000);
  CHECK(one.out == two.out);
}

TEST_CASE("cql keeps comments, NAGs and variations of the games it writes", "[cql][cli]") {
  const std::string file = gb::test::data_path("pgn/annotated/scalachess-wcc2023-annotated.pgn");
  Run r = graphbook("cql -i " + file + " --cql initial --silent");
  REQUIRE(r.status == 0);
  Counts in = count(gb::pgn::ByteSource::open(file));
  Counts out = count(gb::pgn::ByteSource::from_memory(r.out));
  CHECK(in.games > 1);
  CHECK(out.games == in.games);
  CHECK(out.moves == in.moves);
  CHECK(out.comments == in.comments);
  CHECK(out.nags == in.nags);
  CHECK(out.variations == in.variations);
}

TEST_CASE("cql adds the game number, match and comment-filter comments", "[cql][cli]") {
  Run r =
      graphbook("cql -i " + kTwic + " -g 1 --cql " + gb::test::quote("initial comment(\"players \" player)"));
  REQUIRE(r.status == 0);
  CHECK(r.out.find("{Game number 1} {CQL} {players Navara,D\nSvidler,P}") != std::string::npos);
  Run quiet = graphbook("cql -i " + kTwic + " -g 1 --quiet --cql initial");
  CHECK(quiet.out.find("{Game number 1} 1.") != std::string::npos);
  Run silent =
      graphbook("cql -i " + kTwic + " -g 1 --silent --cql " + gb::test::quote("initial comment(\"x\")"));
  CHECK(silent.out.find('{') == std::string::npos);
  Run custom = graphbook("cql -i " + kTwic + " -g 1 --noheader --matchstring HIT --cql initial");
  CHECK(custom.out.find("\n\n{HIT} 1.") != std::string::npos);
}

TEST_CASE("cql selects games by number, limits and match count", "[cql][cli]") {
  Counts some =
      count(gb::pgn::ByteSource::from_memory(graphbook("cql -i " + kTwic + " -g 3 7 --cql initial").out));
  CHECK(some.games == 5);
  Counts limited = count(gb::pgn::ByteSource::from_memory(
      graphbook("cql -i " + kTwic + " --limit 4 --cql check --threads 2").out));
  CHECK(limited.games == 4);
  // Games with at least 30 checks: fewer than games with at least one.
  Counts many = count(gb::pgn::ByteSource::from_memory(
      graphbook("cql -i " + kTwic + " --matchcount 30 1000 --cql check").out));
  Counts any = count(gb::pgn::ByteSource::from_memory(graphbook("cql -i " + kTwic + " --cql check").out));
  CHECK(many.games > 0);
  CHECK(many.games < any.games);
}

TEST_CASE("cql filter injections restrict the query", "[cql][cli]") {
  const std::string carlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");
  // Counted independently: [White "...Carlsen..."] lines.
  std::istringstream in(read_file(carlsen));
  int white = 0;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("[White \"", 0) == 0 && line.find("Carlsen") != std::string::npos) ++white;
  Counts got = count(gb::pgn::ByteSource::from_memory(
      graphbook("cql -i " + carlsen + " --white Carlsen --cql initial").out));
  CHECK(white > 500);
  CHECK(got.games == white);
  Counts btm =
      count(gb::pgn::ByteSource::from_memory(graphbook("cql -i " + kTwic + " --btm --cql mate").out));
  Counts btm_query =
      count(gb::pgn::ByteSource::from_memory(graphbook("cql -i " + kTwic + " --cql 'btm mate'").out));
  CHECK(btm.games == btm_query.games);
}

TEST_CASE("cql reports a bad query with its place and exits 2", "[cql][cli]") {
  Run r = graphbook("cql -i " + kTwic + " --cql " + gb::test::quote("mate\ncheck frob"));
  CHECK(r.status == 2);
  CHECK(r.err.find("--cql:2:7: error: unknown filter 'frob'\n  check frob\n        ^~~~\n") !=
        std::string::npos);
  // An injection CQL cannot quote, and a result that is none: the option is named, nothing is read.
  Run quote_in_name = graphbook("cql -i " + kTwic + " --player 'Carlsen\"' --cql mate");
  CHECK(quote_in_name.status == 2);
  CHECK(quote_in_name.err == "graphbook cql: --player: a CQL string cannot contain a double quote\n");
  Run result = graphbook("cql -i " + kTwic + " --result 2-0 --cql mate");
  CHECK(result.status == 2);
  CHECK(result.err == "graphbook cql: --result: expected 1-0, 0-1, 1/2-1/2 or *\n");
  Run missing = graphbook("cql -i /nonexistent.pgn --cql mate");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("/nonexistent.pgn") != std::string::npos);
}

TEST_CASE("cql --parse prints the tree and exit status 1 means no game matched", "[cql][cli]") {
  Run p = graphbook("cql --parse --cql " + gb::test::quote("position 0 : wtm"));
  CHECK(p.status == 0);
  CHECK(p.out.find(": : Boolean\n    position : Position") != std::string::npos);
  Run none = graphbook("cql -i " + kTwic + " --cql " + gb::test::quote("[Aa] == 40"));
  CHECK(none.status == 1);
  CHECK(none.out.empty());
}

TEST_CASE("cql reads the query from a file, with --cql text first", "[cql][cli]") {
  gb::test::TempDir dir;
  std::string path = dir.write("query.cql", "// mates by Black\nmate\n");
  Run a = graphbook("cql -i " + kTwic + " --cql btm " + path.substr(0, path.size() - 4));  // ".cql" is added
  Run b = graphbook("cql -i " + kTwic + " --cql 'btm mate'");
  CHECK(a.status == 0);
  CHECK(a.out == b.out);
}

TEST_CASE("cql --variations searches variation positions, --mainline does not", "[cql][cli]") {
  const std::string file = gb::test::data_path("pgn/annotated/scalachess-wcc2023-annotated.pgn");
  // Moves inside variations, counted by the PGN reader: each leads to one variation position.
  struct VariationMoves : gb::pgn::VisitorBase {
    int moves = 0;
    gb::pgn::Control move(const gb::pgn::MoveEvent& e) {
      if (e.depth > 0) ++moves;
      return gb::pgn::Control::Continue;
    }
    gb::pgn::Control begin_variation() { return gb::pgn::Control::Continue; }
  } v;
  gb::pgn::PgnReader reader(gb::pgn::ByteSource::open(file));
  reader.read_all(v);
  Run r = graphbook("cql -i " + file + " --variations --json --cql variation");
  CHECK(r.status == 0);
  CHECK(r.err.find("\"matched_positions\":" + std::to_string(v.moves)) != std::string::npos);
  Run header = graphbook("cql -i " + file + " --cql 'cql(variations) variation' --mainline");
  CHECK(header.status == 1);
}

TEST_CASE("cql settag edits the written tags (PlyCount from the mainline length)", "[cql][cli]") {
  Run r = graphbook(
      "cql -i " + kTwic + " -g 1 3 --cql " +
      gb::test::quote("cql(silent) terminal mainline settag(\"PlyCount\" str ply) removetag \"Round\""));
  REQUIRE(r.status == 0);
  // The plies of games 1-3 from the data's python-chess oracle file.
  std::istringstream oracle(read_file(kTwic + ".oracle.tsv"));
  std::vector<std::string> plies;
  for (std::string line; std::getline(oracle, line) && plies.size() < 3;) {
    if (line.empty() || line[0] == '#') continue;
    std::size_t tab = line.find('\t');  // columns: index, plies, ...
    plies.push_back(line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1));
  }
  REQUIRE(plies.size() == 3);
  std::size_t at = 0;
  for (const std::string& p : plies) {
    at = r.out.find("[PlyCount \"", at);
    REQUIRE(at != std::string::npos);
    CHECK(r.out.substr(at + 11, p.size() + 1) == p + "\"");
    ++at;
  }
  CHECK(r.out.find("[Round ") == std::string::npos);
  CHECK(r.out.find('{') == std::string::npos);
}

TEST_CASE("message quiet leaves out the game and move, also right after a move filter", "[cql][cli]") {
  // Reference section "message and assert": output is prefixed with game
  // number and move unless message quiet is used.
  Run plain = graphbook("cql -i " + kTwic + " -g 1 --cql " + gb::test::quote("move to f3 message \"hit\""));
  Run quiet =
      graphbook("cql -i " + kTwic + " -g 1 --cql " + gb::test::quote("move to f3 message quiet \"hit\""));
  Run inside =
      graphbook("cql -i " + kTwic + " -g 1 --cql " + gb::test::quote("move to f3 (message quiet \"hit\")"));
  REQUIRE(plain.status == 0);
  REQUIRE(quiet.status == 0);
  REQUIRE(inside.status == 0);
  CHECK(plain.err.find("game 1, move 1(btm): hit\n") != std::string::npos);
  CHECK(quiet.err.rfind("hit\nhit\n", 0) == 0);
  CHECK(quiet.err.find("game 1, move") == std::string::npos);
  CHECK(inside.err.rfind("hit\nhit\n", 0) == 0);
}

TEST_CASE("cql keeps each Chess960 castling right with its own rook in an imagined position", "[cql][cli]") {
  // Four [Variant "fischerandom"] games with KQkq in their FEN tags. Castling
  // rooks: game 1 d1 g1 (king e1), game 2 a1 d1 (king c1), games 3 and 4 have
  // theirs on h1. With the white knights, bishops and queen taken off, a rook
  // put on h1 in games 1 and 2 stands beyond the kingside castling rook and
  // has no right of its own: by the rules O-O (king to g1, rook to f1) stays
  // legal. `not Rh1` leaves games 3 and 4 out.
  const std::string file = gb::test::data_path("pgn/python-chess/cutechess-fischerrandom.pgn");
  Run r =
      graphbook("cql -i " + file + " --cql " +
                gb::test::quote("initial not Rh1 imagine piece _ --> [NBQ] piece R --> h1 : move legal o-o"));
  CHECK(r.status == 0);
  CHECK(count(gb::pgn::ByteSource::from_memory(r.out)).games == 2);
}
