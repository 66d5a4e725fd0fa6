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
#include "tagged_games.h"

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

// A folder of each test case's own (name): ctest runs them at once.
std::string output_dir(const std::string& name = "serve-page") {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, std::size_t(n)) : "/tmp/x";
  std::string dir = exe.substr(0, exe.rfind('/')) + "/" + name;
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

// Why the page test cannot run here, "" when it can.
std::string missing_browser(const std::string& web_root) {
  if (chromium().empty()) return "chromium is not installed (scripts/setup.sh installs it)";
  if (!exists(web_root + "/node_modules/puppeteer-core") || !exists(web_root + "/node_modules/chessground"))
    return web_root + "/node_modules is missing (scripts/setup.sh runs npm ci there)";
  if (run_shell("command -v node >/dev/null 2>&1").status != 0)
    return "node is not installed (scripts/setup.sh installs nodejs)";
  return "";
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

TEST_CASE("the explorer page shows a book's speed and rating choices and its table follows them",
          "[serve][browser]") {
  const std::string web_root = std::string(GRAPHBOOK_SOURCE_DIR) + "/serve/web";
  if (std::string why = missing_browser(web_root); !why.empty()) {
    std::printf("SKIPPED: %s\n", why.c_str());
    return;
  }
  TempDir dir("graphbook-serve-filter-page");
  const std::vector<TaggedGame> games = make_games();
  const std::string book = dir.file("months.book");
  REQUIRE(graphbook("build " + quote(book) + " " + quote(write_pgn(games, dir.file("games.pgn"))) +
                    " --buckets --by-month --quiet")
              .status == 0);
  // The server's default filter: the page starts with it chosen.
  ServerProcess server(book, {"--web-root", web_root, "--threads", "8", "--ratings", "2200"});
  REQUIRE(!server.url.empty());
  const std::string out = output_dir("serve-page-filters");
  Run r = run_shell(
      "timeout 180 node " + quote(std::string(GRAPHBOOK_SOURCE_DIR) + "/tests/serve/filter_page.mjs") + " " +
      quote(server.url + "/") + " " + quote(web_root) + " " + quote(chromium()) + " " + quote(out) + " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  Json seen = Json::parse(r.out.substr(r.out.rfind("\n{") == std::string::npos ? 0 : r.out.rfind("\n{") + 1));
  REQUIRE(seen["steps"].size() == 3);
  const std::vector<std::pair<std::vector<std::string>, Filter>> expected_steps = {
      {{"2200"}, {{"2200"}, {}, 0, 0}},
      {{"blitz", "2200"}, {{"2200"}, {"blitz"}, 0, 0}},
      {{"blitz"}, {{}, {"blitz"}, 0, 0}},
  };
  for (std::size_t i = 0; i < expected_steps.size(); ++i) {
    const Json& step = seen["steps"][i];
    INFO("step " << step["name"]);
    CHECK(step["pressed"].get<std::vector<std::string>>() == expected_steps[i].first);
    std::map<std::string, int> shown, counted;
    for (const Json& row : step["rows"]) shown[row["uci"]] = row["games"];
    for (const auto& [uci, c] : expected(games, {}, expected_steps[i].second).moves)
      counted[uci] = c.white + c.draws + c.black;
    REQUIRE(!counted.empty());
    CHECK(shown == counted);
  }
  CHECK(seen["console_errors"].empty());
}
