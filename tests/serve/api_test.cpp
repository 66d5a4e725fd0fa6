// graphbook serve's API against `graphbook probe --json` and against counts made here from the
// PGN with the chess core alone (tests/probe's way), the bad requests, the signals and a book
// replaced while served.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "serve_helpers.h"

using namespace gb;
using namespace gb::test;
using Json = nlohmann::json;

namespace {

const std::vector<ReplayedGame>& twic_games() {
  static const auto games = replay_simple_pgn(data_path("pgn/small/twic0920.pgn"));
  return games;
}

Position after(const std::vector<std::string>& ucis) {
  Position pos;
  for (const auto& u : ucis) {
    UndoInfo undo;
    pos.do_move(*parse_uci(pos, u), undo);
  }
  return pos;
}

std::string joined(const std::vector<std::string>& ucis, const char* sep) {
  std::string s;
  for (const auto& u : ucis) s += (s.empty() ? "" : sep) + u;
  return s;
}

}  // namespace

TEST_CASE("serve answers /masters with probe's answer and the counts of the PGN", "[serve]") {
  ServerProcess server(twic_games_book());
  REQUIRE(!server.url.empty());
  const std::vector<std::vector<std::string>> lines = {
      {}, {"e2e4"}, {"e2e4", "c7c5"}, {"d2d4", "d7d5", "c2c4"}, {"g1f3", "d7d5", "d2d4"}};
  for (const auto& line : lines) {
    INFO("play=" << joined(line, ","));
    HttpAnswer a = http(server.url + "/masters?play=" + joined(line, ",") + "&moves=500");
    REQUIRE(a.status == 200);
    Json got = a.json();
    REQUIRE(got.is_object());

    // The same fields as `graphbook probe --json`, with the same values.
    Run probe =
        graphbook("probe " + quote(twic_games_book()) + " --moves " + quote(joined(line, " ")) + " --json");
    REQUIRE(probe.status == 0);
    Json expected = Json::parse(probe.out);
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      INFO("field " << it.key());
      if (it.key() == "moves") continue;
      CHECK(got[it.key()] == it.value());
    }
    REQUIRE(got["moves"].size() == expected["moves"].size());
    for (std::size_t i = 0; i < expected["moves"].size(); ++i)
      for (auto it = expected["moves"][i].begin(); it != expected["moves"][i].end(); ++it)
        CHECK(got["moves"][i][it.key()] == it.value());

    // Totals and moves counted from the PGN.
    CountedPosition counted = count_position(twic_games(), after(line));
    REQUIRE(counted.games > 0);
    CHECK(got["games"] == counted.games);
    CHECK(got["white"] == counted.white);
    CHECK(got["draws"] == counted.draws);
    CHECK(got["black"] == counted.black);
    std::map<std::string, int> shown;
    for (const Json& m : got["moves"]) shown[m["uci"]] = m["games"];
    CHECK(shown == counted.moves);
    // lichess's shape: each move has a game (null unless one game played it), topGames listed.
    for (const Json& m : got["moves"]) {
      CHECK(m.contains("game"));
      if (!m["game"].is_null()) CHECK(m["games"] == 1);
    }
    CHECK(got["topGames"].is_array());
  }
  // /lichess is the same book; moves cuts the list, fen with '_' for spaces is accepted.
  Json masters = http(server.url + "/masters?play=e2e4&moves=3").json();
  Json lichess =
      http(server.url + "/lichess?fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR_b_KQkq_-_0_1&moves=3")
          .json();
  CHECK(masters["moves"].size() == 3);
  CHECK(masters["moves"] == lichess["moves"]);
  CHECK(masters["games"] == lichess["games"]);
}

TEST_CASE("serve lists top games that passed through the position, best rated first, and serves their PGN",
          "[serve]") {
  ServerProcess server(twic_games_book());
  REQUIRE(!server.url.empty());
  Position target = after({"e2e4", "c7c5", "g1f3"});
  Json j = http(server.url + "/masters?play=e2e4,c7c5,g1f3&topGames=5").json();
  REQUIRE(j["topGames"].size() == 5);
  int previous = INT32_MAX;
  TempDir dir("graphbook-serve-pgn");
  for (const Json& g : j["topGames"]) {
    HttpAnswer pgn = http(server.url + "/masters/pgn/" + g["id"].get<std::string>());
    REQUIRE(pgn.status == 200);
    // The stored game, replayed here, passes through the position and is the one listed.
    auto replayed = replay_simple_pgn(dir.write("g.pgn", pgn.body));
    REQUIRE(replayed.size() == 1);
    CHECK(std::find(replayed[0].keys.begin(), replayed[0].keys.end(), target.key()) !=
          replayed[0].keys.end());
    CHECK(pgn.body.find("[White \"" + g["white"]["name"].get<std::string>() + "\"]") != std::string::npos);
    CHECK(pgn.body.find("[Date \"" + std::to_string(g["year"].get<int>())) != std::string::npos);
    int rating = g["white"]["rating"].get<int>() + g["black"]["rating"].get<int>();
    CHECK(rating <= previous);
    previous = rating;
  }
  // since/until keep the games of those years.
  Json none = http(server.url + "/masters?play=e2e4&since=2030").json();
  CHECK(none["topGames"].empty());
}

TEST_CASE("serve matches a posted game with the stored game it came from", "[serve]") {
  ServerProcess server(twic_games_book());
  REQUIRE(!server.url.empty());
  // The third game of the file, cut out by hand: tags and movetext up to the next [Event.
  std::string all = read_file(data_path("pgn/small/twic0920.pgn"));
  std::size_t start = 0;
  for (int i = 0; i < 3; ++i) start = all.find("[Event ", start + 1);
  std::string game = all.substr(start, all.find("[Event ", start + 1) - start);
  TempDir dir("graphbook-serve-match");
  auto replayed = replay_simple_pgn(dir.write("game.pgn", game));
  REQUIRE(replayed.size() == 1);
  HttpAnswer a = http(server.url + "/api/match", dir.file("game.pgn"));
  REQUIRE(a.status == 200);
  Json j = a.json();
  REQUIRE(j["matches"].size() == 1);
  CHECK(j["matches"][0]["length"] == replayed[0].moves.size() + 1);  // every position, start to end
  CHECK(j["submitted"]["plies"] == replayed[0].moves.size());
}

TEST_CASE("serve answers every bad request with 400 and a JSON error that names the problem", "[serve]") {
  ServerProcess server(twic_games_book());
  REQUIRE(!server.url.empty());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"/masters?fen=xyz", "fen"},
      {"/masters?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_x_KQkq_-_0_1", "fen"},
      {"/masters?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_5_1114910298", "move counter"},
      {"/masters?play=e2e5", "not legal"},
      {"/masters?play=e2e4,zz", "not UCI"},
      {"/masters?play=e2e4,,e7e5", "not UCI"},
      {"/masters?moves=-1", "moves"},
      {"/masters?moves=abc", "moves"},
      {"/masters?moves=99999999999999999999999", "moves"},
      {"/masters?topGames=99", "topGames"},
      {"/lichess?since=20x", "since"},
      {"/masters?until=2020-13", "until"},
      {"/masters/pgn/abc", "id"},
      {"/api/tree?depth=99", "depth"},
      {"/api/tree?format=png", "format"},
      {"/api/query", "cql"},
  };
  for (const auto& [path, word] : bad) {
    INFO(path);
    HttpAnswer a = http(server.url + path);
    CHECK(a.status == 400);
    Json j = a.json();
    REQUIRE(j.is_object());
    CHECK(j["error"].get<std::string>().find(word) != std::string::npos);
  }
  TempDir dir("graphbook-serve-bad");
  // A query string of 10 MB (curl refuses URLs past 8 MB: sent by hand) and a body past the limit.
  std::string answer = raw_http(server.url, "GET /masters?fen=" + std::string(10 << 20, 'a') +
                                                " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(answer.starts_with("HTTP/1.1 400"));
  CHECK(answer.find("{\"error\":\"the request line is longer than") != std::string::npos);
  dir.write("big.pgn", std::string(2 << 20, ' '));
  HttpAnswer body = http(server.url + "/api/match", dir.file("big.pgn"));
  CHECK(body.status == 400);
  CHECK(body.json()["error"].get<std::string>().find("body") != std::string::npos);
  dir.write("garbage.pgn", "1. e4 e5 2. Qxf7 Kxf7 *\n");
  HttpAnswer garbage = http(server.url + "/api/match", dir.file("garbage.pgn"));
  CHECK(garbage.status == 400);
  CHECK(garbage.json()["error"].get<std::string>().find("Qxf7") != std::string::npos);
  // The server is still there.
  CHECK(http(server.url + "/health").status == 200);
}

TEST_CASE("serve stops on SIGTERM and on SIGINT with exit status 0", "[serve]") {
  for (int sig : {SIGTERM, SIGINT}) {
    ServerProcess server(twic_games_book());
    REQUIRE(!server.url.empty());
    REQUIRE(http(server.url + "/masters?play=e2e4").status == 200);
    CHECK(server.stop(sig) == 0);
  }
}

TEST_CASE("serve refuses a missing book and a bad --listen with exit status 2", "[serve]") {
  Run missing = graphbook("serve /nonexistent/x.book --listen 127.0.0.1:0");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("/nonexistent/x.book") != std::string::npos);
  for (const char* listen : {"nonsense", "127.0.0.1:65536", ":8080", "127.0.0.1:80x"}) {
    Run bad = graphbook("serve " + quote(twic_games_book()) + " --listen " + quote(listen));
    CHECK(bad.status == 2);
    CHECK(bad.err.find(std::string("--listen: '") + listen + "' is not HOST:PORT") != std::string::npos);
  }
  CHECK(graphbook("serve " + quote(twic_games_book()) + " --threads 0").status == 2);
}

TEST_CASE("serve picks up a book that a fresh build renamed over the one it serves", "[serve]") {
  TempDir dir("graphbook-serve-rebuild");
  std::string book = dir.file("live.book");
  dir.write("one.pgn", "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n");
  dir.write(
      "two.pgn",
      "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(dir.file("one.pgn")) + " --quiet").status == 0);
  ServerProcess server(book);
  REQUIRE(!server.url.empty());
  CHECK(http(server.url + "/masters").json()["games"] == 1);
  // A fresh build writes a new file and renames it over the book: here by hand, the same rename.
  REQUIRE(graphbook("build " + quote(dir.file("new.book")) + " " + quote(dir.file("two.pgn")) + " --quiet")
              .status == 0);
  std::filesystem::rename(dir.file("new.book"), book);
  Json j;
  for (int i = 0; i < 300; ++i) {  // it checks the file every 250 ms; 30 s only against a hang
    j = http(server.url + "/masters").json();
    if (j["games"] == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(j["games"] == 2);
  CHECK(j["black"] == 1);
  // A build into the served book (in place, one write transaction) is seen by the next request.
  dir.write("three.pgn", "[Event \"c\"]\n[Result \"1/2-1/2\"]\n\n1. c4 c5 1/2-1/2\n");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(dir.file("three.pgn")) + " --quiet").status == 0);
  j = http(server.url + "/masters").json();
  CHECK(j["games"] == 3);
  CHECK(j["draws"] == 1);
  CHECK(http(server.url + "/api/info").json()["generation"] == 2);
}

TEST_CASE("serve draws the tree below a position with probe's tree and reports the book in /api/info",
          "[serve]") {
  ServerProcess server(twic_games_book());
  REQUIRE(!server.url.empty());
  Json tree = http(server.url + "/api/tree?play=d2d4,d7d5&depth=2&minGames=10&maxNodes=400").json();
  Run expected = graphbook("tree " + quote(twic_games_book()) +
                           " --moves 'd4 d5' --depth 2 --min-games 10 --format json");
  REQUIRE(expected.status == 0);
  CHECK(tree == Json::parse(expected.out));
  HttpAnswer svg = http(server.url + "/api/tree?play=d2d4&depth=1&format=svg");
  CHECK(svg.status == 200);
  CHECK(svg.body.find("<svg") != std::string::npos);
  Json info = http(server.url + "/api/info").json();
  CHECK(info["info"]["games"] == twic_games().size());
  CHECK(info["stored_games"] == true);
}

TEST_CASE("serve answers a query past its node or time budget with 422, the reason and what it found",
          "[serve]") {
  ServerProcess server(twic_games_book());
  REQUIRE(!server.url.empty());
  // The positions within two plies of the start, from the PGN: the walk's
  // first level is the start, its second the positions after one move, each
  // level in key order.
  std::set<Key> within_two;
  std::vector<Key> after_one;
  for (const ReplayedGame& g : twic_games())
    for (std::size_t i = 0; i < g.keys.size() && i <= 2; ++i)
      if (within_two.insert(g.keys[i]).second && i == 1) after_one.push_back(g.keys[i]);
  std::sort(after_one.begin(), after_one.end());
  REQUIRE(after_one.size() > 9);
  REQUIRE(within_two.size() > 50);

  HttpAnswer a = http(server.url + "/api/query?cql=true&depth=2&limit=1000&maxNodes=10");
  CHECK(a.status == 422);
  Json j = a.json();
  REQUIRE(j.is_object());
  CHECK(j["error"].get<std::string>().find("node budget") != std::string::npos);
  CHECK(j["error"].get<std::string>().find("maxNodes") != std::string::npos);
  CHECK(j["stopped"] == "node budget");
  CHECK(j["searched"] == 10);
  CHECK(j["matched"] == 10);
  std::set<std::string> keys, expected = {key_hex(Position().key())};
  for (std::size_t i = 0; i < 9; ++i) expected.insert(key_hex(after_one[i]));
  for (const auto& r : j["results"]) keys.insert(r["key"].get<std::string>());
  CHECK(keys == expected);

  // A budget of exactly the positions there is no stop.
  HttpAnswer whole =
      http(server.url + "/api/query?cql=true&depth=2&maxNodes=" + std::to_string(within_two.size()));
  CHECK(whole.status == 200);
  CHECK(whole.json()["searched"] == within_two.size());
  CHECK(!whole.json().contains("stopped"));

  // timeLimit=0: the deadline has passed at the walk's first look at the clock.
  HttpAnswer late = http(server.url + "/api/query?cql=true&timeLimit=0");
  CHECK(late.status == 422);
  CHECK(late.json()["stopped"] == "time budget");
  CHECK(late.json()["searched"] == 0);
  CHECK(late.json()["error"].get<std::string>().find("timeLimit") != std::string::npos);

  // A budget may only be lowered: the server's caps are 2,000,000 positions and 2 s.
  CHECK(http(server.url + "/api/query?cql=true&depth=0&maxNodes=2000000").status == 200);
  CHECK(http(server.url + "/api/query?cql=true&depth=0&timeLimit=2").status == 200);
  for (const char* bad : {"maxNodes=0", "maxNodes=2000001", "maxNodes=x", "timeLimit=2.5", "timeLimit=-1",
                          "timeLimit=1s", "timeLimit=nan"}) {
    INFO(bad);
    HttpAnswer refused = http(server.url + "/api/query?cql=true&" + bad);
    CHECK(refused.status == 400);
    CHECK(refused.json()["error"].get<std::string>().find(std::string(bad).substr(0, 8)) !=
          std::string::npos);
  }
}
