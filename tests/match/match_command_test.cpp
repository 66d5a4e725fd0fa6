// graphbook build --index-games, match and novelty end to end, through the
// real binary, on small hand-written PGN files. Every expected value below
// is read off the PGN text in this file (the comments say how).
#include <catch2/catch.hpp>

#include "match_helpers.h"

using gb::test::graphbook;
using gb::test::quote;
using gb::test::write_temp;
using Json = nlohmann::json;

namespace {

// Source A: game 1 reaches the Ruy Lopez below by another move order (2. Bb5
// before Nf3, ...Nc6 after ...a6); game 2 leaves it at 2...Nf6.
const char* kSourceA = R"([Event "A"]
[White "P"]
[Black "Transposer"]
[Result "*"]

1. e4 e5 2. Bb5 a6 3. Ba4 Nc6 4. Nf3 Nf6 5. O-O Be7 6. d4 exd4 *

[Event "A"]
[White "A2"]
[Black "Petrov"]
[Result "*"]

1. e4 e5 2. Nf3 Nf6 3. Nxe5 d6 *
)";

// Source B: game 1, the same game again (a duplicate the build skips), and
// game 3; both leave the Ruy Lopez at 2...Nf6 as A2 does.
const char* kSourceB = R"([Event "B"]
[White "Q"]
[Black "Petrov"]
[Result "*"]

1. e4 e5 2. Nf3 Nf6 3. Nc3 Nc6 *

[Event "B"]
[White "Q"]
[Black "Petrov"]
[Result "*"]

1. e4 e5 2. Nf3 Nf6 3. Nc3 Nc6 *

[Event "B"]
[White "B3"]
[Black "Petrov"]
[Result "*"]

1. e4 e5 2. Nf3 Nf6 3. d4 exd4 *
)";

// The submitted games: a Ruy Lopez, and a King's Indian by its usual order.
const char* kSubmitted = R"([Event "Submitted"]
[White "Ruy"]
[Black "Lopez"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 *

[Event "Submitted"]
[White "King's"]
[Black "Indian"]
[Result "*"]

1. d4 Nf6 2. c4 g6 3. Nc3 Bg7 4. e4 d6 5. Nf3 O-O 6. Be2 e5 7. O-O Nc6 8. d5 Ne7 9. b4 Nh5 *
)";

// A King's Indian reached four plies late: the knights go out and back
// (the start position again at ply 4), then 1. Nf3 lines transpose.
const char* kShuffler = R"([Event "KID"]
[White "Shuffler"]
[Black "Classical"]
[Result "1/2-1/2"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. c4 g6 5. Nc3 Bg7 6. e4 d6 7. d4 O-O 8. Be2 e5 9. O-O Nc6
10. d5 Ne7 11. Ne1 Nd7 1/2-1/2
)";

const char* kBareKings = R"([Event "Kings"]
[SetUp "1"]
[FEN "8/8/8/4k3/8/8/4K3/8 w - - 0 1"]
[Result "*"]

1. Kd3 Kd5 *
)";

std::string build(const std::string& name, const std::string& inputs,
                  const std::string& extra = "--index-games") {
  std::string book = gb::test::match_temp_dir() + "/" + name;
  auto r = graphbook("build " + quote(book) + " " + inputs + " --quiet " + extra, true);
  INFO(r.out);
  REQUIRE(r.status == 0);
  return book;
}

const std::string& source_a() {
  static const std::string p = write_temp("src_a.pgn", kSourceA);
  return p;
}
const std::string& source_b() {
  static const std::string p = write_temp("src_b.pgn", kSourceB);
  return p;
}
const std::string& submitted() {
  static const std::string p = write_temp("submitted.pgn", kSubmitted);
  return p;
}

// The Ruy Lopez against A and B: A2, Q and B3 share plies 0-3 (start, 1. e4,
// 1...e5, 2. Nf3) and play 2...Nf6 from there; P shares plies 0-2 and, by
// transposition, plies 7-10 (after 4. Ba4 through 5...Be7) at its own plies
// 7-10, then plays 6. d4. Four positions each: the earliest start (0) comes
// first, and among those the index order (A2 in source A, then Q, B3 in B;
// the duplicate Q is not indexed, so B3 is the fourth game, id 3).
void check_ruy_matches(const Json& j) {
  const Json& m = j["matches"];
  REQUIRE(m.size() == 4);
  const char* whites[] = {"A2", "Q", "B3", "P"};
  const int ids[] = {1, 2, 3, 0};
  const int numbers[] = {2, 1, 3, 1};
  for (int i = 0; i < 4; ++i) {
    INFO("match " << i);
    CHECK(m[i]["game"]["tags"]["White"] == whites[i]);
    CHECK(m[i]["game"]["index"] == ids[i]);
    CHECK(m[i]["game"]["number_in_source"] == numbers[i]);
    CHECK(m[i]["length"] == 4);
  }
  CHECK(m[0]["game"]["source"] == source_a());
  CHECK(m[1]["game"]["source"] == source_b());
  for (int i = 0; i < 3; ++i) {
    CHECK(m[i]["submitted_start_ply"] == 0);
    CHECK(m[i]["stored_start_ply"] == 0);
    CHECK(m[i]["parting_move"] == "Nf6");
  }
  CHECK(m[3]["submitted_start_ply"] == 7);
  CHECK(m[3]["stored_start_ply"] == 7);
  CHECK(m[3]["parting_move"] == "d4");
}

}  // namespace

TEST_CASE("Match ties go to the earliest submitted start, then to the source added first, then to file order",
          "[match][e2e]") {
  std::string book = build("ab.book", quote(source_a()) + " " + quote(source_b()));
  auto r = graphbook("match " + quote(book) + " " + quote(submitted()) + " --top 10 --json");
  REQUIRE(r.status == 0);
  check_ruy_matches(Json::parse(r.out));

  SECTION("the best match alone, as text") {
    auto t = graphbook("match " + quote(book) + " " + quote(submitted()));
    REQUIRE(t.status == 0);
    CHECK(t.out.find("A2 – Petrov") != std::string::npos);
    CHECK(t.out.find("Run: 4 positions, from ply 0 of the submitted game and ply 0 of the stored game") !=
          std::string::npos);
    CHECK(t.out.find("Parting: the stored game played 2... Nf6") != std::string::npos);
    CHECK(t.out.find("P – Transposer") == std::string::npos);
  }
}

TEST_CASE("Games added by two builds keep the order their sources were added in", "[match][e2e]") {
  std::string book = build("a_then_b.book", quote(source_a()));
  build("a_then_b.book", quote(source_b()));
  auto r = graphbook("match " + quote(book) + " " + quote(submitted()) + " --top 10 --json");
  REQUIRE(r.status == 0);
  check_ruy_matches(Json::parse(r.out));
}

TEST_CASE("Sources added in the other order turn the index order round", "[match][e2e]") {
  // B first: Q is game 0, B3 game 1, then P game 2, A2 game 3.
  std::string book = build("ba.book", quote(source_b()) + " " + quote(source_a()));
  auto j = Json::parse(graphbook("match " + quote(book) + " " + quote(submitted()) + " --top 10 --json").out);
  REQUIRE(j["matches"].size() == 4);
  CHECK(j["matches"][0]["game"]["tags"]["White"] == "Q");
  CHECK(j["matches"][1]["game"]["tags"]["White"] == "B3");
  CHECK(j["matches"][2]["game"]["tags"]["White"] == "A2");
  CHECK(j["matches"][3]["game"]["tags"]["White"] == "P");
}

TEST_CASE("A game reaching a stored position by another move order meets it there", "[match][e2e]") {
  // Shuffler after 7. d4 (ply 13) stands as the King's Indian after 5. Nf3
  // (ply 9); both go on 5...O-O 6. Be2 e5 7. O-O Nc6 8. d5 Ne7: plies 9-16
  // against 13-20, 8 positions; Shuffler then plays 11. Ne1.
  std::string book =
      build("kid.book", quote(write_temp("shuffler.pgn", kShuffler)) + " " + quote(source_a()));
  auto r = graphbook("match " + quote(book) + " " + quote(submitted()) + " --game 2 --json");
  REQUIRE(r.status == 0);
  auto m = Json::parse(r.out)["matches"];
  REQUIRE(m.size() == 1);
  CHECK(m[0]["game"]["tags"]["White"] == "Shuffler");
  CHECK(m[0]["game"]["tags"]["Result"] == "1/2-1/2");
  CHECK(m[0]["game"]["index"] == 0);
  CHECK(m[0]["length"] == 8);
  CHECK(m[0]["submitted_start_ply"] == 9);
  CHECK(m[0]["stored_start_ply"] == 13);
  CHECK(m[0]["parting_move"] == "Ne1");

  auto t = graphbook("match " + quote(book) + " " + quote(submitted()) + " --game 2");
  CHECK(t.out.find("Parting: the stored game played 11. Ne1") != std::string::npos);

  SECTION("the page steps through both games without fetching anything") {
    std::string page = gb::test::match_temp_dir() + "/kid.html";
    auto h = graphbook("match " + quote(book) + " " + quote(submitted()) + " --game 2 --html " + quote(page));
    REQUIRE(h.status == 0);
    std::ifstream in(page);
    std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("Shuffler") != std::string::npos);
    CHECK(html.find("<svg") != std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find(" src=") == std::string::npos);
    CHECK(html.find("href=") == std::string::npos);
    CHECK(html.find("@import") == std::string::npos);
  }
}

TEST_CASE("A stored game that ends on a shared position parts with no move", "[match][e2e]") {
  // The stored game stops after 2. Nf3: the Ruy Lopez shares its plies 0-3.
  std::string short_game = write_temp("short.pgn", "[White \"Short\"]\n[Black \"X\"]\n\n1. e4 e5 2. Nf3 *\n");
  std::string book = build("short.book", quote(short_game));
  auto j = Json::parse(graphbook("match " + quote(book) + " " + quote(submitted()) + " --json").out);
  REQUIRE(j["matches"].size() == 1);
  CHECK(j["matches"][0]["length"] == 4);
  CHECK(j["matches"][0]["parting_move"].is_null());
  CHECK(
      graphbook("match " + quote(book) + " " + quote(submitted())).out.find("the stored game ended there") !=
      std::string::npos);
}

TEST_CASE("A submitted game that shares no position has no match", "[match][e2e]") {
  std::string book = build("nothing.book", quote(source_a()));
  std::string kings = write_temp("kings.pgn", kBareKings);
  auto r = graphbook("match " + quote(book) + " " + quote(kings) + " --json");
  CHECK(r.status == 1);
  CHECK(Json::parse(r.out)["matches"].empty());
  auto t = graphbook("match " + quote(book) + " " + quote(kings));
  CHECK(t.status == 1);
  CHECK(t.out.find("No stored game shares a position") != std::string::npos);
}

TEST_CASE("Match refuses a book without stored games, a missing game and a missing file", "[match][e2e]") {
  std::string book = build("plain.book", quote(source_a()), "");
  auto r = graphbook("match " + quote(book) + " " + quote(submitted()), true);
  CHECK(r.status == 2);
  CHECK(r.out.find("--index-games") != std::string::npos);
  std::string indexed = build("indexed.book", quote(source_a()));
  auto g = graphbook("match " + quote(indexed) + " " + quote(submitted()) + " --game 9", true);
  CHECK(g.status == 2);
  CHECK(g.out.find("no game 9") != std::string::npos);
  auto f = graphbook("match " + quote(indexed) + " /nonexistent/x.pgn", true);
  CHECK(f.status == 2);
}

TEST_CASE("Novelty names the first move the book does not hold and the book's moves there", "[match][e2e]") {
  // After 1. e4 e5 2. Nf3 the book holds only 2...Nf6 (A2, Q, B3: 3 games);
  // the Ruy Lopez plays 2...Nc6 at ply 3.
  std::string book = build("novelty.book", quote(source_a()) + " " + quote(source_b()), "");
  auto j = Json::parse(graphbook("novelty " + quote(book) + " " + quote(submitted()) + " --json").out);
  CHECK(j["novelty"]["ply"] == 3);
  CHECK(j["novelty"]["san"] == "Nc6");
  REQUIRE(j["book_moves"].size() == 1);
  CHECK(j["book_moves"][0]["san"] == "Nf6");
  CHECK(j["book_moves"][0]["games"] == 3);
  auto t = graphbook("novelty " + quote(book) + " " + quote(submitted()));
  CHECK(t.status == 0);
  CHECK(t.out.find("Novelty at ply 3: 2... Nc6") != std::string::npos);
  CHECK(t.out.find("Nf6 (3)") != std::string::npos);

  SECTION("a game the book holds to its end has none") {
    auto n = graphbook("novelty " + quote(book) + " " + quote(source_a()) + " --game 2");
    CHECK(n.status == 1);
    CHECK(n.out.find("every move of the game is in the book") != std::string::npos);
  }
}

TEST_CASE("Games parsed on two threads are indexed in file order", "[match][e2e]") {
  // 50 games that differ in their first two moves: each shares its whole
  // line (5 positions) only with itself, so its best match names its own place.
  const char* white[] = {"a3", "a4", "b3", "b4", "c3", "c4", "d3", "d4", "e3", "e4"};
  const char* black[] = {"a6", "a5", "b6", "b5", "c6"};
  std::string pgn;
  for (const char* w : white)
    for (const char* b : black)
      pgn += std::string("[White \"") + w + "\"]\n[Black \"" + b + "\"]\n\n1. " + w + " " + b +
             " 2. Nf3 Nf6 *\n\n";
  std::string file = write_temp("fifty.pgn", pgn);
  std::string book = build("fifty.book", quote(file), "--index-games --threads 2");
  for (int game : {1, 2, 26, 49, 50}) {
    INFO("game " << game);
    auto j = Json::parse(
        graphbook("match " + quote(book) + " " + quote(file) + " --game " + std::to_string(game) + " --json")
            .out);
    REQUIRE(j["matches"].size() == 1);
    CHECK(j["matches"][0]["length"] == 5);
    CHECK(j["matches"][0]["game"]["number_in_source"] == game);
    CHECK(j["matches"][0]["game"]["index"] == game - 1);
    CHECK(j["matches"][0]["parting_move"].is_null());
  }
}
