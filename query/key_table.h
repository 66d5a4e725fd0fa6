// A flat open-addressing table from Polyglot keys to small values: the
// traversal's visited set and its index of the book's sections. Polyglot keys
// are uniformly random, so the low bits are the hash; linear probing in one
// array is a cache miss per lookup where std::unordered_set made two or
// three (the traversal's hottest line when it used one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "book/chess/types.h"

namespace gb::query {

template <class Value>
class KeyTable {
 public:
  explicit KeyTable(std::size_t expected = 1024) { rehash(capacity_for(expected)); }

  // The value of key, inserted default-constructed when absent; inserted
  // tells which.
  Value& find_or_insert(Key key, bool& inserted) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    Slot* s = probe(key);
    inserted = !s->used;
    if (inserted) {
      s->used = true;
      s->key = key;
      ++size_;
    }
    return s->value;
  }
  // nullptr when absent.
  const Value* find(Key key) const {
    const Slot* s = probe(key);
    return s->used ? &s->value : nullptr;
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    Key key = 0;
    bool used = false;
    Value value{};
  };
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 16;
    while (c < n * 2) c *= 2;
    return c;
  }
  Slot* probe(Key key) { return const_cast<Slot*>(static_cast<const KeyTable*>(this)->probe(key)); }
  const Slot* probe(Key key) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = std::size_t(key) & mask;; i = (i + 1) & mask)
      if (!slots_[i].used || slots_[i].key == key) return &slots_[i];
  }
  void rehash(std::size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
      if (s.used) {
        bool inserted;
        find_or_insert(s.key, inserted) = s.value;
      }
  }
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace gb::query
