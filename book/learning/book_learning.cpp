#include "book/learning/book_learning.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "book/pgn/game_record.h"
#include "book/store/fingerprint.h"
#include "book/store/section_groups.h"

namespace gb::learning {

namespace {

using store::Status;

// A game as learning needs it, read before the write transaction.
struct LearnGame {
  char fingerprint_key[17];
  char moves_key[17];  // 'M' + the start, moves and result alone: the adapter's record of the game
  std::vector<std::pair<Key, Move>> plies;
  Color first_mover;
  pgn::Outcome outcome;
  std::uint8_t sides;  // bit 0 White, bit 1 Black
};

// What the learn database keeps for a learned game (17-byte key 'G' + fingerprint).
struct LearnedGame {
  std::uint16_t plies = 0;         // moves credited from the start: the game left the book after them
  std::uint8_t sides = 0;          // bit 0 White, bit 1 Black
  std::uint8_t outcome = 0;        // pgn::Outcome
  std::uint8_t adapter_sides = 0;  // sides the UCI adapter had learned (claimed from its 'M' record)
  std::uint8_t reserved[3] = {};
  std::int64_t learned_at = 0;
};
static_assert(sizeof(LearnedGame) == 16);

// What the learn database keeps under 'M' + moves fingerprint: the UCI
// adapter's games with these moves and this result, per side it played, and
// how many of them `learn` has matched to a PGN game since.
struct AdapterGames {
  std::uint32_t learned[2] = {0, 0};
  std::uint32_t claimed[2] = {0, 0};
};
static_assert(sizeof(AdapterGames) == 16);

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::uint8_t selected_sides(const pgn::GameRecord& g, const LearnOptions& o) {
  std::uint8_t sides = 0;
  for (Color c : {Color::White, Color::Black}) {
    if (o.side && *o.side != c) continue;
    if (!o.player.empty() && !same_name(g.tag(c == Color::White ? "White" : "Black"), o.player)) continue;
    sides |= std::uint8_t(1 << int(c));
  }
  return sides;
}

void fingerprint(const pgn::GameRecord& g, char out[17]) {
  std::vector<std::uint16_t> moves;
  for (const auto& ply : g.mainline) moves.push_back(ply.move.raw());
  std::string scratch;
  store::Fingerprint fp =
      store::game_fingerprint({g.tag("White"), g.tag("Black"), g.tag("Date"), g.tag("Round"), g.tag("Event")},
                              g.start.key(), moves, scratch);
  out[0] = 'G';
  std::memcpy(out + 1, store::FingerprintKey(fp).bytes, 16);
}

// The game without its tags: what the adapter and the GUI's PGN agree on.
void moves_fingerprint(const pgn::GameRecord& g, char out[17]) {
  std::vector<std::uint16_t> moves;
  for (const auto& ply : g.mainline) moves.push_back(ply.move.raw());
  std::string scratch;
  store::Fingerprint fp =
      store::game_fingerprint({"", "", "", "", pgn::to_string(g.outcome)}, g.start.key(), moves, scratch);
  out[0] = 'M';
  std::memcpy(out + 1, store::FingerprintKey(fp).bytes, 16);
}

// 1 win, 2 draw, 3 loss of the mover (LearnRecord::last_result).
std::uint8_t result_for(pgn::Outcome o, Color mover) {
  if (o == pgn::Outcome::Draw) return 2;
  bool white_won = o == pgn::Outcome::WhiteWins;
  return (white_won == (mover == Color::White)) ? 1 : 3;
}

// Adds (sign +1) or removes (-1) one result to the record under key.
Status apply(store::WriteTxn& txn, MDB_dbi learn, std::string_view key, std::uint8_t result, int sign,
             std::int64_t now) {
  store::LearnRecord r;
  store::Error error;
  if (auto v = txn.get(learn, key, &error)) (void)store::from_bytes(*v, r);
  if (error.code) return error;
  std::uint32_t* counter = result == 1 ? &r.wins : result == 2 ? &r.draws : &r.losses;
  if (sign > 0) {
    ++*counter;
    r.last_result = result;
    r.last_played = now;
  } else {
    if (*counter > 0) --*counter;
    if (r.wins + r.draws + r.losses == 0) return txn.del(learn, key);
  }
  return txn.put(learn, key, store::as_bytes(r));
}

// Credits (or takes back) the first `plies` moves of the game for the selected sides.
Status credit(store::WriteTxn& txn, const store::Databases& dbs, const LearnGame& g, std::size_t plies,
              std::uint8_t sides, int sign, std::int64_t now, std::uint64_t& moves) {
  Color mover = g.first_mover;
  for (std::size_t i = 0; i < plies; ++i, mover = ~mover) {
    if (!(sides & (1 << int(mover)))) continue;
    auto [key, move] = g.plies[i];
    std::uint8_t result = result_for(g.outcome, mover);
    if (auto s = apply(txn, dbs.learn, store::EdgeKey(key, move.raw()).view(), result, sign, now)) return s;
    if (auto s = apply(txn, dbs.learn, store::EdgeKey(key, 0).view(), result, sign, now)) return s;
    ++moves;
  }
  return std::nullopt;
}

// True when the section of key in the positions database has an edge for move.
bool has_edge(store::SectionFinder& positions, Key key, Move move, store::Error& error) {
  auto v = positions.find(key, &error);
  if (!v) return false;
  store::SectionReader section(*v);
  for (std::uint16_t m; section.next(m);)
    if (m == move.raw()) return true;
  return false;
}

// How many moves from the start are edges of the book.
std::size_t plies_in_book(const store::Txn& txn, MDB_dbi positions, const LearnGame& g, store::Error& error) {
  auto finder = store::SectionFinder::open(txn, positions, &error);
  if (!finder) return 0;
  std::size_t n = 0;
  for (; n < g.plies.size() && n < 0xffff; ++n) {
    auto [key, move] = g.plies[n];
    if (!move || !has_edge(*finder, key, move, error)) break;
  }
  return n;
}

// The adapter's record of games with g's moves and result (all zero when none).
Status adapter_games(const store::WriteTxn& txn, MDB_dbi learn, const LearnGame& g, AdapterGames& out) {
  out = AdapterGames{};
  store::Error error;
  if (auto v = txn.get(learn, std::string_view(g.moves_key, 17), &error)) (void)store::from_bytes(*v, out);
  if (error.code) return error;
  return std::nullopt;
}

// Takes one of the adapter's games with g's moves for each of sides it played
// and no PGN game has claimed yet; returns the sides taken.
Status claim_adapter_sides(store::WriteTxn& txn, MDB_dbi learn, const LearnGame& g, std::uint8_t sides,
                           std::uint8_t& taken) {
  taken = 0;
  AdapterGames record;
  if (auto st = adapter_games(txn, learn, g, record)) return st;
  for (int side : {0, 1})
    if ((sides & (1 << side)) && record.claimed[side] < record.learned[side]) {
      ++record.claimed[side];
      taken |= std::uint8_t(1 << side);
    }
  if (!taken) return std::nullopt;
  return txn.put(learn, std::string_view(g.moves_key, 17), store::as_bytes(record));
}

// unlearn gives the claims of a PGN game back: a later learn of it finds them again.
Status release_adapter_sides(store::WriteTxn& txn, MDB_dbi learn, const LearnGame& g, std::uint8_t sides) {
  if (!sides) return std::nullopt;
  AdapterGames record;
  if (auto st = adapter_games(txn, learn, g, record)) return st;
  for (int side : {0, 1})
    if ((sides & (1 << side)) && record.claimed[side] > 0) --record.claimed[side];
  return txn.put(learn, std::string_view(g.moves_key, 17), store::as_bytes(record));
}

// The adapter learned g for sides: a PGN game with its moves and result may claim them.
Status record_adapter_sides(store::WriteTxn& txn, MDB_dbi learn, const LearnGame& g, std::uint8_t sides) {
  AdapterGames record;
  if (auto st = adapter_games(txn, learn, g, record)) return st;
  for (int side : {0, 1})
    if (sides & (1 << side)) ++record.learned[side];
  return txn.put(learn, std::string_view(g.moves_key, 17), store::as_bytes(record));
}

Status learn_one(store::WriteTxn& txn, const store::Databases& dbs, const LearnGame& g, bool adapter_game,
                 std::int64_t now, LearnSummary& s) {
  std::string_view fp(g.fingerprint_key, 17);
  store::Error error;
  auto known = txn.get(dbs.learn, fp, &error);
  if (error.code) return error;
  if (known) {
    ++s.already;
    return std::nullopt;
  }
  std::size_t plies = plies_in_book(txn, dbs.positions, g, error);
  if (error.code) return error;
  if (plies == 0) {
    ++s.out_of_book;
    return std::nullopt;
  }
  std::uint8_t claimed = 0;
  if (!adapter_game)
    if (auto st = claim_adapter_sides(txn, dbs.learn, g, g.sides, claimed)) return st;
  std::uint8_t sides = g.sides & std::uint8_t(~claimed);
  s.adapter_sides += (claimed & 1) + (claimed >> 1 & 1);
  if (sides)
    if (auto st = credit(txn, dbs, g, plies, sides, +1, now, s.moves_credited)) return st;
  if (adapter_game)
    if (auto st = record_adapter_sides(txn, dbs.learn, g, sides)) return st;
  LearnedGame record{std::uint16_t(sides ? plies : 0), sides, std::uint8_t(g.outcome), claimed, {}, now};
  if (auto st = txn.put(dbs.learn, fp, store::as_bytes(record))) return st;
  ++(sides ? s.games_changed : s.already);  // every selected side was learned by the adapter before
  return std::nullopt;
}

Status unlearn_one(store::WriteTxn& txn, const store::Databases& dbs, const LearnGame& g, std::int64_t now,
                   LearnSummary& s) {
  std::string_view fp(g.fingerprint_key, 17);
  store::Error error;
  auto known = txn.get(dbs.learn, fp, &error);
  if (error.code) return error;
  LearnedGame record;
  if (!known || !store::from_bytes(*known, record)) {
    ++s.already;
    return std::nullopt;
  }
  std::size_t plies = std::min<std::size_t>(record.plies, g.plies.size());
  if (auto st = credit(txn, dbs, g, plies, record.sides, -1, now, s.moves_credited)) return st;
  if (auto st = release_adapter_sides(txn, dbs.learn, g, record.adapter_sides)) return st;
  if (auto st = txn.del(dbs.learn, fp)) return st;
  ++s.games_changed;
  return std::nullopt;
}

Status learn_games(store::WriteTxn& txn, const store::Databases& dbs, const std::vector<LearnGame>& games,
                   LearnDirection direction, const LearnOptions& options, LearnSummary& s) {
  for (const LearnGame& g : games) {
    Status st = direction == LearnDirection::Learn
                    ? learn_one(txn, dbs, g, options.adapter_games, options.now, s)
                    : unlearn_one(txn, dbs, g, options.now, s);
    if (st) return st;
  }
  return std::nullopt;
}

}  // namespace

LearnStatus learn_file(store::Book& book, const std::string& pgn_path, const LearnOptions& options,
                       LearnDirection direction, LearnSummary& summary) {
  std::vector<LearnGame> games;
  pgn::ReadSummary read = pgn::read_games(pgn_path, [&](const pgn::GameRecord& g) {
    ++summary.games_read;
    if (g.outcome == pgn::Outcome::Unknown) {
      ++summary.no_result;
      return;
    }
    LearnGame lg;
    lg.sides = direction == LearnDirection::Learn ? selected_sides(g, options) : 3;
    if (!lg.sides) {
      ++summary.not_selected;
      return;
    }
    fingerprint(g, lg.fingerprint_key);
    moves_fingerprint(g, lg.moves_key);
    for (const auto& ply : g.mainline) lg.plies.emplace_back(ply.key_before, ply.move);
    lg.first_mover = g.start.side_to_move();
    lg.outcome = g.outcome;
    games.push_back(std::move(lg));
  });
  if (!read.input_errors.empty()) return LearnError{LearnError::Code::Games, read.input_errors.front()};
  summary.games_read += read.games_skipped;
  summary.games_skipped = read.games_skipped;
  for (const auto& e : read.stored_errors) summary.errors.push_back(e.message());
  for (const auto& w : read.stored_warnings) summary.errors.push_back(w.message());

  LearnSummary counted;
  Status s = book.write([&](store::WriteTxn& txn) {
    counted = LearnSummary{};  // the batch may run again after the map grows
    return learn_games(txn, book.dbs(), games, direction, options, counted);
  });
  if (s) return LearnError{LearnError::Code::Book, book.path() + ": " + s->message()};
  summary.games_changed = counted.games_changed;
  summary.already = counted.already;
  summary.adapter_sides = counted.adapter_sides;
  summary.out_of_book = counted.out_of_book;
  summary.moves_credited = counted.moves_credited;
  return std::nullopt;
}

std::optional<std::uint64_t> reset_learning(store::Book& book, LearnError* error) {
  std::uint64_t removed = 0;
  Status s = book.write([&](store::WriteTxn& txn) -> Status {
    MDB_stat st;
    if (auto e = txn.stat(book.dbs().learn, st)) return e;
    removed = st.ms_entries;
    return txn.drop(book.dbs().learn);
  });
  if (s) {
    *error = {LearnError::Code::Book, book.path() + ": " + s->message()};
    return std::nullopt;
  }
  return removed;
}

}  // namespace gb::learning
