// A flat open-addressing table from Polyglot keys to small values: the
// traversal's visited set and its index of the book's sections. Polyglot keys
// are uniformly random, so the low bits are the hash; linear probing in one
// array is a cache miss per lookup where std::unordered_set made two or
// three (the traversal's hottest line when it used one). A large table asks
// for transparent huge pages: its lookups are random, and with 4 KiB pages
// each was a TLB miss as well.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#include "book/chess/types.h"

namespace gb::query {

template <class Value>
class KeyTable {
 public:
  explicit KeyTable(std::size_t expected = 1024) { rehash(capacity_for(expected)); }

  // The value of key, inserted default-constructed when absent; inserted
  // tells which.
  Value& find_or_insert(Key key, bool& inserted) {
    if ((size_ + 1) * 2 > capacity_) rehash(capacity_ * 2);
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
    const std::size_t mask = capacity_ - 1;
    for (std::size_t i = std::size_t(key) & mask;; i = (i + 1) & mask)
      if (!slots_[i].used || slots_[i].key == key) return &slots_[i];
  }
  static_assert(std::is_trivially_destructible_v<Slot>);
  struct Free {
    void operator()(Slot* p) const { std::free(p); }
  };
  static constexpr std::size_t kHugePage = std::size_t(2) << 20;
  void rehash(std::size_t capacity) {
    const bool huge = capacity * sizeof(Slot) >= kHugePage;
    const std::size_t align = huge ? kHugePage : alignof(std::max_align_t);
    const std::size_t bytes = (capacity * sizeof(Slot) + align - 1) / align * align;
    auto* raw = static_cast<Slot*>(std::aligned_alloc(align, bytes));
    if (!raw) throw std::bad_alloc();
    if (huge) ::madvise(raw, bytes, MADV_HUGEPAGE);  // advice: a failure costs only speed
    std::uninitialized_default_construct_n(raw, capacity);
    std::unique_ptr<Slot[], Free> old(raw);
    old.swap(slots_);
    const std::size_t old_capacity = capacity_;
    capacity_ = capacity;
    size_ = 0;
    for (std::size_t i = 0; i < old_capacity; ++i)
      if (old[i].used) {
        bool inserted;
        find_or_insert(old[i].key, inserted) = old[i].value;
      }
  }
  std::unique_ptr<Slot[], Free> slots_;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

}  // namespace gb::query
