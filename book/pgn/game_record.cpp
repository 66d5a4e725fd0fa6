#include "book/pgn/game_record.h"

namespace gb::pgn {

std::string_view GameRecord::tag(std::string_view name) const {
  for (const auto& [n, v] : tags)
    if (n == name) return v;
  return {};
}

void GameRecordVisitor::begin_game(const GameLocation& loc) {
  record_.file.assign(loc.file);
  record_.line = loc.line;
  record_.game_number = loc.game_number;
  record_.mainline.clear();
  record_.start = Position();
  record_.outcome = Outcome::Unknown;
  record_.error = false;
  tag_count_ = 0;
}

void GameRecordVisitor::tag(std::string_view name, std::string_view value) {
  // Reuse the strings of earlier games: no allocation once they are large enough.
  if (tag_count_ == record_.tags.size()) record_.tags.emplace_back();
  auto& [n, v] = record_.tags[tag_count_++];
  n.assign(name);
  v.assign(value);
}

void GameRecordVisitor::end_game(const GameEnd& end) {
  if (end.skipped != SkipReason::None) return;
  record_.tags.resize(tag_count_);
  record_.final_position = end.final_position;
  record_.outcome = end.outcome;
  record_.error = end.error;
  callback_(record_);
}

ReadSummary read_games(ByteSource source, const GameCallback& callback, const ReadOptions& options) {
  PgnReader reader(std::move(source), options);
  GameRecordVisitor visitor(callback);
  reader.read_all(visitor);
  return reader.summary();
}

ReadSummary read_games(const std::string& path, const GameCallback& callback, const ReadOptions& options) {
  return read_games(ByteSource::open(path), callback, options);
}

ReadSummary read_games(const std::vector<std::string>& paths, const GameCallback& callback,
                       const ReadOptions& options) {
  ReadSummary total;
  for (const std::string& path : paths)
    total.merge(read_games(path, callback, options), options.max_stored_errors);
  return total;
}

}  // namespace gb::pgn
