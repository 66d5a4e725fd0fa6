#include "builder/book_retract.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "book/store/book.h"
#include "book/store/buckets.h"
#include "book/store/evaluation.h"
#include "book/store/fingerprint.h"
#include "book/store/fingerprint_blocks.h"
#include "book/store/game_index.h"
#include "book/store/section_groups.h"
#include "builder/book_shape.h"
#include "builder/book_writer.h"
#include "builder/stored_game_replay.h"

namespace gb::builder {

namespace {

using store::Status;

// The records of the source: their numbers (from 1) and the numbers their
// buckets carry.
struct Selection {
  std::vector<std::uint32_t> records;
  std::set<std::uint32_t> bucket_sources;
  std::uint64_t games = 0, duplicates = 0;
};

// Why a book cannot lose the source exactly; nullopt when it can.
std::optional<std::string> refusal(const std::string& path, const std::vector<store::SourceInfo>& sources,
                                   const Selection& selected, const store::BookStats& stats) {
  // A later input's duplicates may be copies of the source's games: without
  // the source a build counts those copies, and the book kept none of them.
  std::uint64_t recorded = 0, later = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    recorded += sources[i].duplicates;
    const auto number = std::uint32_t(i + 1);
    if (number > selected.records.front() && !sources[i].retracted_at &&
        !std::binary_search(selected.records.begin(), selected.records.end(), number))
      later += sources[i].duplicates;
  }
  const std::uint64_t unattributed = stats.duplicates > recorded ? stats.duplicates - recorded : 0;
  if (later + unattributed == 0) return std::nullopt;
  return path + ": " + std::to_string(later + unattributed) +
         " games were skipped as duplicates after the source was added (" + std::to_string(later) +
         " by later inputs, " + std::to_string(unattributed) +
         " that no input's record accounts for), and some may be copies of its games: a book without it "
         "counts those copies, which this book did not keep. Build the book again from its other inputs";
}

// A key's section in one database (empty when absent); false when damaged.
bool read_section(store::SectionUpdater& db, Key key, store::Section& out, bool& held, Status& status) {
  out = {};
  store::Error e;
  auto v = db.get(key, &e);
  held = v.has_value();
  if (!v) {
    if (e.code) status = e;
    return !e.code;
  }
  return store::from_bytes(*v, out);
}

Status write_section(store::SectionUpdater& db, Key key, const store::Section& section, bool held,
                     std::string& value) {
  if (!section.node && section.edges.empty()) return held ? db.erase(key) : std::nullopt;
  store::to_bytes(section, value);
  return db.put(key, value);
}

// The sections databases a recount writes: the positions, and the pruned
// counts when the book keeps them.
struct SectionDbs {
  store::SectionUpdater positions;
  std::optional<store::SectionUpdater> pruned;
  [[nodiscard]] Status flush() {
    if (auto s = positions.flush()) return s;
    return pruned ? pruned->flush() : std::nullopt;
  }
};

// Everything the counts of one key need besides its buckets.
struct CountsContext {
  MDB_dbi positions, buckets;
  std::optional<MDB_dbi> pruned;
  std::uint32_t min_games;
  bool by_month;
  const std::string& path;
};

// Sets the node and edges of key anew from its buckets without those of the
// dropped sources, and splits them again by --min-games between positions and
// pruned, as a build puts them; moves its first plays rank. Records with no
// bucket (an imported .bin's) are left as they are.
Status recount_key(SectionDbs& dbs, const CountsContext& c, Key key,
                   const std::vector<store::BucketEntry>& kept, RetractReport& report, std::string& value) {
  store::Section above, below;
  bool above_held = false, below_held = false;
  Status status;
  const auto damaged = [&] {
    return status ? status
                  : store::Error{EIO, c.path + ": the section of key " + std::to_string(key) + " is damaged"};
  };
  if (!read_section(dbs.positions, key, above, above_held, status)) return damaged();
  if (dbs.pruned && !read_section(*dbs.pruned, key, below, below_held, status)) return damaged();
  const store::BucketFilter all;  // every bucket left
  std::optional<store::NodeRecord> node = above.node ? above.node : below.node;
  if (node) {
    const store::BucketSum sum = store::sum_selected(kept, 0, all, c.by_month);
    if (sum.any) {
      node->counters = store::counters_of(sum);
      node->min_ply = sum.counters.min_ply;
    } else {
      node.reset();
      ++report.nodes_removed;
    }
  }
  // The edges of both databases (an edge is in one of them), by move.
  std::vector<std::pair<std::uint16_t, store::EdgeRecord>> edges = above.edges;
  edges.insert(edges.end(), below.edges.begin(), below.edges.end());
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<std::uint64_t, std::size_t>> first_plays;  // (first play, edge) of the counted edges
  std::vector<std::pair<std::uint16_t, store::EdgeRecord>> left;
  for (auto& [move, edge] : edges) {
    if (edge.flags & store::kEdgeImported) {  // weight from a .bin, no games, no buckets
      left.emplace_back(move, edge);
      continue;
    }
    const store::BucketSum sum = store::sum_selected(kept, move, all, c.by_month);
    if (!sum.any) {
      ++report.edges_removed;
      continue;
    }
    edge.counters = store::counters_of(sum);
    edge.occurrences = sum.counters.occurrences;
    edge.score = sum.counters.score;
    edge.min_ply = sum.counters.min_ply;
    first_plays.emplace_back(sum.counters.first_play, left.size());
    left.emplace_back(move, edge);
  }
  std::sort(first_plays.begin(), first_plays.end());
  for (std::size_t r = 0; r < first_plays.size(); ++r)
    left[first_plays[r].second].second.polyglot_rank = std::uint8_t(std::min<std::size_t>(r, 255));
  above = {};
  below = {};
  const auto counted = [&](std::uint32_t games) { return !c.pruned || games >= c.min_games; };
  if (node) (counted(node->counters.games) ? above : below).node = node;
  for (const auto& [move, edge] : left)
    ((edge.flags & store::kEdgeImported) || counted(edge.counters.games) ? above : below)
        .edges.emplace_back(move, edge);
  if (auto s = write_section(dbs.positions, key, above, above_held, value)) return s;
  if (dbs.pruned)
    if (auto s = write_section(*dbs.pruned, key, below, below_held, value)) return s;
  return std::nullopt;
}

// Every key with buckets of the dropped sources: its counts anew, its
// buckets without theirs.
Status retract_counts(store::WriteTxn& txn, const CountsContext& c, const std::set<std::uint32_t>& dropped,
                      RetractReport& report) {
  store::Error e;
  std::vector<Key> keys;  // read first: the loop below writes the database the cursor walks
  {
    auto cursor = store::Cursor::open(txn, c.buckets, &e);
    if (!cursor) return e;
    std::vector<store::BucketEntry> entries;
    for (auto item = cursor->first(&e); item; item = cursor->next(&e)) {
      if (item->key.size() != 8 || !store::decode_buckets(item->value, entries))
        return store::Error{EIO, c.path + ": a bucket section is damaged (graphbook check names it)"};
      for (const store::BucketEntry& b : entries)
        if (dropped.contains(store::bucket_source(b.id))) {
          keys.push_back(store::get_be64(item->key.data()));
          break;
        }
    }
    if (e.code) return e;
  }
  std::vector<store::BucketEntry> entries;
  std::string value;
  SectionDbs dbs{store::SectionUpdater(txn, c.positions), std::nullopt};
  if (c.pruned) dbs.pruned.emplace(txn, *c.pruned);
  for (Key key : keys) {  // in key order: each group of sections is read and written once
    const store::NodeKey nk(key);
    bool damaged = false;
    if (!store::read_buckets(txn, c.buckets, key, entries, &damaged, &e))
      return damaged || !e.code ? store::Error{EIO, c.path + ": a bucket section is damaged"}
                                : store::Status(e);
    std::erase_if(entries,
                  [&](const store::BucketEntry& b) { return dropped.contains(store::bucket_source(b.id)); });
    if (auto s = recount_key(dbs, c, key, entries, report, value)) return s;
    if (entries.empty()) {
      if (auto s = txn.del(c.buckets, nk.view())) return s;
    } else {
      store::encode_buckets(entries, value);
      if (auto s = txn.put(c.buckets, nk.view(), value)) return s;
    }
    ++report.positions;
  }
  return dbs.flush();
}

// Takes the source's stored games out, with the fingerprints of those the
// build counted, and stores the games after its first again under ids that
// follow each other, as a build of the other inputs numbers them: the games
// before it stay as they are (retracting the last source added moves none).
Status retract_games(store::WriteTxn& txn, store::Book& book, MDB_dbi stored, const Selection& selected,
                     const BuildOptions& replay_options, RetractReport& report) {
  store::Error e;
  std::optional<std::uint32_t> first;     // the id of the source's first stored game
  std::vector<store::GameToIndex> after;  // the other inputs' games after it
  std::vector<store::Fingerprint> fingerprints;
  {
    auto cursor = store::Cursor::open(txn, stored, &e);
    if (!cursor) return e;
    store::StoredGame game;
    PartGames part;
    for (auto item = cursor->first(&e); item; item = cursor->next(&e)) {
      if (item->key.size() != 4 || !store::decode_game(item->value, game))
        return store::Error{EIO, book.path() + ": a stored game is damaged (graphbook check names it)"};
      const bool of_source =
          std::binary_search(selected.records.begin(), selected.records.end(), game.source + 1);
      if (!of_source) {
        if (!first) continue;
        auto indexed = store::positions_of(std::move(game));
        if (!indexed) return store::Error{EIO, book.path() + ": a stored game's start position is damaged"};
        after.push_back(std::move(*indexed));
        continue;
      }
      if (!first) first = store::get_be32(item->key.data());
      ++report.stored_games;
      part.games.clear();
      part.plies.clear();
      if (replay(game, replay_options, part) && part.games.size() == 1)
        fingerprints.push_back(part.games.front().fingerprint);
    }
    if (e.code) return e;
  }
  for (const store::Fingerprint& fp : fingerprints) {
    bool erased = false;  // (not there: counted under --no-dedup)
    if (auto s = store::erase_fingerprint(txn, book.dbs().games, fp, &erased)) return s;
    report.fingerprints += erased;
  }
  if (!first) return std::nullopt;
  if (auto s = store::truncate_indexed_games(txn, *first)) return s;
  return store::add_indexed_games(txn, after);
}

std::optional<MDB_dbi> open_if_there(store::WriteTxn& txn, const char* name, Status& status) {
  store::Error e;
  auto dbi = txn.open_db(name, 0, &e);
  if (!dbi && e.code != MDB_NOTFOUND) status = e;
  return dbi;
}

std::string source_names(const std::vector<store::SourceInfo>& sources) {
  std::set<std::string> names;
  for (const auto& s : sources)
    if (!s.retracted_at) names.insert(s.source_name());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

std::optional<RetractReport> retract_source(const std::string& path, const std::string& source,
                                            BuildError* error) {
  store::BookError be;
  auto book = store::Book::open(path, store::OpenMode::ReadWrite, &be);
  if (!book) return *error = BuildError::opening(be), std::nullopt;
  store::Error e;
  const auto failed = [&](const store::Error& err) {
    *error = BuildError::book(path + ": " + err.message());
    return std::nullopt;
  };
  const auto refuse = [&](std::string why) {
    *error = BuildError::input(std::move(why));
    return std::nullopt;
  };
  const std::vector<store::SourceInfo> sources = book->sources(&e);
  if (e.code) return failed(e);
  Selection selected;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const store::SourceInfo& s = sources[i];
    if (s.retracted_at || s.source_name() != source) continue;
    const auto number = std::uint32_t(i + 1);
    selected.records.push_back(number);
    selected.bucket_sources.insert(s.bucket_source ? s.bucket_source : number);
    selected.games += s.games_added;
    selected.duplicates += s.duplicates;
  }
  if (selected.records.empty())
    return refuse(path + " has no source '" + source + "' (its sources: " + source_names(sources) + ")");

  const std::string params = book->build_params(&e);
  if (e.code) return failed(e);
  std::optional<store::BucketParams> bucket_params;
  store::BookStats stats;
  bool has_fingerprints = false;
  std::uint64_t stored_games = 0;  // of the source, counted when the book keeps fingerprints
  {
    auto txn = store::ReadTxn::begin(book->env(), &e);
    if (!txn) return failed(e);
    bucket_params = store::bucket_params(*txn, book->dbs().meta);
    stats = book->stats(*txn, &e);
    if (e.code) return failed(e);
    MDB_stat st;
    if (auto s = txn->stat(book->dbs().games, st)) return failed(*s);
    has_fingerprints = st.ms_entries > 0;
    auto stored = txn->open_db(store::kStoredGamesDb, 0, &e);
    if (!stored && e.code != MDB_NOTFOUND) return failed(e);
    e = {};
    if (stored && has_fingerprints) {
      auto cursor = store::Cursor::open(*txn, *stored, &e);
      if (!cursor) return failed(e);
      store::StoredGame game;
      for (auto item = cursor->first(&e); item; item = cursor->next(&e))
        if (store::decode_game(item->value, game) &&
            std::binary_search(selected.records.begin(), selected.records.end(), game.source + 1))
          ++stored_games;
      if (e.code) return failed(e);
    }
  }
  if (!bucket_params)
    return refuse(path +
                  " was built without buckets: retract takes a source out with the counts the book keeps of "
                  "each source (build --buckets); build the book again from its other inputs");
  if (has_fingerprints && stored_games < selected.games)
    return refuse(path + ": " + std::to_string(selected.games - stored_games) + " of the " +
                  std::to_string(selected.games) + " games of '" + source +
                  "' are not stored in it (they were added without --index-games): retract cannot find their "
                  "fingerprints, and a later build would skip those games as duplicates");
  if (auto why = refusal(path, sources, selected, stats)) return refuse(*why);

  const std::optional<BookShape> shape = recorded_shape(*book);
  BuildOptions replay_options;
  if (shape) {
    replay_options.max_ply = shape->max_ply;
    replay_options.side = shape->side;
  }
  replay_options.player = recorded_player(params);
  replay_options.dedup = true;
  const std::uint32_t min_games = shape ? shape->min_games : 1;

  RetractReport report;
  auto status = book->write([&](store::WriteTxn& txn) -> Status {
    report = RetractReport{.source = source};
    Status s;
    auto buckets = open_if_there(txn, store::kBucketsDb, s);
    auto stored = open_if_there(txn, store::kStoredGamesDb, s);
    auto values = open_if_there(txn, store::kValuesDb, s);
    if (s) return s;
    // The counts below --min-games, where a build keeps them (book_writer.cpp).
    store::Error pe;
    std::optional<MDB_dbi> pruned = txn.open_db(kPrunedDb, min_games > 1 ? MDB_CREATE : 0, &pe);
    if (!pruned && pe.code != MDB_NOTFOUND) return pe;
    if (buckets) {
      const CountsContext c{.positions = book->dbs().positions,
                            .buckets = *buckets,
                            .pruned = pruned,
                            .min_games = min_games,
                            .by_month = bucket_params->by_month,
                            .path = path};
      if (auto r = retract_counts(txn, c, selected.bucket_sources, report)) return r;
    }
    if (stored)
      if (auto r = retract_games(txn, *book, *stored, selected, replay_options, report)) return r;
    if (values) {  // with the record of how they were computed (analysis/backed_up_values.h)
      if (auto r = txn.drop(*values)) return r;
      if (auto r = txn.del(book->dbs().meta, "values_params")) return r;
      report.values_dropped = true;
    }
    MDB_stat st;
    if (auto r = txn.stat(book->dbs().learn, st)) return r;
    report.learn_records = st.ms_entries;
    store::BookStats after = stats;
    after.games -= std::min(after.games, selected.games);
    after.duplicates -= std::min(after.duplicates, selected.duplicates);
    if (auto r = book->put_stats(txn, after)) return r;
    const auto now = std::int64_t(std::time(nullptr));
    for (std::uint32_t number : selected.records) {
      store::SourceInfo record = sources[number - 1];
      record.retracted_at = now;
      if (auto r = book->put_source(txn, number, record)) return r;
    }
    report.files = selected.records.size();
    report.games = selected.games;
    report.duplicates = selected.duplicates;
    return std::nullopt;
  });
  if (status) return failed(*status);
  return report;
}

}  // namespace gb::builder
