#include "builder/book_merge.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "book/chess/movegen.h"
#include "book/store/buckets.h"
#include "book/store/evaluation.h"
#include "book/store/fingerprint_blocks.h"
#include "book/store/game_index.h"
#include "book/store/section_groups.h"
#include "builder/bucket_aggregator.h"
#include "builder/build_visitor.h"
#include "builder/interrupt_cleanup.h"
#include "builder/new_book_file.h"
#include "builder/orphan_files.h"
#include "builder/run_file.h"
#include "builder/run_merger.h"
#include "builder/stored_game_replay.h"

namespace gb::builder {

namespace {

using store::Status;

// The databases merge knows how to add up; any other (uci_pending, ...) is
// copied key by key, the first book's record kept when two hold a key.
const std::set<std::string> kKnownDatabases = {
    "meta",  "positions", store::kStoredGamesDb, store::kGameIndexDb, kPrunedDb,        "learn",
    "games", "sources",   "collisions",          store::kEvalsDb,     store::kValuesDb, store::kBucketsDb};

// Shared games replayed into one aggregator: a few at most, in practice.
constexpr std::size_t kReplayMemory = std::size_t(64) << 20;

// One input book, read in one read transaction from start to end.
struct Input {
  std::string path;
  std::optional<store::Book> book;
  std::optional<store::ReadTxn> txn;
  std::optional<MDB_dbi> pruned, stored_games, game_index, evals, values;
  std::vector<std::pair<std::string, MDB_dbi>> others;  // databases merge does not know
  std::optional<BookShape> shape;                       // nullopt: no build recorded one (imported only)
  std::string player;                                   // build --player
  std::string build_params;
  std::vector<store::SourceInfo> sources;
  store::BookStats stats;
  std::vector<store::Fingerprint> shared;  // its games an earlier book holds too, sorted
  std::vector<bool> dropped;               // by stored game id: a shared game's copy, taken out
  std::vector<std::uint64_t> dropped_per_source;
  std::vector<std::uint32_t> source_map;             // its source index -> OUT's
  std::vector<std::uint32_t> id_map;                 // its stored game id -> OUT's (UINT32_MAX: dropped)
  std::optional<store::BucketParams> bucket_params;  // nullopt: the book has no buckets
  std::optional<MDB_dbi> buckets;
  std::vector<BucketItem> shared_buckets;  // the buckets of its shared games' copies, sorted (ids its own)
};

std::string side_name(Side side) {
  return side == Side::White ? "white" : side == Side::Black ? "black" : "both";
}

// The records of one database of every book, key by key in key order: for
// each key, every book's values (several for a database of sorted duplicates).
// Of a database of sections (sections true: positions, pruned), the positions
// of its groups (store/section_groups.h), each under its 8-byte key. The views
// point into the books' maps, valid while their read transactions live.
class KeyMerge {
 public:
  using Source = std::pair<const store::ReadTxn*, std::optional<MDB_dbi>>;
  KeyMerge(const std::vector<Source>& sources, store::Error& error, bool sections = false) : error_(error) {
    heads_.reserve(sources.size());  // no reallocation: an item may view its head's key
    for (const auto& [txn, dbi] : sources) {
      Head& h = heads_.emplace_back();
      if (!dbi || error_.code) continue;
      if (sections) {
        if (auto c = store::SectionCursor::open(*txn, *dbi, &error_)) h.sections.emplace(std::move(*c));
      } else if (auto c = store::Cursor::open(*txn, *dbi, &error_)) {
        h.cursor.emplace(std::move(*c));
      }
      h.advance(error_, true);
    }
    values_.resize(heads_.size());
  }
  // One database (dbi_of) of every book.
  template <class DbiOf>
  static std::vector<Source> of(const std::vector<Input>& inputs, DbiOf dbi_of) {
    std::vector<Source> out;
    for (const Input& in : inputs) out.emplace_back(&*in.txn, dbi_of(in));
    return out;
  }
  // The next key and each book's values under it; false at the end or on an error.
  bool next(std::string_view& key, std::vector<std::vector<std::string_view>>*& values) {
    if (error_.code) return false;
    const Head* least = nullptr;
    for (const Head& h : heads_)
      if (h.item && (!least || h.item->key < least->item->key)) least = &h;
    if (!least) return false;
    key_.assign(least->item->key);
    for (std::size_t i = 0; i < heads_.size(); ++i) {
      values_[i].clear();
      Head& h = heads_[i];
      while (h.item && h.item->key == key_) {
        values_[i].push_back(h.item->value);
        h.advance(error_, false);
      }
    }
    key = key_;
    values = &values_;
    return !error_.code;
  }

 private:
  struct Head {
    std::optional<store::Cursor> cursor;
    std::optional<store::SectionCursor> sections;
    std::optional<store::Cursor::Item> item;
    char key[8];  // a section's key, as item views it
    void advance(store::Error& error, bool first) {
      item.reset();
      if (cursor) {
        item = first ? cursor->first(&error) : cursor->next(&error);
      } else if (sections) {
        Key k;
        std::string_view section;
        if (sections->next(k, section, &error)) {
          store::put_be64(key, k);
          item = store::Cursor::Item{std::string_view(key, 8), section};
        }
      }
    }
  };
  store::Error& error_;
  std::vector<Head> heads_;
  std::string key_;
  std::vector<std::vector<std::string_view>> values_;
};

// --- opening and checking the books ------------------------------------------

std::optional<MDB_dbi> open_if_there(const store::ReadTxn& txn, const char* name, Status& status) {
  store::Error e;
  auto dbi = txn.open_db(name, 0, &e);
  if (!dbi && e.code != MDB_NOTFOUND) status = e;
  return dbi;
}

BuildStatus open_input(Input& in) {
  store::BookError be;
  in.book = store::Book::open(in.path, store::OpenMode::ReadOnly, &be);
  if (!in.book) return BuildError::opening(be);
  store::Error e;
  const auto failed = [&](const store::Error& err) {
    return BuildError::book(in.path + ": " + err.message());
  };
  auto txn = store::ReadTxn::begin(in.book->env(), &e);
  if (!txn) return failed(e);
  in.txn.emplace(std::move(*txn));
  Status status;
  in.pruned = open_if_there(*in.txn, kPrunedDb, status);
  in.stored_games = open_if_there(*in.txn, store::kStoredGamesDb, status);
  in.game_index = open_if_there(*in.txn, store::kGameIndexDb, status);
  in.evals = open_if_there(*in.txn, store::kEvalsDb, status);
  in.values = open_if_there(*in.txn, store::kValuesDb, status);
  in.buckets = open_if_there(*in.txn, store::kBucketsDb, status);
  in.bucket_params = store::bucket_params(*in.txn, in.book->dbs().meta);
  auto names = in.txn->database_names(&e);
  if (!names) return failed(e);
  for (const std::string& name : *names) {
    if (kKnownDatabases.contains(name)) continue;
    auto dbi = open_if_there(*in.txn, name.c_str(), status);
    unsigned flags = 0;
    if (dbi && mdb_dbi_flags(in.txn->get(), *dbi, &flags) == 0 && (flags & MDB_DUPSORT))
      return BuildError::input(in.path + ": database " + name +
                               " holds sorted duplicates, which this graphbook does not know how to merge");
    if (dbi) in.others.emplace_back(name, *dbi);
  }
  if (status) return failed(*status);
  in.stats = in.book->stats(*in.txn, &e);
  if (!e.code) in.sources = in.book->sources(&e);
  if (!e.code) in.build_params = in.book->build_params(&e);
  if (e.code) return failed(e);
  in.shape = recorded_shape(*in.book);
  if (in.shape) in.player = recorded_player(in.build_params);
  if (in.shape && in.shape->min_games > 1 && !in.pruned)
    return BuildError::input(in.path + " was built with --min-games " + std::to_string(in.shape->min_games) +
                             " by a graphbook that did not keep the counts below it: a merge could not count "
                             "them; build one book from all the inputs");
  return std::nullopt;
}

// OUT's shape: the books' own, which must agree (--min-games may be given
// instead, as every book keeps the counts below its own).
std::optional<BookShape> merged_shape(const std::vector<Input>& inputs, const MergeOptions& options,
                                      BuildError* error) {
  const Input* first = nullptr;
  for (const Input& in : inputs) {
    if (!in.shape) continue;
    if (!first) {
      first = &in;
      continue;
    }
    const auto differ = [&](const std::string& option, const std::string& a, const std::string& b) {
      *error = BuildError::input(first->path + " was built with " + option + " " + a + ", " + in.path +
                                 " with " + option + " " + b +
                                 ": a merged book would count games in two ways; build one book from all the "
                                 "inputs with one " +
                                 option);
      return std::nullopt;
    };
    if (in.shape->max_ply != first->shape->max_ply)
      return differ("--max-ply", std::to_string(first->shape->max_ply), std::to_string(in.shape->max_ply));
    if (in.shape->side != first->shape->side)
      return differ("--color", side_name(first->shape->side), side_name(in.shape->side));
    if (in.player != first->player)
      return differ("--player", first->player.empty() ? "(none)" : "'" + first->player + "'",
                    in.player.empty() ? "(none)" : "'" + in.player + "'");
    if (in.shape->min_games != first->shape->min_games && !options.min_games) {
      *error = BuildError::input(first->path + " was built with --min-games " +
                                 std::to_string(first->shape->min_games) + ", " + in.path +
                                 " with --min-games " + std::to_string(in.shape->min_games) +
                                 ": give merge --min-games N for the merged book (both keep the counts below "
                                 "their own, so any N is exact)");
      return std::nullopt;
    }
  }
  BookShape shape = first ? *first->shape : BookShape{};
  if (options.min_games) shape.min_games = std::max<std::uint32_t>(1, *options.min_games);
  return shape;
}

std::string be32(std::uint32_t v) {
  char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  return std::string(b, 4);
}

// --- games in more than one book ---------------------------------------------

// Calls visit(fp, holds) for each fingerprint of the books' games databases
// in ascending order, once, holds[i] telling whether inputs[i] holds it.
Status each_fingerprint(
    const std::vector<Input>& inputs,
    const std::function<Status(const store::Fingerprint&, const std::vector<bool>&)>& visit) {
  store::Error e;
  std::vector<store::FingerprintCursor> cursors;
  std::vector<std::optional<store::Fingerprint>> front;
  for (const Input& in : inputs) {
    auto cursor = store::FingerprintCursor::open(*in.txn, in.book->dbs().games, &e);
    if (!cursor) return e;
    cursors.push_back(std::move(*cursor));
    front.push_back(cursors.back().next(&e));
    if (e.code) return e;
  }
  std::vector<bool> holds(inputs.size());
  for (;;) {
    std::optional<store::Fingerprint> least;
    for (const auto& f : front)
      if (f && (!least || *f < *least)) least = f;
    if (!least) return std::nullopt;
    for (std::size_t i = 0; i < inputs.size(); ++i) holds[i] = front[i] == least;
    if (auto s = visit(*least, holds)) return s;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (holds[i]) {
        front[i] = cursors[i].next(&e);
        if (e.code) return e;
      }
  }
}

// Fills each book's shared fingerprints: those of its games that an earlier
// book holds (the later copy is the one a build of all the inputs skips).
Status find_shared(std::vector<Input>& inputs) {
  return each_fingerprint(inputs,
                          [&](const store::Fingerprint& fp, const std::vector<bool>& holds) -> Status {
                            bool earlier = false;
                            for (std::size_t i = 0; i < inputs.size(); ++i) {
                              if (!holds[i]) continue;
                              if (earlier) inputs[i].shared.push_back(fp);
                              earlier = true;
                            }
                            return std::nullopt;
                          });
}

// Finds the stored copies of a book's shared games, marks them dropped and
// counts them into shared_counts. An error when some are not stored.
BuildStatus take_out_shared(Input& in, const BookShape& shape, Aggregator& shared_counts,
                            const std::string& dir) {
  if (in.shared.empty()) return std::nullopt;
  std::sort(in.shared.begin(), in.shared.end());
  const auto missing = [&](std::uint64_t found) {
    return BuildError::input(
        in.path + ": " + std::to_string(in.shared.size()) + " of its games are in an earlier book too, and " +
        std::to_string(in.shared.size() - found) +
        " of them are not stored in it: merge needs their moves to count each once (build the books with "
        "--index-games, or build one book from all the inputs)");
  };
  if (!in.stored_games) return missing(0);
  BuildOptions options;
  options.max_ply = shape.max_ply;
  options.side = shape.side;
  options.player = in.player;
  options.dedup = true;
  store::Error e;
  auto cursor = store::Cursor::open(*in.txn, *in.stored_games, &e);
  if (!cursor) return BuildError::book(in.path + ": " + e.message());
  MDB_stat st;
  if (auto s = in.txn->stat(*in.stored_games, st)) return BuildError::book(in.path + ": " + s->message());
  in.dropped.assign(st.ms_entries, false);
  in.dropped_per_source.assign(in.sources.size(), 0);
  std::uint64_t found = 0;
  std::vector<bool> matched(in.shared.size(), false);
  // The buckets of the copies, to take out of the book's (ids with its own
  // source numbers; the first plays are not taken out: see write_buckets).
  std::optional<BucketAggregator> buckets;
  if (in.bucket_params)
    buckets.emplace(kReplayMemory, dir, shape.side, KeyRange{}, in.bucket_params->by_month);
  PartGames part;
  store::StoredGame game;
  for (auto item = cursor->first(&e); item; item = cursor->next(&e)) {
    const std::uint32_t id = item->key.size() == 4 ? store::get_be32(item->key.data()) : 0;
    if (item->key.size() != 4 || id >= in.dropped.size() || !store::decode_game(item->value, game) ||
        game.source >= in.sources.size())
      return BuildError::book(in.path + ": stored game " + std::to_string(id) +
                              " is damaged (graphbook check names the damage)");
    part.games.clear();
    part.plies.clear();
    if (!replay(game, options, part)) continue;
    const PendingGame& g = part.games.front();
    auto at = std::lower_bound(in.shared.begin(), in.shared.end(), g.fingerprint);
    if (at == in.shared.end() || *at != g.fingerprint) continue;
    if (matched[std::size_t(at - in.shared.begin())]) continue;  // a copy the book kept under --no-dedup
    matched[std::size_t(at - in.shared.begin())] = true;
    in.dropped[id] = true;
    ++in.dropped_per_source[game.source];
    ++found;
    if (auto s = shared_counts.add_game(g.facts, part.plies.data() + g.first, g.n)) return s;
    if (buckets)
      if (auto s = buckets->add_game(g.facts, part.plies.data() + g.first, g.n, 1, game.source + 1)) return s;
  }
  if (e.code) return BuildError::book(in.path + ": " + e.message());
  if (found < in.shared.size()) return missing(found);
  if (buckets) {
    if (auto s = buckets->finish()) return s;
    if (!buckets->files().empty())
      return BuildError::input(in.path +
                               ": too many games shared with an earlier book to take out of its buckets; "
                               "build one book from all the inputs");
    in.shared_buckets = buckets->memory();
  }
  return std::nullopt;
}

// --- counting the sections ---------------------------------------------------

void subtract(store::Counters& c, const store::Counters& s) {
  c.games -= s.games;
  c.white_wins -= s.white_wins;
  c.draws -= s.draws;
  c.black_wins -= s.black_wins;
  c.unknown -= s.unknown;
  c.rated_games -= s.rated_games;
  c.elo_sum -= s.elo_sum;
  // min_year, max_year: the earlier book holds the same game, so its years stay.
}

bool covers(const store::Counters& c, const store::Counters& s) {
  return c.games >= s.games && c.white_wins >= s.white_wins && c.draws >= s.draws &&
         c.black_wins >= s.black_wins && c.unknown >= s.unknown && c.rated_games >= s.rated_games &&
         c.elo_sum >= s.elo_sum;
}

// What the sections of one key add up to, in book order.
//
// Each edge keeps its rank of first play (polyglot_rank, which orders an
// export's moves of equal weight): the edges of the first book that holds
// the key keep theirs, and a later book's edges new to the key come after
// all before them, in the order of that book's ranks (by move where they
// tie), as a build into the first book gives them (book_writer.cpp,
// merge_sections): as if the inputs of every book had been one input.
struct KeySum {
  store::Section section;
  std::uint64_t collisions = 0;
  std::uint64_t collision_hash = 0;                           // of the last node not merged
  std::vector<std::pair<std::uint8_t, std::uint16_t>> fresh;  // a book's edges new to the key: rank, move

  // Adds the sections of one book (positions and pruned).
  void add_book(const std::vector<store::Section>& sections) {
    int last_rank = -1;
    for (const auto& [move, edge] : section.edges) last_rank = std::max(last_rank, int(edge.polyglot_rank));
    const bool first = section.edges.empty();
    fresh.clear();
    for (const store::Section& s : sections) add(s);
    if (first) return;
    std::stable_sort(fresh.begin(), fresh.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t r = 0; r < fresh.size(); ++r)
      find(fresh[r].second)->second.polyglot_rank =
          std::uint8_t(std::min<std::size_t>(std::size_t(last_rank + 1) + r, 255));
  }

 private:
  using Edges = std::vector<std::pair<std::uint16_t, store::EdgeRecord>>;
  Edges::iterator find(std::uint16_t move) {
    return std::lower_bound(section.edges.begin(), section.edges.end(), move,
                            [](const auto& x, std::uint16_t m) { return x.first < m; });
  }
  void add(const store::Section& s) {
    if (s.node) {
      if (!section.node) {
        section.node = s.node;
      } else if (section.node->position_hash != s.node->position_hash && section.node->position_hash != 0 &&
                 s.node->position_hash != 0) {
        ++collisions;  // another position under the same key: the first book's is kept, as a build keeps it
        collision_hash = s.node->position_hash;
      } else {
        if (section.node->position_hash == 0) section.node->position_hash = s.node->position_hash;
        section.node->merge(*s.node);
      }
    }
    for (const auto& [move, record] : s.edges) {
      auto at = find(move);
      if (at != section.edges.end() && at->first == move) {
        at->second.merge(record);
      } else {
        section.edges.insert(at, {move, record});
        fresh.emplace_back(record.polyglot_rank, move);
      }
    }
  }
};

// The merge's writer of OUT, and what it counts.
struct Writer {
  Writer(store::Book& out, ChunkedAppender& appender, MergeReport& report, std::optional<MDB_dbi> pruned,
         std::uint32_t min_games)
      : report(report), min_games(min_games), positions(appender.groups(out.dbs().positions)) {
    if (pruned) this->pruned.emplace(appender.groups(*pruned));
  }
  MergeReport& report;
  std::uint32_t min_games;
  store::GroupAppender positions;
  std::optional<store::GroupAppender> pruned;
  std::string value, below;

  // A node or edge with fewer games than min_games goes to pruned; an
  // imported one (a .bin's weight, no games) stays where an import puts it.
  bool kept(const store::NodeRecord& n) const {
    return min_games <= 1 || n.counters.games >= min_games || n.counters.games == 0;
  }
  bool kept(const store::EdgeRecord& e) const {
    return min_games <= 1 || e.counters.games >= min_games || (e.flags & store::kEdgeImported);
  }

  Status write(Key key, const store::Section& s) {
    store::Section top, low;
    if (s.node) (kept(*s.node) ? top : low).node = s.node;
    for (const auto& edge : s.edges) (kept(edge.second) ? top : low).edges.push_back(edge);
    if (top.node || !top.edges.empty()) {
      store::to_bytes(top, value);
      if (auto st = positions.add(key, value)) return st;
      ++report.positions;
      report.nodes += top.node.has_value();
      report.edges += top.edges.size();
    }
    if (low.node || !low.edges.empty()) {
      assert(pruned);  // min_games > 1
      store::to_bytes(low, below);
      if (auto st = pruned->add(key, below)) return st;
      report.pruned_nodes += low.node.has_value();
      report.pruned_edges += low.edges.size();
    }
    return std::nullopt;
  }
  [[nodiscard]] Status finish() {
    if (auto st = positions.finish()) return st;
    return pruned ? pruned->finish() : std::nullopt;
  }
};

// The shared games' counts, in key order, taken from the sum of their key.
class SharedCounts {
 public:
  explicit SharedCounts(RunMerger& merger) : merger_(merger) {
    has_node_ = merger_.next_node(node_);
    has_edge_ = merger_.next_edge(edge_);
  }
  // Takes out of sum the shared games' counts of key; false when they are not
  // in it (the books do not hold the games they say they hold).
  bool take_out(Key key, store::Section& sum) {
    bool ok = true;
    if (has_node_ && node_.key < key) ok = false;  // a key no book holds
    while (has_node_ && node_.key <= key) {
      if (node_.key == key && sum.node && covers(sum.node->counters, node_.record.counters))
        subtract(sum.node->counters, node_.record.counters);
      else if (node_.key == key)
        ok = false;
      has_node_ = merger_.next_node(node_);
    }
    if (has_edge_ && edge_.key < key) ok = false;
    while (has_edge_ && edge_.key <= key) {
      if (edge_.key == key) {
        auto at = std::lower_bound(sum.edges.begin(), sum.edges.end(), edge_.move,
                                   [](const auto& x, std::uint16_t m) { return x.first < m; });
        if (at != sum.edges.end() && at->first == edge_.move &&
            covers(at->second.counters, edge_.record.counters) &&
            at->second.occurrences >= edge_.record.occurrences && at->second.score >= edge_.record.score) {
          subtract(at->second.counters, edge_.record.counters);
          at->second.occurrences -= edge_.record.occurrences;
          at->second.score -= edge_.record.score;
          if (at->second.counters.games == 0 && at->second.occurrences == 0 &&
              !(at->second.flags & store::kEdgeImported))
            sum.edges.erase(at);
        } else {
          ok = false;
        }
      }
      has_edge_ = merger_.next_edge(edge_);
    }
    return ok;
  }
  bool done() const { return !has_node_ && !has_edge_; }

 private:
  RunMerger& merger_;
  NodeEntry node_;
  EdgeEntry edge_;
  bool has_node_ = false, has_edge_ = false;
};

// A progress line on a terminal: the share of sections read.
class MergeProgress {
 public:
  MergeProgress(bool wanted, std::uint64_t total) : on_(wanted && ::isatty(2) && total > 0), total_(total) {}
  ~MergeProgress() {
    if (on_ && shown_) std::fprintf(stderr, "\r%40s\r", "");
  }
  void step() {
    if (!on_ || (++done_ & 0xffff) != 0) return;
    std::fprintf(stderr, "\rmerging positions: %3d%%", int(100 * done_ / total_));
    shown_ = true;
  }

 private:
  bool on_;
  std::uint64_t total_, done_ = 0;
  bool shown_ = false;
};

// Positions and pruned: every book's sections of a key added up, in book
// order, the shared games' counts taken out, split again by min_games.
// Collisions found on the way go to new_collisions (key, position hash).
Status write_positions(std::vector<Input>& inputs, Writer& w, SharedCounts& shared, bool progress,
                       std::vector<std::pair<Key, std::uint64_t>>& new_collisions) {
  std::vector<KeyMerge::Source> sources;
  std::uint64_t total = 0;
  for (const Input& in : inputs) {
    sources.emplace_back(&*in.txn, in.book->dbs().positions);
    sources.emplace_back(&*in.txn, in.pruned);
    std::uint64_t n;
    if (progress && !store::count_sections(*in.txn, in.book->dbs().positions, n)) total += n;
    if (progress && in.pruned && !store::count_sections(*in.txn, *in.pruned, n)) total += n;
  }
  store::Error e;
  KeyMerge merge(sources, e, true);
  MergeProgress shown(progress, total);
  std::string_view key;
  std::vector<std::vector<std::string_view>>* values;
  std::vector<store::Section> book_sections;
  while (merge.next(key, values)) {
    if (key.size() != 8)
      return store::Error{EIO, "a position key of " + std::to_string(key.size()) + " bytes"};
    const Key k = store::get_be64(key.data());
    KeySum sum;
    for (std::size_t b = 0; b < inputs.size(); ++b) {
      book_sections.clear();
      for (std::size_t i = 2 * b; i < 2 * b + 2; ++i)  // its positions, then its pruned
        for (std::string_view v : (*values)[i]) {
          shown.step();
          if (!store::from_bytes(v, book_sections.emplace_back()))
            return store::Error{EIO, inputs[b].path + ": the section of key " + std::to_string(k) +
                                         " is damaged (graphbook check names the damage)"};
        }
      if (!book_sections.empty()) sum.add_book(book_sections);
    }
    if (!shared.take_out(k, sum.section))
      return store::Error{EINVAL, "the games stored in the books do not add up to their counts at key " +
                                      std::to_string(k) +
                                      " (a game whose result token and [Result] tag differ?)"};
    if (sum.collisions) {
      w.report.collisions += sum.collisions;
      new_collisions.emplace_back(k, sum.collision_hash);
    }
    if (auto s = w.write(k, sum.section)) return s;
  }
  if (e.code) return e;
  if (!shared.done())
    return store::Error{EINVAL, "the games stored in the books reach positions that no book holds"};
  return w.finish();
}

// The fingerprints of every book, each once, in blocks (fingerprint_blocks.h).
Status write_fingerprints(std::vector<Input>& inputs, store::Book& out, ChunkedAppender& appender) {
  store::FingerprintAppender blocks = appender.fingerprints(out.dbs().games);
  if (auto s = each_fingerprint(
          inputs, [&](const store::Fingerprint& fp, const std::vector<bool>&) { return blocks.add(fp); }))
    return s;
  return blocks.finish();
}

// Learning counters summed; the last game is the later one. The records
// of learned games (their fingerprints) are kept once, the first book's.
Status write_learning(std::vector<Input>& inputs, store::Book& out, ChunkedAppender& appender,
                      MergeReport& report) {
  store::Error e;
  KeyMerge merge(KeyMerge::of(inputs, [](const Input& in) { return std::optional(in.book->dbs().learn); }),
                 e);
  std::string_view key;
  std::vector<std::vector<std::string_view>>* values;
  while (merge.next(key, values)) {
    if (key.size() != 10) {  // a learned game's record ('G', 'M' + hash: docs/LEARNING.md): the first book's
      for (const auto& v : *values)
        if (!v.empty()) {
          if (auto s = appender.add(out.dbs().learn, key, v.front())) return s;
          break;
        }
      continue;
    }
    store::LearnRecord sum{};
    for (std::size_t i = 0; i < values->size(); ++i)
      for (std::string_view v : (*values)[i]) {
        store::LearnRecord r;
        if (!store::from_bytes(v, r))
          return store::Error{EIO, inputs[i].path + ": a damaged learning record"};
        sum.wins += r.wins;
        sum.draws += r.draws;
        sum.losses += r.losses;
        if (r.last_played >= sum.last_played) {
          sum.last_played = r.last_played;
          sum.last_result = r.last_result;
        }
      }
    if (auto s = appender.add(out.dbs().learn, key, store::as_bytes(sum))) return s;
    ++report.learn_records;
  }
  if (e.code) return e;
  return std::nullopt;
}

// Engine evaluations: of a position two books evaluated, the deeper (the
// first book's at equal depth).
Status write_evaluations(std::vector<Input>& inputs, MDB_dbi evals, ChunkedAppender& appender,
                         MergeReport& report) {
  store::Error e;
  KeyMerge merge(KeyMerge::of(inputs, [](const Input& in) { return in.evals; }), e);
  std::string_view key;
  std::vector<std::vector<std::string_view>>* values;
  while (merge.next(key, values)) {
    std::string_view best;
    int best_depth = -1;
    for (std::size_t i = 0; i < values->size(); ++i)
      for (std::string_view v : (*values)[i]) {
        store::Evaluation ev;
        if (!store::decode(v, ev)) return store::Error{EIO, inputs[i].path + ": a damaged evaluation"};
        if (int(ev.depth) > best_depth) {
          best_depth = ev.depth;
          best = v;
        }
      }
    if (auto s = appender.add(evals, key, best)) return s;
    ++report.evaluations;
  }
  if (e.code) return e;
  return std::nullopt;
}

// The last ordinal of a book's games (store::BucketParams::ordinals).
std::uint64_t ordinals_of(const Input& in) {
  return std::max(in.stats.games, in.bucket_params ? in.bucket_params->ordinals : 0);
}

// The buckets: every book's of a key added up, in book order, less the
// buckets of the shared games' later copies (a bucket they empty goes; one
// they do not keeps its min_ply and first play, which a subtraction cannot
// undo), the source of each bucket renumbered as OUT's sources, the first
// plays of each book after those of the books before it (as its games come
// after theirs: offsets by the games of the books before).
Status write_buckets(std::vector<Input>& inputs, MDB_dbi target, ChunkedAppender& appender) {
  std::vector<std::uint64_t> offsets;
  std::uint64_t games = 0;
  for (const Input& in : inputs) {
    offsets.push_back(games << 10);
    games += ordinals_of(in);
  }
  store::Error e;
  KeyMerge merge(KeyMerge::of(inputs, [](const Input& in) { return in.buckets; }), e);
  std::string_view key;
  std::vector<std::vector<std::string_view>>* values;
  std::vector<store::BucketEntry> sum, part;
  std::vector<std::size_t> shared_at(inputs.size(), 0);
  std::string value;
  while (merge.next(key, values)) {
    if (key.size() != 8) return store::Error{EIO, "a bucket key of " + std::to_string(key.size()) + " bytes"};
    const Key k = store::get_be64(key.data());
    sum.clear();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      Input& in = inputs[i];
      for (std::string_view v : (*values)[i]) {
        if (!store::decode_buckets(v, part))
          return store::Error{
              EIO, in.path + ": the buckets of a position are damaged (graphbook check names them)"};
        auto& at = shared_at[i];
        while (at < in.shared_buckets.size() && in.shared_buckets[at].key < k) ++at;
        for (; at < in.shared_buckets.size() && in.shared_buckets[at].key == k; ++at) {
          const BucketItem& s = in.shared_buckets[at];
          auto it = std::lower_bound(part.begin(), part.end(), store::BucketEntry{s.move, s.id, {}},
                                     store::bucket_order);
          if (it == part.end() || it->move != s.move || it->id != s.id || it->counters.games < s.games)
            continue;
          store::BucketCounters& c = it->counters;
          c.games -= s.games;
          c.white_wins -= std::min(c.white_wins, s.white_wins);
          c.draws -= std::min(c.draws, s.draws);
          c.black_wins -= std::min(c.black_wins, s.black_wins);
          c.rated_games -= std::min(c.rated_games, s.rated_games);
          c.elo_sum -= std::min(c.elo_sum, s.elo_sum);
          c.occurrences -= std::min(c.occurrences, s.occurrences);
          c.score -= std::min(c.score, s.score);
        }
        std::erase_if(part, [](const store::BucketEntry& b) { return b.counters.games == 0; });
        for (store::BucketEntry& b : part) {
          const std::uint32_t source = store::bucket_source(b.id);
          if (source == 0 || source > in.source_map.size())
            return store::Error{EIO, in.path + ": a bucket names source " + std::to_string(source) +
                                         ", which the book does not have"};
          b.id = store::bucket_id(store::bucket_band(b.id), store::bucket_speed(b.id),
                                  store::bucket_period(b.id), in.source_map[source - 1] + 1);
          if (b.counters.first_play) b.counters.first_play += offsets[i];
        }
        std::sort(part.begin(), part.end(), store::bucket_order);
        store::merge_buckets(sum, part);
      }
    }
    if (sum.empty()) continue;
    store::encode_buckets(sum, value);
    if (auto s = appender.add(target, key, value)) return s;
  }
  if (e.code) return e;
  return std::nullopt;
}

// A database merge does not add up (or collisions): each key once, the
// first book's record; extra (key, value) pairs, in key order, where no
// book holds the key.
Status write_union(const std::vector<KeyMerge::Source>& sources, MDB_dbi target, ChunkedAppender& appender,
                   const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  store::Error e;
  KeyMerge merge(sources, e);
  std::string_view key;
  std::vector<std::vector<std::string_view>>* values;
  std::size_t x = 0;
  while (merge.next(key, values)) {
    for (; x < extra.size() && extra[x].first < key; ++x)
      if (auto s = appender.add(target, extra[x].first, extra[x].second)) return s;
    if (x < extra.size() && extra[x].first == key) ++x;
    for (const auto& v : *values)
      if (!v.empty()) {
        if (auto s = appender.add(target, key, v.front())) return s;
        break;
      }
  }
  if (e.code) return e;
  for (; x < extra.size(); ++x)
    if (auto s = appender.add(target, extra[x].first, extra[x].second)) return s;
  return std::nullopt;
}

// The stored games of every book, in book order, without the shared games'
// later copies, renumbered from 0, their sources renumbered as OUT's.
Status write_stored_games(std::vector<Input>& inputs, MDB_dbi target, ChunkedAppender& appender,
                          MergeReport& report) {
  std::uint32_t next = 0;
  store::StoredGame game;
  for (Input& in : inputs) {
    if (!in.stored_games) continue;
    MDB_stat st;
    if (auto s = in.txn->stat(*in.stored_games, st)) return s;
    in.id_map.assign(st.ms_entries, UINT32_MAX);
    store::Error e;
    auto cursor = store::Cursor::open(*in.txn, *in.stored_games, &e);
    if (!cursor) return e;
    for (auto item = cursor->first(&e); item; item = cursor->next(&e)) {
      const std::uint32_t id = item->key.size() == 4 ? store::get_be32(item->key.data()) : UINT32_MAX;
      if (id >= in.id_map.size() || !store::decode_game(item->value, game) ||
          game.source >= in.source_map.size())
        return store::Error{EIO, in.path + ": stored game " + std::to_string(id) + " is damaged"};
      if (id < in.dropped.size() && in.dropped[id]) continue;
      in.id_map[id] = next;
      game.source = in.source_map[game.source];
      if (auto s = appender.add(target, be32(next), store::encode_game(game))) return s;
      ++next;
    }
    if (e.code) return e;
  }
  report.stored_games = next;
  return std::nullopt;
}

// The game index: each key's rows of every book in book order, which is
// game order, with the games' new ids.
Status write_game_index(std::vector<Input>& inputs, MDB_dbi target, ChunkedAppender& appender) {
  store::Error e;
  KeyMerge merge(KeyMerge::of(inputs, [](const Input& in) { return in.game_index; }), e);
  std::string_view key;
  std::vector<std::vector<std::string_view>>* values;
  std::string row;
  while (merge.next(key, values))
    for (std::size_t i = 0; i < values->size(); ++i)
      for (std::string_view v : (*values)[i]) {
        const std::uint32_t id = v.size() == 8 ? store::get_be32(v.data()) : UINT32_MAX;
        if (id >= inputs[i].id_map.size())
          return store::Error{EIO, inputs[i].path + ": a damaged game index row"};
        if (inputs[i].id_map[id] == UINT32_MAX) continue;  // a shared game's later copy
        row = be32(inputs[i].id_map[id]);
        row.append(v.substr(4));
        if (auto s = appender.add(target, key, row, 0)) return s;
      }
  if (e.code) return e;
  return std::nullopt;
}

// OUT's sources: every book's in book order, a file already recorded (the
// same xxh3) once; each book's games added less its shared games' copies.
std::vector<store::SourceInfo> merged_sources(std::vector<Input>& inputs, MergeReport& report) {
  std::vector<store::SourceInfo> out;
  std::map<std::uint64_t, std::uint32_t> by_hash;
  for (Input& in : inputs) {
    in.source_map.assign(in.sources.size(), 0);
    for (std::size_t s = 0; s < in.sources.size(); ++s) {
      const store::SourceInfo& src = in.sources[s];
      // A retracted record holds no games: it is kept as it is, never the
      // record a live copy of its file in another book is shared with.
      auto [at, added] = src.retracted_at ? std::pair(by_hash.end(), true)
                                          : by_hash.emplace(src.content_hash, std::uint32_t(out.size()));
      in.source_map[s] = added ? std::uint32_t(out.size()) : at->second;
      if (!added) {
        ++report.shared_sources;
        continue;
      }
      store::SourceInfo copy = src;
      if (copy.bucket_source) {  // the first record of its label: earlier in the same book, mapped already
        assert(copy.bucket_source <= s + 1);
        copy.bucket_source = in.source_map[copy.bucket_source - 1] + 1;
      }
      if (s < in.dropped_per_source.size())
        copy.games_added -= std::min(copy.games_added, in.dropped_per_source[s]);
      out.push_back(copy);
    }
  }
  report.sources = out.size();
  return out;
}

// OUT's meta records: the totals, the build parameters of the first book a
// build recorded them for (with OUT's --min-games), no values_params (the
// values are not copied), any other record of the first book that has it.
Status write_meta(std::vector<Input>& inputs, store::Book& out, store::WriteTxn& txn, const BookShape& shape,
                  const store::BookStats& stats) {
  std::set<std::string> done = {std::string(store::kFormatKey), std::string(store::kVersionKey), "stats",
                                "build_params", "values_params"};
  for (const Input& in : inputs) {
    store::Error e;
    auto cursor = store::Cursor::open(*in.txn, in.book->dbs().meta, &e);
    if (!cursor) return e;
    for (auto item = cursor->first(&e); item; item = cursor->next(&e))
      if (done.emplace(item->key).second)
        if (auto s = txn.put(out.dbs().meta, item->key, item->value)) return s;
    if (e.code) return e;
  }
  if (auto s = out.put_stats(txn, stats)) return s;
  for (const Input& in : inputs) {
    if (!in.shape) continue;
    auto params = nlohmann::json::parse(in.build_params, nullptr, false);
    if (!params.is_object()) params = nlohmann::json::object();
    params["max_ply"] = shape.max_ply;
    params["min_games"] = shape.min_games;
    params["color"] = side_name(shape.side);
    return out.put_build_params(txn, params.dump());
  }
  return std::nullopt;
}

}  // namespace

std::optional<MergeReport> merge_books(const std::string& out, const std::vector<std::string>& books,
                                       const MergeOptions& options, BuildError* error) {
  struct stat st;
  if (::lstat(out.c_str(), &st) == 0) {
    *error = BuildError::input(out +
                               " exists: merge writes a new book (remove it, or name another); nothing "
                               "was written");
    return std::nullopt;
  }
  if (::stat(dir_of(out).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = BuildError::input(out + ": no such directory " + dir_of(out) + "; nothing was written");
    return std::nullopt;
  }
  std::vector<Input> inputs(books.size());
  std::set<std::pair<dev_t, ino_t>> files;
  for (std::size_t i = 0; i < books.size(); ++i) {
    inputs[i].path = books[i];
    if (::stat(books[i].c_str(), &st) == 0 && !files.emplace(st.st_dev, st.st_ino).second) {
      *error = BuildError::input(books[i] +
                                 " is given twice: a book merged with itself would count its games "
                                 "twice");
      return std::nullopt;
    }
    if (auto e = open_input(inputs[i])) return *error = *e, std::nullopt;
  }
  auto shape = merged_shape(inputs, options, error);
  if (!shape) return std::nullopt;
  // Buckets are summed only when every book that counted games has them, by
  // the same periods: a sum with a book's games missing from them would
  // filter wrongly.
  const Input *with = nullptr, *without = nullptr;
  for (const Input& in : inputs) {
    if (in.bucket_params)
      with = with ? with : &in;
    else if (in.stats.games > 0)
      without = without ? without : &in;
  }
  if (with && without) {
    *error =
        BuildError::input(with->path + " has buckets and " + without->path +
                          " has none: their sum could not be filtered by rating, speed or date (rebuild " +
                          without->path + " from its PGN); nothing was written");
    return std::nullopt;
  }
  for (const Input& in : inputs)
    if (with && in.bucket_params && in.bucket_params->by_month != with->bucket_params->by_month) {
      *error =
          BuildError::input(with->path + " and " + in.path +
                            " keep their buckets by different periods (one by month, one by year); nothing "
                            "was written");
      return std::nullopt;
    }
  MergeReport report;
  report.shape = *shape;
  if (auto s = find_shared(inputs)) return *error = BuildError::book(s->message()), std::nullopt;

  const std::string dir = dir_of(out);
  InterruptCleanup cleanup([&] {
    remove_own_files(dir, std::string(kRunFilePrefix));
    remove_own_new_book(out);
  });
  remove_orphans(dir, std::string(kRunFilePrefix));
  remove_new_book_orphans(out);
  Aggregator shared_counts(kReplayMemory, dir, shape->side);
  for (Input& in : inputs) {
    if (auto e = take_out_shared(in, *shape, shared_counts, dir)) return *error = *e, std::nullopt;
    report.shared_games += in.shared.size();
  }
  if (auto e = shared_counts.finish()) return *error = *e, std::nullopt;
  std::vector<const Run*> runs;
  for (const Run& r : shared_counts.runs()) runs.push_back(&r);
  RunMerger merger(runs);
  if (auto e = merger.open()) return *error = *e, std::nullopt;

  std::vector<store::SourceInfo> sources = merged_sources(inputs, report);
  store::BookStats stats;
  bool stored = false, evaluated = false;
  std::map<std::string, unsigned> others;  // name -> flags
  for (const Input& in : inputs) {
    stats.games += in.stats.games;
    stats.duplicates += in.stats.duplicates;
    stats.skipped += in.stats.skipped;
    stats.collisions += in.stats.collisions;
    stats.builds += in.stats.builds;
    stats.imported_entries += in.stats.imported_entries;
    stored |= in.stored_games.has_value();
    evaluated |= in.evals.has_value();
    MDB_stat vst;
    if (in.values && !in.txn->stat(*in.values, vst) && vst.ms_entries) report.values_dropped = true;
    for (const auto& [name, dbi] : in.others) others.emplace(name, 0u);
  }
  stats.games -= std::min(stats.games, report.shared_games);
  stats.duplicates += report.shared_games;

  Status status = replace_book_file(out, store::Book::kDefaultMapSize, [&](store::Book& to) -> Status {
    std::optional<MDB_dbi> pruned, stored_db, index_db, evals_db, collisions_db, buckets_db;
    std::map<std::string, MDB_dbi> other_dbs;
    if (auto s = to.write([&](store::WriteTxn& t) -> Status {
          store::Error e;
          auto create = [&](const char* name, unsigned flags, std::optional<MDB_dbi>& dbi) {
            dbi = t.open_db(name, MDB_CREATE | flags, &e);
            return dbi.has_value();
          };
          if (shape->min_games > 1 && !create(kPrunedDb, 0, pruned)) return e;
          if (stored && !create(store::kStoredGamesDb, 0, stored_db)) return e;
          if (stored && !create(store::kGameIndexDb, MDB_DUPSORT | MDB_DUPFIXED, index_db)) return e;
          if (evaluated && !create(store::kEvalsDb, 0, evals_db)) return e;
          if (with && !create(store::kBucketsDb, 0, buckets_db)) return e;
          for (const auto& [name, flags] : others) {
            std::optional<MDB_dbi> dbi;
            if (!create(name.c_str(), 0, dbi)) return e;
            other_dbs[name] = *dbi;
          }
          return std::nullopt;
        }))
      return s;
    ChunkedAppender appender(to);
    Writer w(to, appender, report, pruned, shape->min_games);
    SharedCounts shared(merger);
    std::vector<std::pair<Key, std::uint64_t>> found;
    if (auto s = write_positions(inputs, w, shared, options.progress, found)) return s;
    if (auto e = merger.error()) return store::Error{EIO, e->message};
    if (auto s = write_fingerprints(inputs, to, appender)) return s;
    if (auto s = write_learning(inputs, to, appender, report)) return s;
    std::vector<std::pair<std::string, std::string>> new_collisions;
    for (const auto& [key, hash] : found)
      new_collisions.emplace_back(std::string(store::NodeKey(key).view()),
                                  std::string(store::as_bytes(hash)));
    if (auto s = write_union(
            KeyMerge::of(inputs, [](const Input& in) { return std::optional(in.book->dbs().collisions); }),
            to.dbs().collisions, appender, new_collisions))
      return s;
    if (evals_db)
      if (auto s = write_evaluations(inputs, *evals_db, appender, report)) return s;
    if (buckets_db)
      if (auto s = write_buckets(inputs, *buckets_db, appender)) return s;
    if (stored_db) {
      if (auto s = write_stored_games(inputs, *stored_db, appender, report)) return s;
      if (auto s = write_game_index(inputs, *index_db, appender)) return s;
    }
    for (const auto& [name, dbi] : other_dbs) {
      const std::string n = name;
      auto sources_of = KeyMerge::of(inputs, [&](const Input& in) -> std::optional<MDB_dbi> {
        for (const auto& [other, d] : in.others)
          if (other == n) return d;
        return std::nullopt;
      });
      if (auto s = write_union(sources_of, dbi, appender)) return s;
    }
    if (auto s = appender.finish()) return s;
    stats.collisions += report.collisions;
    report.games = stats.games;
    return to.write([&](store::WriteTxn& txn) -> Status {
      for (const store::SourceInfo& src : sources)
        if (auto s = to.add_source(txn, src)) return s;
      if (auto s = write_meta(inputs, to, txn, *shape, stats)) return s;
      if (!with) return std::nullopt;
      store::BucketParams params = *with->bucket_params;
      params.ordinals = 0;
      for (const Input& in : inputs) params.ordinals += ordinals_of(in);
      return txn.put(to.dbs().meta, store::kBucketsMetaKey, store::bucket_params_json(params));
    });
  });
  if (status) {
    *error = status->code == EINVAL
                 ? BuildError::input(status->message() + "; nothing was written")
                 : BuildError::book(out + ": " + status->message() + "; nothing was written");
    return std::nullopt;
  }
  return report;
}

}  // namespace gb::builder
