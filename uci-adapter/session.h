// The adapter's state machine between the GUI and the engine. It sees lines
// and says which lines go where; it does no I/O of its own except the book
// (reads, and learning writes). The process loop (run.h) feeds it.
//
// Every GUI line passes to the engine unchanged and every engine line to the
// GUI unchanged, except: the handshake (our options before "uciok"),
// setoption for our options (kept here), a limited "go" the book answers
// (info, info string, bestmove written here; the engine never sees that go),
// and "stop"/"ponderhit" that belong to a book answer. Each "go" gets exactly
// one "bestmove".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/chess/position.h"
#include "book/store/book.h"
#include "uci-adapter/book_moves.h"
#include "uci-adapter/engine_process.h"
#include "uci-adapter/game_end.h"
#include "uci-adapter/learning.h"
#include "uci-adapter/options.h"
#include "uci-adapter/protocol.h"

namespace gb::uci_adapter {

// What one input produced, in order per direction.
struct Outbox {
  std::vector<std::string> to_gui;
  std::vector<std::string> to_engine;
  bool quit = false;  // the adapter should end (quit, or the engine is gone)
};

class Session {
 public:
  explicit Session(BookOptions options);

  void on_gui_line(std::string_view line, Outbox& out);
  void on_engine_line(std::string_view line, Outbox& out);
  // The engine closed its output or exited; status when it was reaped.
  void on_engine_gone(const std::optional<ExitStatus>& status, Outbox& out);
  // The GUI closed our input (like quit).
  void on_gui_closed(Outbox& out);
  // The engine will answer nothing more (it was told to quit): the adapter's
  // lines still waiting behind its replies go to the GUI now.
  void flush_held(Outbox& out);

  const BookOptions& options() const { return options_; }

 private:
  enum class Search {
    Idle,
    Engine,        // the engine searches a go we forwarded
    EnginePonder,  // ... a "go ponder" not yet hit
    BookPonder,    // a "go ponder" the book answers at ponderhit or stop
  };

  void on_uci(std::string_view line, Outbox& out);
  void on_setoption(std::string_view line, Outbox& out);
  void on_position(std::string_view line, Outbox& out);
  void on_go(std::string_view line, Outbox& out);
  void on_stop(std::string_view line, Outbox& out);
  void on_ponderhit(std::string_view line, Outbox& out);

  // The book, opened on first use; nullptr when absent or unreadable (said once).
  store::Book* book(Outbox& out);
  void write_book_answer(const BookAnswer& a, Outbox& out);
  // A book ponder answer still owed when the GUI moves on without stop or
  // ponderhit (ucinewgame, position, go): its bestmove is written first, so
  // that every go still gets exactly one.
  void end_book_ponder(Outbox& out);
  // Our move was played: the game goes on from it, and may end on the board.
  void our_move_played(std::string_view uci_move, Outbox& out);
  // The game may have ended on the board at pos (history: keys, pos last)
  // after the moves played; then it is learned.
  void check_game_end(const Position& pos, const std::vector<Key>& keys, const std::vector<Move>& played,
                      Outbox& out);
  void close_game(Outbox& out);
  void say(Outbox& out, std::string text) { emit(out, info_string(text)); }
  // A line of the adapter's own for the GUI. While the engine still owes a
  // reply (uciok, readyok) to an earlier command, it waits behind that reply,
  // so the GUI sees answers in the order of its commands.
  void emit(Outbox& out, std::string line);

  // Compiles options_.filter; an invalid query is reported and filters nothing.
  void compile_filter(Outbox* out);
  // Why book b cannot answer the bucket filter (no buckets, months of a book
  // of years), nullopt when it can or none is set.
  // Resolves the filter's weights against the book's sources.
  std::optional<store::FilterError> bucket_refusal(store::Book& b, std::optional<store::BucketFilter>& f);
  // setoption of BookRatings, BookSpeeds, BookSince, BookUntil or BookWeights.
  void set_bucket_option(const SetOption& set, Outbox& out);

  BookOptions options_;
  BookFilter filter_;
  std::optional<store::BucketFilter> buckets_;  // of options_.buckets
  // The book open cannot answer buckets_: it plays no book moves (said at
  // its open) until the filter or the book changes.
  bool buckets_refused_ = false;
  explore::Rng rng_;
  std::optional<store::Book> book_;
  std::string book_opened_;  // the path book_ is (or failed to be) opened from
  bool book_failed_ = false;
  bool ponder_option_ = false;
  bool chess960_ = false;
  bool in_handshake_ = false;
  int replies_owed_ = 0;           // uci and isready forwarded, uciok and readyok not yet seen
  std::vector<std::string> held_;  // our lines waiting for those replies

  // The game the position commands describe.
  struct Game {
    std::string fen;          // as the GUI sent it; empty for startpos
    std::vector<Move> moves;  // from the last position command
    std::vector<Key> keys;    // the keys of every position, the current one last
    Position position;        // what the last position command set (a go searches it)
    bool valid = false;       // the position command could be played on a board
    std::optional<Color> our_side;
    Move our_move;          // our bestmove from that position, once given
    bool finished = false;  // ended on the board (and learned), or recorded
    // The game as far as the adapter knows it: the moves and our bestmove.
    std::vector<Move> played() const {
      auto all = moves;
      if (our_move) all.push_back(our_move);
      return all;
    }
  } game_;

  Search search_ = Search::Idle;
  std::optional<BookAnswer> ponder_answer_;  // the book's answer during BookPonder
};

}  // namespace gb::uci_adapter
