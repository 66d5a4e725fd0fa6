// The page of `graphbook match --html`: its move list marks the move just
// played, and its timeline names the games from their first letter. Checked
// on the page's text; the expected rows are written out here from the games'
// moves (move numbers counted from the start), not taken from our output.
#include <catch2/catch.hpp>
#include <regex>

#include "match_helpers.h"

using namespace gb::test;

namespace {

const char* kWhiteName = "Featherstonehaugh-Cholmondeley,Bartholomew";
const char* kSubmittedWhite = "Zyx-Quux,Wilhelmina Augusta";

// The stored game; the submitted one loses two tempi (Nf3 Nf6 Ng1 Ng8) and then
// plays the stored game's first four moves: a run of five positions from
// submitted ply 4 and stored ply 0, so a step shows stored ply = submitted ply - 4.
const std::vector<std::string> kStored = {"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"};
const std::vector<std::string> kSubmitted = {"Nf3", "Nf6", "Ng1", "Ng8", "e4",
                                             "e5",  "Nf3", "Nc6", "Bc4", "Bc5"};
constexpr int kStoredMinusSubmitted = -4;

std::string movetext(const std::vector<std::string>& sans) {
  std::string out;
  for (std::size_t p = 0; p < sans.size(); ++p)
    out += (p % 2 == 0 ? std::to_string(p / 2 + 1) + ". " : "") + sans[p] + " ";
  return out;
}

// "3. e4" for White's move at ply 4, "3... e5" for Black's at ply 5; "" past either end.
std::string numbered(const std::vector<std::string>& sans, int ply) {
  if (ply < 0 || ply >= int(sans.size())) return "";
  return std::to_string(ply / 2 + 1) + (ply % 2 == 0 ? ". " : "... ") + sans[std::size_t(ply)];
}

}  // namespace

TEST_CASE("The match page marks the move just played and names both games from their first letter",
          "[match][html]") {
  std::string stored =
      write_temp("page-stored.pgn", std::string("[Event \"Stored\"]\n[White \"") + kWhiteName +
                                        "\"]\n[Black \"Aardvark,A\"]\n[Result \"1-0\"]\n\n" +
                                        movetext(kStored) + "1-0\n");
  std::string submitted = write_temp(
      "page-submitted.pgn", std::string("[Event \"Submitted\"]\n[White \"") + kSubmittedWhite +
                                "\"]\n[Black \"B\"]\n[Result \"*\"]\n\n" + movetext(kSubmitted) + "*\n");
  std::string book = match_temp_dir() + "/page.book", page = match_temp_dir() + "/page.html";
  REQUIRE(graphbook("build " + quote(book) + " " + quote(stored) + " --index-games --quiet", true).status ==
          0);
  Run r = graphbook("match " + quote(book) + " " + quote(submitted) + " --html " + quote(page), true);
  REQUIRE(r.status == 0);
  std::string html = read_file(page);
  REQUIRE(!html.empty());

  // Row data-step="s" holds the moves that lead to step s: the submitted game's move from ply s - 1
  // and the stored game's from ply s - 1 - 4. Steps run from 1 to the longer game's end (12).
  std::regex row(
      R"re(<tr data-step="(-?\d+)"( class="[a-z ]*")?><td class="m1">([^<]*)</td><td class="m2">([^<]*)</td></tr>)re");
  int rows = 0, first = 0, last = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator(); ++it) {
    int step = std::stoi((*it)[1]);
    INFO("step " << step);
    CHECK((*it)[3] == numbered(kSubmitted, step - 1));
    CHECK((*it)[4] == numbered(kStored, step - 1 + kStoredMinusSubmitted));
    // The run's moves: from one shared position (submitted plies 4..8) to the next.
    CHECK(((*it)[2] == " class=\"run\"") == (step > 4 && step <= 8));
    if (rows++ == 0) first = step;
    last = step;
  }
  CHECK(rows == 12);
  CHECK(first == 1);
  CHECK(last == 12);
  // The script marks the row of the step the board shows, and a click on a row goes to its step.
  CHECK(html.find("querySelector('#rows tr[data-step=\"'+step+'\"]')") != std::string::npos);
  CHECK(html.find("tr.onclick=()=>go(+tr.dataset.step)") != std::string::npos);

  // The timeline's names start at x=4, whole (the script shortens one at its end to fit, in the browser's
  // font); none is anchored at its end, which pushed a long name's first letters off the left edge.
  for (const std::string white : {kSubmittedWhite, kWhiteName}) {
    INFO(white);
    CHECK(std::regex_search(html, std::regex("<text class=\"lane-name\" x=\"4\"[^>]*>" + white + " – ")));
  }
  CHECK(html.find("'text-anchor':'end'") == std::string::npos);
  CHECK(html.find("text-anchor=\"end\"") == std::string::npos);
}
