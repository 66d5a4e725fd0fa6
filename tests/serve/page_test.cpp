// The explorer page in a real browser: Debian's chromium, headless, driven by
// puppeteer-core (serve/web/node_modules) through explorer_page.mjs as a user
// would. The script reports what the page showed; the counts it must show are
// made here from the PGN with the chess core alone. Screenshots of each step
// go to serve-page/ beside this test program.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "serve_helpers.h"

using namespace gb;
using namespace gb::test;
using Json = nlohmann::json;

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (exists(p)) return p;
  return "";
}

std::string output_dir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, std::size_t(n)) : "/tmp/x";
  std::string dir = exe.substr(0, exe.rfind('/')) + "/serve-page";
  std::filesystem::remove_all(dir);  // this run's screenshots only
  std::filesystem::create_directories(dir);
  return dir;
}

void check_rows(const Json& step, const CountedPosition& counted) {
  INFO("step " << step["name"] << " at " << step["fen"]);
  REQUIRE(!counted.moves.empty());
  std::map<std::string, int> shown;
  for (const Json& row : step["rows"]) shown[row["uci"]] = row["games"];
  CHECK(shown == counted.moves);
}

}  // namespace

TEST_CASE("the explorer page in chromium walks the book as a user clicks, drags and goes back",
          "[serve][browser]") {
  const std::string web_root = std::string(GRAPHBOOK_SOURCE_DIR) + "/serve/web";
  if (chromium().empty()) {
    std::printf("SKIPPED: chromium is not installed (scripts/setup.sh installs it)\n");
    return;
  }
  if (!exists(web_root + "/node_modules/puppeteer-core") || !exists(web_root + "/node_modules/chessground")) {
    std::printf("SKIPPED: %s/node_modules is missing (scripts/setup.sh runs npm ci there)\n",
                web_root.c_str());
    return;
  }
  if (run_shell("command -v node >/dev/null 2>&1").status != 0) {
    std::printf("SKIPPED: node is not installed (scripts/setup.sh installs nodejs)\n");
    return;
  }
  ServerProcess server(twic_games_book(), {"--web-root", web_root, "--threads", "8"});
  REQUIRE(!server.url.empty());
  bool query = http(server.url + "/api/info").json()["query"] == true;
  const std::string out = output_dir();
  Run r = run_shell("timeout 180 node " +
                    quote(std::string(GRAPHBOOK_SOURCE_DIR) + "/tests/serve/explorer_page.mjs") + " " +
                    quote(server.url + "/") + " " + quote(web_root) + " " + quote(chromium()) + " " +
                    quote(out) + " 'move legal count > 30' 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  Json seen = Json::parse(r.out.substr(r.out.rfind("\n{") == std::string::npos ? 0 : r.out.rfind("\n{") + 1));
  REQUIRE(seen["steps"].size() >= 4);

  auto games = replay_simple_pgn(data_path("pgn/small/twic0920.pgn"));
  auto position = [](std::initializer_list<const char*> sans) { return play(sans); };
  CHECK(seen["steps"][0]["name"] == "start");
  check_rows(seen["steps"][0], count_position(games, position({})));
  CHECK(seen["steps"][1]["name"] == "after-e4");  // clicked 1.e4: Black's replies
  check_rows(seen["steps"][1], count_position(games, position({"e4"})));
  CHECK(seen["steps"][2]["name"] == "dragged-nf6");  // dragged the g8 knight to f6
  check_rows(seen["steps"][2], count_position(games, position({"e4", "Nf6"})));
  CHECK(seen["steps"][3]["name"] == "back");  // the left arrow key
  check_rows(seen["steps"][3], count_position(games, position({"e4"})));
  CHECK(seen["steps"][3]["ply"] == 1);
  // A top game clicked: the stored game (its PGN from the API) loaded, standing where it reached 1.e4.
  HttpAnswer pgn = http(server.url + "/masters/pgn/" + seen["top_game"].get<std::string>());
  REQUIRE(pgn.status == 200);
  TempDir dir("graphbook-serve-page");
  auto stored = replay_simple_pgn(dir.write("top.pgn", pgn.body));
  REQUIRE(stored.size() == 1);
  CHECK(seen["top_game_view"]["plies"] == stored[0].moves.size());
  CHECK(seen["top_game_view"]["ply"] == 1);
  CHECK(seen["top_game_view"]["fen"] == seen["steps"][3]["fen"]);
  // Phone width: the board and the table fit the 390 px screen.
  CHECK(seen["phone"]["board"].get<double>() <= 390);
  CHECK(seen["phone"]["table"].get<double>() <= 390);
  if (query) {
    REQUIRE(seen["steps"].size() == 5);
    CHECK(!seen["cql"]["hits"].empty());
    CHECK(seen["steps"][4]["name"] == "cql-result");
  } else {
    // Without CQL over the book, the page says so (the server's 501).
    CHECK(seen["cql"]["error"].get<std::string>().find("not in this build") != std::string::npos);
  }
  for (const char* shot : {"01-start.png", "02-after-e4.png", "03-dragged-nf6.png", "04-back.png",
                           "05-top-game.png", "06-phone-width.png", "07-cql.png"})
    CHECK(std::filesystem::file_size(out + "/" + shot) > 1000);
  CHECK(seen["console_errors"].size() <= (query ? 0u : 1u));  // the 501 of /api/query is logged
}
