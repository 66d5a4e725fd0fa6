#include "book/store/evaluation.h"

#include <cassert>
#include <cmath>
#include <cstring>

#include "book/store/records.h"

namespace gb::store {

namespace {

// Evaluation: kind u8, reserved u8, depth u16, score i32, nodes u64, best u16,
// then the engine's name to the end of the value (little-endian).
constexpr std::size_t kEvaluationHeader = 18;
// BackedUpValue: score f64, depth u16, flags u8 (1 = from an engine evaluation), reserved u8.
constexpr std::size_t kValueSize = 12;
constexpr double kCurve = 0.00368208;  // lichess's winning-chances slope, per centipawn
constexpr double kMaxCentipawns = 10000;

template <class T>
void put(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));  // the book's records are little-endian: the host order here
  out.append(bytes, sizeof(T));
}

template <class T>
T take(std::string_view bytes, std::size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}

std::optional<MDB_dbi> open_named(const Txn& txn, const char* name, bool create, Error* error) {
  return txn.open_db(name, create ? MDB_CREATE : 0, error);
}

}  // namespace

std::string encode(const Evaluation& e) {
  std::string out;
  put(out, std::uint8_t(e.kind));
  put(out, std::uint8_t(0));
  put(out, e.depth);
  put(out, e.score);
  put(out, e.nodes);
  put(out, e.best.raw());
  assert(out.size() == kEvaluationHeader);
  return out + e.engine;
}

bool decode(std::string_view bytes, Evaluation& out) {
  if (bytes.size() < kEvaluationHeader) return false;
  auto kind = take<std::uint8_t>(bytes, 0);
  if (kind != std::uint8_t(Evaluation::Kind::Centipawns) && kind != std::uint8_t(Evaluation::Kind::Mate))
    return false;
  out.kind = Evaluation::Kind(kind);
  out.depth = take<std::uint16_t>(bytes, 2);
  out.score = take<std::int32_t>(bytes, 4);
  out.nodes = take<std::uint64_t>(bytes, 8);
  out.best = Move(take<std::uint16_t>(bytes, 16));
  out.engine = std::string(bytes.substr(kEvaluationHeader));
  return true;
}

std::string encode(const BackedUpValue& v) {
  assert(v.score >= 0 && v.score <= 1);
  std::string out;
  put(out, v.score);
  put(out, v.depth);
  put(out, std::uint8_t(v.from_engine ? 1 : 0));
  put(out, std::uint8_t(0));
  assert(out.size() == kValueSize);
  return out;
}

bool decode(std::string_view bytes, BackedUpValue& out) {
  if (bytes.size() != kValueSize) return false;
  double score = take<double>(bytes, 0);
  if (!(score >= 0 && score <= 1)) return false;  // also refuses NaN
  out.score = score;
  out.depth = take<std::uint16_t>(bytes, 8);
  out.from_engine = take<std::uint8_t>(bytes, 10) & 1;
  return true;
}

std::optional<MDB_dbi> open_evals(const Txn& txn, bool create, Error* error) {
  return open_named(txn, kEvalsDb, create, error);
}

Status find_evals(const Txn& txn, std::optional<MDB_dbi>& out) {
  Error e;
  out = open_evals(txn, false, &e);
  if (!out && e.code != MDB_NOTFOUND) return e;
  return std::nullopt;
}

std::optional<MDB_dbi> open_values(const Txn& txn, bool create, Error* error) {
  return open_named(txn, kValuesDb, create, error);
}

std::optional<Evaluation> get_evaluation(const Txn& txn, MDB_dbi evals, Key key) {
  auto v = txn.get(evals, NodeKey(key).view());
  Evaluation e;
  if (!v || !decode(*v, e)) return std::nullopt;
  return e;
}

std::optional<BackedUpValue> get_value(const Txn& txn, MDB_dbi values, Key key) {
  auto bytes = txn.get(values, NodeKey(key).view());
  BackedUpValue v;
  if (!bytes || !decode(*bytes, v)) return std::nullopt;
  return v;
}

Status put_evaluation(WriteTxn& txn, MDB_dbi evals, Key key, const Evaluation& e) {
  return txn.put(evals, NodeKey(key).view(), encode(e));
}

Status put_value(WriteTxn& txn, MDB_dbi values, Key key, const BackedUpValue& v) {
  return txn.put(values, NodeKey(key).view(), encode(v));
}

double expected_score_of_centipawns(double cp) { return 1.0 / (1.0 + std::exp(-kCurve * cp)); }

double centipawns_of_expected_score(double score) {
  if (score <= 0) return -kMaxCentipawns;
  if (score >= 1) return kMaxCentipawns;
  double cp = std::log(score / (1 - score)) / kCurve;
  return std::clamp(cp, -kMaxCentipawns, kMaxCentipawns);
}

double expected_score(const Evaluation& e) {
  switch (e.kind) {
    case Evaluation::Kind::Centipawns: return expected_score_of_centipawns(e.score);
    case Evaluation::Kind::Mate: return e.score > 0 ? 1.0 : 0.0;
  }
  return 0.5;
}

}  // namespace gb::store
