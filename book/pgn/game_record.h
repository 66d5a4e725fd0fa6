// The easy entry point: whole games as plain values.
//
//   gb::pgn::ReadSummary s = gb::pgn::read_games("twic.pgn", [](const gb::pgn::GameRecord& g) {
//     for (const auto& ply : g.mainline) use(ply.key_before, ply.move);
//   });
//
// Every kept game is passed to the callback (skipped ones are counted in the
// summary with their errors). The record is reused from game to game: copy
// what you keep beyond the call.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "book/pgn/reader.h"

namespace gb::pgn {

struct GameRecord {
  struct Ply {
    Move move;       // Move() for a null move (only with ReadOptions::keep_null_move_games)
    Key key_before;  // the Polyglot key of the position the move is played from
  };

  std::string file;
  std::uint64_t line = 0;                                 // where the game starts
  std::uint64_t game_number = 0;                          // 1-based within the file
  std::vector<std::pair<std::string, std::string>> tags;  // in file order
  Position start;                                         // from [FEN], else the standard start
  std::vector<Ply> mainline;
  Position final_position;
  Outcome outcome = Outcome::Unknown;  // termination token, else [Result], else "*"
  bool error = false;                  // kept up to a bad move (ReadOptions::keep_games_up_to_error)

  // The value of a tag; empty when absent.
  std::string_view tag(std::string_view name) const;
};

using GameCallback = std::function<void(const GameRecord&)>;

// A visitor that fills a GameRecord (mainline only) and calls back per kept game.
class GameRecordVisitor : public VisitorBase {
 public:
  explicit GameRecordVisitor(GameCallback callback) : callback_(std::move(callback)) {}

  void begin_game(const GameLocation& loc);
  void tag(std::string_view name, std::string_view value);
  Control begin_movetext(const Position& start) {
    record_.start = start;
    return Control::Continue;
  }
  Control move(const MoveEvent& e) {
    record_.mainline.push_back(GameRecord::Ply{e.move, e.before.key()});
    return Control::Continue;
  }
  void end_game(const GameEnd& end);

 private:
  GameCallback callback_;
  GameRecord record_;
  std::size_t tag_count_ = 0;  // tags_ entries in use (their strings are reused)
};

// Reads every game of one input ("-" is stdin; .zst is decompressed).
// A file that cannot be opened or read is listed in summary.input_errors.
ReadSummary read_games(const std::string& path, const GameCallback& callback,
                       const ReadOptions& options = {});
ReadSummary read_games(ByteSource source, const GameCallback& callback, const ReadOptions& options = {});
// Many inputs in one run, one after the other; the summary adds them up.
ReadSummary read_games(const std::vector<std::string>& paths, const GameCallback& callback,
                       const ReadOptions& options = {});

}  // namespace gb::pgn
