// Reading a whole book back for comparisons in the builder tests.
#pragma once

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "book/chess/notation.h"
#include "book/store/book.h"
#include "book/store/fingerprint_blocks.h"
#include "book/store/polyglot.h"
#include "book/store/section_groups.h"
#include "play.h"

namespace gb::test {

// The book at path, opened for reading (the test fails if it does not open).
inline store::Book open_book(const std::string& path) {
  store::BookError e;
  auto book = store::Book::open(path, store::OpenMode::ReadOnly, &e);
  INFO(e.message);
  REQUIRE(book);
  return std::move(*book);
}

// A database of the book file at path as LMDB holds it, read-only (for the
// tests of the bytes a format lays down, and of books of older formats).
struct RawDatabase {
  store::Env env;
  store::ReadTxn txn;
  MDB_dbi dbi;
};
inline RawDatabase open_raw(const std::string& path, const char* name) {
  store::Error e;
  auto env = store::Env::open(path, true, std::size_t(1) << 24, 16, &e);
  INFO(path << ": " << e.message());
  REQUIRE(env);
  auto txn = store::ReadTxn::begin(*env, &e);
  REQUIRE(txn);
  auto dbi = txn->open_db(name, 0, &e);
  REQUIRE(dbi);
  return RawDatabase{std::move(*env), std::move(*txn), *dbi};
}

// Every key and value of one database, as bytes.
inline std::map<std::string, std::string> dump(store::Book& book, MDB_dbi dbi) {
  std::map<std::string, std::string> out;
  auto txn = store::ReadTxn::begin(book.env(), nullptr);
  auto cursor = store::Cursor::open(*txn, dbi, nullptr);
  for (auto item = cursor->first(); item; item = cursor->next())
    out[std::string(item->key)] = std::string(item->value);
  return out;
}

// The game fingerprints of a book in order: how blocks hold them is the
// writer's business (store/fingerprint_blocks.h).
inline std::vector<store::Fingerprint> fingerprints(store::Book& book) {
  std::vector<store::Fingerprint> out;
  auto txn = store::ReadTxn::begin(book.env(), nullptr);
  REQUIRE(txn);
  store::Error e;
  auto cursor = store::FingerprintCursor::open(*txn, book.dbs().games, &e);
  REQUIRE(cursor);
  while (auto fp = cursor->next(&e)) out.push_back(*fp);
  INFO(e.message());
  REQUIRE(e.code == 0);
  return out;
}

// Every position of a database of sections (positions, pruned), under its
// 8-byte key: how the groups cut them is the writer's business.
inline std::map<std::string, std::string> sections(store::Book& book, MDB_dbi dbi) {
  std::map<std::string, std::string> out;
  auto txn = store::ReadTxn::begin(book.env(), nullptr);
  REQUIRE(txn);
  REQUIRE_FALSE(store::each_section(*txn, dbi, [&](Key key, std::string_view section) {
    out[std::string(store::NodeKey(key).view())] = std::string(section);
    return true;
  }));
  return out;
}

// Every edge of the book, from all its sections.
inline std::vector<store::EdgeRecord> all_edges(store::Book& book) {
  std::vector<store::EdgeRecord> out;
  for (const auto& [key, value] : sections(book, book.dbs().positions)) {
    store::SectionReader section(value);
    std::uint16_t move;
    store::EdgeRecord edge;
    while (section.next(move, edge)) out.push_back(edge);
    REQUIRE(section.ok());
  }
  return out;
}

// Polyglot entries sorted by (key, move, weight, learn): make-book orders
// moves of equal weight by qsort, so books are compared as sets.
inline std::vector<store::PolyglotEntry> as_set(std::vector<store::PolyglotEntry> v) {
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return std::tie(a.key, a.move, a.weight, a.learn) < std::tie(b.key, b.move, b.weight, b.learn);
  });
  return v;
}

// Sorted by key and, within a key, by weight descending (make-book's order).
inline bool polyglot_ordered(const std::vector<store::PolyglotEntry>& v) {
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i - 1].key > v[i].key) return false;
    if (v[i - 1].key == v[i].key && v[i - 1].weight < v[i].weight) return false;
  }
  return true;
}

}  // namespace gb::test
