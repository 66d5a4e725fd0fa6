// The mainlines of a PGN file replayed with the chess core alone (an
// independent count of what a book built from it holds): the probe, serve and
// uci-adapter tests compare the real binary's answers with it.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "book/chess/notation.h"
#include "book/chess/position.h"

namespace gb::test {

// The mainlines of a PGN file without comments, variations or set-up
// positions (twic0920.pgn has none), replayed with the chess core: per game,
// the moves and the keys before each.
struct ReplayedGame {
  std::vector<Key> keys;  // keys[i] before move i; keys.back() after the last move
  std::vector<Move> moves;
  std::string result;
};
inline std::vector<ReplayedGame> replay_simple_pgn(const std::string& path) {
  std::ifstream in(path);
  std::vector<ReplayedGame> games;
  std::string line;
  bool in_movetext = false;
  Position pos;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("[")) {
      if (in_movetext || games.empty()) {
        games.emplace_back();
        pos = Position();
        games.back().keys.push_back(pos.key());
        in_movetext = false;
      }
      continue;
    }
    in_movetext = in_movetext || !line.empty();
    std::istringstream tokens(line);
    std::string t;
    while (tokens >> t) {
      if (t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*") {
        games.back().result = t;
        continue;
      }
      std::size_t dot = t.find_last_of('.');
      if (dot != std::string::npos) t = t.substr(dot + 1);
      if (t.empty()) continue;
      auto parsed = parse_san(pos, t);
      if (!parsed.ok()) break;
      UndoInfo undo;
      pos.do_move(parsed.move, undo);
      games.back().moves.push_back(parsed.move);
      games.back().keys.push_back(pos.key());
    }
  }
  return games;
}

}  // namespace gb::test
