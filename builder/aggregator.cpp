#include "builder/aggregator.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "builder/run_merger.h"

namespace gb::builder {

namespace {

// The tables are "ordered" linear-probing hash tables: a key's home slot is
// its key scaled to the table, key * homes / 2^64 (Polyglot keys are
// uniformly random; any table size works, so a table can grow to just what
// the memory budget leaves instead of stopping at a power of two, which left
// up to half the budget unused and doubled the spills), so the used slots are in
// key order up to the short displacement of probing, and sorting a table for
// a run is a compaction plus an insertion sort over nearly sorted data (a
// measured hot spot: std::sort took 12% of a full-depth build). Probing never
// wraps: kSlack slots past the end take the overflow of the last homes.
constexpr int kInitialBits = 14;
constexpr std::size_t kSlack = 4096;
constexpr double kMaxLoad = 0.7;
// Spill files of one level merged into one of the next level: bounds the open
// files of the final merge and keeps the rewriting at O(n log n) bytes.
constexpr std::size_t kRunsPerMerge = 16;

__extension__ typedef unsigned __int128 Wide;
inline std::size_t home(Key key, std::size_t homes) {
  return std::size_t((static_cast<Wide>(key) * homes) >> 64);
}

// A table that cannot grow by at least this factor within the budget spills instead.
constexpr double kMinGrowth = 1.25;

bool node_less(const NodeEntry& a, const NodeEntry& b) { return a.key < b.key; }
bool edge_less(const EdgeEntry& a, const EdgeEntry& b) {
  return a.key != b.key ? a.key < b.key : a.move < b.move;
}

// Sorts nearly sorted data in place.
template <class T, class Less>
void insertion_sort(T* first, T* last, Less less) {
  for (T* i = first + (first != last); i < last; ++i) {
    if (!less(*i, *(i - 1))) continue;
    T v = *i;
    T* j = i;
    do {
      *j = *(j - 1);
      --j;
    } while (j > first && less(v, *(j - 1)));
    *j = v;
  }
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
    : nodes_((std::size_t(1) << kInitialBits) + kSlack),
      edges_((std::size_t(1) << kInitialBits) + kSlack),
      node_homes_(std::size_t(1) << kInitialBits),
      edge_homes_(std::size_t(1) << kInitialBits),
      budget_(memory_budget),
      spill_dir_(std::move(spill_dir)),
      side_(side) {}

Aggregator::~Aggregator() {
  for (const Run& r : runs_)
    if (!r.path.empty()) ::unlink(r.path.c_str());
}

NodeEntry* Aggregator::find_node(Key key) {
  for (std::size_t i = home(key, node_homes_); i < nodes_.size(); ++i) {
    NodeEntry& e = nodes_[i];
    if (e.last_game == 0 || e.key == key) return &e;
  }
  return nullptr;  // the slack is full: grow
}

EdgeEntry* Aggregator::find_edge(Key key, std::uint16_t move) {
  for (std::size_t i = home(key, edge_homes_); i < edges_.size(); ++i) {
    EdgeEntry& e = edges_[i];
    if (e.last_game == 0 || (e.key == key && e.move == move)) return &e;
  }
  return nullptr;
}

void Aggregator::grow_nodes(std::size_t homes) {
  std::vector<NodeEntry> old;
  for (;; homes *= 2) {
    node_homes_ = homes;
    old.assign(homes + kSlack, NodeEntry{});
    old.swap(nodes_);
    bool ok = true;
    for (const NodeEntry& e : old)
      if (e.last_game) {
        NodeEntry* slot = find_node(e.key);
        if (!slot) {
          ok = false;
          break;
        }
        *slot = e;
      }
    if (ok) return;
    old.swap(nodes_);  // pathological clustering: try a larger table
  }
}

void Aggregator::grow_edges(std::size_t homes) {
  std::vector<EdgeEntry> old;
  for (;; homes *= 2) {
    edge_homes_ = homes;
    old.assign(homes + kSlack, EdgeEntry{});
    old.swap(edges_);
    bool ok = true;
    for (const EdgeEntry& e : old)
      if (e.last_game) {
        EdgeEntry* slot = find_edge(e.key, e.move);
        if (!slot) {
          ok = false;
          break;
        }
        *slot = e;
      }
    if (ok) return;
    old.swap(edges_);
  }
}

bool Aggregator::over_budget() const {
  return nodes_.size() * sizeof(NodeEntry) + edges_.size() * sizeof(EdgeEntry) > budget_;
}

bool Aggregator::add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n) {
  if (++game_id_ == 0) game_id_ = 1;
  const int elo[2] = {game.white_elo, game.black_elo};
  // The lookups are cache misses in tables far larger than the cache: ask for
  // every slot of the game first (measured: add_game was 19% of a build).
  for (std::size_t i = 0; i < n; ++i) {
    __builtin_prefetch(&nodes_[home(plies[i].key, node_homes_)], 1);
    __builtin_prefetch(&edges_[home(plies[i].key, edge_homes_)], 1);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const PlyRecord& p = plies[i];
    Color mover = (i & 1) ? ~game.first_mover : game.first_mover;
    std::uint16_t ply = std::uint16_t(std::min(game.first_ply + int(i), 65535));
    NodeEntry* node = find_node(p.key);
    while (!node) {
      grow_nodes(node_homes_ * 2);
      node = find_node(p.key);
    }
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
    if ((side_ == Side::White && mover != Color::White) || (side_ == Side::Black && mover != Color::Black))
      continue;
    EdgeEntry* edge = find_edge(p.key, p.move.raw());
    while (!edge) {
      grow_edges(edge_homes_ * 2);
      edge = find_edge(p.key, p.move.raw());
    }
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
  // Grow a table past its load limit: double it, or when that would pass the
  // budget, give it what the budget leaves; spill when that is too little.
  bool nodes_full = double(node_count_) > kMaxLoad * double(node_homes_);
  bool edges_full = double(edge_count_) > kMaxLoad * double(edge_homes_);
  if (!nodes_full && !edges_full) return true;
  constexpr double kNode = sizeof(NodeEntry), kEdge = sizeof(EdgeEntry);
  double nodes = double(node_homes_) * (nodes_full ? 2 : 1),
         edges = double(edge_homes_) * (edges_full ? 2 : 1);
  double room = double(budget_) - double(kSlack) * (kNode + kEdge);  // bytes for home slots
  if (nodes * kNode + edges * kEdge > room) {
    double fixed = (nodes_full ? 0 : nodes * kNode) + (edges_full ? 0 : edges * kEdge);
    double full =
        (nodes_full ? double(node_homes_) * kNode : 0) + (edges_full ? double(edge_homes_) * kEdge : 0);
    double factor = (room - fixed) / full;  // how much the full tables may grow
    if (factor < kMinGrowth) return node_count_ + edge_count_ > 0 ? spill() : true;
    if (nodes_full) nodes = double(node_homes_) * factor;
    if (edges_full) edges = double(edge_homes_) * factor;
  }
  if (nodes_full) grow_nodes(std::size_t(nodes));
  if (edges_full) grow_edges(std::size_t(edges));
  return true;
}

void Aggregator::take_sorted(std::vector<NodeEntry>& nodes, std::vector<EdgeEntry>& edges) {
  // Compacts the used slots to the front (keeping their order) and finishes the sort.
  auto nend =
      std::remove_if(nodes_.begin(), nodes_.end(), [](const NodeEntry& e) { return e.last_game == 0; });
  insertion_sort(nodes_.data(), nodes_.data() + (nend - nodes_.begin()), node_less);
  auto eend =
      std::remove_if(edges_.begin(), edges_.end(), [](const EdgeEntry& e) { return e.last_game == 0; });
  insertion_sort(edges_.data(), edges_.data() + (eend - edges_.begin()), edge_less);
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
  run.path = next_run_path();
  ++spill_count_;
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
  return compact_runs();
}

std::string Aggregator::next_run_path() {
  return spill_dir_ + "/graphbook-run-" + std::to_string(::getpid()) + "-" +
         std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-" + std::to_string(run_serial_++);
}

bool Aggregator::compact_runs() {
  for (int level = 0;; ++level) {
    std::vector<const Run*> same;
    for (const Run& r : runs_)
      if (!r.path.empty() && r.level == level) same.push_back(&r);
    if (same.size() < kRunsPerMerge) return true;
    Run merged;
    merged.level = level + 1;
    merged.path = next_run_path();
    {
      RunMerger merger(same);
      if (!merger.open(&error_)) return false;
      std::FILE* f = std::fopen(merged.path.c_str(), "wb");
      bool ok = f != nullptr;
      NodeEntry n;
      while (ok && merger.next_node(n)) {
        ok = std::fwrite(&n, sizeof n, 1, f) == 1;
        ++merged.node_count;
      }
      EdgeEntry e;
      while (ok && merger.next_edge(e)) {
        ok = std::fwrite(&e, sizeof e, 1, f) == 1;
        ++merged.edge_count;
      }
      if (f && std::fclose(f) != 0) ok = false;
      if (!ok) {
        error_ = "cannot write the aggregation run " + merged.path + ": " + std::strerror(errno);
        return false;
      }
      collisions_ += merger.collisions();
    }
    std::vector<Run> kept;
    for (Run& r : runs_) {
      if (!r.path.empty() && r.level == level)
        ::unlink(r.path.c_str());
      else
        kept.push_back(std::move(r));
    }
    kept.push_back(std::move(merged));
    runs_.swap(kept);
  }
}

bool Aggregator::finish() {
  Run run;
  take_sorted(run.nodes, run.edges);
  // Give back the free slots before the commit needs memory for its pages
  // (lowers a build's peak by a third at --max-ply 40).
  run.nodes.shrink_to_fit();
  run.edges.shrink_to_fit();
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
