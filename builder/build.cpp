#include "builder/build.h"

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
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "book/pgn/byte_source.h"
#include "book/pgn/reader.h"
#include "book/pgn/split.h"
#include "builder/book_shape.h"
#include "builder/build_visitor.h"
#include "builder/game_index_writer.h"
#include "builder/interrupt_cleanup.h"
#include "builder/new_book_file.h"
#include "builder/orphan_files.h"
#include "builder/progress.h"
#include "builder/query_filter.h"
#include "builder/run_file.h"
#include "builder/worker_pool.h"

namespace gb::builder {

namespace {

constexpr std::size_t kBlockSize = std::size_t(1) << 19;  // parsed on all threads at once
constexpr std::size_t kPartsPerThread = 4;

std::optional<std::uint64_t> file_size(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::uint64_t(st.st_size);
}

// XXH3-64 of a file's bytes.
std::optional<std::uint64_t> file_hash(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return std::nullopt;
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  std::vector<char> buf(std::size_t(1) << 20);
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) XXH3_64bits_update(&state, buf.data(), n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  if (!ok) return std::nullopt;
  return XXH3_64bits_digest(&state);
}

// The offset of the last game boundary after 0 in text, or 0 when there is none.
std::size_t last_boundary(std::string_view text) {
  for (std::size_t window = std::size_t(1) << 16;; window *= 2) {
    std::size_t from = window >= text.size() ? 1 : text.size() - window;
    std::size_t best = 0;
    for (std::size_t b = pgn::next_game_boundary(text, from); b < text.size();
         b = pgn::next_game_boundary(text, b + 1))
      best = b;
    if (best > 0 || from == 1) return best;
  }
}

// The state shared by the parse of one build.
struct Workers {
  const BuildOptions& options;
  store::Book& book;
  std::vector<std::unique_ptr<Aggregator>> aggregators;  // one per thread, each for one KeyRange
  std::vector<DedupSet> dedup;  // one per thread, each for the fingerprints of one range
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
};

// Marks the games of a block that are duplicates: of a game in the book, or
// of one before them in this build. Each thread decides for the fingerprints
// of its range (in its own set), taking the parts in file order, so the copy
// that counts is always the first in the input, whichever thread read it.
void mark_duplicates(Workers& w, std::vector<PartResult>& results) {
  const auto ranges = std::uint32_t(w.dedup.size());
  (void)w.pool.run(ranges, [&](std::size_t, std::size_t i) {
    const KeyRange range{std::uint32_t(i), ranges};
    std::optional<store::ReadTxn> txn =
        w.book_has_games ? store::ReadTxn::begin(w.book.env(), nullptr) : std::nullopt;
    for (PartResult& r : results)
      for (PendingGame& g : r.games.games) {
        if (!range.holds(g.fingerprint[0])) continue;
        bool in_book = txn && txn->get(w.book.dbs().games, FingerprintKey(g.fingerprint).view()).has_value();
        if (in_book || !w.dedup[i].insert(g.fingerprint)) g.duplicate = true;
      }
    return true;
  });
}

// Parses one block of text on all threads, decides which games are
// duplicates, and adds the others to the aggregators, each of which counts
// the positions of its key range in every game. Fills the per-part results
// in order; false when a spill failed. The block is parsed in
// kPartsPerThread parts per thread, taken in turn by whichever thread is
// free, so that a long game does not leave the other threads waiting. The
// results of the block before are reused, with their memory: a build of
// many blocks allocates the parts' games and positions once, not per block
// (per block they were page faults and fragments of the heap).
bool parse_block(Workers& w, std::string_view text, const std::string& name, std::uint64_t first_line,
                 std::vector<PartResult>& results) {
  const std::size_t threads = w.aggregators.size();
  auto parts = pgn::split_at_game_boundaries(text, threads * kPartsPerThread);
  results.resize(parts.size());
  for (PartResult& r : results) {
    r.summary = {};
    r.counts = {};
    r.added = r.duplicates = 0;
    r.games.games.clear();  // keeping their capacity
    r.games.plies.clear();
  }
  if (w.games) w.games->set_parts(parts.size());
  (void)w.pool.run(parts.size(), [&](std::size_t, std::size_t i) {
    BuildVisitor visitor(w.options, results[i].games);
    std::string_view part = text.substr(parts[i].begin, parts[i].end - parts[i].begin);
    pgn::ReadOptions ro;
    ro.buffer_size = std::min(ro.buffer_size, part.size() + 1);  // the part at once, no more
    pgn::PgnReader reader(pgn::ByteSource::from_memory(part, name), ro);
    reader.set_start(first_line + parts[i].first_line - 1, 0);
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
    return true;
  });
  if (w.options.dedup) mark_duplicates(w, results);
  bool ok = w.pool.run(threads, [&](std::size_t, std::size_t i) {
    for (const PartResult& r : results)
      for (const PendingGame& g : r.games.games)
        if (!g.duplicate && !w.aggregators[i]->add_game(g.facts, r.games.plies.data() + g.first, g.n))
          return false;
    return true;
  });
  if (!ok) return false;
  for (PartResult& r : results)
    for (const PendingGame& g : r.games.games) (g.duplicate ? r.duplicates : r.added) += 1;
  return true;
}

// Reads one input block by block; fills report. Returns false on a spill failure.
bool read_input(Workers& w, pgn::ByteSource source, InputReport& report, XXH3_state_t* hash,
                Progress& progress) {
  constexpr std::size_t kRead = std::size_t(1) << 18;  // bytes per read from the source
  std::string buffer;
  std::vector<PartResult> results;
  std::uint64_t line = 1, games_before = 0;
  bool eof = false;
  // A block is cut at its last game boundary; one without a boundary (a game
  // longer than a block, or a file that is not PGN) must grow, or the loop
  // would look for a boundary in the same bytes forever.
  std::size_t want = kBlockSize;
  while (!eof || !buffer.empty()) {
    while (!eof && buffer.size() < want) {
      const std::size_t had = buffer.size();
      buffer.resize(had + kRead);
      std::size_t n = source.read(buffer.data() + had, kRead);
      buffer.resize(had + n);
      if (n == 0) {
        eof = true;
        break;
      }
      if (hash) XXH3_64bits_update(hash, buffer.data() + had, n);
      progress.add_bytes(n);
    }
    std::size_t cut = eof ? buffer.size() : last_boundary(buffer);
    if (cut == 0 && !eof) {  // one game larger than a block: read on, twice as far
      want = buffer.size() * 2;
      continue;
    }
    want = kBlockSize;
    if (!parse_block(w, std::string_view(buffer).substr(0, cut), source.name(), line, results)) return false;
    for (auto& r : results) {
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
      if (w.games) w.games->take_part(std::size_t(&r - results.data()), games_before, r.games);
      games_before += r.summary.games_read;
      report.games_read += r.summary.games_read;
      report.skipped += r.summary.games_skipped;
      report.added += r.added;
      report.duplicates += r.duplicates;
      report.filtered += r.counts.filtered;
      report.filtered_by_query += r.counts.filtered_by_query;
      progress.add_games(r.summary.games_read);
    }
    line += std::uint64_t(std::count(buffer.begin(), buffer.begin() + std::ptrdiff_t(cut), '\n'));
    buffer.erase(0, cut);
  }
  if (!source.ok()) report.error = source.error();
  return true;
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

}  // namespace

std::string params_json(const BuildOptions& o) {
  nlohmann::json j = {{"max_ply", o.max_ply},
                      {"min_games", o.min_games},
                      {"min_elo", o.min_elo},
                      {"since", o.since},
                      {"until", o.until},
                      {"color", o.side == Side::Both ? "both" : o.side == Side::White ? "white" : "black"},
                      {"dedup", o.dedup}};
  return j.dump();
}

std::optional<BuildReport> run_build(const std::string& book_path, const std::vector<std::string>& inputs,
                                     const BuildOptions& given_options, std::ostream& errors,
                                     BuildError* error) {
  auto start = std::chrono::steady_clock::now();
  if (auto problem = unreadable_input(inputs)) {  // before the book is created or touched
    *error = BuildError::input(*problem + "; nothing was built");
    return std::nullopt;
  }
  BuildOptions options = given_options;
  const std::string spill_dir = options.spill_dir.empty() ? dir_of(book_path) : options.spill_dir;
  // Interrupted, the build removes its files; those of killed builds go now.
  InterruptCleanup cleanup([&] {
    remove_own_files(spill_dir, std::string(kRunFilePrefix));
    remove_own_new_book(book_path);
  });
  remove_orphans(spill_dir, std::string(kRunFilePrefix));
  remove_new_book_orphans(book_path);
  store::BookError book_error;
  auto book = store::Book::open(book_path, store::OpenMode::Create, &book_error, options.initial_map_size);
  if (!book) {
    *error = BuildError::opening(book_error);
    return std::nullopt;
  }
  if (auto recorded = recorded_shape(*book))
    if (auto problem = adopt_shape(*book, *recorded, options)) {
      *error = BuildError::input(*problem + "; nothing was built");
      return std::nullopt;
    }
  BuildReport report;
  std::unordered_set<std::uint64_t> known_sources, known_sizes;  // content hashes; file sizes
  auto book_sources = book->sources();
  for (const auto& s : book_sources) {
    known_sources.insert(s.content_hash);
    known_sizes.insert(s.size);
  }
  unsigned threads = std::max(1u, options.threads);
  WorkerPool pool(threads);
  Workers w{options, *book, {}, {}, pool, false, errors, 0, nullptr};
  {
    auto txn = store::ReadTxn::begin(book->env(), nullptr);
    MDB_stat st{};
    if (txn && !txn->stat(book->dbs().games, st)) w.book_has_games = st.ms_entries > 0;
  }
  for (unsigned i = 0; i < threads; ++i)
    w.aggregators.push_back(std::make_unique<Aggregator>(options.memory / threads, spill_dir, options.side,
                                                         KeyRange{i, threads}));
  for (unsigned i = 0; i < threads; ++i) w.dedup.emplace_back(KeyRange{i, threads});
  std::optional<GameCollector> games;
  if (options.index_games) w.games = &games.emplace();

  std::uint64_t total_bytes = 0;
  for (const auto& in : inputs) {
    if (in == "-" || in.ends_with(".zst")) {  // bytes read are not file bytes: no ETA
      total_bytes = 0;
      break;
    }
    total_bytes += file_size(in).value_or(0);
  }
  Progress progress(options.progress, total_bytes);

  std::vector<store::SourceInfo> sources;
  std::string params = params_json(options);
  for (const auto& in : inputs) {
    InputReport ir;
    ir.name = in;
    store::SourceInfo src;
    src.name = in;
    src.params = params;
    auto source = pgn::ByteSource::open(in);
    auto size = in == "-" ? std::optional<std::uint64_t>(0) : file_size(in);
    if (!source.ok() || !size) {
      ir.error = source.ok() ? "cannot read " + in : source.error();
      errors << "graphbook build: " << ir.error << '\n';
      report.inputs.push_back(ir);
      continue;
    }
    src.size = ir.bytes = *size;
    // A file is hashed before it is read only when it may be a known source
    // (one of its size is) or when what is read is not its bytes (zstd): any
    // other file is new, and its hash is taken as it is read, so that it is
    // read once, not twice. stdin is always hashed as it is read.
    const bool hash_first = in != "-" && (known_sizes.contains(*size) || source.decompresses());
    if (hash_first) {
      auto hash = file_hash(in);
      if (!hash) {
        ir.error = "cannot read " + in;
        errors << "graphbook build: " << ir.error << '\n';
        report.inputs.push_back(ir);
        continue;
      }
      src.content_hash = *hash;
      if (!known_sources.insert(*hash).second) {
        ir.already_in_book = true;
        errors << "graphbook build: " << in << ": the same content is already in the book; nothing added\n";
        report.inputs.push_back(ir);
        continue;
      }
    }
    XXH3_state_t stream_hash;
    XXH3_64bits_reset(&stream_hash);
    if (w.games) w.games->begin_source(std::uint32_t(book_sources.size() + sources.size()));
    if (!read_input(w, std::move(source), ir, hash_first ? nullptr : &stream_hash, progress)) {
      for (auto& a : w.aggregators)
        if (!a->error().empty()) *error = BuildError::book(a->error());
      return std::nullopt;
    }
    if (!ir.error.empty()) errors << "graphbook build: " << ir.error << '\n';
    if (!hash_first) {
      src.content_hash = XXH3_64bits_digest(&stream_hash);
      if (!known_sources.insert(src.content_hash).second) ir.already_in_book = true;  // stdin only
    }
    if (in != "-") known_sizes.insert(src.size);
    src.games_added = ir.added;
    src.added_at = std::int64_t(std::time(nullptr));
    if (ir.added > 0 || !ir.already_in_book) sources.push_back(src);
    report.inputs.push_back(ir);
  }
  progress.finish();
  auto parsed = std::chrono::steady_clock::now();
  report.parse_seconds = std::chrono::duration<double>(parsed - start).count();

  std::vector<const Run*> runs;
  // Each thread sorts its own table into its last run (one after the other,
  // they were 10 ms of a 0.19 s build of tcec at --max-ply 40 on one core).
  // (A finish that fails says why in its error().)
  (void)w.pool.run(w.aggregators.size(),
                   [&](std::size_t, std::size_t i) { return w.aggregators[i]->finish(); });
  for (auto& a : w.aggregators) {
    if (!a->error().empty()) {
      *error = BuildError::book(a->error());
      return std::nullopt;
    }
    report.collisions += a->collisions();
    report.spills += a->spills();
    for (const Run& r : a->runs()) runs.push_back(&r);
  }
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

  RunMerger merger(runs);
  CommitInput input;
  for (DedupSet& set : w.dedup) set.take(input.fingerprints);  // the ranges in order: all sorted
  input.sources = std::move(sources);
  input.added.games = report.total.added;
  input.added.duplicates = report.total.duplicates;
  input.added.skipped = report.total.skipped;
  input.added.collisions = report.collisions;
  input.params_json = params;
  input.min_games = std::max<std::uint32_t>(1, options.min_games);
  if (w.games) input.more_writes = [&](store::WriteTxn& txn) { return w.games->write(txn); };
  auto committing = std::chrono::steady_clock::now();
  // Inputs that were all in the book already: nothing to write, and the
  // book's parameters stay those of the builds that added to it.
  if (input.sources.empty()) {
    report.seconds = report.parse_seconds;
    return report;
  }
  if (auto s = commit_build(*book, merger, input, report.commit)) {
    *error = BuildError::book(book_path + ": " + s->message());
    return std::nullopt;
  }
  report.collisions += report.commit.collisions;
  report.error_count = w.error_count;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.commit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - committing).count();
  return report;
}

}  // namespace gb::builder
