// Every file of the malformed and PGN collections of the test data
// (tests/data, and the larger ones beside the repository): the reader never
// crashes, and reads the number of games, kept games and errors that reading
// the file by hand gives. Where an .oracle.tsv (python-chess) agrees, the
// count is its row count; where python-chess reads differently (it ends a game
// at a blank line, merges tag-only games, passes null moves and drops bad
// tokens silently) the comment says what the file holds.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "book/pgn/reader.h"
#include "shared_data.h"
#include "test_data.h"

using namespace gb::pgn;

namespace {

struct Expected {
  const char* path;
  std::uint64_t games, kept, errors;
};

// Files whose only game is Barnes-Horton (72 plies, a comment and blank lines
// between its tags and moves) read as one kept game: test-C, -F, -F-text, -L2,
// -N, -R, -Ta, -V, -addhashcode, -f1, -fencomments, -nomovenumbers,
// -noresults, -notags, -plycount, -plylimit, -ucW, -w.
const Expected kFiles[] = {
    // one line of tags joined by "<br />": one game whose movetext starts with "<br", an unparseable move
    {"malformed/chess.js/0.pgn", 1, 0, 1},
    {"malformed/chess.js/1.pgn", 1, 1, 0},
    {"malformed/chess.js/2.pgn", 1, 1, 0},
    {"malformed/chess.js/3.pgn", 1, 1, 0},
    {"malformed/chess.js/benchmark.pgn", 100, 100, 0},
    {"malformed/disservin-chess-library/backslash_header.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/basic.pgn", 1, 1, 0},
    // 0-0-0 for Black through an attacked/occupied path: illegal
    {"malformed/disservin-chess-library/black2move.pgn", 1, 0, 1},
    {"malformed/disservin-chess-library/book.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/castling.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/comment_before_moves.pgn", 1, 1, 0},
    // "Kx" at move 63: unparseable, the game is skipped (python-chess drops it silently)
    {"malformed/disservin-chess-library/corrupted.pgn", 1, 0, 1},
    {"malformed/disservin-chess-library/empty_body.pgn", 2, 2, 0},
    // tagless movetext 1.e4 ... 56.Kc1 1/2-1/2 (no oracle): one game
    {"malformed/disservin-chess-library/fuzz-bare", 1, 1, 0},
    {"malformed/disservin-chess-library/fuzz-fishtest-fastchess.pgn", 4, 4, 0},
    {"malformed/disservin-chess-library/fuzz-kasparov-deep-blue.pgn", 6, 6, 0},
    {"malformed/disservin-chess-library/fuzz-magnus-grischuk.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/multiple.pgn", 4, 4, 0},
    {"malformed/disservin-chess-library/newline.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/no_moves.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/no_moves_but_comment_followed_by_termination_marker.pgn", 2, 2, 0},
    {"malformed/disservin-chess-library/no_moves_but_game_termination.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/no_moves_but_game_termination_2.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/no_moves_but_game_termination_3.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/no_moves_but_game_termination_multiple.pgn", 2, 2, 0},
    {"malformed/disservin-chess-library/no_moves_but_game_termination_multiple_2.pgn", 3, 3, 0},
    {"malformed/disservin-chess-library/no_moves_two_games.pgn", 2, 2, 0},
    {"malformed/disservin-chess-library/no_result.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/non_ascii.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/skip.pgn", 2, 2, 0},
    {"malformed/disservin-chess-library/square_bracket_in_header.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/threefold_repetition.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/unescaped_quote_header.pgn", 1, 1, 0},
    {"malformed/disservin-chess-library/variations.pgn", 1, 1, 0},
    // one game: a comment and blank lines between tags and moves (python-chess splits it at the blank line)
    {"malformed/pgn-extract-test/barnes-horton.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/bots.pgn", 12, 12, 0},
    {"malformed/pgn-extract-test/fischer.pgn", 34, 34, 0},
    {"malformed/pgn-extract-test/fools-mate.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/najdorf.pgn", 8, 8, 0},
    // { ... { nested } ... } ends at the first }, so "which" is read as a move: unparseable
    {"malformed/pgn-extract-test/nested-comment.pgn", 1, 0, 1},
    // games 29 and 31 play "--" for Black: null moves, skipped by default
    {"malformed/pgn-extract-test/odds.pgn", 32, 30, 2},
    {"malformed/pgn-extract-test/petrosian.pgn", 35, 35, 0},
    {"malformed/pgn-extract-test/test-7.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-C.pgn", 1, 1, 0},  // Barnes-Horton: one game
    {"malformed/pgn-extract-test/test-F-text.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-F.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-L1.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-L2.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-N.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-P.pgn", 11, 11, 0},
    {"malformed/pgn-extract-test/test-R.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-Ta.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-V.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-addhashcode.pgn", 1, 1, 0},
    // both games contain "--": null moves, skipped by default
    {"malformed/pgn-extract-test/test-allownullmoves.pgn", 2, 0, 2},
    // fools mate + Barnes-Horton (one game despite its blank lines)
    {"malformed/pgn-extract-test/test-checkmate.pgn", 2, 2, 0},
    {"malformed/pgn-extract-test/test-e.pgn", 6, 6, 0},
    {"malformed/pgn-extract-test/test-evaluation.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-f1.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-f2.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-fencomments.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-fifty.pgn", 2, 2, 0},
    {"malformed/pgn-extract-test/test-fixresulttags-in.pgn", 5, 5, 0},
    {"malformed/pgn-extract-test/test-fuzzydepth.pgn", 4, 4, 0},  // four tagless games, each ended by *
    {"malformed/pgn-extract-test/test-hash.pgn", 35, 35, 0},
    {"malformed/pgn-extract-test/test-long-line.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-matchplylimit.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-nagcomments.pgn", 1, 1, 0},
    // nine one-line games: [Result "..."] e4 <termination>
    {"malformed/pgn-extract-test/test-nobadresults.pgn", 9, 9, 0},
    {"malformed/pgn-extract-test/test-nochecks.pgn", 2, 2, 0},  // as test-checkmate: two games
    {"malformed/pgn-extract-test/test-nomovenumbers.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-noresults.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-notags.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-plycount.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-plylimit.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-promotion-in.pgn", 8, 8, 0},
    {"malformed/pgn-extract-test/test-repetition.pgn", 12, 12, 0},
    {"malformed/pgn-extract-test/test-s.pgn", 3, 3, 0},
    {"malformed/pgn-extract-test/test-selectonly.pgn", 34, 34, 0},
    {"malformed/pgn-extract-test/test-setup-in.pgn", 2, 2, 0},
    {"malformed/pgn-extract-test/test-seventyfive.pgn", 5, 5, 0},
    {"malformed/pgn-extract-test/test-splitvariants.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-stalemate.pgn", 3, 3, 0},  // three games; Barnes-Horton is one game
    {"malformed/pgn-extract-test/test-startply.pgn", 10, 10, 0},
    {"malformed/pgn-extract-test/test-stopafter.pgn", 34, 34, 0},
    {"malformed/pgn-extract-test/test-t.pgn", 6, 6, 0},
    {"malformed/pgn-extract-test/test-ucE.pgn", 6, 6, 0},
    {"malformed/pgn-extract-test/test-ucS.pgn", 3, 3, 0},
    {"malformed/pgn-extract-test/test-ucW.pgn", 1, 1, 0},
    {"malformed/pgn-extract-test/test-w.pgn", 1, 1, 0},
    // 605 tag-only blocks (605 [Round] tags, no movetext): 605 games
    {"malformed/scalachess/scalachess-FWWRC.pgn", 605, 605, 0},
    // 45 tag-only blocks separated by blank lines, one [Event] only: 45 games
    {"malformed/scalachess/scalachess-uzchesscup.pgn", 45, 45, 0},
    {"pgn/annotated/TCEC_Season_1_-_Division_1.pgn", 56, 56, 0},
    {"pgn/annotated/TCEC_Season_20_-_Divp_Vs_Komodo14_Ccrl_Testing_2.pgn", 8, 8, 0},
    // game 3 is [Variant "Crazyhouse"]: skipped
    {"pgn/annotated/scalachess-pgn-render-mixed.pgn", 15, 14, 1},
    {"pgn/annotated/scalachess-wcc2023-annotated.pgn", 3, 3, 0},
    {"pgn/python-chess/anastasian-lewis.pgn", 1, 0, 1},      // "Z0" null move: skipped by default
    {"pgn/python-chess/antichess-programfox.pgn", 2, 0, 2},  // two antichess games: unsupported variant
    {"pgn/python-chess/chessbase-empty-line.pgn", 1, 1, 0},
    {"pgn/python-chess/cutechess-fischerrandom.pgn", 4, 4, 0},
    {"pgn/python-chess/kasparov-deep-blue-1997.pgn", 6, 6, 0},
    {"pgn/python-chess/knightvuillaume-jannlee-zh-lichess.pgn", 1, 0, 1},  // crazyhouse: unsupported variant
    {"pgn/python-chess/molinari-bordais-1979.pgn", 1, 1, 0},
    {"pgn/python-chess/nepomniachtchi-liren-game1.pgn", 1, 1, 0},
    {"pgn/python-chess/saturs-jannlee-zh-lichess.pgn", 1, 0, 1},  // crazyhouse: unsupported variant
    {"pgn/python-chess/stockfish-learning.pgn", 1, 1, 0},
    {"pgn/python-chess/uci-moves.pgn", 1, 1, 0},
    {"pgn/python-chess/utf8-bom.pgn", 2, 2, 0},  // a BOM before the first [Event]; two games
    {"pgn/small/pgnmentor-Carlsen.pgn", 1860, 1860, 0},
    {"pgn/small/sfbooks-2moves_v2.pgn.zst", 12092, 12092, 0},  // 12,092 games (README)
    // every 8th TCEC game (tests/data/SOURCES.md): 2,780 games by
    // `zstd -dc tests/data/pgn/small/tcec-standard-nocomments-every8th.pgn.zst | grep -c '^\[Event '`
    {"pgn/small/tcec-standard-nocomments-every8th.pgn.zst", 2780, 2780, 0},
    {"pgn/small/twic0920.pgn", 2245, 2245, 0},
};

const Expected kMediumFiles[] = {
    {"pgn/medium/sfbooks-8moves_v3.pgn.zst", 34700, 34700, 0},  // 34,700 games (README)
    // 198,350 [Result] tags (README)
    {"pgn/medium/sfbooks-bjbraams_chessdb_198350_lines.pgn.zst", 198350, 198350, 0},
    {"pgn/medium/tcec-frc-or-setup-nocomments.pgn.zst", 5372, 5372, 0},  // 5,372 games (README)
    {"pgn/medium/tcec-standard-nocomments.pgn.zst", 22240, 22240, 0},    // 22,240 games (README)
};

struct Counts {
  ReadSummary summary;
};

struct CheckVariations : VisitorBase {
  Control begin_variation() { return Control::Continue; }
};

ReadSummary read_file(const std::string& path) {
  PgnReader reader(ByteSource::open(path));
  CheckVariations v;
  reader.read_all(v);
  return reader.summary();
}

void check(const Expected& e, const std::string& path) {
  INFO(path);
  ReadSummary s = read_file(path);
  CHECK(s.input_errors.empty());
  CHECK(s.games_read == e.games);
  CHECK(s.games_kept == e.kept);
  CHECK(s.errors == e.errors);
  CHECK(s.games_kept + s.games_skipped == s.games_read);
}

}  // namespace

TEST_CASE("Every malformed and PGN test file reads to its expected game and error counts", "[pgn]") {
  for (const Expected& e : kFiles) check(e, gb::test::data_path(e.path));
}

TEST_CASE("The medium collections read completely without errors", "[pgn][slow]") {
  // Every path first: a missing one skips the test before any file is read.
  std::vector<std::string> paths;
  for (const Expected& e : kMediumFiles) {
    paths.push_back(gb::test::shared_data_path(e.path));
    if (paths.back().empty()) return;  // reported skipped
  }
  for (std::size_t i = 0; i < paths.size(); ++i) check(kMediumFiles[i], paths[i]);
}

TEST_CASE("No data file is left out of the expected counts", "[pgn]") {
  std::set<std::string> listed;
  for (const Expected& e : kFiles) listed.insert(e.path);
  namespace fs = std::filesystem;
  fs::path root = gb::test::data_path("");
  std::set<std::string> walked;
  for (const char* dir : {"malformed", "pgn"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file()) continue;
      std::string name = entry.path().filename().string();
      if (name == "LICENSE" || name.ends_with(".oracle.tsv")) continue;
      std::string relative = fs::relative(entry.path(), root).string();
      INFO(relative);
      CHECK(listed.count(relative) == 1);
      walked.insert(relative);
    }
  }
  // ... and every listed file is there: the walk saw the whole list.
  CHECK(walked == listed);
  CHECK(walked.size() > 100);
}

TEST_CASE("Every file of the test data is named in its SOURCES.md", "[pgn]") {
  namespace fs = std::filesystem;
  fs::path root = gb::test::data_path("");
  std::ifstream in(root / "SOURCES.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string sources = text.str();
  REQUIRE(sources.size() > 1000);
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::string relative = fs::relative(entry.path(), root).string();
    INFO(relative);
    CHECK(sources.find("`" + relative + "`") != std::string::npos);
    ++files;
  }
  CHECK(files > 200);
}

TEST_CASE("The null-move games of the test data are kept when asked", "[pgn]") {
  ReadOptions o;
  o.keep_null_move_games = true;
  for (const char* path :
       {"malformed/pgn-extract-test/odds.pgn", "malformed/pgn-extract-test/test-allownullmoves.pgn",
        "pgn/python-chess/anastasian-lewis.pgn"}) {
    INFO(path);
    PgnReader reader(ByteSource::open(gb::test::data_path(path)), o);
    VisitorBase v;
    reader.read_all(v);
    CHECK(reader.summary().games_skipped == 0);
    CHECK(reader.summary().errors == 0);
  }
}

TEST_CASE("A missing file is an input error, not a crash", "[pgn]") {
  ReadSummary s = read_file(gb::test::data_path("pgn/no-such-file.pgn"));
  CHECK(s.games_read == 0);
  REQUIRE(s.input_errors.size() == 1);
  CHECK(s.input_errors[0].find("no-such-file.pgn") != std::string::npos);
}
