// The PGN visitor of a build: collects a game's positions (up to the ply
// limit), applies the per-game filters and fingerprints the game for dedup.
// It only collects: which copy of a duplicated game counts is decided
// afterwards in file order for a whole block (build.cpp), so that it never
// depends on which thread got there first, and then the kept games go to
// the thread's Aggregator.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "book/pgn/visitor.h"
#include "builder/aggregator.h"
#include "builder/book_writer.h"  // Fingerprint
#include "builder/game_filter.h"

namespace gb::builder {

// The fingerprints of one KeyRange of fp[0] in a build: open-addressing
// tables of the 128-bit fingerprints themselves, one allocation per growth
// instead of one per game (a node-based set allocated for every game of
// bench/build.sh's 198,350 lines). The set is kShards tables, each for an
// equal part of the range in fp[0] order, each growing by half on its own: a
// growth holds a table's old copy beside the new one, and one table of many is
// a small spike where one table for the whole set was a large part of the
// build's peak memory (bench/build.sh reports the peak). Fingerprints are uniformly random: the home slot is
// the next bits of fp[0] scaled to the table's size.
class DedupSet {
 public:
  explicit DedupSet(KeyRange range = {}) : range_(range) {}

  // True when fp is new to this build (and then remembered); fp is in the range.
  bool insert(const Fingerprint& fp) {
    if (empty(fp)) return std::exchange(has_zero_, true) == false;
    const std::uint64_t spread = range_.spread(fp[0]);
    Shard& shard = shards_[spread >> (64 - kShardBits)];
    if ((shard.count + 1) * 10 > shard.slots.size() * 8) grow(shard);
    Fingerprint* slot = find(shard.slots, spread, fp);
    if (!empty(*slot)) return false;
    *slot = fp;
    ++shard.count;
    return true;
  }
  // Appends the fingerprints to out as runs, each sorted, all of one run
  // before all of the next; the set is empty afterwards. The runs are the
  // tables' own memory, compacted and sorted in place: no copy of the whole
  // set exists at any time.
  void take(std::vector<std::vector<Fingerprint>>& out) {
    if (has_zero_) out.push_back({Fingerprint{}});
    for (Shard& shard : shards_) {
      std::vector<Fingerprint>& v = shard.slots;
      v.erase(std::remove_if(v.begin(), v.end(), empty), v.end());
      v.shrink_to_fit();
      std::sort(v.begin(), v.end());
      if (!v.empty()) out.push_back(std::move(v));
      shard = Shard();
    }
    has_zero_ = false;
  }
  std::size_t size() const {
    std::size_t n = has_zero_;
    for (const Shard& shard : shards_) n += shard.count;
    return n;
  }

 private:
  __extension__ typedef unsigned __int128 Wide;
  static constexpr int kShardBits = 6;
  struct Shard {
    std::vector<Fingerprint> slots = std::vector<Fingerprint>(64);
    std::size_t count = 0;
  };
  static bool empty(const Fingerprint& f) { return (f[0] | f[1]) == 0; }
  // The slot holding fp in slots, or the free slot where it goes.
  static Fingerprint* find(std::vector<Fingerprint>& slots, std::uint64_t spread, const Fingerprint& fp) {
    const std::size_t n = slots.size();
    for (auto i = std::size_t((static_cast<Wide>(spread << kShardBits) * n) >> 64);;
         i = i + 1 == n ? 0 : i + 1)
      if (empty(slots[i]) || slots[i] == fp) return &slots[i];
  }
  void grow(Shard& shard) const {
    std::vector<Fingerprint> old(shard.slots.size() + shard.slots.size() / 2);
    old.swap(shard.slots);
    for (const Fingerprint& f : old)
      if (!empty(f)) *find(shard.slots, range_.spread(f[0]), f) = f;
  }
  KeyRange range_;
  std::array<Shard, std::size_t(1) << kShardBits> shards_;
  bool has_zero_ = false;  // the all-zero fingerprint, which marks a free slot
};

// A game a parse part accepted, waiting for the dedup decision.
struct PendingGame {
  GameFacts facts;
  Fingerprint fingerprint{};     // when dedup is on
  std::size_t first = 0, n = 0;  // its positions: PartGames::plies[first, first + n)
  bool duplicate = false;
  std::uint64_t ordinal = 0;  // its place among the book's games (buckets' first plays), when not a duplicate
};

// The games of one parse part, in file order.
struct PartGames {
  std::vector<PendingGame> games;
  std::vector<PlyRecord> plies;
};

struct VisitCounts {
  std::uint64_t games = 0;              // games the reader kept (legal) and the filters let through
  std::uint64_t filtered = 0;           // left out by --min-elo / --since / --until
  std::uint64_t filtered_by_query = 0;  // left out by --filter (query_filter.h)
};

class BuildVisitor : public pgn::VisitorBase {
 public:
  // Appends the games it accepts to out.
  BuildVisitor(const BuildOptions& options, PartGames& out) : options_(options), out_(out) {}

  void begin_game(const pgn::GameLocation&);
  void tag(std::string_view name, std::string_view value);
  pgn::Control begin_movetext(const Position& start);
  pgn::Control move(const pgn::MoveEvent& e);
  void end_game(const pgn::GameEnd& end);

  const VisitCounts& counts() const { return counts_; }
  // Takes back the game end_game just accepted (build --filter: the query
  // did not match it).
  void drop_last_game();

 private:
  Fingerprint fingerprint();  // of the game being read

  const BuildOptions& options_;
  PartGames& out_;
  VisitCounts counts_;

  // Per game
  std::string white_, black_, date_, round_, event_;
  int white_elo_ = 0, black_elo_ = 0, date_value_ = 0;
  store::Speed speed_ = store::Speed::Unknown;
  GameFacts facts_;
  std::size_t first_ = 0;             // the game's first position in out_.plies
  std::vector<std::uint16_t> moves_;  // every mainline move decoded (fingerprint)
  bool cut_ = false;                  // the ply limit was reached: the final position is recorded
  std::string scratch_;               // the fingerprint's input
};

}  // namespace gb::builder
