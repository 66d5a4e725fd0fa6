// The worked examples of section 29 of the CQL reference, run on real games.
// Expected matches come from other sources: python-chess's final positions
// (the data's oracle files), counts of tags with grep-like scans, or the
// games replayed with the PGN reader and the chess core alone.
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "book/chess/movegen.h"
#include "book/cql/evaluator.h"
#include "book/cql/game_reader.h"
#include "book/cql/runner.h"
#include "book/pgn/game_record.h"
#include "shared_data.h"
#include "temp_dir.h"
#include "test_data.h"

using namespace gb;

namespace {

const std::string kTwic = gb::test::data_path("pgn/small/twic0920.pgn");
const std::string kCarlsen = gb::test::data_path("pgn/small/pgnmentor-Carlsen.pgn");

// Games written for the material and mating-pattern examples, which the human
// games of twic0920 never show (there their expected sets are empty, and a cql
// that never matched would pass). Each is set up from a FEN; its Event says what
// it holds, and the oracle's replay with the chess core checks every move.
const char* kConstructed = R"([Event "double-check mate, the mated side 11 ahead"]
[Result "1-0"]
[SetUp "1"]
[FEN "r2qkb2/3p1p2/8/8/4N3/8/8/4R1K1 w - - 0 1"]

1. Nd6# 1-0

[Event "the same with colours reversed: White mated by a double check, 11 ahead"]
[Result "0-1"]
[SetUp "1"]
[FEN "4r1k1/8/8/4n3/8/8/3P1P2/R2QKB2 b - - 0 1"]

1... Nd3# 0-1

[Event "a check answered by capturing the checker with mate"]
[Result "1-0"]
[SetUp "1"]
[FEN "K2r3k/6pp/8/8/8/8/8/3R4 w - - 0 1"]

1. Rxd8# 1-0

[Event "the same for Black"]
[Result "0-1"]
[SetUp "1"]
[FEN "3r4/8/8/8/8/8/6PP/k2R3K b - - 0 1"]

1... Rxd1# 0-1
)";

// twic0920 with the constructed games after it: real games and the rare patterns.
const std::string& twic_and_constructed() {
  static const gb::test::TempDir dir("graphbook-cql-examples");
  static const std::string path =
      dir.write("twic-and-constructed.pgn", gb::test::read_file(kTwic) + "\n" + kConstructed);
  return path;
}

// Game number -> matching position IDs (mainline positions: ID = ply).
using Matches = std::map<std::int64_t, std::vector<int>>;

// Games numbered above max_games are not evaluated.
Matches run_cql(const std::string& query, const std::string& file, std::int64_t max_games = INT64_MAX) {
  auto parsed = cql::parse(query);
  if (auto* e = std::get_if<cql::ParseError>(&parsed)) FAIL(e->render(query, "query"));
  cql::Program program = std::move(std::get<cql::Program>(parsed));
  cql::Evaluator evaluator(program);
  Matches out;
  pgn::PgnReader reader(pgn::ByteSource::open(file), cql::cql_read_options());
  cql::GameTreeVisitor visitor([&](cql::Game& g) {
    if (g.number > max_games) return;
    cql::GameResult r = evaluator.run(g, {});
    if (r.matched()) out[g.number] = r.matched_positions;
  });
  reader.read_all(visitor);
  return out;
}

// A game replayed with the chess core: the mainline positions and moves.
struct Replayed {
  std::int64_t number = 0;
  std::vector<Position> positions;  // positions[i] after i plies
  std::vector<Move> moves;          // moves[i] from positions[i]
  std::vector<std::pair<std::string, std::string>> tags;
  pgn::Outcome outcome = pgn::Outcome::Unknown;
  std::string tag(const std::string& name) const {
    for (const auto& [k, v] : tags)
      if (k == name) return v;
    return "";
  }
};

const std::vector<Replayed>& replay(const std::string& file) {
  static std::map<std::string, std::vector<Replayed>> cache;
  auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  std::vector<Replayed> games;
  pgn::read_games(
      file,
      [&](const pgn::GameRecord& r) {
        Replayed g;
        g.number = std::int64_t(r.game_number);
        g.tags = r.tags;
        g.outcome = r.outcome;
        Position p = r.start;
        g.positions.push_back(p);
        for (const auto& ply : r.mainline) {
          UndoInfo u;
          if (ply.move)
            p.do_move(ply.move, u);
          else
            p.do_null_move(u);
          g.moves.push_back(ply.move);
          g.positions.push_back(p);
        }
        games.push_back(std::move(g));
      },
      cql::cql_read_options());
  return cache[file] = std::move(games);
}

// Expected matches from a predicate over (game, ply). The predicate must hold
// somewhere in the file: against an empty expected set a cql that never
// matches would pass (every example's data is chosen so that it does).
Matches expect(const std::string& file, const std::function<bool(const Replayed&, int)>& at,
               std::int64_t max_games = INT64_MAX) {
  Matches out;
  for (const Replayed& g : replay(file))
    if (g.number <= max_games)
      for (int i = 0; i < int(g.positions.size()); ++i)
        if (at(g, i)) out[g.number].push_back(i);
  REQUIRE_FALSE(out.empty());
  return out;
}

bool is_mate(const Position& p) {
  MoveList l;
  generate_legal(p, l);
  return p.in_check() && l.empty();
}
bool is_stalemate(const Position& p) {
  MoveList l;
  generate_legal(p, l);
  return !p.in_check() && l.empty();
}
int material(const Position& p, Color c) {
  return popcount(p.pieces(c, PieceType::Pawn)) + 3 * popcount(p.pieces(c, PieceType::Knight)) +
         3 * popcount(p.pieces(c, PieceType::Bishop)) + 5 * popcount(p.pieces(c, PieceType::Rook)) +
         9 * popcount(p.pieces(c, PieceType::Queen));
}
bool is_castle(const Replayed& g, int i, int side) {  // side: 1 king, 2 queen, 3 any
  if (i >= int(g.moves.size())) return false;
  Move m = g.moves[std::size_t(i)];
  if (!m || m.kind() != Move::Kind::Castling) return false;
  bool king = m.to() > m.from();
  return side == 3 || (side == 1) == king;
}
bool last(const Replayed& g, int i) { return i + 1 == int(g.positions.size()); }

std::size_t games_of(const Matches& m) { return m.size(); }

// The first game and position where two match maps differ, with its FEN ("" when equal).
std::string first_difference(const Matches& got, const Matches& want, const std::string& file) {
  for (const Replayed& g : replay(file)) {
    auto a = got.find(g.number), b = want.find(g.number);
    std::vector<int> x = a == got.end() ? std::vector<int>{} : a->second;
    std::vector<int> y = b == want.end() ? std::vector<int>{} : b->second;
    if (x == y) continue;
    for (int i = 0; i < int(g.positions.size()); ++i) {
      bool in_x = std::count(x.begin(), x.end(), i), in_y = std::count(y.begin(), y.end(), i);
      if (in_x != in_y)
        return "game " + std::to_string(g.number) + " ply " + std::to_string(i) +
               (in_x ? " only cql: " : " only expected: ") + g.positions[std::size_t(i)].fen();
    }
  }
  return "";
}

#define CHECK_SAME(got, want, file) CHECK(first_difference(got, want, file) == "")

}  // namespace

TEST_CASE("Example 'mate' matches the games python-chess ends in checkmate", "[cql][examples]") {
  // The oracle's final FENs are python-chess's reading of each game.
  std::ifstream in(kTwic + ".oracle.tsv");
  std::string line;
  std::size_t expected = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    auto p = Position::from_fen(cols[4]);
    REQUIRE(p);
    if (is_mate(*p)) ++expected;
  }
  Matches got = run_cql("mate", kTwic);
  REQUIRE(expected > 10);
  CHECK(games_of(got) == expected);
  CHECK(got == expect(kTwic, [](const Replayed& g, int i) { return is_mate(g.positions[std::size_t(i)]); }));
}

TEST_CASE("Examples 'btm mate', 'mate or stalemate', 'check not mate' match the chess core's reading",
          "[cql][examples]") {
  auto pos = [](const Replayed& g, int i) -> const Position& { return g.positions[std::size_t(i)]; };
  CHECK(run_cql("btm mate", kTwic) == expect(kTwic, [&](const Replayed& g, int i) {
          return pos(g, i).side_to_move() == Color::Black && is_mate(pos(g, i));
        }));
  CHECK(run_cql("mate or stalemate", kTwic) == expect(kTwic, [&](const Replayed& g, int i) {
          return is_mate(pos(g, i)) || is_stalemate(pos(g, i));
        }));
  CHECK(run_cql("check not mate", kTwic) ==
        expect(kTwic, [&](const Replayed& g, int i) { return pos(g, i).in_check() && !is_mate(pos(g, i)); }));
}

TEST_CASE("Example 'k attackedby Q' finds a white queen attacking the black king", "[cql][examples]") {
  CHECK(run_cql("k attackedby Q", kTwic) == expect(kTwic, [](const Replayed& g, int i) {
          const Position& p = g.positions[std::size_t(i)];
          for (Bitboard q = p.pieces(Color::White, PieceType::Queen); q;)
            if (queen_attacks(pop_lsb(q), p.pieces()) & p.pieces(Color::Black, PieceType::King)) return true;
          return false;
        }));
}

TEST_CASE("Example 'terminal movenumber < 20' finds games ending before move 20", "[cql][examples]") {
  CHECK(run_cql("terminal movenumber < 20", kTwic) == expect(kTwic, [](const Replayed& g, int i) {
          return last(g, i) && g.positions[std::size_t(i)].fullmove_number() < 20;
        }));
}

TEST_CASE("Example '2000 <= year <= 2005' counts the Date tags of those years", "[cql][examples]") {
  // Counted independently by scanning the file's [Date "YYYY lines.
  std::ifstream in(kCarlsen);
  std::string line;
  std::size_t expected = 0;
  while (std::getline(in, line))
    if (line.rfind("[Date \"", 0) == 0 && line.size() > 11) {
      int y = std::atoi(line.substr(7, 4).c_str());
      if (y >= 2000 && y <= 2005) ++expected;
    }
  Matches got = run_cql("initial 2000 <= year <= 2005", kCarlsen);
  REQUIRE(expected > 100);
  CHECK(got.size() == expected);
}

TEST_CASE("Material examples: mate while far ahead, in either colour", "[cql][examples]") {
  const std::string& file = twic_and_constructed();
  CHECK(run_cql("flipcolor { wtm mate power A - power a >= 10 }", file) ==
        expect(file, [](const Replayed& g, int i) {
          const Position& p = g.positions[std::size_t(i)];
          Color us = p.side_to_move();
          return is_mate(p) && material(p, us) - material(p, ~us) >= 10;
        }));
  CHECK(run_cql("btm mate power a - power A >= 8", file) == expect(file, [](const Replayed& g, int i) {
          const Position& p = g.positions[std::size_t(i)];
          return p.side_to_move() == Color::Black && is_mate(p) &&
                 material(p, Color::Black) - material(p, Color::White) >= 8;
        }));
}

TEST_CASE("Mating pattern examples: double-check mate, mate answering a check", "[cql][examples]") {
  const std::string& file = twic_and_constructed();
  CHECK(run_cql("mate flipcolor { wtm a attacks K > 1 }", file) == expect(file, [](const Replayed& g, int i) {
          const Position& p = g.positions[std::size_t(i)];
          return is_mate(p) && more_than_one(p.checkers());
        }));
  CHECK(run_cql("mate parent : check", file) == expect(file, [](const Replayed& g, int i) {
          return i > 0 && is_mate(g.positions[std::size_t(i)]) && g.positions[std::size_t(i - 1)].in_check();
        }));
}

TEST_CASE("Example 'pin' finds pieces pinned to their own king", "[cql][examples]") {
  // blockers_for_king(c) & pieces(c): own pieces that alone shield the king from a slider.
  // From each king: an enemy slider on a line to it with exactly one piece
  // between, of the king's colour. (Position::blockers_for_king ignores other
  // sliders standing in between, so it is not used.)
  Matches want = expect(kTwic, [](const Replayed& g, int i) {
    const Position& p = g.positions[std::size_t(i)];
    for (Color c : {Color::White, Color::Black}) {
      Square k = p.king_square(c);
      Bitboard snipers = ((rook_attacks(k, 0) & p.pieces(PieceType::Rook, PieceType::Queen)) |
                          (bishop_attacks(k, 0) & p.pieces(PieceType::Bishop, PieceType::Queen))) &
                         p.pieces(~c);
      while (snipers) {
        Bitboard b = between_bb(k, pop_lsb(snipers)) & p.pieces();
        if (b && !more_than_one(b) && (b & p.pieces(c))) return true;
      }
    }
    return false;
  });
  CHECK_SAME(run_cql("pin", kTwic), want, kTwic);
}

TEST_CASE("Example 'ray diagonal (B n k)' finds a white bishop pinning a black knight", "[cql][examples]") {
  CHECK(run_cql("ray diagonal (B n k)", kTwic) == expect(kTwic, [](const Replayed& g, int i) {
          const Position& p = g.positions[std::size_t(i)];
          Square k = p.king_square(Color::Black);
          for (Bitboard b = p.pieces(Color::White, PieceType::Bishop); b;) {
            Square bs = pop_lsb(b);
            for (Bitboard n = p.pieces(Color::Black, PieceType::Knight); n;) {
              Square ns = pop_lsb(n);
              bool diagonal = bishop_attacks(bs, 0) & square_bb(ns);
              if (diagonal && (between_bb(bs, k) & square_bb(ns)) && !(between_bb(bs, ns) & p.pieces()) &&
                  !(between_bb(ns, k) & p.pieces()))
                return true;
            }
          }
          return false;
        }));
}

TEST_CASE("Example 'passedpawns & p' finds black passed pawns", "[cql][examples]") {
  CHECK(run_cql("passedpawns & p", kTwic) == expect(kTwic, [](const Replayed& g, int i) {
          const Position& p = g.positions[std::size_t(i)];
          for (Bitboard b = p.pieces(Color::Black, PieceType::Pawn); b;) {
            Square s = pop_lsb(b);
            bool blocked = false;
            for (Bitboard w = p.pieces(Color::White, PieceType::Pawn); w;) {
              Square ws = pop_lsb(w);
              if (std::abs(file_of(ws) - file_of(s)) <= 1 && rank_of(ws) < rank_of(s)) blocked = true;
            }
            if (!blocked) return true;
          }
          return false;
        }));
}

TEST_CASE("Example pawn forks: one pawn attacking two or more pieces", "[cql][examples]") {
  Matches want = expect(kTwic, [](const Replayed& g, int i) {
    const Position& p = g.positions[std::size_t(i)];
    for (Color c : {Color::White, Color::Black}) {
      Bitboard targets = p.pieces(~c) & ~p.pieces(PieceType::Pawn);
      for (Bitboard b = p.pieces(c, PieceType::Pawn); b;)
        if (more_than_one(pawn_attacks(c, pop_lsb(b)) & targets)) return true;
    }
    return false;
  });
  REQUIRE(want.size() > 10);
  CHECK(run_cql("flipcolor piece $Pawn in P { [bnrqk] attackedby $Pawn > 1 }", kTwic) == want);
}

TEST_CASE("Geometry example: a completely full file", "[cql][examples]") {
  CHECK(run_cql("shifthorizontal up 0 7 a1 & [Aa] == 8", kTwic) ==
        expect(kTwic, [](const Replayed& g, int i) {
          const Position& p = g.positions[std::size_t(i)];
          for (int f = 0; f < 8; ++f)
            if (popcount(p.pieces() & file_bb(File(f))) == 8) return true;
          return false;
        }));
}

TEST_CASE("Castling examples: both castlings, none at all, castling with check", "[cql][examples]") {
  CHECK(run_cql("initial find move o-o find move o-o-o", kTwic) ==
        expect(kTwic, [](const Replayed& g, int i) {
          if (i != 0) return false;
          bool k = false, q = false;
          for (int j = 0; j < int(g.moves.size()); ++j) {
            k |= is_castle(g, j, 1);
            q |= is_castle(g, j, 2);
          }
          return k && q;
        }));
  CHECK(run_cql("terminal not find <-- move castle", kTwic) == expect(kTwic, [](const Replayed& g, int i) {
          if (!last(g, i)) return false;
          for (int j = 0; j < int(g.moves.size()); ++j)
            if (is_castle(g, j, 3)) return false;
          return true;
        }));
  CHECK(run_cql("check move previous castle", kTwic) == expect(kTwic, [](const Replayed& g, int i) {
          return i > 0 && is_castle(g, i - 1, 3) && g.positions[std::size_t(i)].in_check();
        }));
}

TEST_CASE("Promotion examples: underpromotion, promoted queens on both sides", "[cql][examples]") {
  Matches under = expect(kTwic, [](const Replayed& g, int i) {
    if (i >= int(g.moves.size())) return false;
    Move m = g.moves[std::size_t(i)];
    return m && m.kind() == Move::Kind::Promotion && m.promotion() != PieceType::Queen;
  });
  REQUIRE_FALSE(under.empty());
  CHECK(run_cql("move promote [BNR]", kTwic) == under);
  // Promoted pieces tracked square by square along the game.
  Matches both;
  for (const Replayed& g : replay(kTwic)) {
    Bitboard promoted = 0;
    for (int i = 0; i < int(g.positions.size()); ++i) {
      const Position& p = g.positions[std::size_t(i)];
      if ((promoted & p.pieces(Color::White, PieceType::Queen)) &&
          (promoted & p.pieces(Color::Black, PieceType::Queen)))
        both[g.number].push_back(i);
      if (i == int(g.moves.size())) break;
      Move m = g.moves[std::size_t(i)];
      if (!m) continue;
      bool was = promoted & square_bb(m.from());
      promoted &= ~square_bb(m.from()) & ~square_bb(m.to());
      if (m.kind() == Move::Kind::EnPassant)
        promoted &= ~square_bb(Square(m.to() - pawn_push(p.side_to_move())));
      if (m.kind() == Move::Kind::Castling) continue;
      if (was || m.kind() == Move::Kind::Promotion) promoted |= square_bb(m.to());
    }
  }
  REQUIRE_FALSE(both.empty());
  CHECK(run_cql("promotedpieces & Q promotedpieces & q", kTwic) == both);
}

TEST_CASE("Hypothetical move examples: missed mate in one, many mating moves", "[cql][examples]") {
  auto mating_moves = [](const Position& p) {
    MoveList l;
    generate_legal(p, l);
    int n = 0;
    for (Move m : l) {
      Position q = p;
      UndoInfo u;
      q.do_move(m, u);
      if (is_mate(q)) ++n;
    }
    return n;
  };
  CHECK(run_cql("not mate parent : move legal : mate", kTwic) == expect(kTwic, [&](const Replayed& g, int i) {
          return i > 0 && !is_mate(g.positions[std::size_t(i)]) &&
                 mating_moves(g.positions[std::size_t(i - 1)]) > 0;
        }));
  CHECK(run_cql("move count legal : mate > 1", kTwic) == expect(kTwic, [&](const Replayed& g, int i) {
          return mating_moves(g.positions[std::size_t(i)]) > 1;
        }));
}

TEST_CASE("Whole-game example: a rook that visited all four corners", "[cql][examples]") {
  // Follow the piece that starts on a1 square by square.
  Matches want;
  for (const Replayed& g : replay(kTwic)) {
    if (g.positions[0].piece_on(SQ_A1) != Piece::WRook) continue;
    Square at = SQ_A1;
    Bitboard visited = square_bb(SQ_A1);
    for (int i = 0; i < int(g.moves.size()) && at != SQ_NONE; ++i) {
      Move m = g.moves[std::size_t(i)];
      const Position& p = g.positions[std::size_t(i)];
      if (!m) continue;
      if (m.kind() == Move::Kind::Castling && m.to() == at)
        at = Position::castle_rook_to(p.side_to_move(), m.to() > m.from());
      else if (m.from() == at)
        at = m.to();
      else if (m.to() == at)
        at = SQ_NONE;  // captured
      if (at != SQ_NONE) visited |= square_bb(at);
    }
    const Bitboard corners = square_bb(SQ_A1) | square_bb(SQ_H1) | square_bb(SQ_A8) | square_bb(SQ_H8);
    if ((visited & corners) == corners) want[g.number].push_back(0);
  }
  REQUIRE_FALSE(want.empty());
  CHECK(run_cql("initial piece $p = Ra1 (flip count find $p & a1) == 4", kTwic) == want);
}

TEST_CASE("Metadata example: a win by the player rated at least 400 points lower", "[cql][examples]") {
  Matches want;
  for (const Replayed& g : replay(kTwic)) {
    int w = std::atoi(g.tag("WhiteElo").c_str()), b = std::atoi(g.tag("BlackElo").c_str());
    if (!w || !b) continue;
    if ((g.outcome == pgn::Outcome::WhiteWins && w + 400 <= b) ||
        (g.outcome == pgn::Outcome::BlackWins && b + 400 <= w))
      want[g.number].push_back(0);
  }
  REQUIRE_FALSE(want.empty());
  CHECK(run_cql("initial flipcolor { result \"1-0\" elo white + 400 <= elo black }", kTwic) == want);
}

TEST_CASE("Sort example: long decisive games are written longest first", "[cql][examples][sort]") {
  auto parsed = cql::parse("terminal flipcolor result 1-0 sort \"Total moves\" movenumber > 60");
  cql::Program program = std::move(std::get<cql::Program>(parsed));
  cql::RunConfig config;
  config.input = kTwic;
  config.threads = 2;
  std::vector<std::int64_t> written_moves;
  cql::RunSummary s = cql::run_query(
      program, config,
      [&](std::string_view pgn) {
        auto at = pgn.find("{Total moves: ");
        REQUIRE(at != std::string_view::npos);
        written_moves.push_back(std::atoll(std::string(pgn.substr(at + 14, 6)).c_str()));
      },
      nullptr);
  std::size_t want = 0;
  for (const Replayed& g : replay(kTwic))
    if ((g.outcome == pgn::Outcome::WhiteWins || g.outcome == pgn::Outcome::BlackWins) &&
        g.positions.back().fullmove_number() > 60)
      ++want;
  REQUIRE(want > 0);
  CHECK(s.games_written == want);
  CHECK(written_moves.size() == want);
  CHECK(std::is_sorted(written_moves.rbegin(), written_moves.rend()));
}

TEST_CASE("Echo example: two en passant captures within 10 plies", "[cql][examples][echo][slow]") {
  auto en_passant_into = [](const Replayed& g, int i) {
    return i > 0 && g.moves[std::size_t(i - 1)] &&
           g.moves[std::size_t(i - 1)].kind() == Move::Kind::EnPassant;
  };
  const std::string tcec = gb::test::shared_data_path("pgn/medium/tcec-standard-nocomments.pgn.zst");
  if (tcec.empty()) return;  // reported skipped
  Matches want = expect(
      tcec,
      [&](const Replayed& g, int i) {
        if (!en_passant_into(g, i)) return false;
        for (int j = i + 1; j <= i + 10 && j < int(g.positions.size()); ++j)
          if (en_passant_into(g, j)) return true;
        return false;
      },
      3000);
  CHECK(!want.empty());
  CHECK_SAME(
      run_cql("move previous enpassant echo ($first $second) { move previous enpassant $first < $second "
              "distance($first $second) <= 10 }",
              tcec, 3000),
      want, tcec);
}

TEST_CASE("Echo example: two positions identical except for the side to move", "[cql][examples][echo]") {
  const std::string file = kTwic;
  auto placement = [](const Position& p) { return p.fen().substr(0, p.fen().find(' ')); };
  Matches want = expect(
      file,
      [&](const Replayed& g, int i) {
        const Position& a = g.positions[std::size_t(i)];
        for (int j = 0; j < int(g.positions.size()); ++j) {
          const Position& b = g.positions[std::size_t(j)];
          if (j != i && placement(a) == placement(b) && a.side_to_move() != b.side_to_move()) return true;
        }
        return false;
      },
      400);
  CHECK(!want.empty());
  CHECK_SAME(run_cql("echo ($source $target) { $source & $target == . sidetomove != $source:sidetomove }",
                     file, 400),
             want, file);
}

namespace {
bool is_capture(const Replayed& g, int i) {
  if (i >= int(g.moves.size())) return false;
  Move m = g.moves[std::size_t(i)];
  if (!m || m.kind() == Move::Kind::Castling) return false;
  return m.kind() == Move::Kind::EnPassant || !g.positions[std::size_t(i)].empty(m.to());
}
}  // namespace

TEST_CASE("Line example: check, resolved by capturing the checking piece, then mate",
          "[cql][examples][line]") {
  // "capture (flipcolor A attacks k)": the captured piece was giving check (read before the move).
  Matches want = expect(kTwic, [](const Replayed& g, int i) {
    if (i + 2 >= int(g.positions.size())) return false;
    const Position& p = g.positions[std::size_t(i)];
    return p.in_check() && is_capture(g, i) && (p.checkers() & square_bb(g.moves[std::size_t(i)].to())) &&
           is_mate(g.positions[std::size_t(i + 2)]);
  });
  CHECK(!want.empty());
  CHECK_SAME(run_cql("line --> check --> move previous capture (flipcolor A attacks k) --> mate", kTwic),
             want, kTwic);
}

TEST_CASE("Line example: one side gave ten or more checks in a row", "[cql][examples][line]") {
  Matches want = expect(kTwic, [](const Replayed& g, int i) {
    int run = 0;
    for (int j = i; j < int(g.positions.size()) && g.positions[std::size_t(j)].in_check(); j += 2) ++run;
    return run >= 10;
  });
  CHECK(!want.empty());
  CHECK_SAME(run_cql("line singlecolor --> check {10,}", kTwic), want, kTwic);
}

TEST_CASE("Line example: runs of five or more captures, reported once with nestban",
          "[cql][examples][line]") {
  Matches want = expect(kTwic, [](const Replayed& g, int i) {
    if (i > 0 && is_capture(g, i - 1)) return false;
    int run = 0;
    while (is_capture(g, i + run)) ++run;
    return run >= 5;
  });
  CHECK(!want.empty());
  CHECK_SAME(run_cql("line nestban --> move capture . {5,}", kTwic), want, kTwic);
}

TEST_CASE("Line linearizes moves: 1.e4 e5 is found move after move", "[cql][examples][line]") {
  Matches want = expect(kTwic, [](const Replayed& g, int i) {
    return i == 0 && g.moves.size() >= 2 && g.moves[0].to() == SQ_E4 && g.moves[1].to() == SQ_E5;
  });
  CHECK(!want.empty());
  CHECK_SAME(run_cql("initial line --> move to e4 --> move to e5", kTwic), want, kTwic);
  CHECK(run_cql("initial line lastposition --> move to e4 --> move to e5 --> move to f4 --> move to f4",
                kTwic) != run_cql("initial line --> move to e4 --> move to e5 --> move to f3", kTwic));
}

TEST_CASE("Reverse move generation finds every move actually played but castling", "[cql][move]") {
  // An en passant capture is found as a diagonal pawn capture on the same squares.
  Matches want = expect(
      kTwic,
      [](const Replayed& g, int i) {
        if (i == 0) return false;
        Move m = g.moves[std::size_t(i - 1)];
        return m && m.kind() != Move::Kind::Castling;
      },
      300);
  CHECK_SAME(run_cql("$f = move from . previous $t = move to . previous move legal reverse from $f to $t",
                     kTwic, 300),
             want, kTwic);
}
