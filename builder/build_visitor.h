// The PGN visitor of a build: collects a game's positions (up to the ply
// limit), applies the per-game filters, fingerprints the game for dedup and
// hands it to the thread's Aggregator.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "book/pgn/visitor.h"
#include "book/store/book.h"
#include "builder/aggregator.h"
#include "builder/book_writer.h"
#include "builder/game_filter.h"

namespace gb::builder {

// The fingerprints of this build, shared by the parse threads: open-addressing
// tables of the 128-bit fingerprints themselves, one allocation per doubling
// instead of one per game (the node-based set was 10% of a build of the
// 198,350 lines), in shards with a lock each so the threads seldom wait.
// Fingerprints are uniformly random: their low bits pick the shard, their top
// bits the slot.
class DedupSet {
 public:
  // True when fp is new to this build (and then remembered).
  bool insert(const Fingerprint& fp) {
    Shard& shard = shards_[fp[1] % kShards];
    std::lock_guard lock(shard.mutex);
    return shard.insert(fp);
  }
  // The fingerprints, in no particular order.
  std::vector<Fingerprint> take() {
    std::vector<Fingerprint> out;
    for (Shard& shard : shards_) {
      if (shard.has_zero) out.push_back(Fingerprint{});
      for (const Fingerprint& f : shard.slots)
        if (!empty(f)) out.push_back(f);
    }
    return out;
  }

 private:
  static constexpr std::size_t kShards = 16;
  static bool empty(const Fingerprint& f) { return (f[0] | f[1]) == 0; }
  static bool same(const Fingerprint& a, const Fingerprint& b) { return a[0] == b[0] && a[1] == b[1]; }

  struct Shard {
    std::mutex mutex;
    int bits = 8;
    std::vector<Fingerprint> slots = std::vector<Fingerprint>(std::size_t(1) << 8);
    std::size_t count = 0;
    bool has_zero = false;  // the all-zero fingerprint, which marks a free slot

    bool insert(const Fingerprint& fp) {
      if (empty(fp)) return std::exchange(has_zero, true) == false;
      if ((count + 1) * 10 > slots.size() * 7) grow();
      Fingerprint* slot = find(fp);
      if (!empty(*slot)) return false;
      *slot = fp;
      ++count;
      return true;
    }
    // The slot holding fp, or the free slot where it goes.
    Fingerprint* find(const Fingerprint& fp) {
      std::size_t mask = slots.size() - 1;
      for (std::size_t i = std::size_t(fp[0] >> (64 - bits));; i = (i + 1) & mask)
        if (empty(slots[i]) || same(slots[i], fp)) return &slots[i];
    }
    void grow() {
      std::vector<Fingerprint> old(std::size_t(1) << ++bits);
      old.swap(slots);
      for (const Fingerprint& f : old)
        if (!empty(f)) *find(f) = f;
    }
  };
  Shard shards_[kShards];
};

struct VisitCounts {
  std::uint64_t games = 0;  // games the reader kept (legal) and we looked at
  std::uint64_t added = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t filtered = 0;  // left out by --min-elo / --since / --until
  std::uint64_t plies = 0;
  void merge(const VisitCounts& o) {
    games += o.games;
    added += o.added;
    duplicates += o.duplicates;
    filtered += o.filtered;
    plies += o.plies;
  }
};

class BuildVisitor : public pgn::VisitorBase {
 public:
  // book_txn: a read transaction of the book for fingerprint lookups (may be
  // null when dedup is off or the book has no games).
  BuildVisitor(const BuildOptions& options, Aggregator& aggregator, DedupSet* dedup,
               const store::Txn* book_txn, MDB_dbi games_dbi)
      : options_(options),
        aggregator_(aggregator),
        dedup_(dedup),
        book_txn_(book_txn),
        games_dbi_(games_dbi) {}

  void begin_game(const pgn::GameLocation&);
  void tag(std::string_view name, std::string_view value);
  pgn::Control begin_movetext(const Position& start);
  pgn::Control move(const pgn::MoveEvent& e);
  void end_game(const pgn::GameEnd& end);

  const VisitCounts& counts() const { return counts_; }
  bool failed() const { return failed_; }

 private:
  Fingerprint fingerprint();
  bool known(const Fingerprint& fp) const;

  const BuildOptions& options_;
  Aggregator& aggregator_;
  DedupSet* dedup_;
  const store::Txn* book_txn_;
  MDB_dbi games_dbi_;
  VisitCounts counts_;
  bool failed_ = false;

  // Per game
  std::string white_, black_, date_, round_, event_;
  int white_elo_ = 0, black_elo_ = 0, date_value_ = 0;
  GameFacts facts_;
  std::vector<PlyRecord> plies_;
  std::vector<std::uint16_t> moves_;  // every mainline move decoded (fingerprint)
  bool cut_ = false;                  // the ply limit was reached: the final position is recorded
  std::string scratch_;               // the fingerprint's input
};

}  // namespace gb::builder
