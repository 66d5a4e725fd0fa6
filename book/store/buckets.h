// Buckets: the counts of every node and edge split by the mover's rating
// band, the game's speed, its period and its source (docs/FORMAT.md,
// "Buckets"), so that probe and export can filter at query time without a
// rebuild. They live in their own database beside `positions`, whose totals
// they never change: a book without it (every book before them) reads as
// before, and only a filtered question needs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/chess/types.h"
#include "book/store/lmdb.h"
#include "book/store/records.h"

namespace gb::store {

// The database (key = Polyglot key, 8 bytes BE; value = the key's bucket
// section, below) and the meta record that says a book has buckets (JSON:
// {"by_month": bool, "ordinals": n}); a book has buckets exactly when the
// meta record is there.
inline constexpr const char* kBucketsDb = "buckets";
inline constexpr std::string_view kBucketsMetaKey = "buckets";

// Rating bands of the mover (lichess's, with the unrated apart, as lichess
// counts them apart): Under1600 holds the rated games below 1600.
enum class Band : std::uint8_t { Unrated, Under1600, R1600, R1800, R2000, R2200, R2500 };
inline constexpr int kBands = 7;
// Speeds from the TimeControl tag, lichess's classes (scalachess Speed.scala:
// estimated duration = base + 40 x increment seconds, below 30 UltraBullet,
// 180 Bullet, 480 Blitz, 1500 Rapid, 21600 Classical, else Correspondence;
// "-" is correspondence, a missing or "?" tag unknown).
enum class Speed : std::uint8_t { Unknown, UltraBullet, Bullet, Blitz, Rapid, Classical, Correspondence };
inline constexpr int kSpeeds = 7;

Band rating_band(int elo);  // 0: unrated
Speed speed_of(std::string_view time_control);
std::string_view band_name(Band b);    // "unrated", "0" (rated below 1600), "1600", ... "2500"
std::string_view speed_name(Speed s);  // "unknown", "ultrabullet", "bullet", ...

// A period: year * 16 + month (month 0 when the book keeps years, or the
// month is unknown); 0 when the year is unknown. date: yyyymmdd (as
// builder::parse_pgn_date gives it, 0 for none).
std::uint32_t period_of(int date, bool by_month);

// A bucket id: band (bits 0-2), speed (3-5), period (6-23), source (24 and
// up: the number of the input in the book's `sources`, from 1). Ids of one
// key are stored in order, as differences: the bits that vary most within a
// position are the low ones.
inline std::uint64_t bucket_id(Band band, Speed speed, std::uint32_t period, std::uint32_t source) {
  return std::uint64_t(band) | std::uint64_t(speed) << 3 | std::uint64_t(period & 0x3ffff) << 6 |
         std::uint64_t(source) << 24;
}
inline Band bucket_band(std::uint64_t id) { return Band(id & 7); }
inline Speed bucket_speed(std::uint64_t id) { return Speed(id >> 3 & 7); }
inline std::uint32_t bucket_period(std::uint64_t id) { return std::uint32_t(id >> 6 & 0x3ffff); }
inline std::uint32_t bucket_source(std::uint64_t id) { return std::uint32_t(id >> 24); }

// The counts of one bucket of a node or an edge. unknown = games - white_wins
// - draws - black_wins. occurrences, score and first_play are edges' only.
struct BucketCounters {
  std::uint32_t games = 0, white_wins = 0, draws = 0, black_wins = 0, rated_games = 0;
  std::uint64_t elo_sum = 0;
  std::uint32_t occurrences = 0, score = 0;  // Polyglot make-book's counts (EdgeRecord)
  std::uint16_t min_ply = 0;
  // The stamp of the first play in the book (edges): ordinal of the game in
  // the book (from 1) << 10 | its ply (capped at 1023); 0 for none. It orders
  // the first plays of a position's moves over any set of buckets, as
  // polyglot_rank does over all.
  std::uint64_t first_play = 0;

  std::uint32_t unknown() const { return games - white_wins - draws - black_wins; }
  void add(const BucketCounters& o);
  bool operator==(const BucketCounters&) const = default;
};

struct BucketEntry {
  std::uint16_t move = 0;  // 0: the node
  std::uint64_t id = 0;
  BucketCounters counters;
  bool operator==(const BucketEntry&) const = default;
};
inline bool bucket_order(const BucketEntry& a, const BucketEntry& b) {
  return a.move != b.move ? a.move < b.move : a.id < b.id;
}

// A key's bucket section: per group (the node as move 0, then each edge in
// move order) the move (2 bytes BE), the number of its buckets (varint), then
// each bucket in id order: its id (varint; a group's first as the zigzag
// difference to the first id of the group before, the others as the
// difference to the one before), a mask of the fields present (varint; bit 0
// min_ply, 1 white_wins, 2 draws, 3 black_wins, 4 elo_sum, 5 score,
// 6 first_play, 7 games - rated_games, 8 games - 1, 9 occurrences - games
// (edges only)), those fields as varints: a one-game bucket's mask is one byte.
// entries sorted by bucket_order, no two of one (move, id), a node's
// occurrences 0, an edge's at least its games; out is cleared.
void encode_buckets(const std::vector<BucketEntry>& entries, std::string& out);
// False when v is not a well-formed bucket section; out is cleared first.
bool decode_buckets(std::string_view v, std::vector<BucketEntry>& out);
// Adds the sorted entries b into the sorted a (equal (move, id) summed).
void merge_buckets(std::vector<BucketEntry>& a, const std::vector<BucketEntry>& b);

// Why a filter cannot be read, or a book cannot answer it; the message names
// the option or the book. Always the user's input (exit status 2).
struct FilterError {
  std::string message;
};

// A query-time selection of buckets: --ratings, --speeds, --since, --until,
// and the weights of sources (--weight NAME=x).
struct BucketFilter {
  std::uint8_t bands = 0;    // bit per Band; 0: all
  std::uint8_t speeds = 0;   // bit per Speed; 0: all
  int since = 0, until = 0;  // yyyymmdd as builder::parse_date_bound gives them; 0: none
  // --weight NAME=x as given (names of sources, SourceInfo::source_name), and
  // resolved against a book's sources (resolve_weights): bucket source
  // number -> weight, sorted by number. A source not listed weighs 1; one of
  // weight 0 is not selected.
  std::vector<std::pair<std::string, double>> named_weights;
  std::vector<std::pair<std::uint32_t, double>> weights;
  bool active() const { return bands || speeds || since || until || !named_weights.empty(); }
  double weight_of(std::uint32_t source) const;
  // Whether a bucket of a book keeping months (by_month) or years is selected.
  bool selects(std::uint64_t id, bool by_month) const;
  // Why this filter asks more than the book's periods can answer (a month
  // of a book of years, a day), nullopt when it does not.
  std::optional<FilterError> too_fine(bool by_month) const;
};
// "2000,2200" -> bands; "blitz,rapid" -> speeds. nullopt (why in *error) for
// a word that is none.
std::optional<std::uint8_t> parse_bands(std::string_view text, FilterError* error);
std::optional<std::uint8_t> parse_speeds(std::string_view text, FilterError* error);

// A date bound: YYYY, YYYY.MM or YYYY.MM.DD, with '.' or '-' between the
// parts; month 1-12, day 1-31, year 1-9999. Missing parts become 00 (lower)
// or 99 (upper): yyyymmdd. nullopt for anything else. (build --since/--until.)
std::optional<int> parse_date_bound(std::string_view text, bool upper);
// The filter of --ratings, --speeds, --since, --until (each empty when not
// given) and --weight NAME=x (each a weight from 0 to 1000); nullopt with
// the reason, naming the option, when one is wrong. The weights are resolved
// against a book with resolve_weights.
std::optional<BucketFilter> parse_filter(const std::string& ratings, const std::string& speeds,
                                         const std::string& since, const std::string& until,
                                         FilterError* error, const std::vector<std::string>& weights = {});

struct SourceInfo;  // book.h
// Sets filter.weights from filter.named_weights and the book's sources: each
// name weighs the bucket numbers of the records of that source (retracted
// ones left out). Why not, naming the book's sources, when a name is none.
[[nodiscard]] std::optional<FilterError> resolve_weights(BucketFilter& filter,
                                                         const std::vector<SourceInfo>& sources);

// Sums of one node's or edge's selected buckets.
struct BucketSum {
  BucketCounters counters;
  std::uint16_t min_year = 0, max_year = 0;  // of the dated selected buckets
  bool any = false;                          // some bucket was selected
};

// The sum of the buckets of move (0: the node) in a key's entries (sorted)
// that the filter selects, in a book of months (by_month) or years. With
// weights, each count is the sum of weight x the bucket's count, rounded to
// the nearest integer (halves up), results and unknown each on its own and
// games their sum, so that they add up; occurrences are at least the games,
// score at most twice the occurrences, rated games at most the games; the
// smallest ply and first play are those of the buckets of weight above 0; a
// sum weighed down to no game selects nothing (any is false).
BucketSum sum_selected(const std::vector<BucketEntry>& entries, std::uint16_t move,
                       const BucketFilter& filter, bool by_month);
// The source counters of a sum (min_year, max_year: its dated buckets').
Counters counters_of(const BucketSum& sum);

// The book's bucket settings: nullopt when it has no buckets.
struct BucketParams {
  bool by_month = false;
  // The last ordinal a game of the book was given (first plays' stamps): a
  // later build numbers its games after it (a merge, which counts a shared
  // game once, leaves more ordinals used than games counted).
  std::uint64_t ordinals = 0;
};
[[nodiscard]] std::optional<BucketParams> bucket_params(const Txn& txn, MDB_dbi meta);

// Why the book at book_path, with these bucket settings (nullopt: it has no
// buckets), cannot answer the filter: it has no buckets ("BOOK was built
// without buckets; rebuild it with --buckets ..."), or the filter asks for
// months of a book of years, or for days. nullopt when it can.
[[nodiscard]] std::optional<FilterError> filter_refusal(const std::string& book_path,
                                                        const std::optional<BucketParams>& params,
                                                        const BucketFilter& filter);
std::string bucket_params_json(const BucketParams& p);

// The bucket section of key in the book's buckets database (dbi): false when
// absent; entries cleared first. A value that does not decode sets *damaged.
bool read_buckets(const Txn& txn, MDB_dbi dbi, Key key, std::vector<BucketEntry>& out, bool* damaged,
                  Error* error);

}  // namespace gb::store
