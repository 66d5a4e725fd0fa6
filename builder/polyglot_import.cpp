#include "builder/polyglot_import.h"

#include <sys/stat.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <algorithm>
#include <ctime>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "book/store/polyglot.h"
#include "book/store/position_hash.h"
#include "builder/book_writer.h"

namespace gb::builder {

std::optional<ImportReport> import_polyglot(const std::string& book_path, const std::string& bin_path,
                                            std::string* error) {
  auto entries = store::read_polyglot_file(bin_path, error);
  if (!entries) return std::nullopt;
  store::BookError be;
  auto book = store::Book::open(book_path, store::OpenMode::Create, &be);
  if (!book) return *error = be.message, std::nullopt;

  ImportReport report;
  report.entries = entries->size();
  std::uint64_t content_hash = XXH3_64bits(entries->data(), 0);
  {
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    for (const auto& e : *entries) XXH3_64bits_update(&st, &e, sizeof e);
    content_hash = XXH3_64bits_digest(&st);
  }
  for (const auto& s : book->sources())
    if (s.content_hash == content_hash && s.name.ends_with(".bin")) {
      report.already_in_book = true;
      return report;
    }

  std::unordered_map<Key, std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < entries->size(); ++i) by_key[(*entries)[i].key].push_back(i);

  // The place of entry i among the entries of its key, in file order.
  auto rank_in_key = [&](std::size_t i) {
    const auto& group = by_key[(*entries)[i].key];
    return std::uint8_t(
        std::min<std::size_t>(255, std::size_t(std::find(group.begin(), group.end(), i) - group.begin())));
  };
  Run run;
  std::vector<bool> placed(entries->size(), false);
  std::unordered_set<Key> visited;
  std::deque<std::pair<Position, int>> queue;
  queue.emplace_back(Position(), 0);
  visited.insert(Position().key());
  while (!queue.empty()) {
    auto [pos, ply] = queue.front();
    queue.pop_front();
    auto it = by_key.find(pos.key());
    if (it == by_key.end()) continue;
    ++report.positions_reached;
    NodeEntry node;
    node.key = pos.key();
    node.record.position_hash = store::position_hash(pos);
    node.record.min_ply = std::uint16_t(ply);
    node.record.flags = pos.side_to_move() == Color::Black ? store::kBlackToMove : 0;
    run.nodes.push_back(node);
    for (std::size_t i : it->second) {
      const auto& pe = (*entries)[i];
      Move m = store::from_polyglot_move(pos, pe.move);
      if (!m) continue;
      UndoInfo undo;
      pos.do_move(m, undo);
      EdgeEntry edge;
      edge.key = pe.key;
      edge.move = m.raw();
      edge.record.child_key = pos.key();
      edge.record.occurrences = pe.weight;
      edge.record.score = pe.weight;
      edge.record.min_ply = std::uint16_t(ply);
      edge.record.flags =
          store::kEdgeImported | (pos.side_to_move() == Color::White ? store::kEdgeBlackMoves : 0);
      edge.record.polyglot_learn = pe.learn;
      edge.record.polyglot_rank = rank_in_key(i);
      run.edges.push_back(edge);
      placed[i] = true;
      ++report.edges_reached;
      if (by_key.count(pos.key()) && visited.insert(pos.key()).second) queue.emplace_back(pos, ply + 1);
      pos.undo_move(m, undo);
    }
  }
  for (std::size_t i = 0; i < entries->size(); ++i) {
    if (placed[i]) continue;
    const auto& pe = (*entries)[i];
    EdgeEntry edge;
    edge.key = pe.key;
    edge.move = store::raw_move_from_polyglot(pe.move).raw();
    edge.record.occurrences = pe.weight;
    edge.record.score = pe.weight;
    edge.record.flags = store::kEdgeImported | store::kEdgeKeyOnly;
    edge.record.polyglot_learn = pe.learn;
    edge.record.polyglot_rank = rank_in_key(i);
    run.edges.push_back(edge);
    ++report.key_only;
  }
  std::sort(run.nodes.begin(), run.nodes.end(), node_order);
  std::sort(run.edges.begin(), run.edges.end(), edge_order);

  RunMerger merger({&run});
  CommitInput input;
  store::SourceInfo src;
  src.name = bin_path;
  struct stat st;
  src.size = ::stat(bin_path.c_str(), &st) == 0 ? std::uint64_t(st.st_size) : 0;
  src.content_hash = content_hash;
  src.added_at = std::int64_t(std::time(nullptr));
  src.params = R"({"import":"polyglot"})";
  input.sources.push_back(src);
  input.min_games = 0;
  input.params_json = src.params;
  CommitResult result;
  if (auto s = commit_build(*book, merger, input, result))
    return *error = book_path + ": " + s->message(), std::nullopt;
  return report;
}

}  // namespace gb::builder
