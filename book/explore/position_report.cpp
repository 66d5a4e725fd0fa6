#include "book/explore/position_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "book/chess/notation.h"

namespace gb::explore {

namespace {

double percent(std::uint32_t part, std::uint32_t whole) { return whole ? 100.0 * part / whole : 0.0; }

std::string fixed(double v, int decimals = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string_view last_result_name(std::uint8_t r) {
  switch (r) {
    case 1: return "win";
    case 2: return "draw";
    case 3: return "loss";
    default: return "";
  }
}

std::string learned_text(const store::LearnRecord& l) {
  if (l.wins + l.draws + l.losses == 0) return "";
  std::string s = std::to_string(l.wins) + "/" + std::to_string(l.draws) + "/" + std::to_string(l.losses);
  if (l.last_result) s += " " + std::string(last_result_name(l.last_result));
  return s;
}

std::string pad(std::string s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

nlohmann::json opening_json(const OpeningName* name) {
  if (!name) return nullptr;
  return {{"eco", name->eco}, {"name", name->name}};
}

nlohmann::json learning_json(const store::LearnRecord& l) {
  return {{"wins", l.wins},
          {"draws", l.draws},
          {"losses", l.losses},
          {"last", l.last_result ? nlohmann::json(last_result_name(l.last_result)) : nlohmann::json(nullptr)},
          {"last_played", l.last_played}};
}

// "+0.35" (pawns, as GUIs show them) or "#3" / "#-3".
std::string eval_text(const store::Evaluation& e) {
  if (e.kind == store::Evaluation::Kind::Mate) return "#" + std::to_string(e.score);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", e.score / 100.0);
  return buf;
}

std::string pawns_text(double cp) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", cp / 100.0);
  return buf;
}

int value_centipawns(const store::BackedUpValue& v) {
  return int(std::lround(store::centipawns_of_expected_score(v.score)));
}

// "44.0% -0.60 d3": the value in percent, in pawns where an engine evaluation is under it, and its depth.
std::string value_text(const store::BackedUpValue& v) {
  std::string out = fixed(100 * v.score) + "%";
  if (v.from_engine) out += " " + pawns_text(value_centipawns(v));
  return out + " d" + std::to_string(v.depth);
}

std::string interval_text(const std::optional<Interval>& i) {
  if (!i) return "-";
  return fixed(100 * i->low, 0) + "-" + fixed(100 * i->high, 0);
}

nlohmann::json eval_json(const store::Evaluation& e, bool chess960) {
  nlohmann::json j;
  j[e.kind == store::Evaluation::Kind::Mate ? "mate" : "cp"] = e.score;
  j["depth"] = e.depth;
  j["nodes"] = e.nodes;
  j["best"] = e.best ? nlohmann::json(to_uci(e.best, chess960)) : nlohmann::json(nullptr);
  j["engine"] = e.engine;
  return j;
}

nlohmann::json value_json(const std::optional<store::BackedUpValue>& v) {
  if (!v) return nullptr;
  nlohmann::json j = {{"score", v->score}, {"depth", v->depth}};
  if (v->from_engine) j["cp"] = value_centipawns(*v);
  return j;
}

nlohmann::json interval_json(const std::optional<Interval>& i) {
  if (!i) return nullptr;
  return nlohmann::json::array({i->low, i->high});
}

Candidate make_candidate(Move move, const store::Counters& c, std::optional<std::uint32_t> weight,
                         const store::LearnRecord& learning, Color mover) {
  Candidate cand;
  cand.move = move;
  cand.source.wins = mover == Color::White ? c.white_wins : c.black_wins;
  cand.source.losses = mover == Color::White ? c.black_wins : c.white_wins;
  cand.source.draws = c.draws + c.unknown;
  cand.learned = Results{learning.wins, learning.draws, learning.losses};
  cand.last = learning.last_result <= 3 ? LastResult(learning.last_result) : LastResult::None;
  cand.imported_weight = weight;
  return cand;
}

std::uint32_t row_weight(const MoveRow& row, Color mover) {
  return polyglot_weight(make_candidate(row.move, row.counters, row.imported_weight, {}, mover));
}

}  // namespace

// The import keeps a .bin entry's weight as its edge's score (builder/polyglot_import.cpp).
std::optional<std::uint32_t> imported_weight(const store::EdgeRecord& e) {
  if (e.counters.games == 0 && (e.flags & store::kEdgeImported)) return e.score;
  return std::nullopt;
}

std::optional<Interval> mover_interval(const store::Counters& c, Color mover) {
  if (!c.games) return std::nullopt;
  return wilson_interval(mover_score(c, mover) / 100, c.games);
}

std::optional<store::BackedUpValue> move_value(const MoveRow& row) {
  if (!row.child_value) return std::nullopt;
  store::BackedUpValue v = *row.child_value;
  v.score = 1 - v.score;
  v.depth = std::uint16_t(v.depth + 1);
  return v;
}

double mover_score(const store::Counters& c, Color mover) {
  if (!c.games) return 0;
  std::uint32_t wins = mover == Color::White ? c.white_wins : c.black_wins;
  return 100.0 * (wins + 0.5 * (c.draws + c.unknown)) / c.games;
}

std::optional<PositionReport> make_report(BookReader& reader, const ResolvedPosition& where,
                                          const OpeningTable* table, store::Error* error) {
  PositionReport r;
  r.position = where.position;
  Key key = r.position.key();
  r.node = reader.node(key, error);
  if (error && error->code) return std::nullopt;
  r.node_learning = reader.node_learning(key);
  r.eval = reader.evaluation(key);
  r.value = reader.value(key);
  std::vector<store::BookEdge> edges;
  if (auto s = reader.edges(key, edges)) {
    if (error) *error = *s;
    return std::nullopt;
  }
  if (table) {
    r.opening = table->nearest(where.line);
    r.opening_exact = r.opening && r.opening == table->find(key);
  }
  std::vector<Key> child_line = where.line;
  child_line.push_back(0);
  for (const store::BookEdge& e : edges) {
    MoveRow row;
    row.move = e.move;
    row.san = to_san(r.position, e.move);
    row.uci = to_uci(e.move, r.position.chess960());
    row.counters = e.record.counters;
    row.imported_weight = imported_weight(e.record);
    row.polyglot_rank = e.record.polyglot_rank;
    row.learning = e.learning;
    if (!(e.record.flags & store::kEdgeKeyOnly)) {
      row.child = reader.node(e.record.child_key);
      row.child_value = reader.value(e.record.child_key);
    }
    if (table) {
      child_line.back() = e.record.child_key;
      row.opening = table->nearest(child_line);
    }
    r.moves.push_back(std::move(row));
  }
  // Games first; moves without games (an imported .bin's) by their weight, as the .bin orders them.
  Color mover = r.position.side_to_move();
  std::stable_sort(r.moves.begin(), r.moves.end(), [mover](const MoveRow& a, const MoveRow& b) {
    if (a.counters.games != b.counters.games) return a.counters.games > b.counters.games;
    std::uint32_t wa = row_weight(a, mover), wb = row_weight(b, mover);
    if (wa != wb) return wa > wb;
    return a.polyglot_rank < b.polyglot_rank;
  });
  return r;
}

Candidate to_candidate(Move move, const store::EdgeRecord& edge, const store::LearnRecord& learning,
                       Color mover) {
  return make_candidate(move, edge.counters, imported_weight(edge), learning, mover);
}

std::vector<Candidate> to_candidates(const PositionReport& report) {
  std::vector<Candidate> out;
  for (const MoveRow& row : report.moves)
    out.push_back(make_candidate(row.move, row.counters, row.imported_weight, row.learning,
                                 report.position.side_to_move()));
  return out;
}

std::string format_text(const PositionReport& r) {
  Color mover = r.position.side_to_move();
  std::string out;
  out += "Position: " + r.position.fen() + "  (key " + key_hex(r.position.key()) + ")\n";
  if (r.opening)
    out += "Opening:  " + r.opening->eco + " " + r.opening->name + (r.opening_exact ? "" : "  (inherited)") +
           "\n";
  bool weight_only = std::any_of(r.moves.begin(), r.moves.end(),
                                 [](const MoveRow& m) { return m.imported_weight.has_value(); });
  if (r.node && r.node->counters.games == 0 && weight_only) {
    out += "Games:    none: the moves come from an imported Polyglot book, with its weights\n";
  } else if (r.node) {
    const store::Counters& c = r.node->counters;
    out += "Games:    " + std::to_string(c.games) + "  white " + fixed(percent(c.white_wins, c.games)) +
           "%  draw " + fixed(percent(c.draws, c.games)) + "%  black " +
           fixed(percent(c.black_wins, c.games)) + "%";
    if (c.average_elo()) out += "  avg Elo " + std::to_string(c.average_elo());
    out += "\n";
  }
  if (r.eval)
    out += "Eval:     " + eval_text(*r.eval) + " for the side to move (depth " +
           std::to_string(r.eval->depth) +
           (r.eval->best ? ", best " + to_uci(r.eval->best, r.position.chess960()) : std::string()) + ", " +
           r.eval->engine + ")\n";
  if (r.value)
    out += "Value:    " + fixed(100 * r.value->score) + "% for the side to move" +
           (r.value->from_engine ? " (" + pawns_text(value_centipawns(*r.value)) + ")" : std::string()) +
           ", backed up over " + std::to_string(r.value->depth) + " plies\n";
  if (r.moves.empty()) return out + "No book moves from this position.\n";
  const bool values =
      std::any_of(r.moves.begin(), r.moves.end(), [](const MoveRow& m) { return m.child_value; });
  std::vector<std::string> header = {"move",   "uci", "games", "weight",  "white%",  "draw%",  "black%",
                                     "score%", "95%", "elo",   "learned", "reached", "opening"};
  std::vector<std::size_t> width = {8, 6, 7, 7, 7, 6, 7, 7, 7, 5, 14, 9, 0};
  std::vector<bool> right = {false, false, true, true,  true, true, true,
                             true,  true,  true, false, true, false};
  if (values) {  // the backed-up value beside the raw score
    header.insert(header.begin() + 9, "value");
    width.insert(width.begin() + 9, 16);
    right.insert(right.begin() + 9, true);
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i)
      l += pad(cells[i], width[i], right[i]) + (i + 1 < cells.size() ? "  " : "");
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(header);
  bool any_transposition = false;
  for (const MoveRow& m : r.moves) {
    const store::Counters& c = m.counters;
    std::string reached = m.child && m.child->counters.games ? std::to_string(m.child->counters.games) : "-";
    if (m.transposition()) reached += "*", any_transposition = true;
    // Without games there are no results to give: "-" rather than 0.0 %.
    auto share = [&](std::uint32_t part) { return c.games ? fixed(percent(part, c.games)) : "-"; };
    std::vector<std::string> cells = {m.san,
                                      m.uci,
                                      c.games ? std::to_string(c.games) : "-",
                                      std::to_string(row_weight(m, mover)),
                                      share(c.white_wins),
                                      share(c.draws),
                                      share(c.black_wins),
                                      c.games ? fixed(mover_score(c, mover)) : "-",
                                      interval_text(mover_interval(c, mover)),
                                      c.average_elo() ? std::to_string(c.average_elo()) : "-",
                                      learned_text(m.learning),
                                      reached,
                                      m.opening ? m.opening->eco + " " + m.opening->name : ""};
    if (values) {
      auto v = move_value(m);
      cells.insert(cells.begin() + 9, v ? value_text(*v) : "-");
    }
    line(cells);
  }
  if (weight_only) out += "weight: the imported Polyglot book's, for moves without games\n";
  out += "95%: the score's 95 % interval (Wilson, docs/PROBE.md)\n";
  if (values)
    out +=
        "value: backed up through the book for the mover (graphbook values): percent, pawns where an engine\n"
        "       evaluation is under it, and the plies it is backed up over (docs/VALUES.md)\n";
  if (any_transposition)
    out +=
        "* the resulting position was reached by more games than played this move here (a transposition)\n";
  return out;
}

nlohmann::json format_json(const PositionReport& r) {
  Color mover = r.position.side_to_move();
  store::Counters total = r.node ? r.node->counters : store::Counters{};
  nlohmann::json j;
  j["white"] = total.white_wins;
  j["draws"] = total.draws;
  j["black"] = total.black_wins;
  j["averageRating"] = total.average_elo() ? nlohmann::json(total.average_elo()) : nlohmann::json(nullptr);
  j["moves"] = nlohmann::json::array();
  for (const MoveRow& m : r.moves) {
    const store::Counters& c = m.counters;
    nlohmann::json mj = {
        {"uci", m.uci},
        {"san", m.san},
        {"white", c.white_wins},
        {"draws", c.draws},
        {"black", c.black_wins},
        {"averageRating", c.average_elo() ? nlohmann::json(c.average_elo()) : nlohmann::json(nullptr)},
        {"opening", opening_json(m.opening)},
        {"games", c.games},
        {"unknown", c.unknown},
        {"weight", row_weight(m, mover)},
        {"imported_weight", m.imported_weight ? nlohmann::json(*m.imported_weight) : nlohmann::json(nullptr)},
        {"score", c.games ? nlohmann::json(mover_score(c, mover) / 100) : nlohmann::json(nullptr)},
        {"learning", learning_json(m.learning)},
        {"interval", interval_json(mover_interval(c, mover))},
        {"value", value_json(move_value(m))}};
    if (m.child) {
      const store::Counters& cc = m.child->counters;
      mj["position"] = {{"games", cc.games},
                        {"white", cc.white_wins},
                        {"draws", cc.draws},
                        {"black", cc.black_wins},
                        {"transposition", m.transposition()}};
    } else {
      mj["position"] = nullptr;
    }
    j["moves"].push_back(std::move(mj));
  }
  j["opening"] = opening_json(r.opening);
  j["opening_inherited"] = r.opening && !r.opening_exact;
  j["fen"] = r.position.fen();
  j["key"] = key_hex(r.position.key());
  j["games"] = total.games;
  j["unknown"] = total.unknown;
  j["learning"] = learning_json(r.node_learning);
  j["eval"] = r.eval ? eval_json(*r.eval, r.position.chess960()) : nlohmann::json(nullptr);
  j["value"] = value_json(r.value);
  return j;
}

}  // namespace gb::explore
