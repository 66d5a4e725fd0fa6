// Games written by the serve tests of the bucket filters (filter_test.cpp,
// page_test.cpp): each with ratings, a time control and a date, and the
// counts a filter must select, made from those tags with lichess's
// thresholds written out here and the moves replayed with the chess core,
// never by graphbook.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "book/chess/notation.h"
#include "book/chess/position.h"
#include "lichess_classes.h"

namespace gb::test {

struct TaggedGame {
  int white_elo = 0, black_elo = 0;  // 0: no tag
  std::string time_control;          // "": no tag
  std::string date;
  std::string result;
  std::vector<std::string> sans;
};

// The games: every combination drawn from a small generator, so that each
// filter below keeps some games and leaves some out at every position asked.
inline std::vector<TaggedGame> make_games() {
  const std::vector<std::vector<std::string>> lines = {{"e4", "e5", "Nf3", "Nc6"}, {"e4", "c5", "Nf3", "d6"},
                                                       {"e4", "e6", "d4", "d5"},   {"d4", "d5", "c4", "e6"},
                                                       {"d4", "Nf6", "c4", "g6"},  {"Nf3", "d5", "g3"},
                                                       {"c4", "e5", "Nc3"},        {"e4", "c6", "d4", "d5"}};
  const int elos[] = {0, 1500, 1700, 1900, 2100, 2300, 2600};
  const char* controls[] = {"", "60+0", "180+2", "600+0", "1800+30", "-", "15+0"};
  const char* dates[] = {"2013.05.01", "2015.01.12", "2016.03.??", "2019.11.20",
                         "2020.06.30", "2020.07.01", "2021.02.03", "????.??.??"};
  const char* results[] = {"1-0", "0-1", "1/2-1/2"};
  std::vector<TaggedGame> games;
  std::uint32_t x = 12345;
  auto next = [&](std::uint32_t n) {
    x = x * 1103515245u + 12345u;
    return (x >> 16) % n;
  };
  for (int i = 0; i < 600; ++i) {
    TaggedGame g;
    g.sans = lines[next(lines.size())];
    g.white_elo = elos[next(7)];
    g.black_elo = elos[next(7)];
    g.time_control = controls[next(7)];
    g.date = dates[next(8)];
    g.result = results[next(3)];
    games.push_back(g);
  }
  return games;
}

inline std::string write_pgn(const std::vector<TaggedGame>& games, const std::string& path) {
  std::ofstream out(path);
  int round = 0;
  for (const TaggedGame& g : games) {
    ++round;
    out << "[Event \"filters\"]\n[Round \"" << round << "\"]\n[White \"w" << round << "\"]\n[Black \"b"
        << round << "\"]\n[Date \"" << g.date << "\"]\n[Result \"" << g.result << "\"]\n";
    if (g.white_elo) out << "[WhiteElo \"" << g.white_elo << "\"]\n";
    if (g.black_elo) out << "[BlackElo \"" << g.black_elo << "\"]\n";
    if (!g.time_control.empty()) out << "[TimeControl \"" << g.time_control << "\"]\n";
    out << "\n";
    for (std::size_t i = 0; i < g.sans.size(); ++i)
      out << (i % 2 == 0 ? std::to_string(i / 2 + 1) + ". " : "") << g.sans[i] << " ";
    out << g.result << "\n\n";
  }
  return path;
}

inline int yyyymm_of(const std::string& date) {
  if (date[0] == '?') return 0;
  return std::stoi(date.substr(0, 4)) * 100 + (date[5] == '?' ? 0 : std::stoi(date.substr(5, 2)));
}

struct Filter {
  std::set<std::string> bands, speeds;
  int since = 0, until = 0;  // yyyymm, 0: none (a year's month 00 or 99)
  bool keeps(const TaggedGame& g, Color mover) const {
    if (!bands.empty() && !bands.count(band_of(mover == Color::White ? g.white_elo : g.black_elo)))
      return false;
    if (!speeds.empty() && !speeds.count(speed_of(g.time_control))) return false;
    int at = yyyymm_of(g.date);
    if ((since || until) && at == 0) return false;
    return (!since || at >= since) && (!until || at <= until);
  }
};

struct Counts {
  int white = 0, draws = 0, black = 0;
  bool operator==(const Counts&) const = default;
};
struct Expected {
  Counts node;
  std::map<std::string, Counts> moves;  // uci -> its games
};
inline void count(Counts& c, const std::string& result) {
  c.white += result == "1-0";
  c.draws += result == "1/2-1/2";
  c.black += result == "0-1";
}

// The games that reach the position after `play` (replayed), kept by the filter for its mover.
inline Expected expected(const std::vector<TaggedGame>& games, const std::vector<std::string>& play,
                         const Filter& f) {
  Position target;
  for (const auto& u : play) {
    UndoInfo undo;
    target.do_move(*parse_uci(target, u), undo);
  }
  Expected e;
  for (const TaggedGame& g : games) {
    Position pos;
    for (std::size_t i = 0; i <= g.sans.size(); ++i) {
      if (pos.key() == target.key()) {
        if (!f.keeps(g, pos.side_to_move())) break;
        count(e.node, g.result);
        if (i < g.sans.size()) count(e.moves[to_uci(parse_san(pos, g.sans[i]).move, false)], g.result);
        break;
      }
      if (i == g.sans.size()) break;
      auto parsed = parse_san(pos, g.sans[i]);
      REQUIRE(parsed.ok());
      UndoInfo undo;
      pos.do_move(parsed.move, undo);
    }
  }
  return e;
}

}  // namespace gb::test
