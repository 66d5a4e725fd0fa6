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
#include "replayed_games.h"
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
