// Sections grouped several to an LMDB record (formats 5 and 6, docs/FORMAT.md,
// *Groups*). A database of sections (positions, pruned) holds groups: the
// LMDB key of a group is a Polyglot key g (8 bytes, big-endian), its value
// the sections of consecutive positions with keys from g up to the next
// group's key, in key order. Format 6 writes a byte 0x80 + w (w 1 to 8), then
// per position
//   its key less the key before it: the first (less g) a varint, the others
//     w bytes little-endian;
//   its section: self-delimited (a one-game position's: records.h,
//     append_self_delimited) as it is, any other after its size (below
//     0x80: one byte; else 0x80 + its low 6 bits less 128, then the rest as
//     a varint).
// Format 5 wrote a byte w, every delta in w bytes and every section after a
// varint size; a reader reads both.
// A position costs LMDB's 18 bytes of node header, key and slot once per
// group instead of once per position; a probe finds the group (a seek and a
// step back) and reads the deltas to its key.
//
// Reading: SectionFinder (one key) and SectionCursor (every position in key
// order). Writing: GroupAppender (a new database, in key order) and
// SectionUpdater (read, change and write back sections of a database that
// holds some, in any order); both cut groups with a GroupEncoder.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "book/store/lmdb.h"
#include "book/store/records.h"

namespace gb::store {

// A writer closes a group before its value would pass kGroupBytes (a
// position bigger than that is a group of its own), or at kGroupPositions.
// Four groups of 1,002 bytes fill a 4 KiB page of LMDB's to its last byte
// (each takes its 8-byte node header, 8-byte key and 2-byte slot besides), and
// a database appended in key order fills its pages: groups cut by bytes leave
// little of a page unused. A probe scans half a group on average; a group of
// one-game positions holds some 40 (25 bytes each) before its bytes close it.
inline constexpr std::size_t kGroupBytes = 1002;
inline constexpr std::size_t kGroupPositions = 64;

// The positions of one group value in key order.
class GroupReader {
 public:
  GroupReader(Key group_key, std::string_view value) : key_(group_key), value_(value) {}
  // The next position; false at the end of the value or where it does not
  // decode (then damaged()).
  bool next(Key& key, std::string_view& section);
  bool damaged() const { return damaged_; }

 private:
  Key key_;
  std::string_view value_;
  std::size_t at_ = 1;    // past the width
  int width_ = 0;         // of a delta: read at the first position
  bool format5_ = false;  // the layout of format 5 (every delta w bytes, every size a varint)
  bool damaged_ = false;
};

// Builds one group value from positions given in key order.
class GroupEncoder {
 public:
  // Starts a group at key g.
  void clear(Key g);
  // The bytes of the value with the section of key added.
  std::size_t bytes_with(Key key, std::string_view section) const;
  // Whether the group is closed before that position: past kGroupBytes or at
  // kGroupPositions (a group holds one position at least).
  bool full_before(Key key, std::string_view section) const {
    return positions() > 0 && (positions() >= kGroupPositions || bytes_with(key, section) > kGroupBytes);
  }
  void add(Key key, std::string_view section);  // key above the last
  // The same for a section's entry as the value holds it (entry_of: its size
  // and it, or it self-delimited), made once where a writer asks full_before
  // and then adds: making it decodes the section's node.
  static void entry_of(std::string_view section, std::string& entry);
  bool full_before_entry(Key key, std::size_t entry_size) const {
    return positions() > 0 &&
           (positions() >= kGroupPositions || bytes_with_entry(key, entry_size) > kGroupBytes);
  }
  std::size_t bytes_with_entry(Key key, std::size_t entry_size) const;
  void add_entry(Key key, std::string_view entry);
  std::size_t positions() const { return keys_.size(); }
  Key group_key() const { return group_; }
  // The value.
  void encode(std::string& out) const;

 private:
  Key group_ = 0;
  std::vector<Key> keys_;
  std::vector<std::size_t> ends_;  // of each section's entry in entries_
  std::string entries_;            // the sections as the value holds them (with their sizes)
  std::uint64_t widest_ = 0;       // the largest delta but the first
};

// Appends section's entry to out (GroupEncoder::entry_of without clearing out).
void append_entry(std::string& out, std::string_view section);

// The section of the entry at the start of bytes, as a format 6 group holds
// it (GroupEncoder::entry_of: self-delimited, or its size and it), and the
// entry's length; 0 when it does not decode.
std::size_t read_entry(std::string_view bytes, std::string_view& section);

// The group key of an LMDB item of a sections database; nullopt when its key
// is not 8 bytes (damage).
std::optional<Key> group_key(std::string_view item_key);

// Finds sections by key in one transaction's database, through one cursor.
class SectionFinder {
 public:
  [[nodiscard]] static std::optional<SectionFinder> open(const Txn& txn, MDB_dbi dbi, Error* error);
  // The section of key (valid while the transaction lives), nullopt when the
  // database has none; a group that does not decode is an EIO error naming
  // its key.
  [[nodiscard]] std::optional<std::string_view> find(Key key, Error* error = nullptr);

 private:
  explicit SectionFinder(Cursor cursor) : cursor_(std::move(cursor)) {}
  Cursor cursor_;
};

// One look-up (a cursor opened and closed): for callers that look up a few
// keys; loops hold a SectionFinder.
[[nodiscard]] std::optional<std::string_view> find_section(const Txn& txn, MDB_dbi dbi, Key key,
                                                           Error* error = nullptr);

// Every position of a sections database, in key order.
class SectionCursor {
 public:
  [[nodiscard]] static std::optional<SectionCursor> open(const Txn& txn, MDB_dbi dbi, Error* error);
  // The next position; false at the end, or on an error (a group that does
  // not decode: EIO naming its key) reported through error.
  bool next(Key& key, std::string_view& section, Error* error = nullptr);

 private:
  explicit SectionCursor(Cursor cursor) : cursor_(std::move(cursor)) {}
  Cursor cursor_;
  std::optional<GroupReader> group_;
  Key group_key_ = 0;  // of group_
  bool started_ = false;
};

// Calls visit(key, section) for every position of a sections database in key
// order, until it returns false.
[[nodiscard]] Status each_section(const Txn& txn, MDB_dbi dbi,
                                  const std::function<bool(Key, std::string_view)>& visit);
// The positions a sections database holds (a pass over its groups).
[[nodiscard]] Status count_sections(const Txn& txn, MDB_dbi dbi, std::uint64_t& out);

// Groups positions given in key order into values and hands each to put
// (an append to a new database: its keys grow).
class GroupAppender {
 public:
  using Put = std::function<Status(std::string_view key, std::string_view value)>;
  explicit GroupAppender(Put put) : put_(std::move(put)) {}
  [[nodiscard]] Status add(Key key, std::string_view section);
  // The same for a section's entry (GroupEncoder::entry_of).
  [[nodiscard]] Status add_entry(Key key, std::string_view entry);
  // Hands over the last group; the appender may then start again.
  [[nodiscard]] Status finish();

 private:
  Put put_;
  GroupEncoder group_;
  std::string value_;
  std::string entry_;  // of the section being added
};

// Reads and writes sections of a database in a write transaction. It holds
// the group of the last key it touched and writes it back when a key of
// another group comes, or at flush(): keys in order touch each group once.
// A group grown past twice kGroupPositions or kGroupBytes is split.
class SectionUpdater {
 public:
  SectionUpdater(WriteTxn& txn, MDB_dbi dbi) : txn_(txn), dbi_(dbi) {}
  // The section of key (valid until the next call), nullopt when absent.
  [[nodiscard]] std::optional<std::string_view> get(Key key, Error* error);
  // Sets or removes the section of key.
  [[nodiscard]] Status put(Key key, std::string_view section);
  [[nodiscard]] Status erase(Key key);
  // Writes the group held (before the transaction commits).
  [[nodiscard]] Status flush();

 private:
  [[nodiscard]] Status load(Key key);
  bool holds(Key key) const { return loaded_ && key >= group_ && (!next_ || key < *next_); }
  std::vector<std::pair<Key, std::string>>::iterator at(Key key);

  WriteTxn& txn_;
  MDB_dbi dbi_;
  std::optional<Cursor> cursor_;  // opened at the first load
  bool loaded_ = false, dirty_ = false;
  Key group_ = 0;              // the group's key (for a new front group, its first position's)
  std::optional<Key> stored_;  // the LMDB key it was read from
  std::optional<Key> next_;    // the next group's key
  std::vector<std::pair<Key, std::string>> entries_;
};

}  // namespace gb::store
