// The games of a generated PGN as the bucket tests read them, and the counts
// a filter should select, computed from the PGN's tags and moves with the PGN
// reader and the chess library (lichess's thresholds written out below),
// never by graphbook: the independent side of tests/buckets/*_test.cpp.
#pragma once

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "book/chess/notation.h"
#include "book/pgn/reader.h"
#include "lichess_classes.h"
#include "run_graphbook.h"

namespace gb::test::buckets {

using gb::test::band_of;
using gb::test::graphbook;
using gb::test::quote;
using gb::test::speed_of;
using gb::test::TempDir;

inline constexpr int kMaxPly = 16;

// A filter as the test applies it: sets of band and speed words, yyyymm bounds (0: none).
struct Filter {
  std::set<std::string> bands, speeds;
  int since = 0, until = 0;  // yyyymm
  bool keeps(const std::string& band, const std::string& speed, int yyyymm) const {
    if (!bands.empty() && !bands.contains(band)) return false;
    if (!speeds.empty() && !speeds.contains(speed)) return false;
    if ((since || until) && yyyymm == 0) return false;
    return (!since || yyyymm >= since) && (!until || yyyymm <= until);
  }
};

struct Counts {
  int games = 0, white = 0, draws = 0, black = 0;
  bool operator==(const Counts&) const = default;
};

// Each game's tags and the positions and moves the build counts (its first kMaxPly plies).
struct Game {
  std::map<std::string, std::string> tags;
  std::vector<gb::Key> keys;      // positions 0..plies
  std::vector<gb::Move> moves;    // moves 0..plies-1
  std::vector<gb::Color> movers;  // side to move at each position
  gb::pgn::Outcome outcome = gb::pgn::Outcome::Unknown;
  bool kept = true;
};

struct Reader : gb::pgn::VisitorBase {
  std::vector<Game> games;
  void begin_game(const gb::pgn::GameLocation&) { games.emplace_back(); }
  void tag(std::string_view name, std::string_view value) { games.back().tags[std::string(name)] = value; }
  gb::pgn::Control move(const gb::pgn::MoveEvent& e) {
    if (e.depth > 0) return gb::pgn::Control::Skip;
    Game& g = games.back();
    g.keys.push_back(e.before.key());
    g.movers.push_back(e.before.side_to_move());
    if (int(g.moves.size()) == kMaxPly) return gb::pgn::Control::Skip;
    g.moves.push_back(e.move);
    return gb::pgn::Control::Continue;
  }
  void end_game(const gb::pgn::GameEnd& end) {
    Game& g = games.back();
    g.outcome = end.outcome;
    g.kept = end.skipped == gb::pgn::SkipReason::None;
    if (g.keys.size() == g.moves.size()) {  // not cut: the final position closes the path
      g.keys.push_back(end.final_position.key());
      g.movers.push_back(end.final_position.side_to_move());
    }
  }
};

inline std::vector<Game> read_games(const std::string& path) {
  Reader r;
  gb::pgn::PgnReader reader(gb::pgn::ByteSource::open(path));
  REQUIRE(reader.read_all(r));
  std::vector<Game> kept;
  for (Game& g : r.games)
    if (g.kept) kept.push_back(std::move(g));
  return kept;
}

inline int elo_of(const Game& g, gb::Color c) {
  auto it = g.tags.find(c == gb::Color::White ? "WhiteElo" : "BlackElo");
  if (it == g.tags.end()) return 0;
  try {
    return std::stoi(it->second);
  } catch (...) {
    return 0;
  }
}

inline int yyyymm_of(const Game& g) {
  auto it = g.tags.find("Date");
  if (it == g.tags.end() || it->second.size() < 7 || it->second[0] == '?') return 0;
  const int year = std::stoi(it->second.substr(0, 4));
  const int month = it->second[5] == '?' ? 0 : std::stoi(it->second.substr(5, 2));
  return year * 100 + month;
}

inline void count(Counts& c, gb::pgn::Outcome o) {
  ++c.games;
  c.white += o == gb::pgn::Outcome::WhiteWins;
  c.draws += o == gb::pgn::Outcome::Draw;
  c.black += o == gb::pgn::Outcome::BlackWins;
}

// The node and per-move counts of the position key over the games the filter keeps.
struct Expected {
  Counts node;
  std::map<std::string, Counts> moves;  // by UCI
};
inline Expected expected(const std::vector<Game>& games, gb::Key key, const Filter& f) {
  Expected out;
  for (const Game& g : games) {
    const std::string speed = speed_of(g.tags.count("TimeControl") ? g.tags.at("TimeControl") : "?");
    const int period = yyyymm_of(g);
    bool node = false;
    std::set<std::string> played;
    for (std::size_t i = 0; i < g.keys.size(); ++i) {
      if (g.keys[i] != key) continue;
      const std::string band = band_of(elo_of(g, g.movers[i]));
      if (!f.keeps(band, speed, period)) continue;
      if (!node) count(out.node, g.outcome);
      node = true;
      if (i < g.moves.size()) {
        const std::string uci = gb::to_uci(g.moves[i], false);
        if (played.insert(uci).second) count(out.moves[uci], g.outcome);
      }
    }
  }
  return out;
}

inline Counts counts_of(const nlohmann::json& j) {
  return {j["games"].get<int>(), j["white"].get<int>(), j["draws"].get<int>(), j["black"].get<int>()};
}

inline std::string generate(TempDir& dir, const std::string& name, int games, int seed) {
  const std::string path = dir.file(name);
  auto r = gb::test::run_shell("'" GENERATE_GAMES_BINARY "' --games " + std::to_string(games) + " --seed " +
                               std::to_string(seed) + " --threads 1 -o " + quote(path) + " 2>&1");
  REQUIRE(r.status == 0);
  return path;
}

inline std::string bytes_of(const std::string& path) { return gb::test::read_file(path); }

// Expected of every position the games reach, in one pass over them.
inline std::unordered_map<gb::Key, Expected> expected_all(const std::vector<Game>& games, const Filter& f) {
  std::unordered_map<gb::Key, Expected> out;
  for (const Game& g : games) {
    const std::string speed = speed_of(g.tags.count("TimeControl") ? g.tags.at("TimeControl") : "?");
    const int period = yyyymm_of(g);
    std::set<gb::Key> nodes;
    std::set<std::pair<gb::Key, std::string>> played;
    for (std::size_t i = 0; i < g.keys.size(); ++i) {
      const std::string band = band_of(elo_of(g, g.movers[i]));
      if (!f.keeps(band, speed, period)) continue;
      if (nodes.insert(g.keys[i]).second) count(out[g.keys[i]].node, g.outcome);
      if (i < g.moves.size()) {
        const std::string uci = gb::to_uci(g.moves[i], false);
        if (played.emplace(g.keys[i], uci).second) count(out[g.keys[i]].moves[uci], g.outcome);
      }
    }
  }
  return out;
}

}  // namespace gb::test::buckets
