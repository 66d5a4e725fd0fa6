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

// The fingerprints of this build, shared by the parse threads: an
// open-addressing table of the 128-bit fingerprints themselves (they are
// uniformly random, so the top bits of the first half pick the slot), one
// allocation per doubling instead of one per game (the node-based set was
// 10% of a build of the 198,350 lines).
class DedupSet {
 public:
  // True when fp is new to this build (and then remembered).
  bool insert(const Fingerprint& fp) {
    std::lock_guard lock(mutex_);
    if (fp == Fingerprint{}) return std::exchange(has_zero_, true) == false;
    if ((count_ + 1) * 10 > slots_.size() * 7) grow();
    Fingerprint* slot = find(fp);
    if (*slot == fp) return false;
    *slot = fp;
    ++count_;
    return true;
  }
  // The fingerprints, in no particular order.
  std::vector<Fingerprint> take() {
    std::vector<Fingerprint> out;
    out.reserve(count_ + has_zero_);
    if (has_zero_) out.push_back(Fingerprint{});
    for (const Fingerprint& f : slots_)
      if (f != Fingerprint{}) out.push_back(f);
    return out;
  }

 private:
  // The slot holding fp, or the free slot where it goes.
  Fingerprint* find(const Fingerprint& fp) {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = std::size_t(fp[0] >> (64 - bits_));; i = (i + 1) & mask)
      if (slots_[i] == fp || slots_[i] == Fingerprint{}) return &slots_[i];
  }
  void grow() {
    std::vector<Fingerprint> old(std::size_t(1) << ++bits_);
    old.swap(slots_);
    for (const Fingerprint& f : old)
      if (f != Fingerprint{}) *find(f) = f;
  }

  std::mutex mutex_;
  int bits_ = 10;
  std::vector<Fingerprint> slots_ = std::vector<Fingerprint>(std::size_t(1) << 10);
  std::size_t count_ = 0;
  bool has_zero_ = false;
};

struct VisitCounts {
  std::uint64_t games = 0;       // games the reader kept (legal) and we looked at
  std::uint64_t added = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t filtered = 0;    // left out by --min-elo / --since / --until
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
  BuildVisitor(const BuildOptions& options, Aggregator& aggregator, DedupSet* dedup, const store::Txn* book_txn,
               MDB_dbi games_dbi)
      : options_(options), aggregator_(aggregator), dedup_(dedup), book_txn_(book_txn), games_dbi_(games_dbi) {}

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
  bool cut_ = false;  // the ply limit was reached: the final position is recorded
  std::string scratch_;  // the fingerprint's input
};

}  // namespace gb::builder
