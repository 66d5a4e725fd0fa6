#include "builder/ply_partitions.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>

#include "book/store/section_groups.h"
#include "builder/run_file.h"  // run_file_path, open_unnamed, write_fully
#include "builder/run_merger.h"

namespace gb::builder {

namespace {

// The plies a slice counts, about: 2 MB of them, whose sections are some
// 1 MB for the writer.
constexpr std::uint64_t kSlicePlies = std::uint64_t(1) << 15;
// A partition with more plies is counted in chunks of at most this many
// (PartitionSlices::make_chunked), so that a slice's plies and their sorted
// copy stay within 2 * 32 bytes * kMaxSlicePlies (4 MiB) on each thread.
constexpr std::uint64_t kMaxSlicePlies = std::uint64_t(1) << 16;
// A slice reads fewer than kSlicePlies + kMaxSlicePlies plies, a chunk fewer
// than twice kMaxSlicePlies and a game: a scratch array of kScratchPlies
// (address space; pages as used) holds either.
static_assert(PlyPartitions::kScratchPlies == 4 * kMaxSlicePlies);
// The plies a buffer has room for at first: it grows by doubling, up to
// what the budget allows, so that a small input makes few pages resident.
constexpr std::size_t kFirstPlies = std::size_t(1) << 14;

// Partitions enough that one holds about an eighth of a slice of the plies
// expected: a slice then takes several, and a spill writes each in one
// piece of some kilobytes. Unknown input (stdin, zstd): 16,384.
int bits_for(std::uint64_t expected_plies) {
  if (expected_plies == 0) return 14;
  int bits = 6;
  while (bits < 16 && (expected_plies >> bits) > kSlicePlies / 8) ++bits;
  return bits;
}

std::string error_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// Reads n plies at ply offset `at` of a spill into out.
BuildStatus read_spill(int fd, const std::string& path, std::uint64_t at, std::uint64_t n, PlyEntry* out) {
  auto* to = reinterpret_cast<char*>(out);
  std::size_t left = n * sizeof(PlyEntry), done = 0;
  while (left > 0) {
    const ssize_t r = ::pread(fd, to + done, left, off_t(at * sizeof(PlyEntry) + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = EIO;  // shorter than written
      return BuildError::book(error_text("cannot read the spill file", path));
    }
    done += std::size_t(r);
    left -= std::size_t(r);
  }
  return std::nullopt;
}

BuildError no_memory() { return BuildError::book("no memory to count the plies of a slice of the book"); }

}  // namespace

PlyPartitions::PlyPartitions(std::size_t memory_budget, std::string spill_dir, Side side, KeyRange range,
                             std::uint64_t expected_plies)
    : budget_(memory_budget),
      spill_dir_(std::move(spill_dir)),
      side_(side),
      range_(range),
      bits_(bits_for(expected_plies)) {
  // Address space for the most the budget allows; pages are made as used.
  // (At least a slice's scratch: the buffer becomes one, take_spare_pages.)
  reserved_ = std::max({capacity(), 2 * kFirstPlies, kScratchPlies});
  buffer_pages_ = ReservedPages(reserved_ * sizeof(PlyEntry));
  cut_pages_ = ReservedPages(reserved_ * sizeof(PlyEntry));
  buffer_ = static_cast<PlyEntry*>(buffer_pages_.data());
  cut_ = static_cast<PlyEntry*>(cut_pages_.data());
  if (!buffer_pages_.use(kFirstPlies * sizeof(PlyEntry))) throw std::bad_alloc();
  in_use_ = kFirstPlies;
}

PlyPartitions::~PlyPartitions() {
  for (Spill& s : spills_) ::close(s.fd);  // (unlinked when made: closed, they are gone)
}

void PlyPartitions::set_budget(std::size_t memory_budget) { budget_ = memory_budget; }

// A range's first kHalfSpills spills are of half the buffer the budget
// allows. The buffer and its cut are pages touched for the first time, which
// on a virtual machine cost a small collection more than spilling twice as
// often does; a large collection, whose spills are many, wants the whole
// buffer (docs/SCALE.md, "Fresh memory").
std::size_t PlyPartitions::room() const {
  const std::size_t most = std::min(capacity(), reserved_);
  return std::max<std::size_t>(spill_count_ < kHalfSpills ? most / 2 : most, kFirstPlies);
}

BuildStatus PlyPartitions::add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n) {
  assert(!finished_);
  assert(n == 0 || !plies[n - 1].move);  // the final position plays nothing
  if (++games_ == 0) ++games_;           // (wrapped: 0 is no game's, count_key's start)
  const std::uint32_t id = games_;
  const auto year = std::uint16_t(std::clamp(game.year, 0, PlyEntry::kMaxYear));
  const auto year_result = std::uint16_t(year << 2 | std::uint16_t(game.result));
  const std::uint16_t elo[2] = {std::uint16_t(std::clamp(game.white_elo, 0, 65535)),
                                std::uint16_t(std::clamp(game.black_elo, 0, 65535))};
  const Side side = game.side == Side::Both ? side_ : game.side;
  const bool whole = range_.count == 1;
  const KeyRange range = range_;
  // The loop keeps the buffer's state in locals: a ply's key is a 64-bit
  // store that may alias the members, which the compiler would read again
  // after every ply.
  PlyEntry* const buffer = buffer_;  // (the same pages after a spill)
  std::size_t used = used_;
  std::size_t limit = std::min(in_use_, room());  // the plies the buffer takes before it grows or spills
  for (std::size_t i = 0; i < n; ++i) {
    if (used >= limit) {
      // Full: more pages while the budget allows, else a spill.
      used_ = used;
      if (used_ < room()) {
        const std::size_t more = std::min(in_use_ * 2, room());
        if (!buffer_pages_.use(more * sizeof(PlyEntry))) throw std::bad_alloc();
        in_use_ = more;
      } else if (auto e = spill()) {
        return e;
      }
      used = used_;
      limit = std::min(in_use_, room());
    }
    const Color mover = (i & 1) ? ~game.first_mover : game.first_mover;
    const bool counts_edge = plies[i].move && i + 1 < n && !(side == Side::White && mover != Color::White) &&
                             !(side == Side::Black && mover != Color::Black);
    const auto ply = std::uint16_t(std::min(game.first_ply + int(i), int(Slot::kMaxPly)) |
                                   (mover == Color::Black ? Slot::kBlackPly : 0));
    // Written whether in the range or not, and kept only when it is: half
    // the plies of a game are in one of two ranges, at random, and a branch
    // on it is mispredicted every other ply.
    buffer[used] = PlyEntry{.key = plies[i].key,
                            .child = counts_edge ? plies[i + 1].key : 0,
                            .hash = plies[i].position_hash,
                            .game = id,
                            .move = counts_edge ? plies[i].move.raw() : std::uint16_t(0),
                            .ply = ply,
                            .mover_elo = elo[int(mover)],
                            .year_result = year_result};
    used += whole || range.holds(plies[i].key);
  }
  used_ = used;
  return std::nullopt;
}

void PlyPartitions::cut(std::vector<std::uint64_t>& starts) {
  const std::size_t count = partitions();
  starts.assign(count + 1, 0);
  for (std::size_t i = 0; i < used_; ++i) ++starts[partition_of(buffer_[i].key) + 1];
  for (std::size_t p = 0; p < count; ++p) starts[p + 1] += starts[p];
  if (!cut_pages_.use(std::max<std::size_t>(used_, 1) * sizeof(PlyEntry))) throw std::bad_alloc();
  std::vector<std::uint64_t> at(starts.begin(), starts.end() - 1);
  for (std::size_t i = 0; i < used_; ++i) cut_[at[partition_of(buffer_[i].key)]++] = buffer_[i];
}

std::string PlyPartitions::next_path() {
  return run_file_path(spill_dir_, std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-plies-" +
                                       std::to_string(serial_++));
}

BuildStatus PlyPartitions::spill() {
  Spill s;
  s.path = next_path();
  cut(s.starts);
  if ((s.fd = open_unnamed(spill_dir_, s.path)) < 0)
    return BuildError::book(error_text("cannot create the spill file", s.path));
  if (!write_fully(s.fd, cut_, used_ * sizeof(PlyEntry))) {
    BuildError e = BuildError::book(error_text("cannot write the spill file", s.path));
    ::close(s.fd);
    return e;
  }
  spills_.push_back(std::move(s));
  ++spill_count_;
  used_ = 0;
  if (in_use_ > room()) {  // the budget fell (the fingerprints grew): pages past it go back
    in_use_ = room();
    buffer_pages_.zero_from(in_use_ * sizeof(PlyEntry));
    cut_pages_.zero_from(in_use_ * sizeof(PlyEntry));
  }
  return compact();
}

// Merges the last kSpillsPerMerge spills while they are of one level.
BuildStatus PlyPartitions::compact() {
  while (spills_.size() >= kSpillsPerMerge) {
    const std::size_t first = spills_.size() - kSpillsPerMerge;
    const int level = spills_.back().level;
    for (std::size_t i = first; i < spills_.size(); ++i)
      if (spills_[i].level != level) return std::nullopt;
    Spill merged;
    merged.level = level + 1;
    if (auto e = merge(first, kSpillsPerMerge, merged)) return e;
    for (std::size_t i = first; i < spills_.size(); ++i) ::close(spills_[i].fd);
    spills_.resize(first);
    spills_.push_back(std::move(merged));
  }
  return std::nullopt;
}

// Writes spills [first, first + count) into out, partition by partition
// (each partition's plies of the first spill, then of the next...), through
// the cut buffer, which a spill has just written out: its first half holds
// what is read, its second what is written. A partition larger than a half
// is copied piece by piece.
BuildStatus PlyPartitions::merge(std::size_t first, std::size_t count, Spill& out) {
  out.path = next_path();
  if ((out.fd = open_unnamed(spill_dir_, out.path)) < 0)
    return BuildError::book(error_text("cannot create the spill file", out.path));
  auto failed = [&](const char* what, const std::string& path) {
    BuildError e = BuildError::book(error_text(what, path));
    ::close(out.fd);
    return e;
  };
  const std::size_t half = std::max<std::size_t>(room() / 2, 1);
  if (!cut_pages_.use(2 * half * sizeof(PlyEntry))) throw std::bad_alloc();
  PlyEntry* in = cut_;
  PlyEntry* staged = cut_ + half;
  const std::size_t parts = partitions();
  out.starts.assign(parts + 1, 0);
  auto plies_of = [&](std::size_t a, std::size_t b) {  // partitions [a, b) of all the spills merged
    std::uint64_t n = 0;
    for (std::size_t i = first; i < first + count; ++i) n += spills_[i].starts[b] - spills_[i].starts[a];
    return n;
  };
  for (std::size_t a = 0; a < parts;) {
    std::size_t b = a + 1;
    while (b < parts && plies_of(a, b + 1) <= half) ++b;
    if (plies_of(a, b) > half) {  // one partition, larger than a half: piece by piece
      assert(b == a + 1);
      for (std::size_t i = first; i < first + count; ++i) {
        const Spill& s = spills_[i];
        for (std::uint64_t at = s.starts[a]; at < s.starts[a + 1];) {
          const std::uint64_t n = std::min<std::uint64_t>(s.starts[a + 1] - at, half);
          if (auto e = read_spill(s.fd, s.path, at, n, in)) {
            ::close(out.fd);
            return e;
          }
          if (!write_fully(out.fd, in, n * sizeof(PlyEntry)))
            return failed("cannot write the spill file", out.path);
          at += n;
        }
      }
    } else {
      // Partitions [a, b): each spill's in one read, then interleaved.
      std::vector<PlyEntry*> from(count);
      PlyEntry* to = in;
      for (std::size_t i = 0; i < count; ++i) {
        const Spill& s = spills_[first + i];
        from[i] = to;
        if (auto e = read_spill(s.fd, s.path, s.starts[a], s.starts[b] - s.starts[a], to)) {
          ::close(out.fd);
          return e;
        }
        to += s.starts[b] - s.starts[a];
      }
      PlyEntry* put = staged;
      for (std::size_t p = a; p < b; ++p)
        for (std::size_t i = 0; i < count; ++i) {
          const Spill& s = spills_[first + i];
          const std::uint64_t n = s.starts[p + 1] - s.starts[p];
          put = std::copy(from[i], from[i] + n, put);
          from[i] += n;
        }
      if (!write_fully(out.fd, staged, std::size_t(put - staged) * sizeof(PlyEntry)))
        return failed("cannot write the spill file", out.path);
    }
    for (std::size_t p = a; p < b; ++p) out.starts[p + 1] = out.starts[p] + plies_of(p, p + 1);
    a = b;
  }
  return std::nullopt;
}

BuildStatus PlyPartitions::finish() {
  assert(!finished_);
  finished_ = true;
  cut(memory_starts_);
  // The plies are in cut_ now: the buffer's pages are spare (take_spare_pages).
  buffer_ = nullptr;
  return std::nullopt;
}

ReservedPages PlyPartitions::take_spare_pages() {
  assert(finished_);
  // A slice takes some kSlicePlies, and its scratch's first pages are what
  // it wants resident; the rest go back (a budget's buffer may be far larger).
  buffer_pages_.zero_from(kMaxSlicePlies * sizeof(PlyEntry));
  return std::move(buffer_pages_);
}

void PlyPartitions::release() {
  buffer_pages_ = ReservedPages();
  for (Spill& s : spills_) ::close(s.fd);
  spills_.clear();
  cut_pages_ = ReservedPages();
  cut_ = nullptr;
  memory_starts_.clear();
}

std::uint64_t PlyPartitions::plies_in(std::size_t p) const {
  assert(finished_ && p < partitions());
  std::uint64_t n = memory_starts_[p + 1] - memory_starts_[p];
  for (const Spill& s : spills_) n += s.starts[p + 1] - s.starts[p];
  return n;
}

BuildStatus PlyPartitions::read(std::size_t first, std::size_t last, PlyEntry* out) const {
  assert(finished_ && first <= last && last <= partitions());
  // The spills in order, then memory: a key's plies in the order of the input.
  for (const Spill& s : spills_) {
    const std::uint64_t begin = s.starts[first], end = s.starts[last];
    if (auto e = read_spill(s.fd, s.path, begin, end - begin, out)) return e;
    out += end - begin;
  }
  std::copy(cut_ + memory_starts_[first], cut_ + memory_starts_[last], out);
  return std::nullopt;
}

BuildStatus PlyPartitions::read_chunks(std::size_t p, std::size_t plies, PlyArray& buffer,
                                       const std::function<void(const PlyEntry*, std::size_t)>& take) const {
  assert(finished_ && p < partitions() && plies > 0);
  std::size_t held = 0;  // plies in buffer
  // Hands out the buffer up to its last game, which the next chunk begins
  // with (unless that game is all of it).
  auto hand_out = [&] {
    const PlyEntry* b = buffer.data();
    std::size_t cut = held;
    while (cut > 0 && b[cut - 1].game == b[held - 1].game) --cut;
    if (cut == 0) cut = held;
    take(b, cut);
    std::copy(buffer.data() + cut, buffer.data() + held, buffer.data());
    held -= cut;
  };
  auto room = [&](std::uint64_t n) { return buffer.size() >= held + n || buffer.resize(held + n); };
  for (const Spill& s : spills_) {
    for (std::uint64_t at = s.starts[p]; at < s.starts[p + 1];) {
      const std::uint64_t n = std::min<std::uint64_t>(s.starts[p + 1] - at, plies);
      if (!room(n)) return no_memory();
      if (auto e = read_spill(s.fd, s.path, at, n, buffer.data() + held)) return e;
      held += n;
      at += n;
      if (held >= plies) hand_out();
    }
  }
  for (std::uint64_t at = memory_starts_[p]; at < memory_starts_[p + 1];) {
    const std::uint64_t n = std::min<std::uint64_t>(memory_starts_[p + 1] - at, plies);
    if (!room(n)) return no_memory();
    std::copy(cut_ + at, cut_ + at + n, buffer.data() + held);
    held += n;
    at += n;
    if (held >= plies) hand_out();
  }
  if (held > 0) take(buffer.data(), held);
  return std::nullopt;
}

namespace {

// Sorts plies [first, last) by key, stably (a key's plies stay in the order
// of the input), into out; their keys' spread (range.spread) lies in
// [base, base + (span << shift)) for `span` parts of 2^shift. One counting
// pass on the bits below, then insertion within each bucket: Polyglot keys
// are uniform, so a bucket holds one key or two, or many plies of one key.
void sort_plies(const PlyEntry* in, std::size_t n, PlyEntry* out, std::vector<std::uint32_t>& count,
                KeyRange range, std::uint64_t base, std::uint64_t span, int shift) {
  // Buckets: about one for each ply.
  int sub = 0;
  while (sub < shift && (span << sub) < n) ++sub;
  const int down = shift - sub;
  const std::size_t buckets = std::size_t(span) << sub;
  count.assign(buckets + 1, 0);
  auto bucket = [&](Key key) { return std::size_t((range.spread(key) - base) >> down); };
  for (std::size_t i = 0; i < n; ++i) ++count[bucket(in[i].key) + 1];
  for (std::size_t b = 0; b < buckets; ++b) count[b + 1] += count[b];
  for (std::size_t i = 0; i < n; ++i) out[count[bucket(in[i].key)]++] = in[i];
  // count[b] is now the end of bucket b.
  std::size_t begin = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t end = count[b];
    auto by_key = [](const PlyEntry& x, const PlyEntry& y) { return x.key < y.key; };
    if (end - begin > 32) {
      // Many plies of one key, most often (a position most games reach).
      if (!std::is_sorted(out + begin, out + end, by_key)) std::stable_sort(out + begin, out + end, by_key);
    } else {
      for (std::size_t i = begin + 1; i < end; ++i) {
        const PlyEntry e = out[i];
        std::size_t j = i;
        for (; j > begin && out[j - 1].key > e.key; --j) out[j] = out[j - 1];
        out[j] = e;
      }
    }
    begin = end;
  }
}

// A key's node and edges, counted from its plies in the order of the input.
struct Counted {
  store::NodeRecord node;
  std::vector<EdgeEntry> edges;  // in move order, each ranked by its first play
  std::vector<std::uint32_t> last_game;
  std::uint64_t collisions = 0;
};

// Counts the plies [first, last) of one key into c, as the Aggregator's
// table does: the node each game once, an edge each game once and each play
// in occurrences and score, the smallest ply; a ply whose position hash is
// not that of the key's first ply, head (first, unless the key's plies come
// in chunks), is another position with the key, left out (a collision).
void count_key(const PlyEntry* first, const PlyEntry* last, const PlyEntry& head, Counted& c) {
  const Color mover = head.mover();
  c.node = store::NodeRecord{};
  c.node.position_hash = head.hash;
  c.node.flags = mover == Color::Black ? store::kBlackToMove : 0;
  c.node.min_ply = Slot::kMaxPly;
  c.edges.clear();
  c.last_game.clear();
  std::uint32_t last_game = 0;  // games number from 1
  for (const PlyEntry* p = first; p < last; ++p) {
    if (p->hash != head.hash) {
      ++c.collisions;
      continue;
    }
    const auto ply = std::uint16_t(p->ply & Slot::kMaxPly);
    c.node.min_ply = std::min(c.node.min_ply, ply);
    if (p->game != last_game) {
      last_game = p->game;
      c.node.counters.add_game(p->result(), p->mover_elo, p->year());
    }
    if (!p->move) continue;
    // The key's edges are few: found by a walk. Made in the order of their
    // first plays, which is their rank.
    std::size_t k = 0;
    while (k < c.edges.size() && c.edges[k].move != p->move) ++k;
    if (k == c.edges.size()) {
      EdgeEntry& e = c.edges.emplace_back();
      e.key = first->key;
      e.move = p->move;
      e.record.child_key = p->child;
      e.record.flags = mover == Color::Black ? store::kEdgeBlackMoves : 0;
      e.record.min_ply = Slot::kMaxPly;
      e.record.polyglot_rank = std::uint8_t(std::min<std::size_t>(k, 255));
      c.last_game.push_back(0);
    }
    EdgeEntry& e = c.edges[k];
    if (c.last_game[k] != p->game) {
      c.last_game[k] = p->game;
      e.record.counters.add_game(p->result(), p->mover_elo, p->year());
    }
    ++e.record.occurrences;
    e.record.score += store::play_score(p->result(), mover);
    e.record.min_ply = std::min(e.record.min_ply, ply);
  }
  if (c.edges.size() > 1)
    std::sort(c.edges.begin(), c.edges.end(),
              [](const EdgeEntry& a, const EdgeEntry& b) { return a.move < b.move; });
}

// Calls f(first, last) for each key's plies of sorted plies.
template <class F>
void each_key(const PlyEntry* sorted, std::size_t n, F&& f) {
  for (std::size_t b = 0, e; b < n; b = e) {
    e = b + 1;
    while (e < n && sorted[e].key == sorted[b].key) ++e;
    f(sorted + b, sorted + e);
  }
}

class PartitionSlices : public SliceMaker {
 public:
  PartitionSlices(const std::vector<PlyPartitions*>& ranges, std::uint32_t min_games, bool keep_pruned)
      : ranges_(ranges), min_games_(min_games), keep_pruned_(keep_pruned) {
    std::uint64_t all = 0;
    for (std::size_t r = 0; r < ranges_.size(); ++r) {
      const PlyPartitions& range = *ranges_[r];
      Slice open{.range = r, .first = 0, .last = 0, .plies = 0, .chunked = false};
      auto close = [&] {
        if (open.last > open.first) slices_.push_back(open);
        open.first = open.last;
        open.plies = 0;
      };
      for (std::size_t p = 0; p < range.partitions(); ++p) {
        const std::uint64_t n = range.plies_in(p);
        all += n;
        if (n > kMaxSlicePlies) {  // a slice of its own, in chunks
          close();
          open.last = p + 1;
          open.plies = n;
          open.chunked = true;
          close();
          open.chunked = false;
          continue;
        }
        if (open.plies + n > kSlicePlies && open.plies > 0) close();
        open.last = p + 1;
        open.plies += n;
      }
      close();
    }
    // A ply makes a node and an edge at most, some 24 bytes of entries (SectionSlices::make).
    per_slice_ = slices_.empty() ? 0 : all / slices_.size() + 1;
    left_ = std::make_unique<std::atomic<std::size_t>[]>(ranges_.size());
    for (const Slice& slice : slices_) ++left_[slice.range];
    for (std::size_t r = 0; r < ranges_.size(); ++r) {
      spare_.push_back(ranges_[r]->take_spare_pages());
      if (left_[r] == 0) ranges_[r]->release();
    }
  }
  std::size_t count() const override { return slices_.size(); }
  std::uint64_t per_slice() const override { return per_slice_; }
  bool keeps_pruned() const override { return keep_pruned_; }
  void make(std::size_t i, SliceSections& out) override {
    make_slice(slices_[i], out);
    if (--left_[slices_[i].range] == 0) ranges_[slices_[i].range]->release();
  }

 private:
  struct Slice {
    std::size_t range = 0, first = 0, last = 0;  // partitions [first, last) of ranges_[range]
    std::uint64_t plies = 0;
    bool chunked = false;
  };
  // What a thread keeps between its slices (their capacity). Its read array
  // is in a range's spare pages (take_spare) while there are some.
  struct Scratch {
    explicit Scratch(ReservedPages spare)
        : read(spare.data() ? PlyArray(std::move(spare)) : PlyArray(PlyPartitions::kScratchPlies)) {}
    PlyArray read, sorted{PlyPartitions::kScratchPlies};
    std::vector<std::uint32_t> count;
    Counted counted;
    std::string value, below;
  };
  // Sorts in[0..n) of slice s into scratch.sorted.
  [[nodiscard]] BuildStatus sort(const Slice& s, const PlyEntry* in, std::size_t n, Scratch& scratch) const;
  void make_slice(const Slice& s, SliceSections& out);
  // A range's spare pages (take_spare_pages), none once all are taken.
  ReservedPages take_spare();
  void make_chunked(const Slice& s, SliceSections& out, Scratch& scratch) const;

  const std::vector<PlyPartitions*> ranges_;
  const std::uint32_t min_games_;
  const bool keep_pruned_;
  std::vector<Slice> slices_;
  std::uint64_t per_slice_ = 0;
  std::unique_ptr<std::atomic<std::size_t>[]> left_;  // by range: its slices not yet made
  std::mutex spare_mutex_;
  std::vector<ReservedPages> spare_;  // the ranges' buffers, resident (take_spare_pages)
};

ReservedPages PartitionSlices::take_spare() {
  std::lock_guard lock(spare_mutex_);
  if (spare_.empty()) return {};
  ReservedPages pages = std::move(spare_.back());
  spare_.pop_back();
  return pages;
}

BuildStatus PartitionSlices::sort(const Slice& s, const PlyEntry* in, std::size_t n, Scratch& scratch) const {
  if (!scratch.sorted.resize(n)) return no_memory();
  const PlyPartitions& range = *ranges_[s.range];
  const int shift = 64 - range.partition_bits();
  const std::uint64_t base = std::uint64_t(s.first) << shift;  // (shift is 58 at most)
  sort_plies(in, n, scratch.sorted.data(), scratch.count, range.range(), base, s.last - s.first, shift);
  return std::nullopt;
}

void PartitionSlices::make_slice(const Slice& s, SliceSections& out) {
  thread_local Scratch scratch(take_spare());  // (made on the thread's first slice)
  if (s.chunked) return make_chunked(s, out, scratch);
  if (!scratch.read.resize(s.plies)) {
    out.error = no_memory();
    return;
  }
  if ((out.error = ranges_[s.range]->read(s.first, s.last, scratch.read.data()))) return;
  if ((out.error = sort(s, scratch.read.data(), s.plies, scratch))) return;
  Counted& c = scratch.counted;
  c.collisions = 0;
  each_key(scratch.sorted.data(), s.plies, [&](const PlyEntry* first, const PlyEntry* last) {
    // Most positions: one game reached it once and played one move there,
    // written as the group holds them (as a table's one-game slots are).
    if (last - first == 1 && first->move && min_games_ <= 1) {
      const store::OneGameNode one{.position_hash = first->hash,
                                   .min_ply = std::uint16_t(first->ply & Slot::kMaxPly),
                                   .black = first->mover() == Color::Black,
                                   .result = first->result(),
                                   .mover_elo = first->mover_elo,
                                   .year = first->year()};
      if (store::append_one_game_inline(out.entries, one, first->move, first->child)) {
        out.positions.push_back({first->key, out.entries.size(), false});
        ++out.nodes;
        ++out.edges;
        return;
      }
    }
    count_key(first, last, *first, c);
    add_position(out, first->key, &c.node, c.edges, min_games_, keep_pruned_, scratch.value, scratch.below);
  });
  out.collisions += c.collisions;
}

// A partition too large for a slice: its plies in chunks of about
// kMaxSlicePlies, in the order of the input and cut between games, each
// counted into a run of expanded entries (each edge ranked by its first play
// in the chunk), and the runs merged (RunMerger) in the order of the input,
// as the runs of a table are. Such a partition holds few keys (a key that
// most games reach: the start position), so its runs are small.
void PartitionSlices::make_chunked(const Slice& s, SliceSections& out, Scratch& scratch) const {
  assert(s.last == s.first + 1);
  std::vector<Run> runs;
  Counted& c = scratch.counted;
  c.collisions = 0;
  // A key is the position of its first ply, which the first chunk that
  // holds the key has; a later chunk's first ply of it may be another
  // position's (a collision), and its plies are counted against the first.
  std::unordered_map<Key, PlyEntry> heads;
  BuildStatus failed;
  out.error = ranges_[s.range]->read_chunks(
      s.first, kMaxSlicePlies, scratch.read, [&](const PlyEntry* chunk, std::size_t n) {
        if (failed || (failed = sort(s, chunk, n, scratch))) return;
        Run& run = runs.emplace_back();
        each_key(scratch.sorted.data(), n, [&](const PlyEntry* first, const PlyEntry* last) {
          count_key(first, last, heads.try_emplace(first->key, *first).first->second, c);
          run.nodes.push_back(NodeEntry{first->key, c.node});
          run.edges.insert(run.edges.end(), c.edges.begin(), c.edges.end());
        });
      });
  if (!out.error) out.error = std::move(failed);
  if (out.error) return;
  std::vector<const Run*> in_order;
  for (const Run& r : runs) in_order.push_back(&r);
  RunMerger merger(in_order, {}, RunMerger::kSections);
  if ((out.error = merger.open())) return;
  add_merged(merger, out, min_games_, keep_pruned_);
  out.collisions += c.collisions;
}

}  // namespace

std::unique_ptr<SliceMaker> partition_slices(const std::vector<PlyPartitions*>& ranges,
                                             std::uint32_t min_games, bool keep_pruned) {
  return std::make_unique<PartitionSlices>(ranges, min_games, keep_pruned);
}

}  // namespace gb::builder
