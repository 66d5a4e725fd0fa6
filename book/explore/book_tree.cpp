#include "book/explore/book_tree.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "book/chess/notation.h"
#include "book/explore/bucket_view.h"
#include "book/explore/position_report.h"

namespace gb::explore {

namespace {

// White's score over the games, unknown results as draws; 0.5 without games.
double white_score(const store::Counters& c) {
  return c.games ? (c.white_wins + 0.5 * (c.draws + c.unknown)) / c.games : 0.5;
}

// "  eval +0.35" / "  eval #-3" (side to move), "" when not analysed.
std::string eval_note(const TreeNode& n) {
  if (!n.eval) return "";
  char buf[32];
  if (n.eval->kind == store::Evaluation::Kind::Mate)
    std::snprintf(buf, sizeof buf, "  eval #%d", n.eval->score);
  else
    std::snprintf(buf, sizeof buf, "  eval %+.2f", n.eval->score / 100.0);
  return buf;
}

}  // namespace

std::optional<BookTree> build_tree(BookReader& reader, const ResolvedPosition& root,
                                   const TreeOptions& options, const OpeningTable* table,
                                   store::Error* error) {
  BookTree tree;
  std::unordered_map<Key, std::size_t> index;
  const store::BucketFilter* filter = options.filter;
  assert(!filter || reader.bucket_params());
  const bool by_month = filter && reader.bucket_params()->by_month;
  std::vector<store::BucketEntry> buckets;
  store::Status failed;  // a read that failed inside add_node
  auto add_node = [&](const Position& pos, int depth, std::string label, const OpeningName* inherited) {
    TreeNode n{pos.key(), pos, depth, std::move(label), {}, nullptr, inherited, reader.evaluation(pos.key())};
    store::Error e;
    auto rec = reader.node(n.key, &e);
    if (e.code) failed = e;
    if (rec) {
      if (!filter) {
        n.counters = rec->counters;
      } else if (auto s = reader.buckets(n.key, buckets)) {
        failed = s;
      } else if (auto selected = filter_node(buckets, *rec, *filter, by_month)) {
        n.counters = selected->counters;
      }
    }
    if (table) n.opening = table->find(n.key);
    if (n.opening) n.inherited = n.opening;
    index.emplace(n.key, tree.nodes.size());
    tree.nodes.push_back(std::move(n));
  };
  add_node(root.position, 0, "start", table ? table->nearest(root.line) : nullptr);
  if (root.moves_san.size()) tree.nodes[0].label = root.moves_san.size() > 40 ? "position" : root.moves_san;

  std::vector<store::BookEdge> edges;
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    if (failed) {
      if (error) *error = *failed;
      return std::nullopt;
    }
    if (tree.nodes[i].depth >= options.depth) continue;
    if (auto s = reader.edges(tree.nodes[i].key, edges, false)) {
      if (error) *error = *s;
      return std::nullopt;
    }
    if (filter) {
      // The selected games' counts in place of the totals; the moves they never played dropped.
      if (auto s = reader.buckets(tree.nodes[i].key, buckets)) {
        if (error) *error = *s;
        return std::nullopt;
      }
      std::size_t kept = 0;
      for (store::BookEdge& e : edges)
        if (auto selected = filter_edge(buckets, e.move.raw(), e.record, *filter, by_month)) {
          e.record = *selected;
          edges[kept++] = e;
        }
      edges.resize(kept);
    }
    // Games first, then the moves of an imported .bin by weight (the import keeps it as the score).
    std::stable_sort(edges.begin(), edges.end(), [](const store::BookEdge& a, const store::BookEdge& b) {
      if (a.record.counters.games != b.record.counters.games)
        return a.record.counters.games > b.record.counters.games;
      return a.record.score > b.record.score;
    });
    for (const store::BookEdge& e : edges) {
      if (e.record.flags & store::kEdgeKeyOnly) continue;
      std::optional<std::uint32_t> weight = imported_weight(e.record);
      if (weight ? *weight == 0 : e.record.counters.games < options.min_games) continue;
      const Position before = tree.nodes[i].position;  // a copy: add_node may move the nodes
      auto found = index.find(e.record.child_key);
      bool transposition = found != index.end();
      if (!transposition) {
        if (tree.nodes.size() >= options.max_nodes) {
          tree.truncated = true;
          continue;
        }
        Position after = before;
        UndoInfo undo;
        after.do_move(e.move, undo);
        int depth = tree.nodes[i].depth + 1;
        const OpeningName* inherited = tree.nodes[i].inherited;
        add_node(after, depth, numbered_san(before, e.move), inherited);
        found = index.find(e.record.child_key);
        if (found == index.end()) continue;  // a key collision: the child's key is not the move's
      }
      tree.edges.push_back(TreeEdge{i, found->second, e.move, to_san(before, e.move),
                                    to_uci(e.move, before.chess960()), e.record.counters, transposition,
                                    weight});
    }
  }
  if (failed) {
    if (error) *error = *failed;
    return std::nullopt;
  }
  return tree;
}

std::string tree_text(const BookTree& tree) {
  // Depth-first along the edges that first reached each node; other edges are
  // printed as "-> transposes to ...".
  std::vector<std::vector<std::size_t>> out_edges(tree.nodes.size());
  for (std::size_t e = 0; e < tree.edges.size(); ++e) out_edges[tree.edges[e].from].push_back(e);
  std::ostringstream os;
  const TreeNode& root = tree.nodes[0];
  os << root.label << "  " << root.counters.games << " games";
  if (root.inherited) os << "  " << root.inherited->eco << " " << root.inherited->name;
  os << eval_note(root) << "\n";
  auto walk = [&](auto&& self, std::size_t node, const std::string& indent) -> void {
    for (std::size_t e : out_edges[node]) {
      const TreeEdge& edge = tree.edges[e];
      const TreeNode& child = tree.nodes[edge.to];
      char score[16];
      std::snprintf(score, sizeof score, "%.0f%%", 100 * white_score(edge.counters));
      if (edge.imported_weight)
        os << indent << edge.san << "  weight " << *edge.imported_weight << " (imported)";
      else
        os << indent << edge.san << "  " << edge.counters.games << " games  white " << score;
      if (edge.transposition) {
        os << "  -> transposes to " << child.label << " (" << child.counters.games << " games)\n";
        continue;
      }
      if (child.counters.games != edge.counters.games)
        os << "  (position: " << child.counters.games << " games)";
      if (child.opening) os << "  " << child.opening->eco << " " << child.opening->name;
      os << eval_note(child) << "\n";
      self(self, edge.to, indent + "  ");
    }
  };
  walk(walk, 0, "  ");
  if (tree.truncated) os << "(truncated: more positions than --max-nodes)\n";
  return os.str();
}

nlohmann::json tree_json(const BookTree& tree) {
  nlohmann::json nodes = nlohmann::json::array(), edges = nlohmann::json::array();
  for (const TreeNode& n : tree.nodes) {
    nlohmann::json j = {{"id", key_hex(n.key)},      {"fen", n.position.fen()},
                        {"depth", n.depth},          {"label", n.label},
                        {"games", n.counters.games}, {"white", n.counters.white_wins},
                        {"draws", n.counters.draws}, {"black", n.counters.black_wins}};
    const OpeningName* name = n.inherited;
    j["opening"] = name ? nlohmann::json{{"eco", name->eco}, {"name", name->name}} : nlohmann::json(nullptr);
    j["opening_inherited"] = name && !n.opening;
    if (n.eval)
      j["eval"] = {{n.eval->kind == store::Evaluation::Kind::Mate ? "mate" : "cp", n.eval->score},
                   {"depth", n.eval->depth}};
    else
      j["eval"] = nullptr;
    nodes.push_back(std::move(j));
  }
  for (const TreeEdge& e : tree.edges)
    edges.push_back({{"from", key_hex(tree.nodes[e.from].key)},
                     {"to", key_hex(tree.nodes[e.to].key)},
                     {"san", e.san},
                     {"uci", e.uci},
                     {"games", e.counters.games},
                     {"white", e.counters.white_wins},
                     {"draws", e.counters.draws},
                     {"black", e.counters.black_wins},
                     {"imported_weight",
                      e.imported_weight ? nlohmann::json(*e.imported_weight) : nlohmann::json(nullptr)},
                     {"transposition", e.transposition}});
  return {{"root", key_hex(tree.nodes[0].key)},
          {"nodes", nodes},
          {"edges", edges},
          {"truncated", tree.truncated}};
}

namespace {

// A diverging colour for White's score: blue (Black scores) through a light
// neutral to red (White scores), the "coolwarm" map.
std::string score_colour(double s) {
  struct Rgb {
    double r, g, b;
  };
  const Rgb black_side{59, 76, 192}, even{221, 221, 221}, white_side{180, 4, 38};
  double t = std::clamp((s - 0.5) / 0.25, -1.0, 1.0);  // a 25-point edge saturates the colour
  const Rgb& far = t < 0 ? black_side : white_side;
  double a = std::abs(t);
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(even.r + (far.r - even.r) * a),
                int(even.g + (far.g - even.g) * a), int(even.b + (far.b - even.b) * a));
  return buf;
}

bool dark(double s) { return std::abs(s - 0.5) > 0.15; }

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string shorten(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 1) + "…";
}

}  // namespace

std::string tree_dot(const BookTree& tree) {
  std::uint32_t max_games = 1;
  for (const TreeEdge& e : tree.edges) max_games = std::max(max_games, e.counters.games);
  std::ostringstream os;
  os << "digraph book {\n"
        "  graph [rankdir=LR, bgcolor=\"#ffffff\", nodesep=0.25, ranksep=0.9, fontname=\"DejaVu Sans\", "
        "labelloc=t, fontsize=16, label=\"graphbook: "
     << escape(tree.nodes[0].position.fen())
     << "\\nnode colour: White's score (blue: Black scores, red: White scores); edge width: games; "
        "dashed: transposition\"];\n"
        "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\", fontsize=10, penwidth=0.8, "
        "color=\"#555555\"];\n"
        "  edge [fontname=\"DejaVu Sans\", fontsize=9, color=\"#5a6270\", arrowsize=0.6];\n";
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const TreeNode& n = tree.nodes[i];
    double s = white_score(n.counters);
    char stats[64];
    std::snprintf(stats, sizeof stats, "%u games · %.0f%%", n.counters.games, 100 * s);
    std::string label = escape(n.label);
    if (n.opening) label += "\\n" + escape(shorten(n.opening->eco + " " + n.opening->name, 34));
    label += "\\n" + std::string(stats);
    os << "  n" << i << " [label=\"" << label << "\", fillcolor=\"" << score_colour(s) << "\"";
    if (dark(s)) os << ", fontcolor=\"#ffffff\"";
    if (i == 0) os << ", penwidth=2.5, color=\"#222222\"";
    os << "];\n";
  }
  for (const TreeEdge& e : tree.edges) {
    double width = 0.6 + 7.0 * std::sqrt(double(e.counters.games) / max_games);
    std::string count =
        e.imported_weight ? "w " + std::to_string(*e.imported_weight) : std::to_string(e.counters.games);
    os << "  n" << e.from << " -> n" << e.to << " [label=\"" << escape(e.san) << " (" << count
       << ")\", penwidth=" << width;
    if (e.transposition) os << ", style=dashed, color=\"#8a63a8\", constraint=false";
    os << "];\n";
  }
  os << "}\n";
  return os.str();
}

std::optional<std::string> render_svg(const std::string& dot, ExploreError* error) {
  auto fail = [error](std::string message) -> std::optional<std::string> {
    if (error) *error = ExploreError{ExploreError::Code::Render, std::move(message)};
    return std::nullopt;
  };
  if (std::system("command -v dot >/dev/null 2>&1") != 0)
    return fail("graphviz's 'dot' is not installed (Debian: apt-get install graphviz); use --format dot");
  char dot_path[] = "/tmp/graphbook-tree-XXXXXX";
  int fd = mkstemp(dot_path);
  if (fd < 0) return fail("cannot create a temporary file for dot");
  ::close(fd);
  {
    std::ofstream f(dot_path);
    f << dot;
  }
  std::string command = std::string("dot -Tsvg '") + dot_path + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string svg;
  if (pipe) {
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) svg.append(buf, n);
  }
  int status = pipe ? ::pclose(pipe) : -1;
  std::remove(dot_path);
  if (status != 0) return fail("dot failed: " + svg.substr(0, 500));
  return svg;
}

}  // namespace gb::explore
