// Helpers of the prober's end-to-end tests: run the real binary, build the
// twic0920 book once, replay PGN movetext with the chess core alone (an
// independent count), read a Polyglot .bin by hand.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "book/chess/notation.h"
#include "play.h"
#include "polyglot_bin.h"
#include "run_graphbook.h"
#include "temp_dir.h"
#include "test_data.h"
#include "twic_book.h"

namespace gb::test {

inline nlohmann::json graphbook_json(const std::string& args) {
  Run r = graphbook(args);
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  return j;
}

// A fresh temporary directory for this test process.
inline const std::string& temp_dir() {
  static const TempDir dir("graphbook-probe-test");
  return dir.path;
}

// The book of twic0920.pgn with the defaults (max ply 40): the ctest fixture's, or
// built once per test process when the test runs outside ctest (twic_book.h).
inline const std::string& twic_book() {
  static const std::string path = fixture_or_build_twic_book(temp_dir());
  return path;
}

// A copy of the twic book to write learning into.
inline std::string twic_book_copy(const std::string& name) {
  std::string p = temp_dir() + "/" + name;
  std::ifstream in(twic_book(), std::ios::binary);
  std::ofstream out(p, std::ios::binary);
  out << in.rdbuf();
  return p;
}

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

// A book of two games written here (with their stored games when
// index_games), and a copy of it cut to its first two pages (LMDB's meta
// pages): a damaged book. Named NAME.pgn, NAME.book, NAME-damaged.book.
struct TwoGameBooks {
  std::string pgn, book, damaged;
};
inline TwoGameBooks make_two_game_books(const std::string& name, bool index_games) {
  TwoGameBooks b{temp_dir() + "/" + name + ".pgn", temp_dir() + "/" + name + ".book",
                 temp_dir() + "/" + name + "-damaged.book"};
  std::ofstream(b.pgn) << "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n"
                          "[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 2. c4 e6 0-1\n";
  Run r = graphbook(
      "build " + quote(b.book) + " " + quote(b.pgn) + (index_games ? " --index-games" : "") + " --quiet",
      true);
  if (r.status != 0) std::fprintf(stderr, "build failed: %s\n", r.out.c_str());
  std::filesystem::copy_file(b.book, b.damaged, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(b.damaged, 8192);
  return b;
}

// Polyglot .bin entries of one key, read by hand: move -> weight.
inline std::map<std::uint16_t, std::uint16_t> polyglot_weights(const std::string& path, Key key) {
  std::map<std::uint16_t, std::uint16_t> out;
  for (const BinEntry& e : read_bin_entries(path, key)) out[e.move] = e.weight;
  return out;
}

// A UCI move (no castling, no promotion) in Polyglot's encoding.
inline std::uint16_t polyglot_move(const std::string& uci) {
  int ff = uci[0] - 'a', fr = uci[1] - '1', tf = uci[2] - 'a', tr = uci[3] - '1';
  return std::uint16_t(fr << 9 | ff << 6 | tr << 3 | tf);
}

}  // namespace gb::test
