#include "builder/bucket_aggregator.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>

#include "builder/run_file.h"

namespace gb::builder {

namespace {

// Files of one level merged into one of the next (as the Aggregator's runs).
constexpr std::size_t kFilesPerMerge = 16;
constexpr std::size_t kReadItems = 1024;  // items a file reader holds (64 KB)
// The least buffer a thread gets, whatever the budget.
constexpr std::size_t kMinItems = 4096;
// The ply a first play's stamp keeps (10 bits): later plies tie, by move.
constexpr std::uint64_t kStampPlyBits = 10;

// Sums the equal buckets of sorted items in place.
void sum_sorted(std::vector<BucketItem>& items) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (out > 0 && same_bucket(items[out - 1], items[i]))
      add_item(items[out - 1], items[i]);
    else
      items[out++] = items[i];
  }
  items.resize(out);
}

// Reads a run file item by item.
class FileReader {
 public:
  explicit FileReader(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb")) {}
  ~FileReader() {
    if (f_) std::fclose(f_);
  }
  bool ok() const { return f_ && !failed_; }
  // False at the end or on a failure (then ok() is false).
  bool next(BucketItem& out) {
    if (at_ == buf_.size()) {
      if (!f_) return false;
      buf_.resize(kReadItems);
      std::size_t n = std::fread(buf_.data(), 1, kReadItems * sizeof(BucketItem), f_);
      if (n % sizeof(BucketItem) != 0 || std::ferror(f_)) failed_ = true;
      buf_.resize(n / sizeof(BucketItem));
      at_ = 0;
      if (buf_.empty()) return false;
    }
    out = buf_[at_++];
    return true;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* f_;
  std::vector<BucketItem> buf_;
  std::size_t at_ = 0;
  bool failed_ = false;
};

// Merges sorted sources (files, and at most one sorted vector) into one
// sorted stream whose equal buckets are NOT yet summed.
class KWay {
 public:
  KWay(const std::vector<std::string>& files, const std::vector<BucketItem>* memory) : memory_(memory) {
    for (const auto& f : files) readers_.push_back(std::make_unique<FileReader>(f));
    for (std::size_t i = 0; i < readers_.size(); ++i) {
      if (!readers_[i]->ok()) {
        error_ = BuildError::book("cannot read the run file " + readers_[i]->path());
        return;
      }
      pull(i);
    }
    if (memory_) pull(readers_.size());
  }
  bool next(BucketItem& out) {
    if (heap_.empty()) return false;
    std::pop_heap(heap_.begin(), heap_.end(), greater);
    out = heap_.back().item;
    const std::size_t from = heap_.back().from;
    heap_.pop_back();
    pull(from);
    return true;
  }
  BuildStatus error() const { return error_; }

 private:
  struct Head {
    BucketItem item;
    std::size_t from;
  };
  static bool greater(const Head& a, const Head& b) { return bucket_item_less(b.item, a.item); }
  void pull(std::size_t from) {
    BucketItem item;
    if (from < readers_.size()) {
      if (!readers_[from]->next(item)) {
        if (!readers_[from]->ok() && !error_)
          error_ =
              BuildError::book("the run file " + readers_[from]->path() + " ends early or cannot be read");
        return;
      }
    } else {
      if (memory_at_ == memory_->size()) return;
      item = (*memory_)[memory_at_++];
    }
    heap_.push_back({item, from});
    std::push_heap(heap_.begin(), heap_.end(), greater);
  }
  std::vector<std::unique_ptr<FileReader>> readers_;
  const std::vector<BucketItem>* memory_;
  std::size_t memory_at_ = 0;
  std::vector<Head> heap_;
  BuildStatus error_;
};

}  // namespace

void add_item(BucketItem& a, const BucketItem& b) {
  a.games += b.games;
  a.white_wins += b.white_wins;
  a.draws += b.draws;
  a.black_wins += b.black_wins;
  a.rated_games += b.rated_games;
  a.elo_sum += b.elo_sum;
  a.occurrences += b.occurrences;
  a.score += b.score;
  a.min_ply = std::min(a.min_ply, b.min_ply);
  if (b.first_play && (!a.first_play || b.first_play < a.first_play)) a.first_play = b.first_play;
}

store::BucketCounters counters_of(const BucketItem& i) {
  store::BucketCounters c;
  c.games = i.games;
  c.white_wins = i.white_wins;
  c.draws = i.draws;
  c.black_wins = i.black_wins;
  c.rated_games = i.rated_games;
  c.elo_sum = i.elo_sum;
  c.occurrences = i.occurrences;
  c.score = i.score;
  c.min_ply = i.min_ply;
  c.first_play = i.first_play;
  return c;
}

BucketRunWriter::BucketRunWriter(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "wb")) {}

BucketRunWriter::~BucketRunWriter() {
  if (f_) std::fclose(f_);
}

void BucketRunWriter::add(const BucketItem& item) {
  buf_.push_back(item);
  if (buf_.size() == kReadItems) flush();
}

BuildStatus BucketRunWriter::close() {
  flush();
  const bool ok = f_ && !failed_ && std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok) return BuildError::book("cannot write the run file " + path_ + ": " + std::strerror(errno));
  return std::nullopt;
}

void BucketRunWriter::flush() {
  if (f_ && !buf_.empty() && std::fwrite(buf_.data(), sizeof(BucketItem), buf_.size(), f_) != buf_.size())
    failed_ = true;
  buf_.clear();
}

BucketAggregator::BucketAggregator(std::size_t memory_budget, std::string spill_dir, Side side,
                                   KeyRange range, bool by_month)
    : capacity_(std::max(kMinItems, memory_budget / sizeof(BucketItem))),
      spill_dir_(std::move(spill_dir)),
      side_(side),
      range_(range),
      by_month_(by_month) {
  items_.reserve(capacity_);
}

BucketAggregator::~BucketAggregator() {
  for (const std::string& f : files_) ::unlink(f.c_str());
}

BuildStatus BucketAggregator::add_game(const GameFacts& game, const PlyRecord* plies, std::size_t n,
                                       std::uint64_t ordinal, std::uint32_t source) {
  assert(ordinal > 0);
  const std::uint32_t period = store::period_of(game.date, by_month_);
  const std::uint64_t ids[2] = {
      store::bucket_id(store::rating_band(game.white_elo), game.speed, period, source),
      store::bucket_id(store::rating_band(game.black_elo), game.speed, period, source)};
  const int elos[2] = {game.white_elo, game.black_elo};
  auto mover_at = [&](std::size_t i) { return (i & 1) ? ~game.first_mover : game.first_mover; };
  const Side side = game.side == Side::Both ? side_ : game.side;
  // As Aggregator::add_game: the plies (capped as its slots cap them), the edges of --color.
  auto ply_at = [&](std::size_t i) {
    return std::uint16_t(std::min(game.first_ply + int(i), int(Slot::kMaxPly)));
  };
  game_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const PlyRecord& p = plies[i];
    if (!range_.holds(p.key)) continue;
    const Color mover = mover_at(i);
    BucketItem item;
    item.key = p.key;
    item.id = ids[int(mover)];
    item.games = 1;
    item.white_wins = game.result == store::Result::WhiteWins;
    item.draws = game.result == store::Result::Draw;
    item.black_wins = game.result == store::Result::BlackWins;
    if (elos[int(mover)] > 0) {
      item.rated_games = 1;
      item.elo_sum = std::uint64_t(elos[int(mover)]);
    }
    item.min_ply = ply_at(i);
    game_.push_back(item);  // the node
    const bool edge = p.move && i + 1 < n && !(side == Side::White && mover != Color::White) &&
                      !(side == Side::Black && mover != Color::Black);
    if (edge) {
      item.move = p.move.raw();
      item.occurrences = 1;
      item.score = store::play_score(game.result, mover);
      item.first_play =
          ordinal << kStampPlyBits | std::min<std::uint64_t>(ply_at(i), (1u << kStampPlyBits) - 1);
      game_.push_back(item);
    }
  }
  // A game counts once on a node and an edge however often it comes back;
  // every play counts in the Polyglot counts.
  std::sort(game_.begin(), game_.end(), bucket_item_less);
  std::size_t out = 0;
  for (std::size_t i = 0; i < game_.size(); ++i) {
    if (out > 0 && same_bucket(game_[out - 1], game_[i])) {
      BucketItem& a = game_[out - 1];
      a.occurrences += game_[i].occurrences;
      a.score += game_[i].score;
      a.min_ply = std::min(a.min_ply, game_[i].min_ply);
      a.first_play = std::min(a.first_play, game_[i].first_play);
    } else {
      game_[out++] = game_[i];
    }
  }
  game_.resize(out);
  if (items_.size() + game_.size() > capacity_) {
    compact();
    if (items_.size() + game_.size() > capacity_ / 2)
      if (auto e = spill()) return e;
  }
  items_.insert(items_.end(), game_.begin(), game_.end());
  return std::nullopt;
}

void BucketAggregator::compact() {
  std::sort(items_.begin(), items_.end(), bucket_item_less);
  sum_sorted(items_);
}

std::string BucketAggregator::next_path() {
  return run_file_path(spill_dir_, "b" + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-" +
                                       std::to_string(serial_++));
}

BuildStatus BucketAggregator::spill() {
  {
    std::string path = next_path();
    files_.push_back(path);
    levels_.push_back(0);
    BucketRunWriter writer(path);
    for (const BucketItem& item : items_) writer.add(item);
    if (auto e = writer.close()) return e;
  }
  ++spill_count_;
  items_.clear();
  // Merge the files of a level once there are kFilesPerMerge of them.
  for (int level = 0;; ++level) {
    std::vector<std::string> same;
    for (std::size_t i = 0; i < files_.size(); ++i)
      if (levels_[i] == level) same.push_back(files_[i]);
    if (same.size() < kFilesPerMerge) return std::nullopt;
    std::string path = next_path();
    {
      KWay merge(same, nullptr);
      if (auto e = merge.error()) return e;
      BucketRunWriter writer(path);
      BucketItem item, last{};
      bool has = false;
      while (merge.next(item)) {
        if (has && same_bucket(last, item)) {
          add_item(last, item);
          continue;
        }
        if (has) writer.add(last);
        last = item;
        has = true;
      }
      if (has) writer.add(last);
      if (auto e = writer.close()) {
        ::unlink(path.c_str());
        return e;
      }
      if (auto e = merge.error()) {
        ::unlink(path.c_str());
        return e;
      }
    }
    std::vector<std::string> kept_files;
    std::vector<int> kept_levels;
    for (std::size_t i = 0; i < files_.size(); ++i) {
      if (levels_[i] == level) {
        ::unlink(files_[i].c_str());
      } else {
        kept_files.push_back(files_[i]);
        kept_levels.push_back(levels_[i]);
      }
    }
    kept_files.push_back(path);
    kept_levels.push_back(level + 1);
    files_.swap(kept_files);
    levels_.swap(kept_levels);
  }
}

BuildStatus BucketAggregator::finish() {
  compact();
  items_.shrink_to_fit();
  return std::nullopt;
}

struct BucketMerger::Stream {
  KWay merge;
  Stream(const std::vector<std::string>& files, const std::vector<BucketItem>* memory)
      : merge(files, memory) {}
};

BucketMerger::BucketMerger(std::vector<const BucketAggregator*> aggregators)
    : aggregators_(std::move(aggregators)) {}

BucketMerger::~BucketMerger() = default;

void BucketMerger::restart() {
  thread_ = 0;
  stream_.reset();
  has_pending_ = has_head_ = false;
  error_.reset();
}

bool BucketMerger::open_thread() {
  while (thread_ < aggregators_.size()) {
    const BucketAggregator* a = aggregators_[thread_++];
    stream_ = std::make_unique<Stream>(a->files(), &a->memory());
    if (auto e = stream_->merge.error()) {
      error_ = e;
      return false;
    }
    return true;
  }
  return false;
}

bool BucketMerger::next_item(BucketItem& out) {
  // The threads' key ranges are in key order: their streams one after another.
  for (;;) {
    BucketItem item;
    if (stream_ && stream_->merge.next(item)) {
      if (has_pending_ && same_bucket(pending_, item)) {
        add_item(pending_, item);
        continue;
      }
      if (has_pending_) {
        out = pending_;
        pending_ = item;
        return true;
      }
      pending_ = item;
      has_pending_ = true;
      continue;
    }
    if (stream_ && stream_->merge.error()) {
      error_ = stream_->merge.error();
      return false;
    }
    if (open_thread()) continue;
    if (error_) return false;
    if (!has_pending_) return false;
    out = pending_;
    has_pending_ = false;
    return true;
  }
}

bool BucketMerger::next(Key& key, std::vector<store::BucketEntry>& entries) {
  entries.clear();
  if (!has_head_) {
    if (!next_item(head_)) return false;
    has_head_ = true;
  }
  key = head_.key;
  for (;;) {
    entries.push_back({head_.move, head_.id, counters_of(head_)});
    if (!next_item(head_)) {
      has_head_ = false;
      return !error_;
    }
    if (head_.key != key) return true;
  }
}

}  // namespace gb::builder
