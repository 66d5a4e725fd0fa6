#include "uci-adapter/session.h"

#include <cassert>
#include <chrono>

#include "book/chess/notation.h"
#include "book/explore/book_reader.h"

namespace gb::uci_adapter {

namespace {

std::uint64_t seed_from(std::uint64_t seed) {
  if (seed) return seed;
  return std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
}

// The position command continues the game when it starts from the same
// position and repeats its moves; the last one may differ (a ponder miss
// replaces the predicted move).
bool continues(const std::string& fen, const std::vector<Move>& old_moves, const std::string& new_fen,
               const std::vector<Move>& new_moves) {
  if (fen != new_fen || old_moves.empty()) return fen == new_fen;
  std::size_t need = old_moves.size() - 1;
  if (new_moves.size() < need) return false;
  for (std::size_t i = 0; i < need; ++i)
    if (old_moves[i] != new_moves[i]) return false;
  return true;
}

}  // namespace

Session::Session(BookOptions options)
    : options_(std::move(options)), buckets_(bucket_filter(options_)), rng_(seed_from(options_.seed)) {
  compile_filter(nullptr);
}

std::optional<store::FilterError> Session::bucket_refusal(store::Book& b,
                                                          std::optional<store::BucketFilter>& f) {
  if (!f) return std::nullopt;
  store::Error error;
  auto reader = explore::BookReader::open(b, &error);
  if (!reader) return store::FilterError{options_.file + ": " + error.message()};
  if (auto refusal = store::filter_refusal(options_.file, reader->bucket_params(), *f)) return refusal;
  if (auto unknown = store::resolve_weights(*f, b.sources()))
    return store::FilterError{options_.file + ": " + unknown->message};
  return std::nullopt;
}

void Session::set_bucket_option(const SetOption& set, Outbox& out) {
  BookOptions changed = options_;
  if (auto error = apply_option(changed, set.name, set.value))
    return say(out, "graphbook: " + error->message);
  auto filter = bucket_filter(changed);
  // Checked against the book now (opened if it is not yet), so that the GUI
  // hears at once; the option keeps its value.
  if (store::Book* b = book(out))
    if (auto refusal = bucket_refusal(*b, filter))
      return say(out, "graphbook: " + set.name + ": " + refusal->message + "; the option keeps its value");
  options_ = std::move(changed);
  buckets_ = filter;
  buckets_refused_ = false;
}

void Session::compile_filter(Outbox* out) {
  AdapterError error;
  if (auto compiled = BookFilter::compile(options_.filter, &error)) {
    filter_ = *compiled;
    return;
  }
  filter_ = BookFilter();
  std::string message = error.message;
  for (char& c : message)
    if (c == '\n') c = ' ';
  if (out)
    say(*out, "graphbook: BookFilter ignored: " + message);
  else
    held_.push_back(info_string("graphbook: BookFilter ignored: " + message));
}

store::Book* Session::book(Outbox& out) {
  if (!options_.own_book && !options_.learning) return nullptr;
  if (options_.file.empty()) return nullptr;
  bool need_write = options_.learning;
  // A book rebuilt meanwhile is a new file renamed over the one open here:
  // the new one is opened, or the games learned would go into the old file,
  // which is gone once this session closes it.
  const bool replaced = book_ && !book_->still_at_path();
  if (book_opened_ == options_.file && (book_ || book_failed_) &&
      !(need_write && book_ && book_->read_only()) && !replaced)
    return book_ ? &*book_ : nullptr;
  book_.reset();
  book_opened_ = options_.file;
  store::BookError error;
  book_ = store::Book::open(options_.file,
                            need_write ? store::OpenMode::ReadWrite : store::OpenMode::ReadOnly, &error);
  book_failed_ = !book_;
  if (!book_) say(out, "graphbook: no book: " + error.message);
  buckets_refused_ = false;
  if (book_)
    if (auto refusal = bucket_refusal(*book_, buckets_)) {
      buckets_refused_ = true;
      say(out, "graphbook: no book moves: " + refusal->message +
                   " (or clear BookRatings, BookSpeeds, BookSince and BookUntil)");
    }
  return book_ ? &*book_ : nullptr;
}

void Session::on_gui_line(std::string_view line, Outbox& out) {
  switch (command_of(line)) {
    case GuiCommand::Uci: return on_uci(line, out);
    case GuiCommand::SetOption: return on_setoption(line, out);
    case GuiCommand::Position: return on_position(line, out);
    case GuiCommand::Go: return on_go(line, out);
    case GuiCommand::Stop: return on_stop(line, out);
    case GuiCommand::PonderHit: return on_ponderhit(line, out);
    case GuiCommand::UciNewGame:
      end_book_ponder(out);
      close_game(out);
      game_ = Game{};
      out.to_engine.emplace_back(line);
      return;
    case GuiCommand::Quit:
      end_book_ponder(out);  // Stockfish too ends a ponder search with its bestmove on quit
      close_game(out);
      out.to_engine.emplace_back(line);
      out.quit = true;
      return;
    case GuiCommand::IsReady:
      ++replies_owed_;
      out.to_engine.emplace_back(line);
      return;
    case GuiCommand::Debug:
    case GuiCommand::Register:
    case GuiCommand::Unknown: out.to_engine.emplace_back(line); return;
  }
}

void Session::on_uci(std::string_view line, Outbox& out) {
  in_handshake_ = true;
  ++replies_owed_;
  out.to_engine.emplace_back(line);
}

void Session::on_setoption(std::string_view line, Outbox& out) {
  auto set = parse_setoption(line);
  if (set && (same_name(set->name, "BookRatings") || same_name(set->name, "BookSpeeds") ||
              same_name(set->name, "BookSince") || same_name(set->name, "BookUntil") ||
              same_name(set->name, "BookWeights")))
    return set_bucket_option(*set, out);
  if (set && is_our_option(set->name)) {
    if (auto error = apply_option(options_, set->name, set->value)) say(out, "graphbook: " + error->message);
    if (same_name(set->name, "BookFilter")) compile_filter(&out);
    // A book that cannot be opened is said at once, not at the first go.
    if (same_name(set->name, "BookFile") || same_name(set->name, "BookLearning")) (void)book(out);
    return;
  }
  if (set && same_name(set->name, "Ponder")) ponder_option_ = same_name(set->value, "true");
  if (set && same_name(set->name, "UCI_Chess960")) chess960_ = same_name(set->value, "true");
  out.to_engine.emplace_back(line);
}

void Session::end_book_ponder(Outbox& out) {
  if (search_ != Search::BookPonder) return;
  assert(ponder_answer_);  // BookPonder holds the book's answer
  write_book_answer(*ponder_answer_, out);
  search_ = Search::Idle;
}

void Session::on_position(std::string_view line, Outbox& out) {
  end_book_ponder(out);
  out.to_engine.emplace_back(line);
  auto cmd = parse_position(line);
  Game next;
  if (!cmd) {
    close_game(out);
    game_ = next;
    return;
  }
  next.fen = cmd->fen;
  std::optional<Position> pos = Position();
  if (!cmd->fen.empty()) {
    FenError error;
    pos = Position::from_fen(cmd->fen, &error);
    if (!pos) say(out, "graphbook: position not followed: " + error.message());
  }
  if (pos) {
    next.keys.push_back(pos->key());
    for (const auto& text : cmd->moves) {
      auto m = parse_uci(*pos, text);
      if (!m) {
        say(out, "graphbook: position not followed: illegal move " + text);
        pos.reset();
        break;
      }
      UndoInfo undo;
      pos->do_move(*m, undo);
      next.moves.push_back(*m);
      next.keys.push_back(pos->key());
    }
  }
  if (pos) {
    next.position = *pos;
    next.valid = true;
  }
  if (game_.valid && next.valid && continues(game_.fen, game_.played(), next.fen, next.moves)) {
    next.our_side = game_.our_side;
    next.finished = game_.finished;
  } else {
    close_game(out);
  }
  game_ = std::move(next);
  check_game_end(game_.position, game_.keys, game_.moves, out);
}

void Session::on_go(std::string_view line, Outbox& out) {
  end_book_ponder(out);
  GoCommand go = parse_go(line);
  bool limited = go.limited();
  if (limited && game_.valid && !game_.our_side) game_.our_side = game_.position.side_to_move();

  store::Book* b = options_.own_book && game_.valid ? book(out) : nullptr;
  if (buckets_refused_) b = nullptr;
  const store::BucketFilter* buckets = buckets_ ? &*buckets_ : nullptr;
  if (b && !limited) {
    auto candidates = book_candidates(*b, game_.position, buckets);
    if (!candidates.empty()) say(out, describe_all(candidates, chess960_));
  }
  std::optional<BookAnswer> answer;
  if (b && limited && game_.position.game_ply() < options_.depth) {
    explore::PickOptions pick{options_.policy, std::uint32_t(options_.min_games), 1.0};
    ExitGuard guard{options_.exit_margin, options_.lookahead, std::uint32_t(options_.min_games)};
    std::string left_because;
    answer = book_answer(*b, game_.position, pick, rng_, filter_, guard, &left_because, chess960_, buckets);
    if (!left_because.empty()) say(out, "graphbook: " + left_because);
    if (answer && !go.searchmoves.empty()) {
      bool allowed = false;
      for (const auto& s : go.searchmoves) {
        auto m = parse_uci(game_.position, s);
        allowed |= m && *m == answer->move;
      }
      if (!allowed) answer.reset();
    }
  }
  if (!answer) {
    out.to_engine.emplace_back(line);
    search_ = go.ponder ? Search::EnginePonder : Search::Engine;
    return;
  }
  if (go.ponder) {
    search_ = Search::BookPonder;
    ponder_answer_ = answer;
    return;
  }
  write_book_answer(*answer, out);
  our_move_played(to_uci(answer->move, chess960_), out);
}

void Session::on_stop(std::string_view line, Outbox& out) {
  switch (search_) {
    case Search::Idle: return;  // nothing searches: a stop after a book answer has no bestmove to give
    case Search::BookPonder:
      assert(ponder_answer_);
      // The GUI stops a ponder search; it wants one bestmove and will not play it.
      write_book_answer(*ponder_answer_, out);
      search_ = Search::Idle;
      return;
    case Search::Engine:
    case Search::EnginePonder: out.to_engine.emplace_back(line); return;
  }
}

void Session::on_ponderhit(std::string_view line, Outbox& out) {
  switch (search_) {
    case Search::Idle: return;
    case Search::BookPonder:
      assert(ponder_answer_);
      write_book_answer(*ponder_answer_, out);
      search_ = Search::Idle;
      our_move_played(to_uci(ponder_answer_->move, chess960_), out);
      return;
    case Search::EnginePonder:
      search_ = Search::Engine;
      out.to_engine.emplace_back(line);
      return;
    case Search::Engine: out.to_engine.emplace_back(line); return;
  }
}

void Session::write_book_answer(const BookAnswer& a, Outbox& out) {
  std::string move = to_uci(a.move, chess960_);
  std::string ponder;
  if (ponder_option_ && a.ponder) ponder = to_uci(a.ponder, chess960_);
  // No "info ... score" line: the book has results, not an evaluation, and a
  // score made from them (+10.00 for a one-game win) would be recorded in the
  // GUI's PGN and adjudicated on. Tournament managers treat a move without a
  // score as cutechess treats its own book moves (docs/UCI.md).
  emit(out, info_string(describe(a, game_.position, options_.policy, chess960_)));
  emit(out, bestmove_line(move, ponder));
}

void Session::on_engine_line(std::string_view line, Outbox& out) {
  if (in_handshake_) {
    if (auto name = option_name(line); name && is_our_option(*name)) return;  // ours replaces the engine's
    if (starts_with_word(line, "uciok")) {
      for (auto& option : option_lines(options_)) out.to_gui.push_back(std::move(option));
      in_handshake_ = false;
    }
  }
  if (replies_owed_ > 0 && (starts_with_word(line, "uciok") || starts_with_word(line, "readyok"))) {
    out.to_gui.emplace_back(line);
    if (--replies_owed_ == 0) {
      for (auto& held : held_) out.to_gui.push_back(std::move(held));
      held_.clear();
    }
    return;
  }
  if (auto best = parse_bestmove(line)) {
    out.to_gui.emplace_back(line);
    bool counts = search_ == Search::Engine;
    search_ = Search::Idle;
    if (counts) our_move_played(best->move, out);
    return;
  }
  out.to_gui.emplace_back(line);
}

void Session::emit(Outbox& out, std::string line) {
  assert(replies_owed_ >= 0 && (replies_owed_ > 0 || held_.empty()));  // lines wait only behind a reply
  if (replies_owed_ > 0)
    held_.push_back(std::move(line));
  else
    out.to_gui.push_back(std::move(line));
}

void Session::flush_held(Outbox& out) {
  replies_owed_ = 0;
  for (auto& held : held_) out.to_gui.push_back(std::move(held));
  held_.clear();
}

void Session::on_engine_gone(const std::optional<ExitStatus>& status, Outbox& out) {
  flush_held(out);
  say(out, "graphbook: the engine " + (status ? status->describe() : std::string("closed its output")) +
               "; the adapter ends");
  close_game(out);
  out.quit = true;
}

void Session::on_gui_closed(Outbox& out) {
  end_book_ponder(out);
  close_game(out);
  out.to_engine.emplace_back("quit");
  out.quit = true;
}

void Session::our_move_played(std::string_view uci_move, Outbox& out) {
  if (!game_.valid || game_.finished) return;
  auto m = parse_uci(game_.position, uci_move);
  if (!m) return;
  game_.our_move = *m;
  Position next = game_.position;
  UndoInfo undo;
  next.do_move(*m, undo);
  auto keys = game_.keys;
  keys.push_back(next.key());
  check_game_end(next, keys, game_.played(), out);
}

void Session::check_game_end(const Position& pos, const std::vector<Key>& keys,
                             const std::vector<Move>& played, Outbox& out) {
  if (!game_.valid || game_.finished || played.empty()) return;
  Termination t = termination(pos, keys);
  if (t == Termination::None) return;
  game_.finished = true;
  if (!options_.learning || !game_.our_side) return;
  store::Book* b = book(out);
  if (!b) return;
  Outcome outcome = outcome_for(pos, t, *game_.our_side);
  LearnSummary summary;
  if (auto error =
          learn_game(*b, learning::PlayedGame{game_.fen, played}, *game_.our_side, outcome, &summary)) {
    say(out, "graphbook: learning failed: " + error->message);
    return;
  }
  const char* result = outcome == Outcome::Win ? "win" : outcome == Outcome::Draw ? "draw" : "loss";
  say(out, "graphbook: game over by " + std::string(to_string(t)) + ", learned a " + result + " for " +
               (*game_.our_side == Color::White ? "white" : "black") + " on " +
               std::to_string(summary.moves_learned) + " book moves");
}

void Session::close_game(Outbox& out) {
  // A game the GUI gave no move of (a bare FEN each turn) cannot be found in a PGN later: not recorded.
  if (!game_.valid || game_.finished || game_.moves.empty() || !game_.our_side || !options_.learning) return;
  game_.finished = true;
  store::Book* b = book(out);
  if (!b) return;
  if (auto error = learning::record_pending_game(*b, learning::PlayedGame{game_.fen, game_.played()},
                                                 *game_.our_side, bool(game_.our_move)))
    say(out, "graphbook: recording the game as pending failed: " + error->message());
}

}  // namespace gb::uci_adapter
