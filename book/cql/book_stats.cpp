#include "book/cql/book_stats.h"

#include <array>
#include <cassert>

namespace gb::cql {

namespace {

struct Keyword {
  std::string_view word;
  Op op;
  BookStat stat;
};

constexpr std::array<Keyword, 20> kKeywords = {{
    {"bookgames", Op::BookNodeStat, BookStat::Games},
    {"bookwhite", Op::BookNodeStat, BookStat::White},
    {"bookdraws", Op::BookNodeStat, BookStat::Draws},
    {"bookblack", Op::BookNodeStat, BookStat::Black},
    {"bookscore", Op::BookNodeStat, BookStat::Score},
    {"bookelo", Op::BookNodeStat, BookStat::Elo},
    {"bookmoves", Op::BookNodeStat, BookStat::Moves},
    {"bookply", Op::BookNodeStat, BookStat::Ply},
    {"booklearnedwins", Op::BookNodeStat, BookStat::LearnedWins},
    {"booklearneddraws", Op::BookNodeStat, BookStat::LearnedDraws},
    {"booklearnedlosses", Op::BookNodeStat, BookStat::LearnedLosses},
    {"bookmovegames", Op::BookMoveStat, BookStat::Games},
    {"bookmovewhite", Op::BookMoveStat, BookStat::White},
    {"bookmovedraws", Op::BookMoveStat, BookStat::Draws},
    {"bookmoveblack", Op::BookMoveStat, BookStat::Black},
    {"bookmovescore", Op::BookMoveStat, BookStat::Score},
    {"bookmoveelo", Op::BookMoveStat, BookStat::Elo},
    {"bookmovelearnedwins", Op::BookMoveStat, BookStat::LearnedWins},
    {"bookmovelearneddraws", Op::BookMoveStat, BookStat::LearnedDraws},
    {"bookmovelearnedlosses", Op::BookMoveStat, BookStat::LearnedLosses},
}};

// Per mille of the points scored by the side with `wins` wins: a win is a
// point, a draw half; rounded down. None without games.
std::optional<std::int64_t> score_per_mille(std::int64_t wins, std::int64_t draws, std::int64_t games) {
  if (games <= 0) return std::nullopt;
  return (2 * wins + draws) * 500 / games;
}

std::optional<std::int64_t> counts_stat(const BookCounts& c, BookStat stat, Color scorer) {
  switch (stat) {
    case BookStat::Games: return c.games;
    case BookStat::White: return c.white;
    case BookStat::Draws: return c.draws;
    case BookStat::Black: return c.black;
    case BookStat::Score:
      return score_per_mille(scorer == Color::White ? c.white : c.black, c.draws, c.games);
    case BookStat::Elo: return c.average_elo;
    case BookStat::LearnedWins:
      return c.learned ? std::optional<std::int64_t>(c.learned->wins) : std::nullopt;
    case BookStat::LearnedDraws:
      return c.learned ? std::optional<std::int64_t>(c.learned->draws) : std::nullopt;
    case BookStat::LearnedLosses:
      return c.learned ? std::optional<std::int64_t>(c.learned->losses) : std::nullopt;
    case BookStat::Moves:
    case BookStat::Ply: break;
  }
  assert(false && "not a count of BookCounts");
  return std::nullopt;
}

}  // namespace

std::optional<std::pair<Op, BookStat>> book_stat_keyword(std::string_view word) {
  if (!word.starts_with("book")) return std::nullopt;  // the common case, one comparison
  for (const Keyword& k : kKeywords)
    if (k.word == word) return std::make_pair(k.op, k.stat);
  return std::nullopt;
}

std::string_view book_stat_name(Op op, BookStat stat) {
  for (const Keyword& k : kKeywords)
    if (k.op == op && k.stat == stat) return k.word;
  assert(false && "a book statistics filter without a keyword");
  return "book?";
}

BookStat flip_color(BookStat stat) {
  switch (stat) {
    case BookStat::White: return BookStat::Black;
    case BookStat::Black: return BookStat::White;
    case BookStat::Games:
    case BookStat::Draws:
    case BookStat::Score:
    case BookStat::Elo:
    case BookStat::Moves:
    case BookStat::Ply:
    case BookStat::LearnedWins:
    case BookStat::LearnedDraws:
    case BookStat::LearnedLosses: break;
  }
  return stat;
}

std::optional<std::int64_t> node_stat(const BookNode& node, BookStat stat, Color side_to_move) {
  if (stat == BookStat::Moves) return node.book_moves;
  if (stat == BookStat::Ply) return node.ply;
  return counts_stat(node.counts, stat, side_to_move);
}

std::optional<std::int64_t> edge_stat(const BookCounts& edge, BookStat stat, Color mover) {
  return counts_stat(edge, stat, mover);
}

}  // namespace gb::cql
