#include "book/store/fingerprint_blocks.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <vector>

#include "book/store/shard_manifest.h"  // hex_key

namespace gb::store {

namespace {

constexpr std::size_t kBytes = 16;  // a fingerprint's, as a key or in a value

Fingerprint read_fingerprint(const char* p) { return {get_be64(p), get_be64(p + 8)}; }

Error damaged(std::string_view key, const std::string& why) {
  const std::string start =
      key.size() >= 8 ? hex_key(get_be64(key.data())) + "..." : "of " + std::to_string(key.size()) + " bytes";
  return Error{EIO, "games: a damaged block (key " + start + "): " + why};
}

// The fingerprints of a record (its key, then its value's), appended to out;
// an error when it is not a block.
Status decode(std::string_view key, std::string_view value, std::vector<Fingerprint>& out) {
  if (auto why = block_problem(key, value)) return damaged(key, *why);
  out.push_back(read_fingerprint(key.data()));
  for (std::size_t at = 0; at < value.size(); at += kBytes)
    out.push_back(read_fingerprint(value.data() + at));
  return std::nullopt;
}

// Writes fps (ascending, at least one) as blocks: in one record while they
// are at most kMaxBlockFingerprints (a block that grows is not cut at every
// insert), else cut into blocks of kBlockFingerprints.
Status put_blocks(WriteTxn& txn, MDB_dbi games, std::span<const Fingerprint> fps) {
  assert(!fps.empty());
  FingerprintAppender blocks(
      [&](std::string_view key, std::string_view value) { return txn.put(games, key, value); },
      fps.size() <= kMaxBlockFingerprints ? fps.size() : kBlockFingerprints);
  for (const Fingerprint& fp : fps)
    if (auto s = blocks.add(fp)) return s;
  return blocks.finish();
}

}  // namespace

Status FingerprintAppender::add(const Fingerprint& fp) {
  const FingerprintKey bytes(fp);
  assert(count_ == 0 || std::string_view(bytes_).substr(bytes_.size() - kBytes) < bytes.view());  // ascending
  bytes_.append(bytes.view());
  return ++count_ == per_block_ ? finish() : std::nullopt;
}

Status FingerprintAppender::finish() {
  if (count_ == 0) return std::nullopt;
  Status s = put_(std::string_view(bytes_).substr(0, kBytes), std::string_view(bytes_).substr(kBytes));
  bytes_.clear();
  count_ = 0;
  return s;
}

std::optional<std::string> block_problem(std::string_view key, std::string_view value) {
  if (key.size() != kBytes)
    return "a key of " + std::to_string(key.size()) + " bytes, not a 16-byte fingerprint";
  if (value.size() % kBytes != 0)
    return "a value of " + std::to_string(value.size()) + " bytes, not 16-byte fingerprints";
  std::string_view before = key;
  for (std::size_t at = 0; at < value.size(); at += kBytes) {
    const std::string_view fp = value.substr(at, kBytes);
    if (fp <= before)
      return "fingerprint " + std::to_string(at / kBytes + 1) + " of its value is not above the one before";
    before = fp;
  }
  return std::nullopt;
}

std::optional<bool> has_fingerprint(Cursor& cursor, const Fingerprint& fp, Error* error) {
  const FingerprintKey want(fp);
  Error e;
  auto at = cursor.seek(want.view(), &e);
  if (at && at->key == want.view()) return true;
  // Else in the block before, if any: the last whose key is below fp.
  std::optional<Cursor::Item> block;
  if (!e.code) block = at ? cursor.prev(&e) : cursor.last(&e);
  if (e.code) {
    if (error) *error = e;
    return std::nullopt;
  }
  if (!block) return false;
  if (auto why = block_problem(block->key, block->value)) {
    if (error) *error = damaged(block->key, *why);
    return std::nullopt;
  }
  const std::string_view value = block->value;
  std::size_t lo = 0, hi = value.size() / kBytes;  // binary search of the value's fingerprints
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    const int c = value.substr(mid * kBytes, kBytes).compare(want.view());
    if (c == 0) return true;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

std::optional<FingerprintCursor> FingerprintCursor::open(const Txn& txn, MDB_dbi games, Error* error) {
  auto cursor = Cursor::open(txn, games, error);
  if (!cursor) return std::nullopt;
  return FingerprintCursor(std::move(*cursor));
}

std::optional<Fingerprint> FingerprintCursor::next(Error* error) {
  if (at_ == block_.size()) {
    Error e;
    auto item = started_ ? cursor_.next(&e) : cursor_.first(&e);
    started_ = true;
    if (!item) {
      if (e.code && error) *error = e;
      return std::nullopt;
    }
    if (auto why = block_problem(item->key, item->value)) {
      if (error) *error = damaged(item->key, *why);
      return std::nullopt;
    }
    block_.assign(item->key).append(item->value);
    at_ = 0;
  }
  const Fingerprint fp = read_fingerprint(block_.data() + at_);
  at_ += kBytes;
  return fp;
}

Status insert_fingerprints(WriteTxn& txn, MDB_dbi games, std::span<const Fingerprint> sorted) {
  Error e;
  auto cursor = Cursor::open(txn, games, &e);
  if (!cursor) return e;
  std::vector<Fingerprint> merged, block;
  for (std::size_t i = 0; i < sorted.size();) {
    const FingerprintKey first(sorted[i]);
    // The block whose range holds sorted[i] (the last whose key is not
    // above it; none when it is below every key), and the key after it,
    // which bounds the fingerprints that go into that block.
    auto after = cursor->seek(first.view(), &e);
    if (e.code) return e;
    if (after && after->key == first.view()) {  // there already (a block's key)
      ++i;
      continue;
    }
    std::optional<std::string> upper;
    if (after) upper.emplace(after->key);
    auto before = after ? cursor->prev(&e) : cursor->last(&e);
    if (e.code) return e;
    block.clear();
    if (before)
      if (auto s = decode(before->key, before->value, block)) return s;
    std::size_t end = i + 1;
    while (end < sorted.size() && (!upper || FingerprintKey(sorted[end]).view() < *upper)) ++end;
    merged.clear();
    std::set_union(block.begin(), block.end(), sorted.begin() + std::ptrdiff_t(i),
                   sorted.begin() + std::ptrdiff_t(end), std::back_inserter(merged));
    // The block keeps its key (its fingerprints are not above the new
    // ones), and the put replaces its value; a new block below every key
    // is a record of its own.
    if (auto s = put_blocks(txn, games, merged)) return s;
    i = end;
  }
  return std::nullopt;
}

Status erase_fingerprint(WriteTxn& txn, MDB_dbi games, const Fingerprint& fp, bool* erased) {
  *erased = false;
  Error e;
  auto cursor = Cursor::open(txn, games, &e);
  if (!cursor) return e;
  const FingerprintKey want(fp);
  auto at = cursor->seek(want.view(), &e);
  if (e.code) return e;
  std::vector<Fingerprint> fps;
  if (at && at->key == want.view()) {
    if (auto s = decode(at->key, at->value, fps)) return s;
  } else {
    auto before = at ? cursor->prev(&e) : cursor->last(&e);
    if (e.code) return e;
    if (!before) return std::nullopt;
    if (auto s = decode(before->key, before->value, fps)) return s;
  }
  auto it = std::lower_bound(fps.begin(), fps.end(), fp);
  if (it == fps.end() || *it != fp) return std::nullopt;
  const std::string key(FingerprintKey(fps.front()).view());
  fps.erase(it);
  *erased = true;
  if (auto s = txn.del(games, key)) return s;
  return fps.empty() ? std::nullopt : put_blocks(txn, games, fps);
}

}  // namespace gb::store
