#include "query/graph_query.h"

#include <algorithm>

#include "book/store/polyglot.h"
#include "query/book_window.h"
#include "query/query_shape.h"

namespace gb::query {

namespace {

// A node waiting in the breadth-first queue, with the edge it was reached by.
struct Pending {
  Position position;
  std::uint32_t visit;
  Key key;
  Key parent_key;
  store::Counters arrival;
  std::string_view section;  // the node's, in the book's map
};

// Whether the walk, having visited `visited` nodes, stops before the next.
// The node budget is looked at first, so that a run it stops ends at the
// same node on any machine.
StopReason budget_spent(const QueryOptions& options, std::uint64_t visited) {
  if (options.max_nodes > 0 && visited >= options.max_nodes) return StopReason::NodeBudget;
  if (options.deadline && visited % kClockInterval == 0 &&
      std::chrono::steady_clock::now() >= *options.deadline)
    return StopReason::TimeBudget;
  return StopReason::None;
}

}  // namespace

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::None: return "";
    case StopReason::NodeBudget: return "node budget";
    case StopReason::TimeBudget: return "time budget";
  }
  return "";
}

std::vector<Move> QueryRun::line(std::uint32_t visit) const {
  std::vector<Move> out;
  for (std::uint32_t v = visit; v != 0; v = steps[v].parent) out.push_back(steps[v].move);
  std::reverse(out.begin(), out.end());
  return out;
}

std::optional<QueryRun> run_graph_query(store::Book& book, const cql::Program& program, const Position& start,
                                        const QueryOptions& options, std::FILE* messages, QueryError* error) {
  store::Error e;
  auto sections = BookSections::open(book, &e);
  if (!sections) return *error = QueryError::book(e.message()), std::nullopt;
  if (options.filter) sections->set_filter(*options.filter);
  // A traversal of the whole graph below the start reads most sections:
  // one sequential pass first makes each read a lookup in memory (on a book
  // of a million positions the pass takes a quarter of a second and saves
  // a second). Not for a node budget of less than half the book.
  if (options.depth < 0 && (options.max_nodes == 0 || options.max_nodes >= sections->position_count() / 2))
    if (auto s = sections->index_all()) return *error = QueryError::book(s->message()), std::nullopt;
  QueryRun run;
  const QueryShape shape = shape_of(program);
  BookWindow window(*sections, shape, std::max(options.window, 1));
  cql::Evaluator evaluator(program);
  cql::EvalOptions eval;
  eval.variations = true;  // the node's book moves are its children, all of them
  eval.book = &window;

  std::vector<Pending> level, next;
  std::optional<std::string_view> section;
  std::uint32_t* visit_number;
  if (sections->first_visit(start.key(), section, visit_number) && section)
    level.push_back({start, 0, start.key(), 0, {}, *section});
  run.steps.push_back({0, Move()});
  std::vector<Move> line;
  std::uint16_t move;
  store::EdgeRecord edge;
  for (int depth = 0; !level.empty(); ++depth) {
    const int ply = options.start_ply + depth;
    const bool expand =
        (options.max_ply <= 0 || ply < options.max_ply) && (options.depth < 0 || depth < options.depth);
    next.clear();
    const auto next_first = std::uint32_t(run.steps.size());  // the visit number of next[0]
    // In key order, the order of the sections in the book's file: the reads
    // of a level walk the map forward instead of jumping about it.
    std::sort(level.begin(), level.end(), [](const Pending& a, const Pending& b) { return a.key < b.key; });
    for (const Pending& p : level) {
      if ((run.stopped = budget_spent(options, run.nodes_visited)) != StopReason::None) break;
      store::SectionReader reader(p.section);
      std::optional<store::NodeRecord> record = reader.node();
      ++run.nodes_visited;
      if (shape.line) line = run.line(p.visit);
      NodeVisit visit{&p.position, p.key, ply, line, &start, record ? &*record : nullptr, p.section};
      if (p.visit != 0) {
        visit.arrival = &p.arrival;
        visit.parent_key = p.parent_key;
        if (!shape.line) line.assign(1, run.steps[p.visit].move), visit.line = line;
      }
      const cql::Game& game = window.build(visit);
      cql::GameResult result = evaluator.run_at(game, window.current(), eval);
      if (!result.messages.empty() && options.messages) std::fputs(result.messages.c_str(), messages);
      if (result.assert_failure) {
        run.fatal = *result.assert_failure;
        break;
      }
      if (result.matched())
        run.matches.push_back(
            {p.key, p.visit, ply, record.value_or(store::NodeRecord{}), std::move(result.sort_values)});
      if (!expand) continue;
      while (reader.next(move, edge)) {
        // An imported .bin's entry names no child: it is the position after
        // the move, when the move is legal here.
        if (edge.flags & store::kEdgeKeyOnly) {
          Move legal = store::from_polyglot_move(p.position, store::to_polyglot_move(Move(move)));
          if (!legal) continue;
          move = legal.raw();
          Position after = p.position;
          UndoInfo undo;
          after.do_move(legal, undo);
          edge.child_key = after.key();
        }
        if (!sections->first_visit(edge.child_key, section, visit_number)) {
          // Reached again at the same depth: of the shortest lines, keep the
          // one whose last move was played most.
          if (*visit_number >= next_first && *visit_number > 0) {
            Pending& other = next[*visit_number - next_first];
            if (edge.counters.games > other.arrival.games) {
              other.arrival = edge.counters;
              other.parent_key = p.key;
              other.position = p.position;  // the same position, its clocks as this line has them
              UndoInfo undo;
              other.position.do_move(Move(move), undo);
              run.steps[*visit_number] = {p.visit, Move(move)};
            }
          }
          continue;
        }
        if (!section) continue;  // a position the book has no section for: no node to evaluate
        *visit_number = std::uint32_t(run.steps.size());
        Pending& child = next.emplace_back(Pending{p.position, std::uint32_t(run.steps.size()),
                                                   edge.child_key, p.key, edge.counters, *section});
        UndoInfo undo;
        child.position.do_move(Move(move), undo);
        run.steps.push_back({p.visit, Move(move)});
      }
    }
    if (!run.fatal.empty() || run.stopped != StopReason::None) break;
    std::swap(level, next);
  }
  if (sections->error().code && run.fatal.empty()) run.fatal = sections->error().message();
  run.persistent = evaluator.persistent_values();
  return run;
}

void sort_matches(const cql::Program& program, std::vector<NodeMatch>& matches) {
  auto better = [&](const NodeMatch& a, const NodeMatch& b) {
    for (std::size_t i = 0; i < program.sorts.size() && i < a.sort.size() && i < b.sort.size(); ++i) {
      const auto &x = a.sort[i], &y = b.sort[i];
      if (x.has_value() != y.has_value()) return x.has_value();
      if (!x || *x == *y) continue;
      return program.sorts[i].minimize ? *x < *y : *x > *y;
    }
    if (!program.sorts.empty()) return false;
    return a.record.counters.games > b.record.counters.games;
  };
  std::stable_sort(matches.begin(), matches.end(), better);
}

}  // namespace gb::query
