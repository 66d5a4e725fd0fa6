#include "builder/aggregator.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gb::builder {

namespace {

constexpr std::size_t kInitialSlots = std::size_t(1) << 14;
constexpr double kMaxLoad = 0.7;

inline std::size_t edge_hash(Key key, std::uint16_t move) {
  return std::size_t(key ^ (std::uint64_t(move) * 0x9E3779B97F4A7C15ull));
}

// Score of one occurrence for the mover, as Polyglot's make-book counts it.
inline std::uint32_t mover_score(store::Result r, Color mover) {
  switch (r) {
    case store::Result::WhiteWins: return mover == Color::White ? 2 : 0;
    case store::Result::BlackWins: return mover == Color::Black ? 2 : 0;
    case store::Result::Draw:
    case store::Result::Unknown: return 1;
  }
  return 1;
}

template <class T>
bool write_all(std::FILE* f, const std::vector<T>& v, std::size_t n) {
  return std::fwrite(v.data(), sizeof(T), n, f) == n;
}

}  // namespace

Aggregator::Aggregator(std::size_t memory_budget, std::string spill_dir, Side side)
    : nodes_(kInitialSlots), edges_(kInitialSlots), budget_(memory_budget), spill_dir_(std::move(spill_dir)),
      side_(side) {}

Aggregator::~Aggregator() {
  for (const Run& r : runs_)
    if (!r.path.empty()) ::unlink(r.path.c_str());
}

NodeEntry* Aggregator::find_node(Key key) {
  std::size_t mask = nodes_.size() - 1;
  for (std::size_t i = std::size_t(key) & mask;; i = (i + 1) & mask) {
    NodeEntry& e = nodes_[i];
    if (e.last_game == 0 || e.key == key) return &e;
  }
}

EdgeEntry* Aggregator::find_edge(Key key, std::uint16_t move) {
  std::size_t mask = edges_.size() - 1;
  for (std::size_t i = edge_hash(key, move) & mask;; i = (i + 1) & mask) {
    EdgeEntry& e = edges_[i];
    if (e.last_game == 0 || (e.key == key && e.move == move)) return &e;
  }
}

void Aggregator::grow_nodes() {
  std::vector<NodeEntry> old(nodes_.size() * 2);
  old.swap(nodes_);
  for (const NodeEntry& e : old)
    if (e.last_game) *find_node(e.key) = e;
}

void Aggregator::grow_edges() {
  std::vector<EdgeEntry> old(edges_.size() * 2);
  old.swap(edges_);
  for (const EdgeEntry& e : old)
    if (e.last_game) *find_edge(e.key, e.move) = e;
}

bool Aggregator::over_budget() const {
  return nodes_.size() * sizeof(NodeEntry) + edges_.size() * sizeof(EdgeEntry) > budget_;
}

bool Aggregator::add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n) {
  if (++game_id_ == 0) game_id_ = 1;
  const int elo[2] = {game.white_elo, game.black_elo};
  for (std::size_t i = 0; i < n; ++i) {
    const PlyRecord& p = plies[i];
    Color mover = (i & 1) ? ~game.first_mover : game.first_mover;
    std::uint16_t ply = std::uint16_t(std::min(game.first_ply + int(i), 65535));
    NodeEntry* node = find_node(p.key);
    if (node->last_game == 0) {
      node->key = p.key;
      node->record = store::NodeRecord{};
      node->record.position_hash = p.position_hash;
      node->record.min_ply = ply;
      node->record.flags = mover == Color::Black ? store::kBlackToMove : 0;
      ++node_count_;
    } else if (node->record.position_hash != p.position_hash) {
      ++collisions_;  // another position with this key: never merged
      continue;
    }
    if (node->last_game != game_id_) {
      node->last_game = game_id_;
      node->record.counters.add_game(game.result, elo[int(mover)], game.year);
    }
    node->record.min_ply = std::min(node->record.min_ply, ply);

    if (!p.move || i + 1 >= n) continue;
    if ((side_ == Side::White && mover != Color::White) || (side_ == Side::Black && mover != Color::Black)) continue;
    EdgeEntry* edge = find_edge(p.key, p.move.raw());
    if (edge->last_game == 0) {
      edge->key = p.key;
      edge->move = p.move.raw();
      edge->record = store::EdgeRecord{};
      edge->record.child_key = plies[i + 1].key;
      edge->record.min_ply = ply;
      edge->record.flags = mover == Color::Black ? store::kEdgeBlackMoves : 0;
      ++edge_count_;
    }
    if (edge->last_game != game_id_) {
      edge->last_game = game_id_;
      edge->record.counters.add_game(game.result, elo[int(mover)], game.year);
    }
    ++edge->record.occurrences;
    edge->record.score += mover_score(game.result, mover);
    edge->record.min_ply = std::min(edge->record.min_ply, ply);
  }
  // Grow a table past its load limit, or spill when growing would pass the budget.
  bool nodes_full = double(node_count_) > kMaxLoad * double(nodes_.size());
  bool edges_full = double(edge_count_) > kMaxLoad * double(edges_.size());
  if (!nodes_full && !edges_full) return true;
  std::size_t next = (nodes_.size() << int(nodes_full)) * sizeof(NodeEntry) +
                     (edges_.size() << int(edges_full)) * sizeof(EdgeEntry);
  if (next > budget_ && node_count_ + edge_count_ > 0) return spill();
  if (nodes_full) grow_nodes();
  if (edges_full) grow_edges();
  return true;
}

void Aggregator::take_sorted(std::vector<NodeEntry>& nodes, std::vector<EdgeEntry>& edges) {
  // Compacts the used slots to the front of each table and sorts them in place.
  auto nend = std::partition(nodes_.begin(), nodes_.end(), [](const NodeEntry& e) { return e.last_game != 0; });
  std::sort(nodes_.begin(), nend, [](const NodeEntry& a, const NodeEntry& b) { return a.key < b.key; });
  auto eend = std::partition(edges_.begin(), edges_.end(), [](const EdgeEntry& e) { return e.last_game != 0; });
  std::sort(edges_.begin(), eend, [](const EdgeEntry& a, const EdgeEntry& b) {
    return a.key != b.key ? a.key < b.key : a.move < b.move;
  });
  nodes_.resize(std::size_t(nend - nodes_.begin()));
  edges_.resize(std::size_t(eend - edges_.begin()));
  nodes.swap(nodes_);
  edges.swap(edges_);
}

bool Aggregator::spill() {
  std::size_t node_slots = nodes_.size(), edge_slots = edges_.size();
  std::vector<NodeEntry> nodes;
  std::vector<EdgeEntry> edges;
  take_sorted(nodes, edges);
  Run run;
  run.path = spill_dir_ + "/graphbook-run-" + std::to_string(::getpid()) + "-" +
             std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-" + std::to_string(spill_count_++);
  run.node_count = nodes.size();
  run.edge_count = edges.size();
  std::FILE* f = std::fopen(run.path.c_str(), "wb");
  bool ok = f && write_all(f, nodes, nodes.size()) && write_all(f, edges, edges.size());
  if (f && std::fclose(f) != 0) ok = false;
  if (!ok) {
    error_ = "cannot write the aggregation run " + run.path + ": " + std::strerror(errno);
    return false;
  }
  runs_.push_back(std::move(run));
  // Reuse the memory: same number of slots, all free.
  nodes.assign(node_slots, NodeEntry{});
  edges.assign(edge_slots, EdgeEntry{});
  nodes_.swap(nodes);
  edges_.swap(edges);
  node_count_ = edge_count_ = 0;
  return true;
}

bool Aggregator::finish() {
  Run run;
  take_sorted(run.nodes, run.edges);
  run.node_count = run.nodes.size();
  run.edge_count = run.edges.size();
  runs_.push_back(std::move(run));
  nodes_.clear();
  nodes_.shrink_to_fit();
  edges_.clear();
  edges_.shrink_to_fit();
  return true;
}

}  // namespace gb::builder
