// bench/floor: the least time a build of a PGN file into a book of sections
// takes on this machine, whatever the builder does between reading and
// writing: the two pieces of work no build can leave out, timed alone.
//
//   parse:  every game read, every mainline move up to MAX_PLY decoded from
//           SAN and made, the Polyglot key and the position hash of every
//           position taken (what a node is keyed and checked by), on THREADS
//           threads, the text already in memory;
//   append: the sections of the finished book BOOK (built from that file
//           beforehand) appended into a new LMDB file the way a build writes
//           a new book (MDB_APPEND through one cursor, transactions of 1 MB,
//           MDB_NOSYNC, one sync at the end): one writer, as LMDB allows.
//
// Nothing is counted, sorted, merged or encoded. The two do not overlap in any
// build: the first section (the smallest key) is final only once the last game
// has been read. So parse + append is a floor under a build's wall time.
//
//   bench_floor PGN BOOK MAX_PLY [THREADS]   (MAX_PLY 0: whole games)
//
// The last line is "FLOOR <parse s> <append s> <sum s>", each the best of three.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench/pgn_text.h"
#include "book/store/book.h"
#include "book/store/position_hash.h"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Takes what a build takes of each position (key and position hash) and
// stops decoding after max_ply plies, as a build does.
struct alignas(64) FloorVisitor : gb::pgn::VisitorBase {  // one cache line each: no false sharing
  int max_ply = 0;
  std::uint64_t checksum = 0, positions = 0;
  gb::pgn::Control move(const gb::pgn::MoveEvent& e) {
    if (e.depth > 0 || (max_ply && e.ply >= max_ply)) return gb::pgn::Control::Skip;
    checksum += e.before.key() ^ gb::store::position_hash(e.before);
    ++positions;
    return gb::pgn::Control::Continue;
  }
  void end_game(const gb::pgn::GameEnd& end) {
    checksum += end.final_position.key() ^ gb::store::position_hash(end.final_position);
    ++positions;
  }
};

struct Parsed {
  std::uint64_t positions = 0, checksum = 0;
  double seconds = 0;
};

Parsed parse(std::string_view text, int max_ply, int threads) {
  std::vector<FloorVisitor> visitors(static_cast<std::size_t>(threads));
  for (FloorVisitor& v : visitors) v.max_ply = max_ply;
  std::vector<gb::pgn::ReadSummary> summaries;
  Parsed p;
  p.seconds = gb::bench::read_on_threads(text, visitors, summaries);
  for (const FloorVisitor& v : visitors) {
    p.positions += v.positions;
    p.checksum += v.checksum;
  }
  return p;
}

// Where one record of the positions database stands in a copy of them all.
struct Record {
  std::size_t key_at, value_at, value_size;  // the key runs from key_at to value_at
};

// Appends the records into a new environment at path; the seconds it took, < 0 on an error.
double append(const std::string& path, const std::string& bytes, const std::vector<Record>& sections) {
  ::unlink(path.c_str());
  ::unlink((path + "-lock").c_str());
  gb::store::Error error;
  auto env = gb::store::Env::open(path, false, bytes.size() * 4 + (std::size_t(64) << 20), 4, &error);
  if (!env) {
    std::fprintf(stderr, "bench_floor: %s\n", error.message().c_str());
    return -1;
  }
  auto start = Clock::now();
  if (env->set_no_sync(true)) return -1;  // as a build's new book: one sync at the end
  auto failed = [](MDB_txn* txn, int rc) {
    if (txn) mdb_txn_abort(txn);
    std::fprintf(stderr, "bench_floor: %s\n", mdb_strerror(rc));
    return -1.0;
  };
  MDB_dbi dbi = 0;
  std::size_t at = 0;
  bool first = true;
  while (at < sections.size()) {
    MDB_txn* txn = nullptr;
    MDB_cursor* cursor = nullptr;
    if (int rc = mdb_txn_begin(env->get(), nullptr, 0, &txn)) return failed(nullptr, rc);
    if (int rc = first ? mdb_dbi_open(txn, "positions", MDB_CREATE, &dbi) : 0) return failed(txn, rc);
    first = false;
    if (int rc = mdb_cursor_open(txn, dbi, &cursor)) return failed(txn, rc);
    for (std::size_t chunk = 0; at < sections.size() && chunk < (std::size_t(1) << 20); ++at) {
      const Record& r = sections[at];
      MDB_val k{r.value_at - r.key_at, const_cast<char*>(bytes.data() + r.key_at)};
      MDB_val v{r.value_size, const_cast<char*>(bytes.data() + r.value_at)};
      if (int rc = mdb_cursor_put(cursor, &k, &v, MDB_APPEND)) return failed(txn, rc);
      chunk += k.mv_size + v.mv_size;
    }
    mdb_cursor_close(cursor);
    if (int rc = mdb_txn_commit(txn)) return failed(nullptr, rc);
  }
  if (auto s = env->sync()) {
    std::fprintf(stderr, "bench_floor: %s\n", s->message().c_str());
    return -1;
  }
  double seconds = since(start);
  ::unlink(path.c_str());
  ::unlink((path + "-lock").c_str());
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_floor PGN BOOK MAX_PLY [THREADS]\n");
    return 2;
  }
  const std::string pgn = argv[1], book_path = argv[2];
  const int max_ply = std::atoi(argv[3]);
  const int threads = argc > 4 ? std::atoi(argv[4]) : int(std::max(1u, std::thread::hardware_concurrency()));

  std::string read_error;
  auto read = gb::bench::read_text(pgn, &read_error);
  if (!read) {
    std::fprintf(stderr, "bench_floor: %s\n", read_error.c_str());
    return 2;
  }
  const std::string& text = *read;

  // The book's records (its groups of sections), copied out of it into memory (not timed).
  std::string bytes;
  std::vector<Record> sections;
  {
    gb::store::BookError be;
    auto book = gb::store::Book::open(book_path, gb::store::OpenMode::ReadOnly, &be);
    if (!book) {
      std::fprintf(stderr, "bench_floor: %s\n", be.message.c_str());
      return 2;
    }
    gb::store::Error error;
    auto txn = gb::store::ReadTxn::begin(book->env(), &error);
    auto cursor = txn ? gb::store::Cursor::open(*txn, book->dbs().positions, &error) : std::nullopt;
    if (!cursor) {
      std::fprintf(stderr, "bench_floor: %s\n", error.message().c_str());
      return 2;
    }
    for (auto item = cursor->first(&error); item; item = cursor->next(&error)) {
      Record r{bytes.size(), bytes.size() + item->key.size(), item->value.size()};
      bytes.append(item->key);
      bytes.append(item->value);
      sections.push_back(r);
    }
    if (error.code) {
      std::fprintf(stderr, "bench_floor: %s\n", error.message().c_str());
      return 2;
    }
  }

  Parsed best_parse;
  double best_append = -1;
  const std::string scratch = book_path + ".floor";
  for (int rep = 0; rep < 3; ++rep) {
    Parsed p = parse(text, max_ply, threads);
    if (rep == 0 || p.seconds < best_parse.seconds) best_parse = p;
    double a = append(scratch, bytes, sections);
    if (a < 0) return 1;
    if (best_append < 0 || a < best_append) best_append = a;
  }
  std::printf("  parse: %llu positions on %d threads in %.3f s (checksum %016llx)\n",
              (unsigned long long)best_parse.positions, threads, best_parse.seconds,
              (unsigned long long)best_parse.checksum);
  std::printf("  append: %zu sections, %.1f MB of keys and values, in %.3f s\n", sections.size(),
              bytes.size() / 1e6, best_append);
  std::printf("FLOOR %.3f %.3f %.3f\n", best_parse.seconds, best_append, best_parse.seconds + best_append);
  return 0;
}
