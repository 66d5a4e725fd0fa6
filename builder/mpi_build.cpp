#include "builder/mpi_build.h"

#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <sstream>
#include <type_traits>
#include <unordered_map>

#include "book/pgn/byte_source.h"
#include "book/pgn/reader.h"
#include "book/pgn/split.h"
#include "book/store/shard_manifest.h"
#include "builder/book_writer.h"
#include "builder/bucket_aggregator.h"
#include "builder/build_visitor.h"
#include "builder/game_index_writer.h"
#include "builder/input_file.h"
#include "builder/orphan_files.h"
#include "builder/query_filter.h"
#include "builder/run_file.h"
#include "builder/run_merger.h"

namespace gb::builder {

namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr std::size_t kBlockSize = std::size_t(1) << 19;  // PGN parsed at once
constexpr std::size_t kReserve = 12 * kMiB;               // the program, the block being parsed, the streams

struct Comm {
  int rank = 0, size = 1;
};

// A failure after the ranks started working together: the others wait for
// this rank in a collective, so it names itself and takes them all down.
[[noreturn]] void abort_all(const Comm& c, const std::string& message) {
  std::fprintf(stderr, "graphbook build --mpi: rank %d: %s\n", c.rank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);
}

// The same decision on every rank: rank 0's refusal (empty: none) is broadcast.
std::string broadcast(const Comm& c, std::string text) {
  unsigned long long n = text.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  text.resize(n);
  if (n) MPI_Bcast(text.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  (void)c;
  return text;
}

// Why the build is refused (the first reason), or empty.
std::string refusal(const std::string& book_path, const std::vector<std::string>& inputs) {
  struct stat st;
  if (::stat(book_path.c_str(), &st) == 0)
    return book_path +
           " exists: --mpi writes a new sharded book only (remove it, or choose another name; graphbook "
           "merge "
           "adds books together)";
  for (const std::string& in : inputs) {
    if (in == "-") return "--mpi reads files, not stdin (-): every rank reads its share of the inputs";
    if (::stat(in.c_str(), &st) != 0)
      return "cannot read " + in + ": " + std::strerror(errno) + "; nothing was built";
    if (S_ISDIR(st.st_mode)) return "cannot read " + in + ": it is a directory; nothing was built";
    if (::access(in.c_str(), R_OK) != 0)
      return "cannot read " + in + ": " + std::strerror(errno) + "; nothing was built";
  }
  return {};
}

struct InputFile {
  std::string path;
  std::uint64_t size = 0;
  std::uint64_t hash = 0;
  bool splittable = true;  // an uncompressed file: read in byte ranges
  bool known = false;      // the same content as an input before it: nothing read (as build.cpp)
  std::uint64_t base = 0;  // its first byte in the inputs laid end to end (the known ones take no room)
};

// The first game boundary at or after off in the file (size when there is none).
std::uint64_t boundary_at_or_after(const Comm& c, const InputFile& f, std::uint64_t off) {
  if (off == 0 || off >= f.size) return std::min(off, f.size);
  const std::uint64_t back = std::min<std::uint64_t>(off, 1 << 16);  // what tells a line's start
  for (std::uint64_t ahead = 1 << 16;; ahead *= 2) {
    const std::uint64_t begin = off - back, end = std::min(f.size, off + ahead);
    std::string text(end - begin, '\0');
    std::FILE* file = std::fopen(f.path.c_str(), "rb");
    bool ok = file && ::fseeko(file, off_t(begin), SEEK_SET) == 0 &&
              std::fread(text.data(), 1, text.size(), file) == text.size();
    if (file) std::fclose(file);
    if (!ok) abort_all(c, "cannot read " + f.path);
    const std::size_t b = pgn::next_game_boundary(text, back);
    if (b < text.size()) return begin + b;
    if (end == f.size) return f.size;
  }
}

// The inputs laid end to end, each rank's share cut at a game boundary (a
// file that is not split goes whole to the rank whose share it starts in).
// cuts[r] is where rank r's share starts, cuts[size] the end.
std::vector<std::uint64_t> share_cuts(const Comm& c, const std::vector<InputFile>& files,
                                      std::uint64_t total) {
  std::vector<std::uint64_t> cuts(std::size_t(c.size) + 1, total);
  cuts[0] = 0;
  __extension__ typedef unsigned __int128 Wide;
  for (int r = 1; r < c.size; ++r) {
    const auto nominal = std::uint64_t(Wide(total) * unsigned(r) / unsigned(c.size));
    for (const InputFile& f : files) {
      if (f.known || nominal < f.base || nominal >= f.base + f.size) continue;
      cuts[std::size_t(r)] = f.splittable ? f.base + boundary_at_or_after(c, f, nominal - f.base)
                                          : (nominal == f.base ? f.base : f.base + f.size);
      break;
    }
  }
  for (std::size_t r = 1; r < cuts.size(); ++r) cuts[r] = std::max(cuts[r], cuts[r - 1]);
  return cuts;
}

struct Segment {
  std::size_t input = 0;
  std::uint64_t begin = 0, end = 0;  // bytes of the file
  bool whole = false;                // read as a whole file (it may decompress)
};

// The number each input's games take in the bucket ids (SourceInfo::bucket_source):
// the inputs are numbered in order from 1, the known ones left out (no source
// record), as rank 0 numbers the sources; with --source LABEL every input is
// the label's, numbered as its first input.
std::vector<std::uint32_t> bucket_sources(const std::vector<InputFile>& files, const std::string& label) {
  std::vector<std::uint32_t> out(files.size(), 0);
  std::uint32_t number = 0, first = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files[i].known) continue;
    ++number;
    if (first == 0) first = number;
    out[i] = label.empty() ? number : first;
  }
  return out;
}

std::vector<Segment> my_segments(const Comm& c, const std::vector<InputFile>& files,
                                 const std::vector<std::uint64_t>& cuts) {
  std::vector<Segment> segments;
  const std::uint64_t lo = cuts[std::size_t(c.rank)], hi = cuts[std::size_t(c.rank) + 1];
  for (std::size_t i = 0; i < files.size(); ++i) {
    const InputFile& f = files[i];
    if (f.known) continue;
    const std::uint64_t b = std::max(lo, f.base), e = std::min(hi, f.base + f.size);
    if (b >= e) continue;
    if (!f.splittable) assert(b == f.base && e == f.base + f.size);
    segments.push_back({.input = i, .begin = b - f.base, .end = e - f.base, .whole = !f.splittable});
  }
  return segments;
}

// Per input, what this rank (then all ranks) read of it. Summed over the
// ranks with MPI_SUM, the dates with MIN and MAX.
struct Counts {
  std::vector<std::uint64_t> games_read, skipped, warnings, filtered, filtered_by_query, errors, binary,
      lines, added, duplicates;
  std::vector<int> first_date, last_date;
  explicit Counts(std::size_t n)
      : games_read(n),
        skipped(n),
        warnings(n),
        filtered(n),
        filtered_by_query(n),
        errors(n),
        binary(n),
        lines(n),
        added(n),
        duplicates(n),
        first_date(n, INT_MAX),
        last_date(n, 0) {}
};

// Reads a segment block by block (each cut at its last game boundary) and
// calls visit(text, first_line, games_before) for each, the line and game
// numbers counted from the segment's start.
template <class Visit>
void read_segment(const Comm& c, const InputFile& f, const Segment& s, Visit&& visit) {
  pgn::ByteSource source =
      s.whole ? pgn::ByteSource::open(f.path) : pgn::ByteSource::open_range(f.path, s.begin, s.end);
  if (!source.ok()) abort_all(c, source.error());
  pgn::read_game_blocks(
      source, kBlockSize, [](const char*, std::size_t) {},
      [&](std::string_view block, std::uint64_t line) {
        visit(block, line);
        return true;
      });
  if (!source.ok()) abort_all(c, source.error());
}

// One block parsed by the build's visitor: its games, and the reader's summary.
struct Parsed {
  PartGames games;
  std::vector<store::GameToIndex> indexed;  // --index-games: each game of games, whole
  pgn::ReadSummary summary;
  VisitCounts counts;
};

void parse(const BuildOptions& options, std::string_view text, const std::string& name, std::uint64_t line,
           std::uint64_t games_before, Parsed& out) {
  out.games.games.clear();
  out.games.plies.clear();
  out.indexed.clear();
  BuildVisitor visitor(options, out.games);
  pgn::ReadOptions ro;
  ro.buffer_size = std::min(ro.buffer_size, text.size() + 1);
  pgn::PgnReader reader(pgn::ByteSource::from_memory(text, name), ro);
  reader.set_start(line, games_before);
  // As a build's thread reads: keeping each game whole (--index-games), or
  // running the query on it (--filter; the two are not given together).
  if (options.index_games) {
    IndexingVisitor indexing(visitor, out.indexed);
    reader.read_all(indexing);
  } else if (options.filter) {
    QueryFilterVisitor filter(*options.filter, visitor);
    reader.read_all(filter);
  } else {
    reader.read_all(visitor);
  }
  out.summary = reader.summary();
  out.counts = visitor.counts();
}

// The games pass 1 accepted, in order, as they are in memory (its input,
// its facts, its positions), so that pass 2 reads them back instead of
// parsing the PGN again: 24 bytes a position, written and read once.
class GameFile {
 public:
  GameFile(const Comm& c, std::string path) : c_(c), path_(std::move(path)) {
    file_ = std::fopen(path_.c_str(), "w+b");
    if (!file_) abort_all(c_, "cannot create " + path_ + ": " + std::strerror(errno));
  }
  ~GameFile() { remove(); }
  GameFile(const GameFile&) = delete;
  GameFile& operator=(const GameFile&) = delete;

  void write(std::uint32_t input, const GameFacts& facts, const PlyRecord* plies, std::size_t n) {
    const auto count = std::uint64_t(n);
    if (std::fwrite(&input, sizeof input, 1, file_) != 1 ||
        std::fwrite(&facts, sizeof facts, 1, file_) != 1 ||
        std::fwrite(&count, sizeof count, 1, file_) != 1 ||
        (n && std::fwrite(plies, sizeof(PlyRecord), n, file_) != n))
      abort_all(c_, "cannot write " + path_ + ": " + std::strerror(errno));
  }
  void rewind() {
    if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
      abort_all(c_, "cannot write " + path_ + ": " + std::strerror(errno));
  }
  void read(std::uint32_t& input, GameFacts& facts, std::vector<PlyRecord>& plies) {
    std::uint64_t n = 0;
    bool ok = std::fread(&input, sizeof input, 1, file_) == 1 &&
              std::fread(&facts, sizeof facts, 1, file_) == 1 && std::fread(&n, sizeof n, 1, file_) == 1;
    if (ok) {
      plies.resize(n);
      ok = n == 0 || std::fread(plies.data(), sizeof(PlyRecord), n, file_) == n;
    }
    if (!ok) abort_all(c_, "cannot read " + path_ + " back");
  }
  void remove() {
    if (!file_) return;
    std::fclose(file_);
    file_ = nullptr;
    ::unlink(path_.c_str());
  }

 private:
  static_assert(std::is_trivially_copyable_v<GameFacts> && std::is_trivially_copyable_v<PlyRecord>);
  const Comm& c_;
  std::string path_;
  std::FILE* file_ = nullptr;
};

// A fingerprint on its way to the rank of its range, with its game's ordinal in the whole input.
struct FpRecord {
  std::uint64_t fp0, fp1, ordinal;
};

MPI_Datatype bytes_type(std::size_t n) {
  MPI_Datatype t;
  MPI_Type_contiguous(int(n), MPI_BYTE, &t);
  MPI_Type_commit(&t);
  return t;
}

// Sends out[d] to rank d; returns what each rank sent here, in rank order
// (counts per rank in *from).
template <class T>
std::vector<T> exchange(const Comm& c, const std::vector<std::vector<T> >& out, std::vector<int>* from) {
  std::vector<int> scounts(std::size_t(c.size)), sdispls(std::size_t(c.size)), rcounts(std::size_t(c.size)),
      rdispls(std::size_t(c.size));
  std::vector<T> send;
  for (int d = 0; d < c.size; ++d) {
    if (out[std::size_t(d)].size() > std::size_t(INT_MAX)) abort_all(c, "too many records for one exchange");
    scounts[std::size_t(d)] = int(out[std::size_t(d)].size());
    sdispls[std::size_t(d)] = int(send.size());
    send.insert(send.end(), out[std::size_t(d)].begin(), out[std::size_t(d)].end());
  }
  MPI_Alltoall(scounts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::size_t total = 0;
  for (int s = 0; s < c.size; ++s) {
    rdispls[std::size_t(s)] = int(total);
    total += std::size_t(rcounts[std::size_t(s)]);
  }
  if (total > std::size_t(INT_MAX)) abort_all(c, "too many records for one exchange");
  std::vector<T> received(total);
  MPI_Datatype type = bytes_type(sizeof(T));
  MPI_Alltoallv(send.data(), scounts.data(), sdispls.data(), type, received.data(), rcounts.data(),
                rdispls.data(), type, MPI_COMM_WORLD);
  MPI_Type_free(&type);
  if (from) *from = rcounts;
  return received;
}

// The duplicate check across ranks. Returns, per game this rank read (in
// order), whether it is a duplicate; fills kept with the fingerprints of this
// rank's range that count (the first copy of each), sorted.
std::vector<bool> decide_duplicates(const Comm& c, const std::vector<Fingerprint>& mine,
                                    std::vector<Fingerprint>& kept) {
  unsigned long long n = mine.size(), first = 0;
  MPI_Exscan(&n, &first, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (c.rank == 0) first = 0;
  std::vector<unsigned long long> firsts(std::size_t(c.size));
  MPI_Allgather(&first, 1, MPI_UNSIGNED_LONG_LONG, firsts.data(), 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
  std::vector<std::vector<FpRecord> > out(std::size_t(c.size));
  for (std::size_t i = 0; i < mine.size(); ++i) {
    __extension__ typedef unsigned __int128 Wide;
    const auto d = std::size_t((Wide(mine[i][0]) * unsigned(c.size)) >> 64);  // KeyRange::holds
    out[d].push_back({mine[i][0], mine[i][1], first + i});
  }
  std::vector<FpRecord> got = exchange(c, out, nullptr);
  out = {};
  std::sort(got.begin(), got.end(), [](const FpRecord& a, const FpRecord& b) {
    return a.fp0 != b.fp0 ? a.fp0 < b.fp0 : a.fp1 != b.fp1 ? a.fp1 < b.fp1 : a.ordinal < b.ordinal;
  });
  std::vector<std::vector<std::uint64_t> > dups(std::size_t(c.size));
  kept.clear();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (i > 0 && got[i].fp0 == got[i - 1].fp0 && got[i].fp1 == got[i - 1].fp1) {  // a later copy
      const auto r =
          std::size_t(std::upper_bound(firsts.begin(), firsts.end(), got[i].ordinal) - firsts.begin()) - 1;
      dups[r].push_back(got[i].ordinal);
    } else {
      kept.push_back({got[i].fp0, got[i].fp1});
    }
  }
  got = {};
  std::vector<std::uint64_t> mine_dup = exchange(c, dups, nullptr);
  std::vector<bool> duplicate(mine.size());
  for (std::uint64_t o : mine_dup) duplicate[o - first] = true;
  return duplicate;
}

// The rank of a key's range (KeyRange{rank, size}.holds(key)).
int key_rank(Key key, int size) {
  __extension__ typedef unsigned __int128 Wide;
  return int((Wide(key) * unsigned(size)) >> 64);
}

// Sends every entry of next() to the rank of its key, in rounds of at most
// cap bytes to each rank, and gives what arrives from rank s to deliver(s,
// entry), in the order s sent it. Returns the rounds taken.
template <class T, class Next, class Deliver>
std::uint64_t send_by_key(const Comm& c, std::size_t cap, Next&& next, Deliver&& deliver,
                          std::uint64_t& bytes_sent) {
  const std::size_t per_rank = std::max<std::size_t>(1, cap / sizeof(T));
  std::vector<std::vector<T> > out(std::size_t(c.size));
  T pending{};
  bool has_pending = false, done = false;
  std::uint64_t rounds = 0;
  for (;;) {
    for (auto& o : out) o.clear();
    while (!done) {
      if (!has_pending && !(has_pending = next(pending))) {
        done = true;
        break;
      }
      auto& to = out[std::size_t(key_rank(pending.key, c.size))];
      if (to.size() == per_rank) break;  // this round is full for that rank
      to.push_back(pending);
      has_pending = false;
      bytes_sent += sizeof(T);
    }
    std::vector<int> from;
    std::vector<T> got = exchange(c, out, &from);
    std::size_t at = 0;
    for (int s = 0; s < c.size; ++s)
      for (int i = 0; i < from[std::size_t(s)]; ++i) deliver(s, got[at++]);
    ++rounds;
    int more = !done, any = 0;
    MPI_Allreduce(&more, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!any) return rounds;
  }
}

// --index-games: every rank's games (whole, with the keys of their
// positions), in rank order, which is input order, on rank 0: the stored
// games and their index go to the global shard, where match reads them. Each
// game travels as its encoding (store::encode_game) and its keys.
std::vector<store::GameToIndex> gather_games(const Comm& c, const std::vector<store::GameToIndex>& games) {
  std::string bytes;
  auto put_u32 = [&](std::uint32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); };
  for (const store::GameToIndex& g : games) {
    const std::string encoded = store::encode_game(g.game);
    put_u32(std::uint32_t(encoded.size()));
    bytes += encoded;
    put_u32(std::uint32_t(g.keys.size()));
    bytes.append(reinterpret_cast<const char*>(g.keys.data()), g.keys.size() * sizeof(Key));
  }
  if (bytes.size() > std::size_t(INT_MAX))
    abort_all(c, "--index-games: a rank's games exceed 2 GiB (use more ranks)");
  int size = int(bytes.size());
  std::vector<int> sizes(std::size_t(c.size)), displs(std::size_t(c.size));
  MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (c.rank == 0) {
    std::size_t total = 0;
    for (int s = 0; s < c.size; ++s) {
      displs[std::size_t(s)] = int(total);
      total += std::size_t(sizes[std::size_t(s)]);
    }
    if (total > std::size_t(INT_MAX)) abort_all(c, "--index-games: the games exceed 2 GiB on rank 0");
    all.resize(total);
  }
  MPI_Gatherv(bytes.data(), size, MPI_BYTE, all.data(), sizes.data(), displs.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  std::vector<store::GameToIndex> out;
  std::size_t at = 0;
  auto get_u32 = [&] {
    std::uint32_t v;
    std::memcpy(&v, all.data() + at, 4);
    at += 4;
    return v;
  };
  while (at < all.size()) {
    store::GameToIndex g;
    const std::uint32_t n = get_u32();
    if (!store::decode_game(std::string_view(all).substr(at, n), g.game))
      abort_all(c, "--index-games: a game sent to rank 0 does not decode");
    at += n;
    g.keys.resize(get_u32());
    std::memcpy(g.keys.data(), all.data() + at, g.keys.size() * sizeof(Key));
    at += g.keys.size() * sizeof(Key);
    out.push_back(std::move(g));
  }
  return out;
}

void add_date(int date, int& first, int& last) {
  if (date == 0) return;
  first = std::min(first, date);
  last = std::max(last, date);
}

template <class T>
void sum_to_root(std::vector<T>& v, MPI_Datatype type, MPI_Op op, const Comm& c) {
  if (v.empty()) return;
  if (c.rank == 0)
    MPI_Reduce(MPI_IN_PLACE, v.data(), int(v.size()), type, op, 0, MPI_COMM_WORLD);
  else
    MPI_Reduce(v.data(), nullptr, int(v.size()), type, op, 0, MPI_COMM_WORLD);
}

// Sets the shard's stats.builds to 0: only the global shard counts the build,
// so that the shards' stats sum to those of one build (merge sums them).
BuildStatus clear_builds(const std::string& path) {
  store::BookError be;
  auto book = store::Book::open(path, store::OpenMode::ReadWrite, &be);
  if (!book) return BuildError::book(be.message);
  store::Error e;
  auto txn = store::WriteTxn::begin(book->env(), &e);
  if (!txn) return BuildError::book(path + ": " + e.message());
  store::BookStats stats = book->stats(*txn);
  stats.builds = 0;
  if (auto s = book->put_stats(*txn, stats)) return BuildError::book(path + ": " + s->message());
  if (auto s = txn->commit()) return BuildError::book(path + ": " + s->message());
  return std::nullopt;
}

}  // namespace

std::optional<BuildReport> run_mpi_build(const std::string& book_path, const std::vector<std::string>& inputs,
                                         const BuildOptions& options, std::ostream& errors, BuildError* error,
                                         int* rank) {
  const auto start = std::chrono::steady_clock::now();
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  struct Finalize {
    bool own;
    ~Finalize() {
      if (own) MPI_Finalize();
    }
  } finalize{!initialized};
  Comm c;
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  *rank = c.rank;

  // Refused on rank 0 for all: the ranks see the same options, and the book's
  // path on rank 0's disk.
  std::string refused = broadcast(c, c.rank == 0 ? refusal(book_path, inputs) : std::string());
  if (refused.empty()) {  // BOOK on another machine's disk (BOOK on local disks): a shard there must not be
                          // added to
    struct stat st;
    int mine = ::stat(book_path.c_str(), &st) == 0 ? c.rank + 1 : 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any)
      refused = book_path + " exists on the machine of rank " + std::to_string(any - 1) +
                ": --mpi writes a new sharded book only (remove it there)";
  }
  if (!refused.empty()) {
    // Said by rank 0 before any rank leaves: mpirun ends the job at the first
    // rank that exits with an error, and rank 0 could be ended before it spoke.
    if (c.rank == 0) errors << "graphbook build: " << refused << std::endl;
    MPI_Barrier(MPI_COMM_WORLD);
    *error = BuildError::input(refused);
    return std::nullopt;
  }

  // The inputs: sizes and compression seen by every rank (each reads its
  // share by path), content hashes taken by rank i % size and shared.
  std::vector<InputFile> files(inputs.size());
  std::vector<unsigned long long> hashes(inputs.size(), 0);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    InputFile& f = files[i];
    f.path = inputs[i];
    auto size = file_size(f.path);
    pgn::ByteSource probe = pgn::ByteSource::open(f.path);
    if (!size || !probe.ok()) abort_all(c, "cannot read " + f.path);
    f.size = *size;
    f.splittable = !probe.decompresses();
    if (i % std::size_t(c.size) == std::size_t(c.rank)) {
      auto h = file_hash(f.path);
      if (!h) abort_all(c, "cannot read " + f.path);
      hashes[i] = *h;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, hashes.data(), int(hashes.size()), MPI_UNSIGNED_LONG_LONG, MPI_BOR,
                MPI_COMM_WORLD);
  std::uint64_t total_bytes = 0;
  {
    std::unordered_map<std::uint64_t, std::size_t> seen;
    for (std::size_t i = 0; i < files.size(); ++i) {
      files[i].hash = hashes[i];
      files[i].known = !seen.emplace(hashes[i], i).second;
      files[i].base = total_bytes;
      if (!files[i].known) total_bytes += files[i].size;
    }
  }
  const std::vector<std::uint64_t> cuts = share_cuts(c, files, total_bytes);
  const std::vector<Segment> segments = my_segments(c, files, cuts);

  if (c.rank == 0 && ::mkdir(book_path.c_str(), 0777) != 0)
    abort_all(c, "cannot create " + book_path + ": " + std::strerror(errno));
  MPI_Barrier(MPI_COMM_WORLD);
  if (::mkdir(book_path.c_str(), 0777) != 0 && errno != EEXIST)  // the ranks on other machines' disks
    abort_all(c, "cannot create " + book_path + ": " + std::strerror(errno));
  // Each rank's files (its games, its runs) in a directory of its own: run files are
  // named by process id, and two machines' ranks may have the same one.
  const std::string spill_dir = (options.spill_dir.empty() ? book_path : options.spill_dir) + "/rank-" +
                                std::to_string(c.rank) + ".runs";
  if (::mkdir(spill_dir.c_str(), 0777) != 0 && errno != EEXIST)
    abort_all(c, "cannot create " + spill_dir + ": " + std::strerror(errno));

  // Pass 1: the games of this rank's share, their fingerprints and the counts
  // of the read; the games the visitor accepted go to a file, for pass 2.
  GameFile game_file(c, spill_dir + "/games");
  Counts counts(files.size());
  std::vector<Fingerprint> fingerprints;
  std::uint64_t games_accepted = 0;
  std::vector<pgn::ReadError> read_errors;
  std::vector<pgn::ReadWarning> read_warnings;
  std::vector<std::size_t> error_input, warning_input;
  Parsed parsed;
  // --index-games: the games this rank accepted, whole, and their inputs.
  std::vector<store::GameToIndex> indexed;
  std::vector<std::size_t> indexed_input;
  const std::vector<std::uint32_t> source_number = bucket_sources(files, "");
  for (const Segment& s : segments) {
    const InputFile& f = files[s.input];
    std::uint64_t games_before = 0;
    read_segment(c, f, s, [&](std::string_view text, std::uint64_t line) {
      parse(options, text, f.path, line, games_before, parsed);
      const pgn::ReadSummary& sum = parsed.summary;
      for (const auto& e : sum.stored_errors) {
        read_errors.push_back(e);
        error_input.push_back(s.input);
      }
      for (const auto& w : sum.stored_warnings) {
        read_warnings.push_back(w);
        warning_input.push_back(s.input);
        if (w.kind == pgn::WarningKind::BinaryData) counts.binary[s.input] = 1;
      }
      counts.games_read[s.input] += sum.games_read;
      counts.skipped[s.input] += sum.games_skipped;
      counts.warnings[s.input] += sum.warnings;
      counts.errors[s.input] += sum.errors;
      counts.filtered[s.input] += parsed.counts.filtered;
      counts.filtered_by_query[s.input] += parsed.counts.filtered_by_query;
      counts.lines[s.input] += std::uint64_t(std::count(text.begin(), text.end(), '\n'));
      games_before += sum.games_read;
      games_accepted += parsed.games.games.size();
      for (const PendingGame& g : parsed.games.games) {
        if (options.dedup) fingerprints.push_back(g.fingerprint);
        game_file.write(std::uint32_t(s.input), g.facts, parsed.games.plies.data() + g.first, g.n);
      }
      assert(parsed.indexed.size() == (options.index_games ? parsed.games.games.size() : 0));
      for (store::GameToIndex& g : parsed.indexed) {
        g.game.source = source_number[s.input] - 1;  // an index into the sources
        indexed.push_back(std::move(g));
        indexed_input.push_back(s.input);
      }
    });
  }
  // The problems met, numbered in their file: the lines and games of the ranks before in it.
  {
    std::vector<unsigned long long> lines_before(files.size()), games_before(files.size());
    std::vector<unsigned long long> lines(counts.lines.begin(), counts.lines.end()),
        games(counts.games_read.begin(), counts.games_read.end());
    if (!files.empty()) {
      MPI_Exscan(lines.data(), lines_before.data(), int(files.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                 MPI_COMM_WORLD);
      MPI_Exscan(games.data(), games_before.data(), int(files.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                 MPI_COMM_WORLD);
    }
    if (c.rank == 0)
      std::fill(lines_before.begin(), lines_before.end(), 0),
          std::fill(games_before.begin(), games_before.end(), 0);
    std::ostringstream text;
    for (std::size_t i = 0; i < read_errors.size(); ++i) {
      read_errors[i].line += lines_before[error_input[i]];
      read_errors[i].game_number += games_before[error_input[i]];
      text << read_errors[i].message() << '\n';
    }
    for (std::size_t i = 0; i < read_warnings.size(); ++i) {
      read_warnings[i].line += lines_before[warning_input[i]];
      read_warnings[i].game_number += games_before[warning_input[i]];
      text << read_warnings[i].message() << '\n';
    }
    for (std::size_t i = 0; i < indexed.size(); ++i) indexed[i].game.number += games_before[indexed_input[i]];
    errors << text.str() << std::flush;
  }

  // The duplicates, decided by the ranks of the fingerprints' ranges.
  std::vector<Fingerprint> kept;
  std::vector<bool> duplicate =
      options.dedup ? decide_duplicates(c, fingerprints, kept) : std::vector<bool>(games_accepted, false);
  fingerprints = {};
  // --index-games: the games but the duplicates, on rank 0, in input order.
  std::vector<store::GameToIndex> stored_games;
  if (options.index_games) {
    std::size_t at = 0;
    for (std::size_t g = 0; g < indexed.size(); ++g)
      if (!duplicate[g]) {
        if (at != g) indexed[at] = std::move(indexed[g]);  // not onto itself: that would empty it
        ++at;
      }
    indexed.resize(at);
    stored_games = gather_games(c, indexed);
    indexed = {};
  }

  // Pass 2: the games but the duplicates, read back from the games file, into
  // one Aggregator of all keys, within what the budget leaves after the
  // fingerprints kept and the exchange's buffers.
  game_file.rewind();
  const std::size_t exchange_bytes = std::clamp<std::size_t>(options.memory / 4, kMiB, 64 * kMiB);
  // The exchange holds a round's records to send twice (by rank, then in one
  // buffer) and those received: 1.5 exchange_bytes, counted as 2.
  const std::size_t outside = kReserve + 2 * exchange_bytes + kept.size() * sizeof(Fingerprint);
  const std::size_t tables =
      std::max(options.memory > outside ? options.memory - outside : 0, std::min(options.memory, 16 * kMiB));
  BuildReport report;
  {
    // --buckets: half the tables count the buckets, as in a build (build.cpp, table_budget).
    Aggregator aggregator(options.buckets ? tables / 2 : tables, spill_dir, options.side);
    std::optional<BucketAggregator> buckets;
    if (options.buckets) buckets.emplace(tables / 2, spill_dir, options.side, KeyRange{}, options.by_month);
    // The games' ordinals in the whole input (first plays, in the buckets) and the buckets' sources.
    unsigned long long added_here = std::uint64_t(std::count(duplicate.begin(), duplicate.end(), false)),
                       added_before = 0, added_all = 0;
    MPI_Exscan(&added_here, &added_before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&added_here, &added_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (c.rank == 0) added_before = 0;  // MPI_Exscan leaves rank 0's undefined
    std::uint64_t ordinal = added_before;
    const std::vector<std::uint32_t> bucket_source = bucket_sources(files, options.source);
    std::uint32_t in = 0;  // the game's input
    GameFacts facts;
    std::vector<PlyRecord> plies;
    for (std::uint64_t game = 0; game < games_accepted; ++game) {
      game_file.read(in, facts, plies);
      if (duplicate[game]) {
        ++counts.duplicates[in];
        continue;
      }
      if (auto e = aggregator.add_game(facts, plies.data(), plies.size())) abort_all(c, e->message);
      ++ordinal;
      if (buckets)
        if (auto e = buckets->add_game(facts, plies.data(), plies.size(), ordinal, bucket_source[in]))
          abort_all(c, e->message);
      ++counts.added[in];
      add_date(facts.date, counts.first_date[in], counts.last_date[in]);
    }
    game_file.remove();
    duplicate = {};
    if (auto e = aggregator.finish()) abort_all(c, e->message);
    if (buckets)
      if (auto e = buckets->finish()) abort_all(c, e->message);
    report.collisions = aggregator.collisions();
    report.spills = aggregator.spills();
    report.parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // The exchange: this rank's merged runs, node by node and edge by edge, to
    // the ranks of their keys; what comes from rank s is its run file here.
    std::vector<const Run*> local;
    for (const Run& r : aggregator.runs()) local.push_back(&r);
    RunMerger merger(local);
    if (auto e = merger.open()) abort_all(c, e->message);
    std::vector<Run> received(std::size_t(c.size));
    std::vector<RunFileWriter> writers(std::size_t(c.size));
    for (int s = 0; s < c.size; ++s) {
      received[std::size_t(s)].path = run_file_path(spill_dir, "mpi-from-" + std::to_string(s));
      if (auto e = writers[std::size_t(s)].open(received[std::size_t(s)])) abort_all(c, e->message);
    }
    const std::size_t cap = exchange_bytes / 2 / std::size_t(c.size);
    std::uint64_t sent = 0;
    auto to_run = [&](int s, const auto& entry) { writers[std::size_t(s)].add(entry); };
    std::uint64_t rounds = send_by_key<NodeEntry>(
        c, cap, [&](NodeEntry& e) { return merger.next_node(e); }, to_run, sent);
    rounds += send_by_key<EdgeEntry>(
        c, cap, [&](EdgeEntry& e) { return merger.next_edge(e); }, to_run, sent);
    if (auto e = merger.error()) abort_all(c, e->message);
    report.collisions += merger.collisions();
    for (auto& w : writers)
      if (auto e = w.close()) abort_all(c, e->message);

    // The buckets likewise: this rank's, merged in key order, to the ranks of
    // their keys; what comes from rank s is a bucket run file here.
    std::optional<BucketAggregator> received_buckets;
    if (buckets) {
      BucketMerger local_buckets({&*buckets});
      std::vector<std::unique_ptr<BucketRunWriter> > bucket_writers;
      for (int s = 0; s < c.size; ++s)
        bucket_writers.push_back(std::make_unique<BucketRunWriter>(
            run_file_path(spill_dir, "mpi-buckets-from-" + std::to_string(s))));
      rounds += send_by_key<BucketItem>(
          c, cap, [&](BucketItem& item) { return local_buckets.next_item(item); },
          [&](int s, const BucketItem& item) { bucket_writers[std::size_t(s)]->add(item); }, sent);
      if (auto e = local_buckets.error()) abort_all(c, e->message);
      received_buckets.emplace(0, spill_dir, options.side, KeyRange{}, options.by_month);
      for (auto& w : bucket_writers) {
        if (auto e = w->close()) abort_all(c, e->message);
        received_buckets->adopt_run(w->path());
      }
      buckets.reset();  // its runs are sent: removed
    }

    // Rank 0 gathers the counts of every input, and makes the sources.
    sum_to_root(counts.games_read, MPI_UINT64_T, MPI_SUM, c);
    sum_to_root(counts.skipped, MPI_UINT64_T, MPI_SUM, c);
    sum_to_root(counts.warnings, MPI_UINT64_T, MPI_SUM, c);
    sum_to_root(counts.errors, MPI_UINT64_T, MPI_SUM, c);
    sum_to_root(counts.filtered, MPI_UINT64_T, MPI_SUM, c);
    sum_to_root(counts.filtered_by_query, MPI_UINT64_T, MPI_SUM, c);
    sum_to_root(counts.binary, MPI_UINT64_T, MPI_MAX, c);
    sum_to_root(counts.added, MPI_UINT64_T, MPI_SUM, c);
    sum_to_root(counts.duplicates, MPI_UINT64_T, MPI_SUM, c);
    sum_to_root(counts.first_date, MPI_INT, MPI_MIN, c);
    sum_to_root(counts.last_date, MPI_INT, MPI_MAX, c);
    const std::string params = params_json(options);
    std::vector<store::SourceInfo> sources;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const InputFile& f = files[i];
      InputReport ir;
      ir.name = f.path;
      ir.bytes = f.size;
      if (f.known) {
        ir.already_in_book = true;
        if (c.rank == 0)
          errors << "graphbook build: " << f.path
                 << ": the same content is already in the book; nothing added\n";
        report.inputs.push_back(ir);
        continue;
      }
      ir.games_read = counts.games_read[i];
      ir.added = counts.added[i];
      ir.duplicates = counts.duplicates[i];
      ir.skipped = counts.skipped[i];
      ir.filtered = counts.filtered[i];
      ir.filtered_by_query = counts.filtered_by_query[i];
      ir.warnings = counts.warnings[i];
      ir.binary = counts.binary[i] != 0;
      ir.first_date = counts.first_date[i] == INT_MAX ? 0 : counts.first_date[i];
      ir.last_date = counts.last_date[i];
      report.error_count += counts.errors[i];
      store::SourceInfo src{
          .name = f.path, .size = f.size, .content_hash = f.hash, .params = params, .label = options.source};
      src.games_added = ir.added;
      src.duplicates = ir.duplicates;
      src.first_date = ir.first_date;
      src.last_date = ir.last_date;
      src.added_at = std::int64_t(std::time(nullptr));
      if (!src.label.empty()) src.bucket_source = bucket_source[i];  // the number its games' buckets use
      sources.push_back(src);
      report.inputs.push_back(ir);
    }
    add_up_inputs(report);

    // This rank's shard: the runs from every rank, in rank order (the order
    // of the input), merged and committed as a build commits.
    const store::ShardEntry shard = store::shard_entry(std::uint32_t(c.rank), std::uint32_t(c.size));
    const std::string shard_path = book_path + "/" + shard.file;
    store::BookError be;
    auto book = store::Book::open(shard_path, store::OpenMode::Create, &be, options.initial_map_size);
    if (!book) abort_all(c, be.message);
    std::vector<const Run*> runs;
    for (const Run& r : received) runs.push_back(&r);
    RunMerger shard_merger(runs);
    std::vector<FingerprintRun> fps;
    if (!kept.empty()) fps.emplace_back(std::move(kept));
    CommitInput input{.fingerprints = std::move(fps),
                      .sources = c.rank == 0 ? std::move(sources) : std::vector<store::SourceInfo>{},
                      .added = {.games = c.rank == 0 ? report.total.added : 0,
                                .duplicates = c.rank == 0 ? report.total.duplicates : 0,
                                .skipped = c.rank == 0 ? report.total.skipped : 0,
                                .collisions = report.collisions},
                      .params_json = params,
                      .min_games = std::max<std::uint32_t>(1, options.min_games),
                      .more_writes = {},  // rank 0: the stored games, below
                      .buckets = nullptr,
                      .buckets_json = {}};
    if (c.rank == 0 && options.index_games)
      input.more_writes = [&](store::WriteTxn& txn) { return store::add_indexed_games(txn, stored_games); };
    BucketMerger shard_buckets(received_buckets ? std::vector<const BucketAggregator*>{&*received_buckets}
                                                : std::vector<const BucketAggregator*>{});
    if (received_buckets) {
      input.buckets = &shard_buckets;
      input.buckets_json = store::bucket_params_json({.by_month = options.by_month, .ordinals = added_all});
    }
    const auto committing = std::chrono::steady_clock::now();
    if (auto s = commit_build(*book, shard_merger, input, report.commit))
      abort_all(c, shard_path + ": " + s->message());
    report.collisions += report.commit.collisions;
    book.reset();
    for (const Run& r : received) ::unlink(r.path.c_str());
    if (c.rank != 0) {
      if (auto e = clear_builds(shard_path)) abort_all(c, e->message);
      ::unlink((shard_path + "-lock").c_str());  // its own, made by that open
    }
    report.commit_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - committing).count();

    // The totals of the shards, on rank 0.
    std::vector<unsigned long long> sums = {report.commit.nodes_written,
                                            report.commit.edges_written,
                                            report.collisions,
                                            report.spills,
                                            rounds,
                                            sent};
    sum_to_root(sums, MPI_UNSIGNED_LONG_LONG, MPI_SUM, c);
    if (c.rank == 0) {
      report.commit.nodes_written = sums[0];
      report.commit.edges_written = sums[1];
      report.collisions = sums[2];
      report.spills = sums[3];
    }
  }

  ::rmdir(spill_dir.c_str());  // emptied: the Aggregator removed its runs, this rank what it received
  // Every shard is committed: rank 0 writes the manifest, which makes the directory a book.
  MPI_Barrier(MPI_COMM_WORLD);
  if (c.rank == 0) {
    store::ShardManifest m;
    for (int r = 0; r < c.size; ++r)
      m.shards.push_back(store::shard_entry(std::uint32_t(r), std::uint32_t(c.size)));
    m.build_params = params_json(options);
    m.global_shard = 0;
    m.ranks = std::uint32_t(c.size);
    if (auto e = store::write_manifest(book_path, m)) abort_all(c, e->message());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace gb::builder
