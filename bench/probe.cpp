// bench_probe: book probes per second on one thread, against a plain binary
// search in the Polyglot .bin exported from the same book, in the same run.
//
//   bench_probe [--graphbook BIN] [--pgn FILE] [--work DIR] [--probes N]
//
// Builds DIR/tcec.book from the TCEC games of ../shared/data (skipped, exit 0,
// when they are absent and no book was built before; graphbook build, default
// --max-ply 40) and exports DIR/tcec.bin unless they exist (a book this
// graphbook cannot read is built again), draws N (1M)
// positions with a fixed seed from the book's positions that have moves,
// warms both up with one pass, then times: graphbook = BookReader::edges (all
// moves of the position with counters and learning, one read transaction);
// polyglot = binary search on the mmapped .bin and a scan of the key's
// entries. Latencies are per probe (steady_clock around each probe in a
// second pass). Last line: RATIO probe_vs_polyglot_bin <graphbook/polyglot>.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/data_dir.h"
#include "book/explore/book_reader.h"
#include "book/explore/move_choice.h"
#include "book/store/book.h"
#include "book/store/section_groups.h"

namespace {

using Clock = std::chrono::steady_clock;

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

int run(const std::string& command) {
  std::fprintf(stderr, "$ %s\n", command.c_str());
  return std::system(command.c_str());
}

std::uint64_t be64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

// The .bin mapped read-only: 16-byte big-endian entries sorted by key.
struct PolyglotFile {
  const unsigned char* data = nullptr;
  std::size_t entries = 0;

  // The moves of key into out (cleared first): binary search, then a scan.
  void find(std::uint64_t key, std::vector<std::uint16_t>& out) const {
    out.clear();
    std::size_t lo = 0, hi = entries;
    while (lo < hi) {
      std::size_t mid = lo + (hi - lo) / 2;
      if (be64(data + 16 * mid) < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (std::size_t i = lo; i < entries && be64(data + 16 * i) == key; ++i)
      out.push_back(std::uint16_t(data[16 * i + 8] << 8 | data[16 * i + 9]));
  }
};

struct Timing {
  double seconds = 0;
  double p50_ns = 0, p99_ns = 0;
  std::uint64_t moves = 0;
};

template <class Probe>
Timing measure(const std::vector<std::uint64_t>& keys, Probe&& probe) {
  Timing t;
  for (std::uint64_t k : keys) t.moves += probe(k);  // warm-up pass
  t.moves = 0;
  auto start = Clock::now();
  for (std::uint64_t k : keys) t.moves += probe(k);
  t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<std::uint32_t> ns(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto a = Clock::now();
    probe(keys[i]);
    ns[i] = std::uint32_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - a).count());
  }
  std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
  t.p50_ns = ns[ns.size() / 2];
  std::nth_element(ns.begin(), ns.begin() + ns.size() * 99 / 100, ns.end());
  t.p99_ns = ns[ns.size() * 99 / 100];
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  std::string graphbook = GRAPHBOOK_BINARY_FOR_BENCH;
  std::string pgn = gb::bench::shared_data("pgn/medium/tcec-standard-nocomments.pgn.zst");
  bool default_pgn = true;
  std::string work = "/tmp/graphbook-bench-probe";
  std::size_t probes = 1000000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--graphbook")
      graphbook = argv[i + 1];
    else if (a == "--pgn")
      pgn = argv[i + 1], default_pgn = false;
    else if (a == "--work")
      work = argv[i + 1];
    else if (a == "--probes")
      probes = std::stoul(argv[i + 1]);
  }
  ::mkdir(work.c_str(), 0755);
  std::string book_path = work + "/tcec.book", bin_path = work + "/tcec.bin";
  if (gb::store::BookError stale;
      exists(book_path) && !gb::store::Book::open(book_path, gb::store::OpenMode::ReadOnly, &stale)) {
    // A book an earlier graphbook left (of another format): built and exported again.
    std::fprintf(stderr, "bench_probe: %s; building it again\n", stale.message.c_str());
    for (const std::string& f : {book_path, book_path + "-lock", bin_path}) ::unlink(f.c_str());
  }
  if (!exists(book_path) && default_pgn) gb::bench::skip_unless_present("bench_probe", pgn);
  if (!exists(book_path) && run("'" + graphbook + "' build '" + book_path + "' '" + pgn + "' --quiet") != 0)
    return 1;
  if (!exists(bin_path) && run("'" + graphbook + "' export '" + book_path + "' '" + bin_path + "'") != 0)
    return 1;

  gb::store::BookError book_error;
  auto book = gb::store::Book::open(book_path, gb::store::OpenMode::ReadOnly, &book_error);
  if (!book) return std::fprintf(stderr, "%s\n", book_error.message.c_str()), 1;

  // The positions with moves: the keys of the sections that hold an edge.
  std::vector<std::uint64_t> positions;
  {
    gb::store::Error e;
    auto txn = gb::store::ReadTxn::begin(book->env(), &e);
    auto cursor = txn ? gb::store::SectionCursor::open(*txn, book->dbs().positions, &e) : std::nullopt;
    if (!cursor) return std::fprintf(stderr, "%s: %s\n", book_path.c_str(), e.message().c_str()), 1;
    std::uint64_t key;
    std::string_view value;
    while (cursor->next(key, value, &e)) {
      gb::store::SectionReader section(value);
      std::uint16_t move;
      if (section.next(move)) positions.push_back(key);
    }
  }
  gb::explore::Rng rng(20240601);
  std::vector<std::uint64_t> keys(probes);
  for (auto& k : keys) k = positions[rng.next() % positions.size()];

  int fd = ::open(bin_path.c_str(), O_RDONLY);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) return std::fprintf(stderr, "cannot open %s\n", bin_path.c_str()), 1;
  PolyglotFile bin;
  bin.data = static_cast<const unsigned char*>(::mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, fd, 0));
  bin.entries = std::size_t(st.st_size) / 16;

  gb::store::Error e;
  auto reader = gb::explore::BookReader::open(*book, &e);
  if (!reader) return std::fprintf(stderr, "%s\n", e.message().c_str()), 1;
  std::vector<gb::store::BookEdge> edges;
  edges.reserve(256);
  Timing ours = measure(keys, [&](std::uint64_t k) {
    (void)reader->edges(k, edges);
    return edges.size();
  });
  std::vector<std::uint16_t> moves;
  moves.reserve(256);
  Timing theirs = measure(keys, [&](std::uint64_t k) {
    bin.find(k, moves);
    return moves.size();
  });

  std::printf("book %s: %zu positions with moves; %s: %zu entries\n", book_path.c_str(), positions.size(),
              bin_path.c_str(), bin.entries);
  std::printf("%zu probes, one thread, warm\n", keys.size());
  std::printf("graphbook probe:       %10.0f probes/s  p50 %6.0f ns  p99 %6.0f ns  (%llu moves found)\n",
              keys.size() / ours.seconds, ours.p50_ns, ours.p99_ns, (unsigned long long)ours.moves);
  std::printf("polyglot .bin search:  %10.0f probes/s  p50 %6.0f ns  p99 %6.0f ns  (%llu moves found)\n",
              keys.size() / theirs.seconds, theirs.p50_ns, theirs.p99_ns, (unsigned long long)theirs.moves);
  std::printf("target >= 300000 probes/s: %s\n", keys.size() / ours.seconds >= 300000 ? "met" : "NOT met");
  std::printf("RATIO probe_vs_polyglot_bin %.3f\n", theirs.seconds / ours.seconds);
  return 0;
}
