#include "uci-adapter/book_moves.h"

#include <algorithm>
#include <cstdio>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"
#include "probe/position_report.h"

namespace gb::uci_adapter {

namespace {

std::string percent(std::uint32_t part, std::uint32_t whole) {
  return std::to_string(whole ? int(100.0 * part / whole + 0.5) : 0) + "%";
}

// A move only an imported .bin knows has a weight and no games: "weight 120"
// says what the book has, where "0 games, +0%" would read as a move that never
// scored. Never " score ": fastchess takes any info line holding it for an
// evaluation.
std::string weight_text(const probe::Candidate& c) { return "weight " + std::to_string(*c.imported_weight); }

}  // namespace

std::vector<probe::Candidate> book_candidates(store::Book& book, const Position& pos) {
  std::vector<probe::Candidate> out;
  auto edges = book.find_all(pos.key());
  if (edges.empty()) return out;
  MoveList legal;
  generate_legal(pos, legal);
  for (const auto& e : edges)
    if (legal.contains(e.move))
      out.push_back(probe::to_candidate(e.move, e.record, e.learning, pos.side_to_move()));
  return out;
}

std::optional<BookAnswer> book_answer(store::Book& book, const Position& pos,
                                      const probe::PickOptions& options, probe::Rng& rng,
                                      const BookFilter& filter) {
  auto candidates = book_candidates(book, pos);
  if (filter.active())
    std::erase_if(candidates, [&](const probe::Candidate& c) { return !filter.allows(pos, c.move); });
  if (candidates.empty()) return std::nullopt;
  auto weighing = probe::weigh(candidates, options);
  auto choice = probe::choose(candidates, weighing, rng);
  if (!choice) return std::nullopt;
  BookAnswer a;
  a.move = choice->move;
  a.stats = candidates[choice->index];
  a.weighing = weighing[choice->index];
  a.candidates = candidates.size();
  for (const auto& c : candidates) a.position_games += c.source.games();

  Position next = pos;
  UndoInfo undo;
  next.do_move(a.move, undo);
  auto replies = book_candidates(book, next);
  probe::PickOptions best{probe::Policy::Best, options.min_games, 0.0};
  if (auto reply = probe::choose(replies, best, rng)) a.ponder = reply->move;
  return a;
}

std::string describe(const BookAnswer& a, const Position&, probe::Policy policy, bool chess960) {
  const auto& s = a.stats.source;
  char p[32];
  std::snprintf(p, sizeof p, "%.2f", a.weighing.probability);
  std::string out = "book " + to_uci(a.move, chess960) + ": ";
  if (a.stats.weight_only())
    out += weight_text(a.stats) + " (imported, no games)";
  else
    out += std::to_string(s.games()) + " games, +" + percent(s.wins, s.games()) + " =" +
           percent(s.draws, s.games()) + " -" + percent(s.losses, s.games()) + " for the mover";
  const auto& l = a.stats.learned;
  if (l.games())
    out += "; learned +" + std::to_string(l.wins) + " =" + std::to_string(l.draws) + " -" +
           std::to_string(l.losses);
  out += "; " + std::to_string(a.candidates) + " book moves";
  if (a.position_games) out += ", " + std::to_string(a.position_games) + " games here";
  out += "; policy " + std::string(probe::to_string(policy)) + ", probability " + p;
  return out;
}

std::string describe_all(const std::vector<probe::Candidate>& candidates, bool chess960) {
  std::vector<probe::Candidate> sorted = candidates;
  // Most games first; moves without games (imported) by their weight.
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (a.source.games() != b.source.games()) return a.source.games() > b.source.games();
    return a.source.games() == 0 && probe::polyglot_weight(a) > probe::polyglot_weight(b);
  });
  std::string out = "book moves:";
  for (const auto& c : sorted) {
    if (c.weight_only()) {
      out.append(" ")
          .append(to_uci(c.move, chess960))
          .append(" (")
          .append(weight_text(c))
          .append(", imported)");
      continue;
    }
    char score[16];
    std::snprintf(score, sizeof score, "%.0f%%", 100.0 * c.source.score());
    out.append(" ").append(to_uci(c.move, chess960)).append(" (").append(std::to_string(c.source.games()));
    out.append(" games, ").append(score).append(")");
  }
  return out;
}

}  // namespace gb::uci_adapter
