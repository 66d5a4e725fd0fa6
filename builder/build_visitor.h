// The PGN visitor of a build: collects a game's positions (up to the ply
// limit), applies the per-game filters, fingerprints the game for dedup and
// hands it to the thread's Aggregator.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "book/pgn/visitor.h"
#include "book/store/book.h"
#include "builder/aggregator.h"
#include "builder/book_writer.h"
#include "builder/game_filter.h"

namespace gb::builder {

struct FingerprintHash {
  std::size_t operator()(const Fingerprint& f) const { return std::size_t(f[1]); }
};

// The fingerprints of this build, shared by the parse threads.
class DedupSet {
 public:
  // True when fp is new to this build (and then remembered).
  bool insert(const Fingerprint& fp) {
    std::lock_guard lock(mutex_);
    return set_.insert(fp).second;
  }
  std::vector<Fingerprint> take() { return {set_.begin(), set_.end()}; }

 private:
  std::mutex mutex_;
  std::unordered_set<Fingerprint, FingerprintHash> set_;
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
