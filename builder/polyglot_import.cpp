#include "builder/polyglot_import.h"

#include <sys/stat.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <algorithm>
#include <ctime>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "book/chess/movegen.h"
#include "book/store/polyglot.h"
#include "book/store/position_hash.h"
#include "builder/book_writer.h"
#include "builder/polyglot_validation.h"

namespace gb::builder {

namespace {

// The entries of each key, by index into the file's entries, in file order.
using EntriesByKey = std::unordered_map<Key, std::vector<std::size_t>>;

// The place of entry i among the entries of its key, in file order.
std::uint8_t rank_in_key(const EntriesByKey& by_key, const std::vector<store::PolyglotEntry>& entries,
                         std::size_t i) {
  const auto& group = by_key.at(entries[i].key);
  return std::uint8_t(
      std::min<std::size_t>(255, std::size_t(std::find(group.begin(), group.end(), i) - group.begin())));
}

// The nodes and placed edges of the positions a breadth-first walk from the
// start position reaches, marking the entries it places. From each position
// the walk follows the book's own moves, and any other legal move that
// reaches a position the book holds: books leave moves out (make-book drops
// the moves of weight 0, those that lost; -only-black keeps one side), and
// the positions after them are still in the book. python-chess's
// performance.bin: its own moves alone reach 6,054 of its 92,954 entries.
Run walk_from_start(const std::vector<store::PolyglotEntry>& entries, const EntriesByKey& by_key,
                    std::vector<bool>& placed, ImportReport& report) {
  Run run;
  std::unordered_set<Key> visited;
  std::deque<std::pair<Position, int>> queue;
  queue.emplace_back(Position(), 0);
  visited.insert(Position().key());
  while (!queue.empty()) {
    auto [pos, ply] = queue.front();
    queue.pop_front();
    auto it = by_key.find(pos.key());
    std::vector<Move> book_moves;
    if (it != by_key.end()) {
      ++report.positions_reached;
      NodeEntry node;
      node.key = pos.key();
      node.record.position_hash = store::position_hash(pos);
      node.record.min_ply = std::uint16_t(ply);
      node.record.flags = pos.side_to_move() == Color::Black ? store::kBlackToMove : 0;
      run.nodes.push_back(node);
      for (std::size_t i : it->second) {
        const auto& pe = entries[i];
        Move m = store::from_polyglot_move(pos, pe.move);
        if (!m) continue;
        book_moves.push_back(m);
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
        edge.record.polyglot_rank = rank_in_key(by_key, entries, i);
        run.edges.push_back(edge);
        placed[i] = true;
        ++report.edges_reached;
        pos.undo_move(m, undo);
      }
    }
    // A position the book's moves lead to is walked on even when the book
    // holds no entry for it (the other side's moves are left out); past a
    // move the book does not hold, only into positions it holds.
    MoveList legal;
    generate_legal(pos, legal);
    for (Move m : legal) {
      UndoInfo undo;
      pos.do_move(m, undo);
      const bool book_move = std::find(book_moves.begin(), book_moves.end(), m) != book_moves.end();
      if ((book_move || by_key.count(pos.key())) && visited.insert(pos.key()).second)
        queue.emplace_back(pos, ply + 1);
      pos.undo_move(m, undo);
    }
  }
  return run;
}

// The entries no walk reached, as key-only edges.
void add_key_only(const std::vector<store::PolyglotEntry>& entries, const EntriesByKey& by_key,
                  const std::vector<bool>& placed, Run& run, ImportReport& report) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (placed[i]) continue;
    const auto& pe = entries[i];
    EdgeEntry edge;
    edge.key = pe.key;
    edge.move = store::raw_move_from_polyglot(pe.move).raw();
    edge.record.occurrences = pe.weight;
    edge.record.score = pe.weight;
    edge.record.flags = store::kEdgeImported | store::kEdgeKeyOnly;
    edge.record.polyglot_learn = pe.learn;
    edge.record.polyglot_rank = rank_in_key(by_key, entries, i);
    run.edges.push_back(edge);
    ++report.key_only;
  }
}

std::uint64_t entries_hash(const std::vector<store::PolyglotEntry>& entries) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  for (const auto& e : entries) XXH3_64bits_update(&st, &e, sizeof e);
  return XXH3_64bits_digest(&st);
}

}  // namespace

std::optional<ImportReport> import_polyglot(const std::string& book_path, const std::string& bin_path,
                                            BuildError* error) {
  struct stat book_stat;
  if (::stat(book_path.c_str(), &book_stat) == 0 && !S_ISREG(book_stat.st_mode))
    return *error =
               BuildError::input(book_path + ": not a book file (" +
                                 (S_ISDIR(book_stat.st_mode) ? "a directory" : "not a regular file") + ")"),
           std::nullopt;
  store::PolyglotFileError read_error;
  auto entries = store::read_polyglot_file(bin_path, &read_error);
  if (!entries) return *error = BuildError::input(read_error.message()), std::nullopt;
  auto not_a_book = [&](const PolyglotProblem& p) {
    *error = BuildError::input(bin_path + ": not a Polyglot book: " + p.what + "; nothing imported");
    return std::nullopt;
  };
  if (auto problem = check_entries(*entries)) return not_a_book(*problem);

  ImportReport report;
  report.entries = entries->size();
  EntriesByKey by_key;
  for (std::size_t i = 0; i < entries->size(); ++i) by_key[(*entries)[i].key].push_back(i);
  std::vector<bool> placed(entries->size(), false);
  Run run = walk_from_start(*entries, by_key, placed, report);
  if (auto problem = check_reached(report.entries, report.edges_reached)) return not_a_book(*problem);
  add_key_only(*entries, by_key, placed, run, report);
  std::sort(run.nodes.begin(), run.nodes.end(), node_order);
  std::sort(run.edges.begin(), run.edges.end(), edge_order);

  store::BookError be;
  auto book = store::Book::open(book_path, store::OpenMode::Create, &be);
  if (!book) return *error = BuildError::opening(be), std::nullopt;
  const std::uint64_t content_hash = entries_hash(*entries);
  for (const auto& s : book->sources())
    if (s.content_hash == content_hash && s.name.ends_with(".bin")) {
      ImportReport again;
      again.already_in_book = true;
      return again;
    }

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
  // input.params_json stays empty: an import is no build, and the book's
  // build parameters (which later builds must match) stay as they were.
  CommitResult result;
  if (auto s = commit_build(*book, merger, input, result))
    return *error = BuildError::book(book_path + ": " + s->message()), std::nullopt;
  return report;
}

}  // namespace gb::builder
