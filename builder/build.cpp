#include "builder/build.h"

#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "book/chess/bitboard.h"
#include "book/pgn/byte_source.h"
#include "book/pgn/reader.h"
#include "book/pgn/split.h"
#include "book/store/fingerprint_blocks.h"
#include "builder/book_shape.h"
#include "builder/build_visitor.h"
#include "builder/game_index_writer.h"
#include "builder/input_file.h"
#include "builder/interrupt_cleanup.h"
#include "builder/large_pages.h"
#include "builder/new_book_file.h"
#include "builder/orphan_files.h"
#include "builder/ply_partitions.h"
#include "builder/progress.h"
#include "builder/query_filter.h"
#include "builder/run_file.h"
#include "builder/worker_pool.h"

namespace gb::builder {

namespace {

constexpr std::size_t kBlockSize = std::size_t(1) << 19;  // parsed on all threads at once
constexpr std::size_t kPartsPerThread = 4;
constexpr std::size_t kMallocMapThreshold = std::size_t(1) << 20;

// --memory bounds the build's own memory, its heap and stacks (docs/SCALE.md,
// "Memory against the budget"); the pages of files it maps (the program, the
// book LMDB maps) are the kernel's page cache and not counted. The
// aggregation tables of all threads get what is left of the budget after
// - kReserve and kReservePerThread: what a build holds whatever the
//   collection: the program's own data, malloc's arenas, the threads' stacks,
//   the two blocks of PGN being parsed and counted and their games' positions, a spill's writer
//   and the 2 * 16 streams of a compaction of runs (64 KiB each), and in the
//   commit the merge's streams, its chunks ahead and LMDB's write buffers
//   (the commit holds the last run with its free slots given back, so it
//   stays under the parse's peak);
// - the fingerprints of the games (the duplicate check) held in memory,
//   which grow with the games up to fingerprint_limit and then spill to
//   runs (dedup_set.h): DedupSet::memory_bytes.
// The tables keep at least kMinTables (the whole budget when it is smaller):
// under a small budget the fixed part alone is more than the budget, and
// tables any smaller spill more than they save; so a budget under about
// kReserve + kMinTables (40 MiB on two threads) bounds the tables alone, as
// --memory always did (a default build is unchanged).
constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr std::size_t kReserve = 12 * kMiB, kReservePerThread = 4 * kMiB, kMinTables = 16 * kMiB;

// The reserve of a build on threads threads (kReserve, kReservePerThread).
std::size_t reserve_bytes(unsigned threads) { return kReserve + kReservePerThread * threads; }

std::size_t dedup_bytes(const std::vector<DedupSet>& sets) {
  std::size_t bytes = 0;
  for (const DedupSet& set : sets) bytes += set.memory_bytes();
  return bytes;
}

// The bytes the fingerprints of each thread may hold in memory before they
// spill: a quarter of what the budget leaves after the reserves, and at
// least a quarter of the budget up to kMinFingerprints, so that a default
// build (--memory 16M, two threads) keeps some 130,000 games' fingerprints in memory and a
// build under a tiny budget spills them too.
constexpr std::size_t kMinFingerprints = 4 * kMiB;
std::size_t fingerprint_limit(const BuildOptions& options, unsigned threads) {
  const std::size_t outside = reserve_bytes(threads);
  const std::size_t left = options.memory > outside ? options.memory - outside : 0;
  return std::max(left / 4, std::min(options.memory / 4, kMinFingerprints)) / threads;
}

// The budget of each thread's tables, when the build holds outside_bytes that grow with the input.
// A build that counts buckets gives half to the position tables and half to the bucket tables
// (bucket_tables; theirs is set once, at the start).
std::size_t table_budget(const BuildOptions& options, unsigned threads, std::size_t outside_bytes) {
  const std::size_t outside = reserve_bytes(threads) + outside_bytes;
  const std::size_t floor = std::min(options.memory, kMinTables);
  const std::size_t tables = std::max(options.memory > outside ? options.memory - outside : 0, floor);
  return (options.buckets ? tables / 2 : tables) / threads;
}

// The heap a build makes resident at its start (grow_heap): its
// reserve, under a budget that bounds the tables alone (the default), where
// the build holds the reserve beside the budget whatever it does with it;
// none under a larger budget, which bounds all of the build's memory and
// gives its tables what the reserve leaves: pages made resident besides
// would be over it (bench/scale.sh, 1 M games at full depth under 256M:
// 254.5 MiB of anonymous memory, 257.0 with the reserve made resident).
std::size_t resident_heap(const BuildOptions& options, unsigned threads) {
  const std::size_t reserve = reserve_bytes(threads);
  return options.memory < reserve + kMinTables ? std::min(options.memory, reserve) : 0;
}

// The state shared by the parse of one build.
struct Workers {
  const BuildOptions& options;
  store::Book& book;
  // One per thread, each for one KeyRange: a build into a new book counts
  // into partitions (ply_partitions.h), any other into tables.
  std::vector<std::unique_ptr<PlyPartitions>> partitions;
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  std::vector<std::unique_ptr<BucketAggregator>> buckets;  // likewise, when the build counts buckets
  std::uint64_t games_counted = 0;  // the book's games before this build, then this build's so far
  std::uint32_t source = 0;         // the number the input being read gets in sources
  std::vector<DedupSet> dedup;      // one per thread, each for the fingerprints of one range
  WorkerPool& pool;
  bool book_has_games = false;
  std::ostream& errors;
  std::uint64_t error_count = 0;
  GameCollector* games = nullptr;  // --index-games
};

struct PartResult {
  pgn::ReadSummary summary;
  VisitCounts counts;
  PartGames games;  // the accepted games, marked duplicate or not
  std::uint64_t added = 0, duplicates = 0;
  int first_date = 0, last_date = 0;  // of the added games (yyyymmdd; 0: none dated)
};

// Widens [first, last] (yyyymmdd, 0: empty) to hold date (0: undated).
void add_date(int date, int& first, int& last) {
  if (date == 0) return;
  first = first == 0 ? date : std::min(first, date);
  last = std::max(last, date);
}

// Marks the games of a block that are duplicates: of a game in the book, or
// of one before them in this build. Each thread decides for the fingerprints
// of its range (in its own set), taking the parts in file order, so the copy
// that counts is always the first in the input, whichever thread read it.
BuildStatus mark_duplicates(Workers& w, std::vector<PartResult>& results) {
  const auto ranges = std::uint32_t(w.dedup.size());
  std::vector<BuildStatus> failed(ranges);  // a range's failed spill
  (void)w.pool.run(ranges, [&](std::size_t, std::size_t i) {
    const KeyRange range{std::uint32_t(i), ranges};
    std::optional<store::ReadTxn> txn =
        w.book_has_games ? store::ReadTxn::begin(w.book.env(), nullptr) : std::nullopt;
    std::optional<store::Cursor> games =
        txn ? store::Cursor::open(*txn, w.book.dbs().games, nullptr) : std::nullopt;
    for (PartResult& r : results)
      for (PendingGame& g : r.games.games) {
        if (!range.holds(g.fingerprint[0])) continue;
        // (A games database that cannot be read counts as not holding the
        // game, as a failed look-up always did; graphbook check names it.)
        bool in_book = games && store::has_fingerprint(*games, g.fingerprint, nullptr).value_or(false);
        if (in_book || !w.dedup[i].insert(g.fingerprint)) g.duplicate = true;
      }
    failed[i] = w.dedup[i].spill_if_over();
    return true;
  });
  for (BuildStatus& f : failed)
    if (f) return f;
  return std::nullopt;
}

// Adds the games of a block that are not duplicates to the partitions or
// the aggregator (and the buckets) of key range i, which count the positions
// of its range in every game. An error when a spill failed.
BuildStatus aggregate_range(Workers& w, const std::vector<PartResult>& results, std::size_t i) {
  for (const PartResult& r : results)
    for (const PendingGame& g : r.games.games)
      if (!g.duplicate) {
        const PlyRecord* plies = r.games.plies.data() + g.first;
        if (auto e = w.partitions.empty() ? w.aggregators[i]->add_game(g.facts, plies, g.n)
                                          : w.partitions[i]->add_game(g.facts, plies, g.n))
          return e;
        if (!w.buckets.empty())
          if (auto e =
                  w.buckets[i]->add_game(g.facts, r.games.plies.data() + g.first, g.n, g.ordinal, w.source))
            return e;
      }
  return std::nullopt;
}

// A block of the input and the parts its parse is cut into, both made on
// the thread that reads (while the other threads parse the block before).
struct PartedBlock {
  pgn::GameBlockReader::Block block;
  std::vector<pgn::ByteRange> parts;
};

// One job on all threads: parses a block of text into results (when one
// is given) while the games of the block before, in counted (when given),
// are added to the aggregators, each range's as one part; the calling thread
// first does read_next alone (it reads the block after). The parts of the
// ranges come first, so that a thread free of its range (or of its part of
// the parse) takes parts of the parse: a range that spills, or a part with a
// long game, leaves no thread waiting. Each PartResult of results is reused,
// with its memory: a build of many blocks allocates the parts' games and
// positions once, not per block (per block they were page faults and
// fragments of the heap). An error when a spill failed.
BuildStatus parse_and_count(Workers& w, const PartedBlock* block, const std::string& name,
                            std::vector<PartResult>& results, const std::vector<PartResult>* counted,
                            const std::function<void()>& read_next) {
  const std::size_t ranges = counted ? w.pool.threads() : 0;
  std::span<const pgn::ByteRange> parts;  // none when there is no block to parse
  if (block) parts = block->parts;
  results.resize(parts.size());
  for (PartResult& r : results) {
    r.summary = {};
    r.counts = {};
    r.added = r.duplicates = 0;
    r.first_date = r.last_date = 0;
    r.games.games.clear();  // keeping their capacity
    r.games.plies.clear();
  }
  if (w.games) w.games->set_parts(parts.size());
  std::vector<BuildStatus> failed(ranges);  // a range's failed spill
  auto parse = [&](std::size_t i) {
    BuildVisitor visitor(w.options, results[i].games);
    std::string_view part = block->block.text.substr(parts[i].begin, parts[i].end - parts[i].begin);
    pgn::ReadOptions ro;
    ro.buffer_size = std::min(ro.buffer_size, part.size() + 1);  // the part at once, no more
    pgn::PgnReader reader(pgn::ByteSource::from_memory(part, name), ro);
    reader.set_start(block->block.first_line + parts[i].first_line - 1, 0);
    if (w.games) {
      IndexingVisitor indexing(visitor, w.games->part(i));
      reader.read_all(indexing);
    } else if (w.options.filter) {
      QueryFilterVisitor filter(*w.options.filter, visitor);
      reader.read_all(filter);
    } else {
      reader.read_all(visitor);
    }
    results[i].summary = reader.summary();
    results[i].counts = visitor.counts();
  };
  (void)w.pool.run(
      ranges + parts.size(),
      [&](std::size_t, std::size_t i) {
        if (i < ranges) return !(failed[i] = aggregate_range(w, *counted, i));
        parse(i - ranges);
        return true;
      },
      read_next);
  for (BuildStatus& f : failed)
    if (f) return f;
  return std::nullopt;
}

// Decides which games of a parsed block are duplicates (of a game in the
// book, or of one before them in this build), numbers the others, and gives
// the aggregators the budget that the fingerprints leave. An error when a
// spill of the fingerprints failed.
BuildStatus decide_block(Workers& w, std::vector<PartResult>& results) {
  if (w.options.dedup)
    if (auto e = mark_duplicates(w, results)) return e;
  // The fingerprints just added leave less of the budget to the tables.
  const std::size_t budget = table_budget(w.options, unsigned(w.pool.threads()), dedup_bytes(w.dedup));
  for (auto& a : w.aggregators) a->set_budget(budget);
  for (auto& p : w.partitions) p->set_budget(budget);
  for (PartResult& r : results)
    for (PendingGame& g : r.games.games) {
      (g.duplicate ? r.duplicates : r.added) += 1;
      if (g.duplicate) continue;
      g.ordinal = ++w.games_counted;
      add_date(g.facts.date, r.first_date, r.last_date);
    }
  return std::nullopt;
}

// Reports a part's bad games and warnings on the error stream, numbered in
// the input (games_before: the input's games in the parts before), and adds
// its counts to report.
void report_part(Workers& w, const PartResult& r, std::uint64_t games_before, InputReport& report) {
  for (auto e : r.summary.stored_errors) {
    e.game_number += games_before;
    w.errors << e.message() << '\n';
  }
  w.error_count += r.summary.errors;
  for (auto warning : r.summary.stored_warnings) {
    warning.game_number += games_before;
    w.errors << warning.message() << '\n';
    report.binary = report.binary || warning.kind == pgn::WarningKind::BinaryData;
  }
  report.warnings += r.summary.warnings;
  report.games_read += r.summary.games_read;
  report.skipped += r.summary.games_skipped;
  report.added += r.added;
  report.duplicates += r.duplicates;
  add_date(r.first_date, report.first_date, report.last_date);
  add_date(r.last_date, report.first_date, report.last_date);
  report.filtered += r.counts.filtered;
  report.filtered_by_query += r.counts.filtered_by_query;
}

// Reads one input block by block; fills report. A block is parsed in the
// job that counts the block before and reads (and cuts into parts) the
// block after (parse_and_count), so the threads never wait for the
// reading, nor for one range's spill. An error when a spill failed.
BuildStatus read_input(Workers& w, pgn::ByteSource source, InputReport& report, XXH3_state_t* hash,
                       Progress& progress) {
  pgn::GameBlockReader blocks(source, kBlockSize);
  // The next block, cut into kPartsPerThread parts a thread.
  auto read_next = [&]() -> std::optional<PartedBlock> {
    auto block = blocks.next([&](const char* data, std::size_t n) {
      if (hash) XXH3_64bits_update(hash, data, n);
      progress.add_bytes(n);
    });
    if (!block) return std::nullopt;
    return PartedBlock{*block,
                       pgn::split_at_game_boundaries(block->text, w.pool.threads() * kPartsPerThread)};
  };
  std::vector<PartResult> results[2];  // the block being parsed, and the block before (being counted)
  int parsing = 0;
  bool counting = false;  // results[1 - parsing] holds a block to count
  std::uint64_t games_before = 0;
  for (auto block = read_next(); block || counting;) {
    std::optional<PartedBlock> next;
    const auto* counted = counting ? &results[1 - parsing] : nullptr;
    if (auto e = parse_and_count(w, block ? &*block : nullptr, source.name(), results[parsing], counted, [&] {
          if (block) next = read_next();
        }))
      return e;
    counting = bool(block);
    if (block) {
      if (auto e = decide_block(w, results[parsing])) return e;
      for (auto& r : results[parsing]) {
        report_part(w, r, games_before, report);
        if (w.games) w.games->take_part(std::size_t(&r - results[parsing].data()), games_before, r.games);
        games_before += r.summary.games_read;
        progress.add_games(r.summary.games_read);
      }
    }
    parsing = 1 - parsing;
    block = std::move(next);
  }
  if (!source.ok()) report.error = source.error();
  return std::nullopt;
}

// Why an input cannot be read (it is absent, a directory, unreadable), for
// the first such input; nullopt when all can be. stdin is always readable.
std::optional<std::string> unreadable_input(const std::vector<std::string>& inputs) {
  for (const std::string& in : inputs) {
    if (in == "-") continue;
    struct stat st;
    if (::stat(in.c_str(), &st) != 0) return "cannot read " + in + ": " + std::strerror(errno);
    if (S_ISDIR(st.st_mode)) return "cannot read " + in + ": it is a directory";
    if (::access(in.c_str(), R_OK) != 0) return "cannot read " + in + ": " + std::strerror(errno);
  }
  return std::nullopt;
}

// Opens (creates) the book and adopts the shape its earlier builds recorded
// (--max-ply, --min-games, --color) into options: a build that gives another
// value is refused (Input) before anything is written.
std::optional<store::Book> open_book_of_its_shape(const std::string& book_path, BuildOptions& options,
                                                  bool& placeholder, BuildError* error) {
  store::BookError book_error;
  // Nothing at the path (not even a dangling link): the book is made there
  // only by the commit, whole (new_book_file.h).
  struct stat st;
  placeholder = ::lstat(book_path.c_str(), &st) != 0 && errno == ENOENT;
  auto book = placeholder ? open_placeholder(book_path, options.initial_map_size, &book_error)
                          : store::Book::open(book_path, store::OpenMode::Create, &book_error,
                                              options.initial_map_size);
  if (!book) {
    *error = BuildError::opening(book_error);
    return std::nullopt;
  }
  if (auto recorded = recorded_shape(*book))
    if (auto problem = adopt_shape(*book, *recorded, options)) {
      *error = BuildError::input(problem->message + "; nothing was built");
      return std::nullopt;
    }
  return book;
}

// The contents the book holds and those this build has read: an input with
// one of them adds nothing.
struct KnownSources {
  std::unordered_set<std::uint64_t> hashes;  // XXH3-64 of the contents
  std::unordered_set<std::uint64_t> sizes;   // of the files: only a file of such a size can be known
  std::size_t in_book = 0;                   // the book's sources (the game index numbers the new after them)
  // --source labels in the book and in this build -> the bucket source number
  // of their first record (SourceInfo::bucket_source).
  std::unordered_map<std::string, std::uint32_t> labels;
};

KnownSources known_sources(store::Book& book) {
  KnownSources known;
  const auto sources = book.sources();
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const store::SourceInfo& s = sources[i];
    if (s.retracted_at) continue;  // its games are out of the book: the same file adds them again
    known.hashes.insert(s.content_hash);
    known.sizes.insert(s.size);
    if (!s.label.empty())
      known.labels.emplace(s.label, s.bucket_source ? s.bucket_source : std::uint32_t(i + 1));
  }
  known.in_book = sources.size();
  return known;
}

bool book_has_games(store::Book& book) {
  auto txn = store::ReadTxn::begin(book.env(), nullptr);
  MDB_stat st{};
  return txn && !txn->stat(book.dbs().games, st) && st.ms_entries > 0;
}

// One aggregation table per thread, each for one key range, sharing the
// memory budget: half of it with the buckets when the build counts them.
// input_bytes: the PGN to read (0: unknown), which sizes the first tables.
// Each table's first pages are made on a thread of the pool, all at once:
// one after the other, before the first game, they were a fixed cost of
// every build (tables of some MB each, in page faults).
std::vector<std::unique_ptr<Aggregator>> thread_tables(const BuildOptions& options, WorkerPool& pool,
                                                       const std::string& spill_dir,
                                                       std::uint64_t input_bytes) {
  const auto threads = unsigned(pool.threads());
  // A ply takes 3 bytes of PGN at least ("e4 ") and fills a node and an edge:
  // the most slots of each range the input can fill.
  const std::uint64_t most_slots = input_bytes / 3 * 2 / threads;
  std::vector<std::unique_ptr<Aggregator>> tables(threads);
  std::vector<std::exception_ptr> failed(threads);  // (no memory for a table: std::bad_alloc)
  (void)pool.run(threads, [&](std::size_t, std::size_t i) {
    try {
      tables[i] = std::make_unique<Aggregator>(table_budget(options, threads, 0), spill_dir, options.side,
                                               KeyRange{.index = unsigned(i), .count = threads}, most_slots);
    } catch (...) {
      failed[i] = std::current_exception();
    }
    return true;
  });
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  return tables;
}

// Whether the book holds nothing but meta, into only_meta: the commit then
// writes a new book file (book_writer.h), and the build counts into
// partitions, which only a new book can take. An error when the book cannot
// be read.
BuildStatus holds_only_meta(store::Book& book, bool& only_meta) {
  store::Error e;
  auto txn = store::ReadTxn::begin(book.env(), &e);
  std::optional<bool> fresh = txn ? book.holds_only_meta(*txn, &e) : std::nullopt;
  if (!fresh) return BuildError::book(book.path() + ": " + e.message());
  only_meta = *fresh;
  return std::nullopt;
}

// The partitions of each thread's key range, sharing the memory budget as
// the tables do (thread_tables); input_bytes as there.
std::vector<std::unique_ptr<PlyPartitions>> thread_partitions(const BuildOptions& options, unsigned threads,
                                                              const std::string& spill_dir,
                                                              std::uint64_t input_bytes) {
  // A ply takes 3 bytes of PGN at least ("e4 "): the most plies of each range.
  const std::uint64_t most_plies = input_bytes / 3 / threads;
  std::vector<std::unique_ptr<PlyPartitions>> partitions;
  for (unsigned i = 0; i < threads; ++i)
    partitions.push_back(std::make_unique<PlyPartitions>(table_budget(options, threads, 0), spill_dir,
                                                         options.side, KeyRange{.index = i, .count = threads},
                                                         most_plies));
  return partitions;
}

// The bucket aggregations, one per thread for the same key ranges, in the
// other half of the budget; none when the build counts no buckets.
std::vector<std::unique_ptr<BucketAggregator>> thread_buckets(const BuildOptions& options, unsigned threads,
                                                              const std::string& spill_dir) {
  std::vector<std::unique_ptr<BucketAggregator>> buckets;
  if (!options.buckets) return buckets;
  for (unsigned i = 0; i < threads; ++i)
    buckets.push_back(std::make_unique<BucketAggregator>(table_budget(options, threads, 0), spill_dir,
                                                         options.side, KeyRange{.index = i, .count = threads},
                                                         options.by_month));
  return buckets;
}

// Whether the build counts buckets, and in which periods: a new book (one
// that holds nothing but meta) gets them with --buckets (or --by-month); a
// book that has them gets them in its own periods, whatever the options
// (another --by-month is refused: its buckets would no longer add up to its
// totals); a book of records without them gets none (--buckets and
// --by-month are refused: the games already in it have none).
// new_book: the book holds nothing but meta (holds_only_meta).
BuildStatus adopt_buckets(store::Book& book, BuildOptions& options, bool new_book) {
  store::Error e;
  auto txn = store::ReadTxn::begin(book.env(), &e);
  if (!txn) return BuildError::book(book.path() + ": " + e.message());
  auto params = store::bucket_params(*txn, book.dbs().meta);
  const std::string& path = book.path();
  if (params) {
    if (options.by_month_given && options.by_month != params->by_month)
      return BuildError::input(path + (params->by_month
                                           ? " keeps months in its buckets: leave out --by-month or give it"
                                           : " keeps years in its buckets: leave out --by-month"));
    options.buckets = true;
    options.by_month = params->by_month;
    options.bucket_ordinals = params->ordinals;
    return std::nullopt;
  }
  if (!new_book && options.buckets)
    return BuildError::input(
        path + " was built without buckets: " + (options.by_month_given ? "--by-month" : "--buckets") +
        " needs a new book (build one from all the inputs)");
  return std::nullopt;
}

// One set of the fingerprints seen per thread, for the same key ranges.
std::vector<DedupSet> thread_dedup_sets(const BuildOptions& options, unsigned threads,
                                        const std::string& spill_dir) {
  std::vector<DedupSet> sets;
  for (unsigned i = 0; i < threads; ++i)
    sets.emplace_back(KeyRange{.index = i, .count = threads}, spill_dir, fingerprint_limit(options, threads));
  return sets;
}

// The bytes the inputs hold, for the progress line's ETA; 0 (no ETA) when
// the bytes read are not those of files (stdin, zstd).
std::uint64_t total_input_bytes(const std::vector<std::string>& inputs) {
  std::uint64_t total = 0;
  for (const auto& in : inputs) {
    if (in == "-" || in.ends_with(".zst")) return 0;
    total += file_size(in).value_or(0);
  }
  return total;
}

// Reads one input into the aggregators: its report, and its source in
// sources when it is to be recorded. An input that cannot be read or whose
// content is known adds nothing (the report says why, the error stream too);
// nullopt with error set only when a spill failed.
std::optional<InputReport> add_input(Workers& w, const std::string& in, const std::string& params,
                                     KnownSources& known, std::vector<store::SourceInfo>& sources,
                                     Progress& progress, BuildError* error) {
  InputReport ir;
  ir.name = in;
  auto unread = [&](std::string why) {
    ir.error = std::move(why);
    w.errors << "graphbook build: " << ir.error << '\n';
    return ir;
  };
  auto source = pgn::ByteSource::open(in);
  auto size = in == "-" ? std::optional<std::uint64_t>(0) : file_size(in);
  if (!source.ok() || !size) return unread(source.ok() ? "cannot read " + in : source.error());
  store::SourceInfo src{.name = in, .size = *size, .params = params, .label = w.options.source};
  ir.bytes = *size;
  // A file is hashed before it is read only when it may be a known source
  // (one of its size is) or when what is read is not its bytes (zstd): any
  // other file is new, and its hash is taken as it is read, so that it is
  // read once, not twice. stdin is always hashed as it is read.
  const bool hash_first = in != "-" && (known.sizes.contains(*size) || source.decompresses());
  if (hash_first) {
    auto hash = file_hash(in);
    if (!hash) return unread("cannot read " + in);
    src.content_hash = *hash;
    if (!known.hashes.insert(*hash).second) {
      ir.already_in_book = true;
      w.errors << "graphbook build: " << in << ": the same content is already in the book; nothing added\n";
      return ir;
    }
  }
  XXH3_state_t stream_hash;
  XXH3_64bits_reset(&stream_hash);
  if (w.games) w.games->begin_source(std::uint32_t(known.in_book + sources.size()));
  w.source = std::uint32_t(known.in_book + sources.size() + 1);  // sources number from 1
  if (!src.label.empty()) {  // the inputs of one --source NAME count in one source's buckets
    w.source = known.labels.emplace(src.label, w.source).first->second;
    src.bucket_source = w.source;
  }
  if (auto e = read_input(w, std::move(source), ir, hash_first ? nullptr : &stream_hash, progress)) {
    *error = std::move(*e);
    return std::nullopt;
  }
  if (!ir.error.empty()) w.errors << "graphbook build: " << ir.error << '\n';
  if (!hash_first) {
    src.content_hash = XXH3_64bits_digest(&stream_hash);
    if (!known.hashes.insert(src.content_hash).second) ir.already_in_book = true;  // stdin only
  }
  if (in != "-") known.sizes.insert(src.size);
  src.games_added = ir.added;
  src.duplicates = ir.duplicates;
  src.first_date = ir.first_date;
  src.last_date = ir.last_date;
  src.added_at = std::int64_t(std::time(nullptr));
  if (ir.added > 0 || !ir.already_in_book) sources.push_back(src);
  return ir;
}

// Each thread sorts its own table into its last run (or cuts its last
// plies into partitions); the runs of all threads in thread order (the order
// of the key ranges; none for partitions), with their collisions and spills
// in report.
std::optional<std::vector<const Run*>> finish_aggregation(Workers& w, BuildReport& report,
                                                          BuildError* error) {
  std::vector<BuildStatus> failed(w.pool.threads());
  (void)w.pool.run(w.pool.threads(), [&](std::size_t, std::size_t i) {
    return !(failed[i] = w.partitions.empty() ? w.aggregators[i]->finish() : w.partitions[i]->finish());
  });
  for (BuildStatus& f : failed)
    if (f) {
      *error = std::move(*f);
      return std::nullopt;
    }
  // The tallies' blocks that the last runs kept and did not use go back to
  // malloc in finish, where they stay the process's (in the middle of a heap)
  // while the commit takes new memory: given back now, they do not add to the
  // build's peak (4 MB of the lines' 48 MB in bench/build.sh). Partitions
  // have no tallies, and the free heap they leave is what the commit takes
  // next: trimmed, it would be new pages to touch again (resident_heap).
  if (!w.aggregators.empty()) ::malloc_trim(0);
  for (auto& b : w.buckets)
    if (auto e = b->finish()) {
      *error = std::move(*e);
      return std::nullopt;
    }
  for (auto& b : w.buckets) report.bucket_spills += b->spills();
  for (const DedupSet& d : w.dedup) report.fingerprint_spills += d.spills();
  std::vector<const Run*> runs;
  for (auto& p : w.partitions) report.spills += p->spills();
  for (auto& a : w.aggregators) {
    report.collisions += a->collisions();
    report.spills += a->spills();
    for (const Run& r : a->runs()) runs.push_back(&r);
  }
  return runs;
}

// Reads and aggregates the inputs in order, each reported in report.inputs,
// with a progress line; the sources to record go to sources. An error when a
// spill failed.
BuildStatus read_inputs(Workers& w, const std::vector<std::string>& inputs, KnownSources known,
                        const std::string& params, BuildReport& report,
                        std::vector<store::SourceInfo>& sources) {
  Progress progress(w.options.progress, total_input_bytes(inputs));
  for (const auto& in : inputs) {
    BuildError error;
    auto input = add_input(w, in, params, known, sources, progress, &error);
    if (!input) return error;
    report.inputs.push_back(std::move(*input));
  }
  progress.finish();
  return std::nullopt;
}

// What the commit writes besides the merged runs: the fingerprints of the
// games added, the sources, the counts added to the book's stats, the build's
// parameters, and the game index (--index-games).
CommitInput commit_input(Workers& w, std::vector<FingerprintRun> fingerprints,
                         std::vector<store::SourceInfo> sources, const BuildReport& report,
                         std::string params) {
  std::function<store::Status(store::WriteTxn&)> index_writes;
  if (w.games) index_writes = [games = w.games](store::WriteTxn& txn) { return games->write(txn); };
  return CommitInput{.fingerprints = std::move(fingerprints),
                     .sources = std::move(sources),
                     .added = {.games = report.total.added,
                               .duplicates = report.total.duplicates,
                               .skipped = report.total.skipped,
                               .collisions = report.collisions},
                     .params_json = std::move(params),
                     .min_games = std::max<std::uint32_t>(1, w.options.min_games),
                     .more_writes = std::move(index_writes),
                     .buckets = nullptr,  // write_book sets them
                     .buckets_json = {}};
}

// Merges the runs into the book, with the sources and the stats, in one commit.
// placeholder: book is the placeholder of the book at book_path (open_placeholder).
BuildStatus write_book(store::Book& book, const std::string& book_path, bool placeholder, Workers& w,
                       const std::vector<const Run*>& runs, std::vector<store::SourceInfo> sources,
                       const std::string& params, BuildReport& report) {
  RunMerger merger(runs);
  std::vector<FingerprintRun> fingerprints;
  for (DedupSet& set : w.dedup)  // the ranges in order: all sorted
    if (auto e = set.take(fingerprints)) return e;
  CommitInput input = commit_input(w, std::move(fingerprints), std::move(sources), report, params);
  if (placeholder) input.link_at = book_path;
  input.threads = unsigned(w.pool.threads());
  input.remove_run_files = true;  // the aggregators' spills: nothing reads them after the commit
  if (!w.partitions.empty())
    input.slices = [&w, min_games = input.min_games] {
      std::vector<PlyPartitions*> ranges;
      for (auto& p : w.partitions) ranges.push_back(p.get());
      return partition_slices(ranges, min_games, min_games > 1);
    };
  std::vector<const BucketAggregator*> bucket_threads;
  for (auto& b : w.buckets) bucket_threads.push_back(b.get());
  BucketMerger buckets(bucket_threads);
  if (w.options.buckets) {
    input.buckets = &buckets;
    input.buckets_json =
        store::bucket_params_json({.by_month = w.options.by_month, .ordinals = w.games_counted});
  }
  if (auto s = commit_build(book, merger, input, report.commit))
    return BuildError::book(book_path + ": " + s->message());
  report.collisions += report.commit.collisions;
  return std::nullopt;
}

}  // namespace

void add_up_inputs(BuildReport& report) {
  for (const auto& ir : report.inputs) {
    report.total.games_read += ir.games_read;
    report.total.added += ir.added;
    report.total.duplicates += ir.duplicates;
    report.total.skipped += ir.skipped;
    report.total.filtered += ir.filtered;
    report.total.filtered_by_query += ir.filtered_by_query;
    report.total.warnings += ir.warnings;
    report.total.bytes += ir.bytes;
  }
}

std::string params_json(const BuildOptions& o) {
  nlohmann::json j = {{"max_ply", o.max_ply},
                      {"min_games", o.min_games},
                      {"min_elo", o.min_elo},
                      {"since", o.since},
                      {"until", o.until},
                      {"color", o.side == Side::Both ? "both" : o.side == Side::White ? "white" : "black"},
                      {"dedup", o.dedup}};
  if (!o.player.empty()) j["player"] = o.player;  // one-sided per game (merge requires the same)
  return j.dump();
}

std::optional<BuildReport> run_build(const std::string& book_path, const std::vector<std::string>& inputs,
                                     const BuildOptions& given_options, std::ostream& errors,
                                     BuildError* error) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  auto fail = [&](BuildError e) -> std::optional<BuildReport> {
    *error = std::move(e);
    return std::nullopt;
  };
  if (auto problem = unreadable_input(inputs))  // before the book is created or touched
    return fail(BuildError::input(*problem + "; nothing was built"));
  // The tables are freed and allocated again as they spill and regrow: with
  // malloc's threshold fixed, each large one that the free top of the heap
  // cannot hold is its own mapping, given back when freed, where the
  // threshold malloc raises by itself kept them in its heap, freed but still
  // the process's.
  ::mallopt(M_MMAP_THRESHOLD, int(kMallocMapThreshold));
  // What a build holds whatever the collection, as heap made resident at
  // once (large_pages.h): first touches of small pages were 2,800 page
  // faults of a default build of tcec at ply 40 (docs/SCALE.md). Made
  // resident on a core of its own while the book is opened, which for a new
  // book is mostly a wait for the disk (its first commit is synced), and
  // before the games are counted (docs/SCALE.md, "Fresh memory").
  const auto [heap, heap_bytes] =
      grow_heap(resident_heap(given_options, std::max(1u, given_options.threads)));
  std::jthread resident([heap, heap_bytes] { populate(heap, heap_bytes); });
  // The move generator's tables, which the first game needs, are made on a
  // core of their own while the book is opened and the counting set up: some
  // milliseconds of every build, before its first game, otherwise.
  std::jthread move_tables(init_bitboards);
  BuildOptions options = given_options;
  const std::string spill_dir = options.spill_dir.empty() ? dir_of(book_path) : options.spill_dir;
  // Interrupted, the build removes its files; those of killed builds go now.
  InterruptCleanup cleanup([&] {
    remove_own_files(spill_dir, std::string(kRunFilePrefix));
    remove_own_new_book(book_path);
  });
  remove_orphans(spill_dir, std::string(kRunFilePrefix));
  remove_new_book_orphans(book_path);
  bool placeholder = false;
  auto book = open_book_of_its_shape(book_path, options, placeholder, error);
  resident.join();
  if (!book) return std::nullopt;
  // The placeholder goes however the build ends (the book, if the commit
  // came, is linked at the path by then).
  struct PlaceholderRemoval {
    const std::string* path;
    ~PlaceholderRemoval() {
      if (path) remove_placeholder(*path);
    }
  } placeholder_removal{placeholder ? &book_path : nullptr};
  bool new_book = false;
  if (auto problem = holds_only_meta(*book, new_book)) {
    problem->message += "; nothing was built";
    return fail(*problem);
  }
  if (auto problem = adopt_buckets(*book, options, new_book)) {
    problem->message += "; nothing was built";
    return fail(*problem);
  }

  BuildReport report;
  const unsigned threads = std::max(1u, options.threads);
  WorkerPool pool(threads);
  std::optional<GameCollector> games;
  Workers w{.options = options,
            .book = *book,
            .partitions = new_book ? thread_partitions(options, threads, spill_dir, total_input_bytes(inputs))
                                   : std::vector<std::unique_ptr<PlyPartitions>>{},
            .aggregators = new_book ? std::vector<std::unique_ptr<Aggregator>>{}
                                    : thread_tables(options, pool, spill_dir, total_input_bytes(inputs)),
            .buckets = thread_buckets(options, threads, spill_dir),
            .games_counted = std::max(book->stats().games, options.bucket_ordinals),
            .dedup = thread_dedup_sets(options, threads, spill_dir),
            .pool = pool,
            .book_has_games = book_has_games(*book),
            .errors = errors,
            .games = options.index_games ? &games.emplace() : nullptr};
  const std::string params = params_json(options);
  std::vector<store::SourceInfo> sources;
  if (auto e = read_inputs(w, inputs, known_sources(*book), params, report, sources)) return fail(*e);
  report.parse_seconds = seconds_since(start);
  auto runs = finish_aggregation(w, report, error);
  if (!runs) return std::nullopt;
  add_up_inputs(report);
  // Inputs that were all in the book already: nothing to write, and the
  // book's parameters stay those of the builds that added to it. (Into a
  // placeholder the commit comes whatever: it is what makes the book.)
  if (sources.empty() && !placeholder) {
    report.seconds = report.parse_seconds;
    return report;
  }
  const auto committing = std::chrono::steady_clock::now();
  if (auto e = write_book(*book, book_path, placeholder, w, *runs, std::move(sources), params, report))
    return fail(*e);
  report.error_count = w.error_count;
  report.seconds = seconds_since(start);
  report.commit_seconds = seconds_since(committing);
  return report;
}

}  // namespace gb::builder
