// Generates lichess-like PGN collections of any size for the scale benchmark
// (bench/scale.sh, docs/SCALE.md). The same --games and --seed give the same
// bytes whatever --threads is: game g draws from its own generator, seeded by
// (seed, g), and the distributions are written out here rather than taken
// from <random>, whose distributions differ between standard libraries.
//
// A game (docs/SCALE.md, "The generator", gives the numbers and their sources):
// - tags: ratings, date, time control, event, termination with rough lichess
//   distributions;
// - its first plies drawn from the move frequencies of the openings PGN, up to
//   a "theory depth" drawn per game (deeper for stronger players): positions
//   that many games share, as the explorer's are;
// - then plausible play: every legal move weighted, captures by the value
//   taken, direct checks, castling and queen promotions up, mates in one
//   nearly always taken, captures by a more valuable piece on a defended
//   square and aimless king moves down;
// - an end on the board (mate, stalemate, insufficient material, threefold
//   repetition, fifty moves) or at its drawn length, where it is resigned or
//   lost on time by the side behind in material and rating, or drawn.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"
#include "book/pgn/reader.h"

using namespace gb;

namespace {

constexpr int kExitUsage = 2;  // README, "Exit status"

// xoshiro256** (Blackman and Vigna), seeded through splitmix64.
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t game) {
    std::uint64_t x = splitmix(seed) ^ (game * 0xD1B54A32D192ED03ULL);
    for (auto& s : s_) s = splitmix(x);
  }
  std::uint64_t next() {
    std::uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3], s_[2] ^= t, s_[3] = rotl(s_[3], 45);
    return result;
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::uint64_t below(std::uint64_t n) { return next() % n; }    // the bias is below n / 2^64
  double normal() {                                              // Box-Muller, one of the pair
    double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
  double exponential() { return -std::log(1.0 - uniform()); }
  double gamma(int shape, double scale) {  // an integer shape: a sum of exponentials
    double sum = 0;
    for (int i = 0; i < shape; ++i) sum += exponential();
    return sum * scale;
  }

 private:
  static std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  static std::uint64_t splitmix(std::uint64_t&& x) { return splitmix(x); }
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// The move frequencies of the first plies of an openings PGN, per position.
class OpeningTree {
 public:
  struct Entry {
    Move move;
    std::uint32_t games;
  };
  void add(Key key, Move move) {
    auto& entries = moves_[key];
    for (auto& e : entries)
      if (e.move == move) return void(++e.games);
    entries.push_back({move, 1});
  }
  const std::vector<Entry>* find(Key key) const {
    auto it = moves_.find(key);
    return it == moves_.end() ? nullptr : &it->second;
  }
  std::size_t positions() const { return moves_.size(); }

 private:
  std::unordered_map<Key, std::vector<Entry>> moves_;
};

struct OpeningVisitor : pgn::VisitorBase {
  OpeningTree& tree;
  int plies;
  std::uint64_t games = 0;
  OpeningVisitor(OpeningTree& t, int p) : tree(t), plies(p) {}
  pgn::Control begin_movetext(const Position& start) {
    // Games from a set-up position or Chess960 tell nothing about the start position's theory.
    if (start.chess960() || !(start == Position())) return pgn::Control::Skip;
    ++games;
    return pgn::Control::Continue;
  }
  pgn::Control move(const pgn::MoveEvent& e) {
    if (e.depth > 0) return pgn::Control::Continue;
    if (!e.move || e.ply >= plies) return pgn::Control::Skip;
    tree.add(e.before.key(), e.move);
    return pgn::Control::Continue;
  }
};

struct Options {
  std::uint64_t games = 1000, seed = 1;
  std::vector<std::string> openings;
  int book_plies = 40;
  double theory = 21;  // mean theory depth in plies at rating 1550
  double mean_plies = 71;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::string output, stats;
};

// ---- tags --------------------------------------------------------------

struct TimeControl {
  const char* tag;
  const char* speed;  // the word in lichess's Event tag
  int weight;         // per mille of games
};
// lichess's own classes: estimated duration base + 40 * increment seconds,
// below 30 UltraBullet, 180 Bullet, 480 Blitz, 1500 Rapid, else Classical.
constexpr TimeControl kTimeControls[] = {
    {"15+0", "UltraBullet", 10}, {"30+0", "Bullet", 30},      {"60+0", "Bullet", 200},
    {"60+1", "Bullet", 20},      {"120+1", "Bullet", 80},     {"180+0", "Blitz", 180},
    {"180+2", "Blitz", 100},     {"300+0", "Blitz", 100},     {"300+3", "Blitz", 70},
    {"600+0", "Rapid", 120},     {"600+5", "Rapid", 40},      {"900+10", "Rapid", 30},
    {"1800+0", "Classical", 10}, {"1800+20", "Classical", 5}, {"-", "Correspondence", 5},
};

// Games per year in lichess's database, in millions (rough): it grew about
// a hundredfold from 2014 to 2021.
constexpr int kFirstYear = 2013;
constexpr int kGamesPerYear[] = {1, 8, 30, 70, 140, 250, 440, 850, 1100, 1050, 1150, 1250, 1300};

int days_in_month(int year, int month) {
  constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return days[month - 1] + (month == 2 && year % 4 == 0);
}

int rating(double r) { return std::clamp(int(std::lround(r)), 600, 3200); }

// Draws index i with probability weights[i] / (their sum).
template <class T, std::size_t N, class F>
std::size_t pick_weighted(Rng& rng, const T (&items)[N], F weight) {
  std::uint64_t total = 0;
  for (const T& item : items) total += std::uint64_t(weight(item));
  std::uint64_t r = rng.below(total);
  for (std::size_t i = 0;; ++i) {
    if (r < std::uint64_t(weight(items[i]))) return i;
    r -= std::uint64_t(weight(items[i]));
  }
}

// ---- play --------------------------------------------------------------

constexpr int kValue[] = {0, 1, 3, 3, 5, 9, 0};  // by PieceType

int material(const Position& pos, Color c) {
  int sum = 0;
  for (int t = int(PieceType::Pawn); t <= int(PieceType::Queen); ++t)
    sum += kValue[t] * popcount(pos.pieces(c, PieceType(t)));
  return sum;
}

// 0 in the corners, 6 on the four centre squares.
int centrality(Square s) {
  return std::min<int>(file_of(s), 7 - file_of(s)) + std::min<int>(rank_of(s), 7 - rank_of(s));
}

// The plausible-play weight of a legal move (see the file comment). Checks
// are seen only when direct (no discovered checks): a weight, not a rule.
int move_weight(const Position& pos, Move m) {
  if (m.kind() == Move::Kind::Castling) return 40;
  if (m.kind() == Move::Kind::Promotion && m.promotion() != PieceType::Queen) return 1;
  Color us = pos.side_to_move(), them = ~us;
  PieceType piece = type_of(pos.piece_on(m.from()));
  PieceType victim = m.kind() == Move::Kind::EnPassant ? PieceType::Pawn : type_of(pos.piece_on(m.to()));
  int weight = 8 + 12 * kValue[int(victim)];
  // Quiet moves toward the centre and off the back rank (development) are preferred.
  if (piece != PieceType::King && piece != PieceType::Pawn)
    weight = std::max(2, weight + 4 * (centrality(m.to()) - centrality(m.from())) +
                             (relative_rank(us, rank_of(m.from())) == RANK_1 ? 8 : 0));
  if (piece == PieceType::Pawn && (file_of(m.from()) == FILE_D || file_of(m.from()) == FILE_E)) weight += 8;
  Bitboard occupied = (pos.pieces() ^ square_bb(m.from())) | square_bb(m.to());
  if (piece != PieceType::King && kValue[int(piece)] > kValue[int(victim)] &&
      pos.attacked_by(them, m.to(), occupied))
    weight = weight / 4 + 1;
  PieceType lands = m.kind() == Move::Kind::Promotion ? PieceType::Queen : piece;
  Bitboard attacks =
      lands == PieceType::Pawn ? pawn_attacks(us, m.to()) : attacks_bb(lands, m.to(), occupied);
  if (attacks & pos.pieces(them, PieceType::King)) {
    weight += 24;
    Position next = pos;
    UndoInfo undo;
    next.do_move(m, undo);
    if (count_legal(next) == 0) weight += 4000;  // mate in one
  }
  if (m.kind() == Move::Kind::Promotion) weight += 200;
  if (piece == PieceType::King && !pos.in_check()) weight = std::max(1, weight / 4);
  return weight;
}

// The move played: the openings' frequencies while the game is within its
// theory depth and the position is in the tree, plausible play otherwise.
Move choose_move(const Position& pos, const MoveList& legal, bool in_theory, const OpeningTree& openings,
                 Rng& rng, std::vector<int>& weights) {
  if (in_theory) {
    if (const auto* entries = openings.find(pos.key())) {
      std::uint64_t total = 0;
      for (const auto& e : *entries) total += e.games;
      std::uint64_t r = rng.below(total);
      for (const auto& e : *entries) {
        if (r < e.games) {
          if (legal.contains(e.move)) return e.move;  // else a key collision: play on
          break;
        }
        r -= e.games;
      }
    }
  }
  weights.clear();
  std::uint64_t total = 0;
  for (Move m : legal) total += std::uint64_t(weights.emplace_back(move_weight(pos, m)));
  std::uint64_t r = rng.below(total);
  for (std::size_t i = 0;; ++i) {
    if (r < std::uint64_t(weights[i])) return legal[i];
    r -= std::uint64_t(weights[i]);
  }
}

enum class End { Mate, Stalemate, InsufficientMaterial, Repetition, FiftyMoves, Length };

// Whether the position (the last of history) occurred twice before since the
// last capture or pawn move.
bool threefold(const std::vector<Key>& history, int halfmove_clock) {
  std::size_t last = history.size() - 1,
              first = last - std::min<std::size_t>(last, std::size_t(halfmove_clock));
  int seen = 0;
  for (std::size_t i = first; i < last; ++i) seen += history[i] == history[last];
  return seen >= 2;
}

struct Stats {
  std::uint64_t games = 0, plies = 0, white = 0, black = 0, draws = 0, mates = 0, time_forfeits = 0;
  std::vector<std::uint64_t> time_controls = std::vector<std::uint64_t>(std::size(kTimeControls));
  double elo_sum = 0, elo_squares = 0;
  std::vector<Key> keys, keys40;  // the position after every ply, and after each of the first 40
  void add(Stats&& o) {
    games += o.games, plies += o.plies, white += o.white, black += o.black, draws += o.draws;
    mates += o.mates, time_forfeits += o.time_forfeits, elo_sum += o.elo_sum, elo_squares += o.elo_squares;
    for (std::size_t i = 0; i < time_controls.size(); ++i) time_controls[i] += o.time_controls[i];
    keys.insert(keys.end(), o.keys.begin(), o.keys.end());
    keys40.insert(keys40.end(), o.keys40.begin(), o.keys40.end());
    o = Stats();
  }
};

void tag(std::string& out, const char* name, std::string_view value) {
  out += '[';
  out += name;
  out += " \"";
  out += value;
  out += "\"]\n";
}

std::string two_digits(int v) { return {char('0' + v / 10), char('0' + v % 10)}; }

// Appends game number `index` (0-based) to out.
void generate_game(const Options& opt, const OpeningTree& openings, std::uint64_t index, std::string& out,
                   Stats* stats, std::vector<int>& weights, std::vector<Key>& history) {
  Rng rng(opt.seed, index);
  const int white_elo = rating(1550 + 300 * rng.normal());
  const int black_elo = rating(white_elo + 100 * rng.normal());  // lichess pairs similar ratings
  const TimeControl& tc = kTimeControls[pick_weighted(rng, kTimeControls, [](auto& t) { return t.weight; })];
  const int year = kFirstYear + int(pick_weighted(rng, kGamesPerYear, [](int w) { return w; }));
  const int month = 1 + int(rng.below(12)),
            day = 1 + int(rng.below(std::uint64_t(days_in_month(year, month))));
  const std::uint64_t seconds = rng.below(86400);
  // Players from a fixed pool, so that a smaller collection is the start of a larger one.
  const std::uint64_t white_player = rng.below(2'000'000), black_player = rng.below(2'000'000);
  const int length = std::max(1, int(std::lround(rng.gamma(4, opt.mean_plies / 4))));
  const double theory_mean = std::max(1.0, opt.theory * (1 + ((white_elo + black_elo) / 2.0 - 1550) / 1000));
  const int theory = int(std::lround(rng.gamma(2, theory_mean / 2)));

  Position pos;
  history.assign(1, pos.key());
  std::string movetext, line;
  End end = End::Length;
  std::string token;  // the last move's, written once the next position tells its check suffix
  auto flush_token = [&] {
    if (token.empty()) return;
    if (line.size() + token.size() + 1 > 79) movetext += line + '\n', line.clear();
    line += (line.empty() ? "" : " ") + token;
    token.clear();
  };
  for (int ply = 0;; ++ply) {
    MoveList legal;
    generate_legal(pos, legal);
    if (pos.in_check()) token += legal.empty() ? '#' : '+';
    flush_token();
    if (legal.empty()) {
      end = pos.in_check() ? End::Mate : End::Stalemate;
      break;
    }
    if (pos.insufficient_material()) {
      end = End::InsufficientMaterial;
      break;
    }
    if (pos.halfmove_clock() >= 100) {
      end = End::FiftyMoves;
      break;
    }
    if (threefold(history, pos.halfmove_clock())) {
      end = End::Repetition;
      break;
    }
    if (ply >= length) break;
    Move m = choose_move(pos, legal, ply < theory, openings, rng, weights);
    if (ply % 2 == 0) token = std::to_string(ply / 2 + 1) + ". ";
    append_san_body(pos, legal, m, token);
    assert(token.ends_with(to_san(pos, m).substr(0, to_san(pos, m).find_first_of("+#"))));
    UndoInfo undo;
    pos.do_move(m, undo);
    history.push_back(pos.key());
    if (stats) {
      stats->keys.push_back(pos.key());
      if (ply < 40) stats->keys40.push_back(pos.key());
    }
  }

  // The result: on the board, or resigned, lost on time or agreed drawn at the drawn length.
  const char* result = "1/2-1/2";
  const char* termination = "Normal";
  Color loser = pos.side_to_move();
  bool decisive = false;
  if (end == End::Mate) {
    decisive = true;
  } else if (end == End::Length) {
    int balance = material(pos, Color::White) - material(pos, Color::Black);
    double draw = 0.02 + 0.08 * std::exp(-std::abs(balance));
    if (rng.uniform() >= draw) {
      decisive = true;
      double edge = 0.45 * balance + (white_elo - black_elo) / 250.0 + 0.25;  // 0.25: the first move
      loser = rng.uniform() < 1 / (1 + std::exp(-edge)) ? Color::Black : Color::White;
      double on_time = tc.speed[0] == 'B' || tc.speed[0] == 'U' ? 0.35 : tc.speed[0] == 'C' ? 0.1 : 0.2;
      if (rng.uniform() < on_time) termination = "Time forfeit";
    }
  }
  if (decisive) result = loser == Color::White ? "0-1" : "1-0";
  token = result;
  flush_token();
  movetext += line + '\n';

  std::string date = std::to_string(year) + '.' + two_digits(month) + '.' + two_digits(day);
  std::string time = two_digits(int(seconds / 3600)) + ':' + two_digits(int(seconds / 60 % 60)) + ':' +
                     two_digits(int(seconds % 60));
  tag(out, "Event", std::string("Rated ") + tc.speed + " game");
  tag(out, "Site",
      "graphbook generate_games seed " + std::to_string(opt.seed) + " game " + std::to_string(index + 1));
  tag(out, "Date", date);
  tag(out, "Round", "-");
  tag(out, "White", "player" + std::to_string(white_player));
  tag(out, "Black", "player" + std::to_string(black_player));
  tag(out, "Result", result);
  tag(out, "UTCDate", date);
  tag(out, "UTCTime", time);
  tag(out, "WhiteElo", std::to_string(white_elo));
  tag(out, "BlackElo", std::to_string(black_elo));
  tag(out, "TimeControl", tc.tag);
  tag(out, "Termination", termination);
  out += '\n';
  out += movetext;
  out += '\n';

  if (stats) {
    ++stats->games;
    stats->plies += history.size() - 1;
    (decisive ? (loser == Color::White ? stats->black : stats->white) : stats->draws) += 1;
    stats->mates += end == End::Mate;
    stats->time_forfeits += std::strcmp(termination, "Time forfeit") == 0;
    stats->time_controls[std::size_t(&tc - kTimeControls)] += 1;
    stats->elo_sum += white_elo + black_elo;
    stats->elo_squares += double(white_elo) * white_elo + double(black_elo) * black_elo;
  }
}

// Distinct keys and keys seen once, of a list it sorts.
std::pair<std::uint64_t, std::uint64_t> distinct_and_single(std::vector<Key>& keys) {
  std::sort(keys.begin(), keys.end());
  std::uint64_t distinct = 0, single = 0;
  for (std::size_t i = 0, j; i < keys.size(); i = j) {
    for (j = i + 1; j < keys.size() && keys[j] == keys[i]; ++j) {
    }
    ++distinct;
    single += j - i == 1;
  }
  return {distinct, single};
}

bool write_stats(const std::string& path, Stats& s) {
  auto [distinct, single] = distinct_and_single(s.keys);
  auto [distinct40, single40] = distinct_and_single(s.keys40);
  double n = double(std::max<std::uint64_t>(1, s.games)), ratings = 2 * n;
  double mean = s.elo_sum / ratings;
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "{\n  \"games\": %llu,\n  \"plies\": %llu,\n  \"mean_plies\": %.2f,\n",
               (unsigned long long)s.games, (unsigned long long)s.plies, double(s.plies) / n);
  std::fprintf(f, "  \"distinct_positions\": %llu,\n  \"unique_share\": %.4f,\n  \"single_share\": %.4f,\n",
               (unsigned long long)distinct,
               double(distinct) / double(std::max<std::size_t>(1, s.keys.size())),
               double(single) / double(std::max<std::size_t>(1, s.keys.size())));
  std::fprintf(f, "  \"positions_ply40\": %zu,\n  \"distinct_positions_ply40\": %llu,\n", s.keys40.size(),
               (unsigned long long)distinct40);
  std::fprintf(f, "  \"unique_share_ply40\": %.4f,\n",
               double(distinct40) / double(std::max<std::size_t>(1, s.keys40.size())));
  std::fprintf(f, "  \"white_wins\": %.4f,\n  \"draws\": %.4f,\n  \"black_wins\": %.4f,\n", s.white / n,
               s.draws / n, s.black / n);
  std::fprintf(f, "  \"mates\": %.4f,\n  \"time_forfeits\": %.4f,\n", s.mates / n, s.time_forfeits / n);
  std::fprintf(f, "  \"elo_mean\": %.1f,\n  \"elo_sd\": %.1f,\n  \"time_controls\": {", mean,
               std::sqrt(std::max(0.0, s.elo_squares / ratings - mean * mean)));
  for (std::size_t i = 0; i < std::size(kTimeControls); ++i)
    std::fprintf(f, "%s\"%s\": %llu", i ? ", " : "", kTimeControls[i].tag,
                 (unsigned long long)s.time_controls[i]);
  std::fprintf(f, "}\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"Generates lichess-like PGN games, the same bytes for the same --games and --seed",
               "generate_games"};
  app.add_option("--games", opt.games, "How many games")->required()->check(CLI::Range(1ULL, 1ULL << 40));
  app.add_option("--seed", opt.seed, "Seed of the random choices (default 1)");
  app.add_option("--openings", opt.openings,
                 "PGN whose first plies give the opening moves' frequencies (repeatable; default "
                 "tests/data/pgn/small/twic0920.pgn)");
  app.add_option("--book-plies", opt.book_plies, "Plies of each openings game read (default 40)")
      ->check(CLI::Range(1, 200));
  app.add_option(
         "--theory", opt.theory,
         "Mean plies a game follows the openings at rating 1550, more for stronger players (default 21)")
      ->check(CLI::Range(0.0, 200.0));
  app.add_option("--mean-plies", opt.mean_plies,
                 "Mean game length in plies before the board ends it (default 71)")
      ->check(CLI::Range(1.0, 1000.0));
  app.add_option("--threads", opt.threads, "Threads (the output does not depend on them)")
      ->check(CLI::Range(1u, 256u));
  app.add_option("--output,-o", opt.output, "Output file (default: standard output)");
  app.add_option("--stats", opt.stats,
                 "Write a JSON summary to this file: result and rating shares, distinct positions (keeps 8 "
                 "bytes per position in memory)");
  app.footer(
      "Examples:\n  generate_games --games 100000 --seed 1 > games.pgn\n"
      "  generate_games --games 1000 --seed 7 --openings twic0920.pgn --stats stats.json -o games.pgn");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  if (opt.openings.empty()) opt.openings.push_back(GRAPHBOOK_DEFAULT_OPENINGS);

  OpeningTree openings;
  for (const auto& path : opt.openings) {
    pgn::PgnReader reader(pgn::ByteSource::open(path));
    OpeningVisitor visitor(openings, opt.book_plies);
    if (!reader.read_all(visitor)) {
      std::fprintf(stderr, "generate_games: %s\n", reader.input_error().c_str());
      return kExitUsage;
    }
    if (visitor.games == 0) {
      std::fprintf(stderr, "generate_games: %s: no game from the standard start position\n", path.c_str());
      return kExitUsage;
    }
  }

  FILE* out = opt.output.empty() ? stdout : std::fopen(opt.output.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "generate_games: cannot write %s: %s\n", opt.output.c_str(), std::strerror(errno));
    return kExitUsage;
  }
  // Rounds of one block of consecutive games per thread, written in game order.
  constexpr std::uint64_t kBlock = 1024;
  const unsigned threads = unsigned(std::min<std::uint64_t>(opt.threads, (opt.games + kBlock - 1) / kBlock));
  std::vector<std::string> buffers(threads);
  std::vector<Stats> stats(opt.stats.empty() ? 0 : threads);
  Stats total;
  bool write_ok = true;
  for (std::uint64_t first = 0; first < opt.games && write_ok; first += kBlock * threads) {
    auto work = [&](unsigned t) {
      std::vector<int> weights;
      std::vector<Key> history;
      buffers[t].clear();
      std::uint64_t begin = std::min(opt.games, first + t * kBlock),
                    end = std::min(opt.games, begin + kBlock);
      for (std::uint64_t g = begin; g < end; ++g)
        generate_game(opt, openings, g, buffers[t], stats.empty() ? nullptr : &stats[t], weights, history);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    for (unsigned t = 0; t < threads; ++t) {
      write_ok &= std::fwrite(buffers[t].data(), 1, buffers[t].size(), out) == buffers[t].size();
      if (!stats.empty()) total.add(std::move(stats[t]));
    }
  }
  if (std::fflush(out) != 0 || !write_ok || (out != stdout && std::fclose(out) != 0)) {
    std::fprintf(stderr, "generate_games: cannot write %s: %s\n",
                 opt.output.empty() ? "standard output" : opt.output.c_str(), std::strerror(errno));
    return kExitUsage;
  }
  if (!opt.stats.empty() && !write_stats(opt.stats, total)) {
    std::fprintf(stderr, "generate_games: cannot write %s: %s\n", opt.stats.c_str(), std::strerror(errno));
    return kExitUsage;
  }
  return 0;
}
