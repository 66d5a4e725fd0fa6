#include "analysis/backed_up_values.h"

#include <algorithm>
#include <cassert>
#include <ctime>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <vector>

#include "book/store/records.h"
#include "book/store/section_groups.h"

namespace gb::analysis {

namespace {

struct Edge {
  Key child;
  std::uint32_t games;
  std::uint16_t move;
};

struct Node {
  std::optional<double> own;
  bool analysed = false;
  std::uint16_t min_ply = 0;
  std::vector<Edge> edges;  // the counted ones (games >= min_games, child stored)
};

std::optional<double> results_score(const store::NodeRecord& node) {
  const store::Counters& c = node.counters;
  if (c.games == 0) return std::nullopt;
  bool black = node.flags & store::kBlackToMove;
  std::uint32_t wins = black ? c.black_wins : c.white_wins;
  return (wins + 0.5 * (double(c.draws) + c.unknown)) / c.games;
}

// Reads the nodes, their counted edges and the evaluations.
std::optional<std::unordered_map<Key, Node>> read_graph(store::Book& book, std::uint32_t min_games,
                                                        ValuesSummary& summary, store::Error* error) {
  auto txn = store::ReadTxn::begin(book.env(), error);
  if (!txn) return std::nullopt;
  std::optional<MDB_dbi> evals;
  if (auto s = store::find_evals(*txn, evals)) {
    if (error) *error = *s;
    return std::nullopt;
  }
  store::Error e;
  std::unordered_map<Key, Node> graph;
  auto cursor = store::SectionCursor::open(*txn, book.dbs().positions, error);
  if (!cursor) return std::nullopt;
  std::vector<store::BookEdge> edges;
  Key key;
  std::string_view section;
  while (cursor->next(key, section, &e)) {
    auto record = store::SectionReader(section).node();
    if (!record) continue;  // key-only edges of an imported .bin: no position
    Node node;
    node.min_ply = record->min_ply;
    node.own = results_score(*record);
    if (evals)
      if (auto eval = store::get_evaluation(*txn, *evals, key)) {
        node.own = store::expected_score(*eval);
        node.analysed = true;
        ++summary.analysed;
      }
    edges.clear();
    store::append_edges(section, edges);
    for (const store::BookEdge& edge : edges)
      if (!(edge.record.flags & store::kEdgeKeyOnly) && edge.record.counters.games >= min_games &&
          edge.record.counters.games > 0)
        node.edges.push_back({edge.record.child_key, edge.record.counters.games, edge.move.raw()});
    graph.emplace(key, std::move(node));
  }
  if (e.code) {
    if (error) *error = e;
    return std::nullopt;
  }
  summary.positions = graph.size();
  return graph;
}

// The best counted move of a node: its value for the mover, games and depth.
struct Best {
  double score = -1;
  std::uint32_t games = 0;
  std::uint16_t move = 0;
  std::uint16_t depth = 0;
  bool from_engine = false;
  bool beats(const Best& o) const {
    if (score != o.score) return score > o.score;
    if (games != o.games) return games > o.games;
    return move < o.move;
  }
};

class Walk {
 public:
  Walk(const std::unordered_map<Key, Node>& graph, ValuesSummary& summary)
      : graph_(graph), summary_(summary) {}

  // Values every position reachable from root that is not valued yet.
  void from(Key root) {
    if (values_.count(root)) return;
    enter(root);
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      const Node& node = graph_.at(top.key);
      if (top.next < node.edges.size()) {
        const Edge& edge = node.edges[top.next++];
        auto child = graph_.find(edge.child);
        if (child == graph_.end()) continue;
        if (on_path_.count(edge.child)) {
          ++summary_.repetitions;
          consider(top, {0.5, edge.games, edge.move, 1, false});  // a draw one ply down
        } else if (auto v = values_.find(edge.child); v != values_.end()) {
          consider(top, {1 - v->second.score, edge.games, edge.move, std::uint16_t(v->second.depth + 1),
                         v->second.from_engine});
        } else {
          enter(edge.child);  // its value comes back to this frame when it finishes
        }
        continue;
      }
      Frame done = top;
      stack_.pop_back();
      on_path_.erase(done.key);
      std::optional<store::BackedUpValue> value = combine(node, done.best);
      if (value) values_.emplace(done.key, *value);
      if (!stack_.empty() && value) {
        const Edge& edge = graph_.at(stack_.back().key).edges[stack_.back().next - 1];
        consider(stack_.back(), {1 - value->score, edge.games, edge.move, std::uint16_t(value->depth + 1),
                                 value->from_engine});
      }
    }
  }

  std::unordered_map<Key, store::BackedUpValue>& values() { return values_; }

 private:
  struct Frame {
    Key key;
    std::size_t next = 0;
    std::optional<Best> best;
  };

  void enter(Key key) {
    stack_.push_back({key, 0, std::nullopt});
    on_path_.insert(key);
  }

  static void consider(Frame& frame, const Best& candidate) {
    if (!frame.best || candidate.beats(*frame.best)) frame.best = candidate;
  }

  static std::optional<store::BackedUpValue> combine(const Node& node, const std::optional<Best>& best) {
    if (!best) {
      if (!node.own) return std::nullopt;
      return store::BackedUpValue{*node.own, 0, node.analysed};
    }
    double score = best->score;
    if (node.own) score = (best->games * best->score + kOwnWeight * *node.own) / (best->games + kOwnWeight);
    return store::BackedUpValue{std::clamp(score, 0.0, 1.0), best->depth, best->from_engine || node.analysed};
  }

  const std::unordered_map<Key, Node>& graph_;
  ValuesSummary& summary_;
  std::vector<Frame> stack_;
  std::unordered_set<Key> on_path_;  // the positions of stack_
  std::unordered_map<Key, store::BackedUpValue> values_;
};

}  // namespace

std::optional<std::unordered_map<Key, store::BackedUpValue>> back_up_values(store::Book& book,
                                                                            std::uint32_t min_games,
                                                                            ValuesSummary& summary,
                                                                            store::Error* error) {
  auto graph = read_graph(book, min_games, summary, error);
  if (!graph) return std::nullopt;
  std::vector<std::pair<std::uint16_t, Key>> roots;
  roots.reserve(graph->size());
  for (const auto& [key, node] : *graph) roots.emplace_back(node.min_ply, key);
  std::sort(roots.begin(), roots.end());
  Walk walk(*graph, summary);
  for (const auto& [ply, key] : roots) walk.from(key);
  summary.valued = walk.values().size();
  return std::move(walk.values());
}

store::Status store_values(store::Book& book, const std::unordered_map<Key, store::BackedUpValue>& values,
                           std::uint32_t min_games) {
  std::vector<Key> keys;
  keys.reserve(values.size());
  for (const auto& [key, value] : values) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  nlohmann::json params = {{"min_games", min_games},
                           {"computed_at", std::int64_t(std::time(nullptr))},
                           {"own_weight", kOwnWeight}};
  return book.write([&](store::WriteTxn& txn) -> store::Status {
    store::Error e;
    auto dbi = store::open_values(txn, true, &e);
    if (!dbi) return e;
    if (auto s = txn.drop(*dbi)) return s;
    for (Key key : keys)
      if (auto s = txn.put(*dbi, store::NodeKey(key).view(), store::encode(values.at(key)), MDB_APPEND))
        return s;
    return txn.put(book.dbs().meta, "values_params", params.dump());
  });
}

}  // namespace gb::analysis
