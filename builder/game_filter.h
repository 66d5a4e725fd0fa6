// What a build keeps of a game: the build options that act per game, and the
// tag parsing they need (dates, ratings).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "book/cql/parser.h"
#include "builder/aggregator.h"

namespace gb::builder {

struct BuildOptions {
  int max_ply = 40;          // plies of each game that become edges; 0 = the whole game
  bool index_games = false;  // also store the games and their position index (game_index_writer.h)
  std::uint32_t min_games = 1;
  int min_elo = 0;  // both players rated at least this; 0 = no filter
  int since = 0;    // yyyymmdd bounds, 0 = none
  int until = 0;
  Side side = Side::Both;
  // --player: only the games this player plays (player_side), each one-sided:
  // the edges are the player's moves in that game and all replies. Empty: every game.
  std::string player;
  unsigned threads = 1;
  std::size_t memory = std::size_t(16) << 20;  // aggregation budget in bytes (all threads)
  bool dedup = true;
  std::string source;  // --source NAME: the source the inputs belong to (store::SourceInfo::label)
  // Buckets (book/store/buckets.h): counted into a new book with --buckets,
  // into a book that has them always (with its periods), never into a book of
  // records without them. by_month: periods of months.
  bool buckets = false;
  bool by_month = false, by_month_given = false;
  std::uint64_t bucket_ordinals = 0;  // the book's (store::BucketParams::ordinals), set by the build
  bool progress = false;              // a progress line on stderr
  std::string spill_dir;              // where runs go; default: beside the book
  std::size_t initial_map_size = std::size_t(1) << 30;  // LMDB map at open (it grows by itself)
  // Whether max_ply, min_games and side were given: a build into a book that
  // recorded them takes those not given from it (book_shape.h).
  bool max_ply_given = true, min_games_given = true, side_given = true;
  // --filter: only the games this CQL query matches (query_filter.h); it
  // must outlive the build. nullptr: every game.
  const cql::Program* filter = nullptr;
};

// "2012.03.??" -> 20120300; nullopt when the year is unknown or malformed.
std::optional<int> parse_pgn_date(std::string_view value);
// A user bound: YYYY, YYYY.MM or YYYY.MM.DD, with '.' or '-' between the
// parts ("2012", "2012-03", "2012.03.15"); month 1-12, day 1-31, year 1-9999.
// Missing parts become 00 (since) or 99 (until). nullopt for anything else.
std::optional<int> parse_date_bound(std::string_view text, bool upper);
// A rating tag value; 0 when empty, "?" or not a number.
int parse_elo(std::string_view value);

// The side whose moves become edges in a game of --player NAME with these
// White and Black tags: the player's colour, when NAME matches that tag as
// CQL's `player white "NAME"` / `player black "NAME"` match it (the tag
// value contains NAME, case-sensitive, as `graphbook cql --player` does) and
// `side` (--color) allows it; nullopt when the player does not play the game
// (or plays only the colour --color leaves out). A player named in both tags
// (a game against themself, or a name both contain) plays both sides.
std::optional<Side> player_side(std::string_view white, std::string_view black, std::string_view name,
                                Side side);

}  // namespace gb::builder
