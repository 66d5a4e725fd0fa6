#include "book/store/section_groups.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cerrno>
#include <cstring>

#include "book/store/varint.h"

namespace gb::store {

// Deltas are read with a load of their bytes into a 64-bit integer.
static_assert(std::endian::native == std::endian::little, "groups are read on little-endian hosts");

namespace {

// The bytes a delta up to widest takes (1 at least).
int width_of(std::uint64_t widest) {
  int w = 1;
  while (w < 8 && widest >> (8 * w)) ++w;
  return w;
}

Error damaged_group(Key group) {
  return Error{EIO,
               "damaged book: the group of sections at key " + std::to_string(group) + " does not decode"};
}

Error damaged_group_key(std::string_view key) {
  return Error{EIO,
               "damaged book: a group of sections has a key of " + std::to_string(key.size()) + " bytes"};
}

}  // namespace

bool GroupReader::next(Key& key, std::string_view& section) {
  if (damaged_) return false;
  if (!width_) {  // the width byte, first
    const std::uint8_t byte = value_.empty() ? 0 : std::uint8_t(value_[0]);
    format5_ = !(byte & 0x80);
    width_ = byte & 0x7f;
    if (width_ < 1 || width_ > 8) return damaged_ = true, false;
  }
  if (at_ == value_.size()) return false;
  const bool first = at_ == 1;
  std::uint64_t delta = 0;
  if (first && !format5_) {
    if (!get_varint(value_, at_, delta)) return damaged_ = true, false;
  } else {
    const auto w = std::size_t(width_);
    if (value_.size() - at_ < w) return damaged_ = true, false;
    if (value_.size() - at_ >= 8) {  // one load: the common case
      std::memcpy(&delta, value_.data() + at_, 8);
      if (w < 8) delta &= (std::uint64_t(1) << (8 * w)) - 1;
    } else {
      std::memcpy(&delta, value_.data() + at_, w);
    }
    at_ += w;
  }
  if ((!first && delta == 0) || key_ + delta < key_ || at_ == value_.size()) return damaged_ = true, false;
  if (format5_) {
    std::uint64_t size;
    if (!get_varint(value_, at_, size) || size > value_.size() - at_) return damaged_ = true, false;
    section = value_.substr(at_, size);
    at_ += size;
  } else {
    const std::size_t n = read_entry(value_.substr(at_), section);
    if (!n) return damaged_ = true, false;
    at_ += n;
  }
  key = key_ += delta;
  return true;
}

std::size_t read_entry(std::string_view bytes, std::string_view& section) {
  if (bytes.empty()) return 0;
  const auto byte = std::uint8_t(bytes[0]);
  std::size_t at = 0;
  std::uint64_t size;
  if (byte >= kPackedHead) {
    size = self_delimited_length(bytes);
    if (!size) return 0;
  } else if (byte < 0x80) {
    size = byte;
    at = 1;
  } else {
    at = 1;
    if (!get_varint(bytes, at, size) || size > bytes.size()) return 0;
    size = 128 + (size << 6 | (byte & 0x3f));
  }
  if (size > bytes.size() - at) return 0;
  section = bytes.substr(at, size);
  return at + size;
}

namespace {

// The bytes a section takes in a group value (format 6): self-delimited, or
// its size and itself.
std::size_t entry_bytes(std::string_view section) {
  if (const std::size_t n = self_delimited_size(section)) return n;
  const std::size_t size = section.size();
  return size < 0x80 ? 1 + size : 1 + varint_size((size - 128) >> 6) + size;
}

}  // namespace

void append_entry(std::string& out, std::string_view section) {
  if (append_self_delimited(out, section)) return;
  const std::size_t size = section.size();
  if (size < 0x80) {
    out.push_back(char(size));
  } else {
    out.push_back(char(0x80 | ((size - 128) & 0x3f)));
    put_varint(out, (size - 128) >> 6);
  }
  out.append(section);
}

void GroupEncoder::clear(Key g) {
  group_ = g;
  keys_.clear();
  ends_.clear();
  entries_.clear();
  widest_ = 0;
}

std::size_t GroupEncoder::bytes_with(Key key, std::string_view section) const {
  return bytes_with_entry(key, entry_bytes(section));
}

std::size_t GroupEncoder::bytes_with_entry(Key key, std::size_t entry_size) const {
  const Key previous = keys_.empty() ? group_ : keys_.back();
  assert(key >= previous);
  const std::size_t first = varint_size(keys_.empty() ? key - group_ : keys_.front() - group_);
  const int w = width_of(keys_.empty() ? 0 : std::max(widest_, key - previous));
  return 1 + first + keys_.size() * std::size_t(w) + entries_.size() + entry_size;
}

void GroupEncoder::entry_of(std::string_view section, std::string& entry) {
  entry.clear();
  append_entry(entry, section);
}

void GroupEncoder::add(Key key, std::string_view section) {
  std::string entry;
  entry_of(section, entry);
  add_entry(key, entry);
}

void GroupEncoder::add_entry(Key key, std::string_view entry) {
  const Key previous = keys_.empty() ? group_ : keys_.back();
  assert(key >= previous && (keys_.empty() || key > previous));
  if (!keys_.empty()) widest_ = std::max(widest_, key - previous);
  keys_.push_back(key);
  entries_.append(entry);
  ends_.push_back(entries_.size());
}

void GroupEncoder::encode(std::string& out) const {
  const int w = width_of(widest_);
  out.clear();
  out.reserve(1 + 10 + keys_.size() * std::size_t(w) + entries_.size());
  out.push_back(char(0x80 | w));
  Key previous = group_;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    std::uint64_t delta = keys_[i] - previous;
    if (i == 0) {
      put_varint(out, delta);
    } else {
      char le[8];
      for (int b = 0; b < 8; ++b, delta >>= 8) le[b] = char(delta & 0xff);
      out.append(le, std::size_t(w));
    }
    out.append(entries_, begin, ends_[i] - begin);
    previous = keys_[i];
    begin = ends_[i];
  }
}

std::optional<Key> group_key(std::string_view item_key) {
  if (item_key.size() != 8) return std::nullopt;
  return get_be64(item_key.data());
}

std::optional<SectionFinder> SectionFinder::open(const Txn& txn, MDB_dbi dbi, Error* error) {
  auto cursor = Cursor::open(txn, dbi, error);
  if (!cursor) return std::nullopt;
  return SectionFinder(std::move(*cursor));
}

std::optional<std::string_view> SectionFinder::find(Key key, Error* error) {
  const NodeKey nk(key);
  Error e;
  // The group of key is the last whose key is at most key.
  auto item = cursor_.seek(nk.view(), &e);
  if (!e.code && (!item || item->key != nk.view())) item = item ? cursor_.prev(&e) : cursor_.last(&e);
  if (!item) {
    if (e.code && error) *error = e;
    return std::nullopt;
  }
  const auto g = group_key(item->key);
  if (!g) {
    if (error) *error = damaged_group_key(item->key);
    return std::nullopt;
  }
  GroupReader group(*g, item->value);
  Key k;
  std::string_view section;
  while (group.next(k, section)) {
    if (k == key) return section;
    if (k > key) return std::nullopt;
  }
  if (group.damaged() && error) *error = damaged_group(*g);
  return std::nullopt;
}

std::optional<std::string_view> find_section(const Txn& txn, MDB_dbi dbi, Key key, Error* error) {
  auto finder = SectionFinder::open(txn, dbi, error);
  if (!finder) return std::nullopt;
  return finder->find(key, error);
}

std::optional<SectionCursor> SectionCursor::open(const Txn& txn, MDB_dbi dbi, Error* error) {
  auto cursor = Cursor::open(txn, dbi, error);
  if (!cursor) return std::nullopt;
  return SectionCursor(std::move(*cursor));
}

bool SectionCursor::next(Key& key, std::string_view& section, Error* error) {
  for (;;) {
    if (group_) {
      if (group_->next(key, section)) return true;
      if (group_->damaged()) {
        if (error) *error = damaged_group(group_key_);
        return false;
      }
    }
    Error e;
    auto item = started_ ? cursor_.next(&e) : cursor_.first(&e);
    started_ = true;
    if (!item) {
      if (e.code && error) *error = e;
      group_.reset();
      return false;
    }
    const auto g = group_key(item->key);
    if (!g) {
      if (error) *error = damaged_group_key(item->key);
      return false;
    }
    group_.emplace(*g, item->value);
    group_key_ = *g;
  }
}

Status each_section(const Txn& txn, MDB_dbi dbi, const std::function<bool(Key, std::string_view)>& visit) {
  Error e;
  auto cursor = SectionCursor::open(txn, dbi, &e);
  if (!cursor) return e;
  Key key;
  std::string_view section;
  while (cursor->next(key, section, &e))
    if (!visit(key, section)) return std::nullopt;
  if (e.code) return e;
  return std::nullopt;
}

Status count_sections(const Txn& txn, MDB_dbi dbi, std::uint64_t& out) {
  out = 0;
  return each_section(txn, dbi, [&](Key, std::string_view) { return ++out, true; });
}

Status GroupAppender::add(Key key, std::string_view section) {
  GroupEncoder::entry_of(section, entry_);
  return add_entry(key, entry_);
}

Status GroupAppender::add_entry(Key key, std::string_view entry) {
  if (group_.full_before_entry(key, entry.size()))
    if (auto s = finish()) return s;
  if (group_.positions() == 0) group_.clear(key);
  group_.add_entry(key, entry);
  return std::nullopt;
}

Status GroupAppender::finish() {
  if (group_.positions() == 0) return std::nullopt;
  group_.encode(value_);
  auto s = put_(NodeKey(group_.group_key()).view(), value_);
  group_.clear(0);
  return s;
}

std::vector<std::pair<Key, std::string>>::iterator SectionUpdater::at(Key key) {
  return std::lower_bound(entries_.begin(), entries_.end(), key,
                          [](const auto& e, Key k) { return e.first < k; });
}

Status SectionUpdater::load(Key key) {
  if (holds(key)) return std::nullopt;
  if (auto s = flush()) return s;
  Error e;
  if (!cursor_) {
    auto cursor = Cursor::open(txn_, dbi_, &e);
    if (!cursor) return e;
    cursor_.emplace(std::move(*cursor));
  }
  entries_.clear();
  stored_.reset();
  next_.reset();
  const NodeKey nk(key);
  auto item = cursor_->seek(nk.view(), &e);
  if (e.code) return e;
  std::optional<Cursor::Item> group;
  if (item && item->key == nk.view()) {
    group = item;
    if (auto after = cursor_->next(&e)) next_ = group_key(after->key);
  } else {
    if (item) next_ = group_key(item->key);
    group = item ? cursor_->prev(&e) : cursor_->last(&e);
  }
  if (e.code) return e;
  if (group) {
    const auto g = group_key(group->key);
    if (!g) return damaged_group_key(group->key);
    GroupReader reader(*g, group->value);
    Key k;
    std::string_view section;
    while (reader.next(k, section)) entries_.emplace_back(k, std::string(section));
    if (reader.damaged()) return damaged_group(*g);
    group_ = *g;
    stored_ = g;
  } else {
    group_ = key;  // before every group: a new group at the front
  }
  loaded_ = true;
  dirty_ = false;
  return std::nullopt;
}

std::optional<std::string_view> SectionUpdater::get(Key key, Error* error) {
  if (auto s = load(key)) {
    if (error) *error = *s;
    return std::nullopt;
  }
  auto it = at(key);
  if (it == entries_.end() || it->first != key) return std::nullopt;
  return it->second;
}

Status SectionUpdater::put(Key key, std::string_view section) {
  if (auto s = load(key)) return s;
  auto it = at(key);
  if (it != entries_.end() && it->first == key)
    it->second.assign(section);
  else
    entries_.emplace(it, key, std::string(section));
  dirty_ = true;
  return std::nullopt;
}

Status SectionUpdater::erase(Key key) {
  if (auto s = load(key)) return s;
  auto it = at(key);
  if (it == entries_.end() || it->first != key) return std::nullopt;
  entries_.erase(it);
  dirty_ = true;
  return std::nullopt;
}

Status SectionUpdater::flush() {
  if (!loaded_ || !dirty_) return std::nullopt;
  loaded_ = dirty_ = false;  // the next key loads its group again
  if (entries_.empty()) return stored_ ? txn_.del(dbi_, NodeKey(*stored_).view()) : std::nullopt;
  GroupEncoder group;
  group.clear(group_);
  std::size_t bytes = 0;
  for (const auto& [key, section] : entries_) {
    bytes = group.bytes_with(key, section);
    group.add(key, section);
  }
  std::string value;
  if (entries_.size() <= 2 * kGroupPositions && bytes <= 2 * kGroupBytes) {
    group.encode(value);
    return txn_.put(dbi_, NodeKey(group_).view(), value);
  }
  // Grown too big: split as a writer of a new database cuts groups, the
  // first part keeping the group's key.
  group.clear(group_);
  for (const auto& [key, section] : entries_) {
    if (group.full_before(key, section)) {
      group.encode(value);
      if (auto s = txn_.put(dbi_, NodeKey(group.group_key()).view(), value)) return s;
      group.clear(key);
    }
    group.add(key, section);
  }
  group.encode(value);
  return txn_.put(dbi_, NodeKey(group.group_key()).view(), value);
}

}  // namespace gb::store
