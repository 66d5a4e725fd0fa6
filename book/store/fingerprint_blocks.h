// The games database: the fingerprints of the games a book counted
// (fingerprint.h), in order, in blocks.
//
// A record is a block: its key is the block's first fingerprint (16 bytes,
// big-endian, so that the keys' byte order is the fingerprints' order), its
// value the fingerprints after it (none to a few hundred, 16 bytes each,
// ascending), all of them below the next record's key. A build writes blocks
// of kBlockFingerprints. Format 6 kept a record for each game: a build of the
// 198,350 opening lines put 198,350 records (15 ms of its commit, 5.2 MB of
// its 18.4 MB); in blocks they are 3,149 records in 3.2 MB. A record of
// format 6 (a key and no value) reads as a block of one.
//
//   FingerprintAppender blocks(put);           // a new database, in order
//   blocks.add(fp); ... blocks.finish();
//   has_fingerprint(cursor, fp, &error);       // a build's duplicate check
//   insert_fingerprints(txn, dbi, sorted);     // a build into a book with games
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "book/store/fingerprint.h"
#include "book/store/lmdb.h"

namespace gb::store {

// The fingerprints of a block a build writes: 63, so that four blocks fill
// an LMDB page of 4,096 bytes (each 1,016 bytes with LMDB's node header and
// 2 of pointer: 4,072 of the page's 4,080); at 64 only three fit.
inline constexpr std::size_t kBlockFingerprints = 63;
// The most a block grows to before an insert cuts it into blocks of
// kBlockFingerprints: below half a page, which LMDB keeps on the page (a
// larger value takes overflow pages of its own).
inline constexpr std::size_t kMaxBlockFingerprints = 120;

// Fingerprints in ascending order, handed to put(key, value) as blocks of
// per_block (the last one shorter, at finish()), as GroupAppender hands over
// groups (section_groups.h).
class FingerprintAppender {
 public:
  using Put = std::function<Status(std::string_view key, std::string_view value)>;
  explicit FingerprintAppender(Put put, std::size_t per_block = kBlockFingerprints)
      : put_(std::move(put)), per_block_(per_block) {}
  [[nodiscard]] Status add(const Fingerprint& fp);
  // Hands over the last block; the appender may then start again.
  [[nodiscard]] Status finish();

 private:
  Put put_;
  std::size_t per_block_;
  std::string bytes_;  // the block: its key's 16 bytes, then its value's
  std::size_t count_ = 0;
};

// Why a record cannot be a block (its key is not 16 bytes, its value not
// fingerprints of 16 bytes above the key in ascending order); nullopt when
// it can be one.
std::optional<std::string> block_problem(std::string_view key, std::string_view value);

// Whether the games database that cursor reads holds fp (the cursor is moved).
[[nodiscard]] std::optional<bool> has_fingerprint(Cursor& cursor, const Fingerprint& fp, Error* error);

// The fingerprints of a games database in ascending order, block after block.
class FingerprintCursor {
 public:
  [[nodiscard]] static std::optional<FingerprintCursor> open(const Txn& txn, MDB_dbi games, Error* error);
  // The next fingerprint; nullopt at the end, or on an error or a damaged
  // record (error says which).
  [[nodiscard]] std::optional<Fingerprint> next(Error* error);

 private:
  explicit FingerprintCursor(Cursor cursor) : cursor_(std::move(cursor)) {}
  Cursor cursor_;
  bool started_ = false;
  std::string block_;   // the current block: its key's 16 bytes, then its value's
  std::size_t at_ = 0;  // the next fingerprint's offset in block_
};

// Adds fingerprints (ascending) to the games database games, each into the
// block whose range holds it; a block grown past kMaxBlockFingerprints is cut
// into blocks of kBlockFingerprints. One already there is left as it is.
[[nodiscard]] Status insert_fingerprints(WriteTxn& txn, MDB_dbi games, std::span<const Fingerprint> sorted);

// Takes fp out of the games database games; *erased says whether it was there.
[[nodiscard]] Status erase_fingerprint(WriteTxn& txn, MDB_dbi games, const Fingerprint& fp, bool* erased);

}  // namespace gb::store
