// Engine evaluations of a book's positions and the values backed up through
// its graph (docs/FORMAT.md, "Evaluations and backed-up values";
// docs/VALUES.md says how they are made and read).
//
// Two named databases, apart from the source counters as learning is:
// `evals` (Polyglot key -> what `graphbook analyse` got from a UCI engine)
// and `values` (Polyglot key -> what `graphbook values` backed up). A book
// made before them simply has neither; readers then find nothing (not an
// error). Both are written only by their commands, never by a build.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "book/chess/types.h"
#include "book/store/lmdb.h"

namespace gb::store {

inline constexpr const char* kEvalsDb = "evals";
inline constexpr const char* kValuesDb = "values";

// One engine search of a position, from the side to move's point of view.
struct Evaluation {
  enum class Kind : std::uint8_t { Centipawns = 1, Mate = 2 };
  Kind kind = Kind::Centipawns;
  std::int32_t score = 0;   // centipawns, or moves to mate (negative: the side to move is mated)
  std::uint16_t depth = 0;  // the depth of the search's last score
  std::uint64_t nodes = 0;
  Move best;           // the engine's best move (graphbook's encoding); Move() when it gave none
  std::string engine;  // the engine's `id name`
  bool operator==(const Evaluation&) const = default;
};

// The value of a position backed up through the book (docs/VALUES.md).
struct BackedUpValue {
  double score = 0.5;        // expected score of the side to move, 0..1
  std::uint16_t depth = 0;   // plies of book moves it is backed up over (0: the position's own)
  bool from_engine = false;  // the line it comes from ends in an engine evaluation
  bool operator==(const BackedUpValue&) const = default;
};

// The encodings (docs/FORMAT.md); decode returns false for bytes that are not one.
std::string encode(const Evaluation& e);
[[nodiscard]] bool decode(std::string_view bytes, Evaluation& out);
std::string encode(const BackedUpValue& v);
[[nodiscard]] bool decode(std::string_view bytes, BackedUpValue& out);

// Opens one of the two databases. Without create, a book that has none gives
// nullopt with error->code == MDB_NOTFOUND.
[[nodiscard]] std::optional<MDB_dbi> open_evals(const Txn& txn, bool create, Error* error);
[[nodiscard]] std::optional<MDB_dbi> open_values(const Txn& txn, bool create, Error* error);
// For readers: the evals database where the book has one; out stays nullopt
// for a book never analysed, which is no error.
[[nodiscard]] Status find_evals(const Txn& txn, std::optional<MDB_dbi>& out);

// The record stored under key; nullopt when absent or not a record.
[[nodiscard]] std::optional<Evaluation> get_evaluation(const Txn& txn, MDB_dbi evals, Key key);
[[nodiscard]] std::optional<BackedUpValue> get_value(const Txn& txn, MDB_dbi values, Key key);
[[nodiscard]] Status put_evaluation(WriteTxn& txn, MDB_dbi evals, Key key, const Evaluation& e);
[[nodiscard]] Status put_value(WriteTxn& txn, MDB_dbi values, Key key, const BackedUpValue& v);

// The expected score of a centipawn evaluation for the side it is from:
// 1 / (1 + exp(-0.00368208 * cp)), lichess's winning-chances curve (docs/VALUES.md).
double expected_score_of_centipawns(double cp);
// Its inverse, clamped to +-10000 cp (a score of 0 or 1).
double centipawns_of_expected_score(double score);
// The expected score of an evaluation: the curve above for centipawns, 1 for
// a mate the side to move gives, 0 for one it gets.
double expected_score(const Evaluation& e);

}  // namespace gb::store
