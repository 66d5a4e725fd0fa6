// Checks an LMDB file's pages by reading the file, without LMDB: LMDB trusts
// the page numbers, offsets and sizes it finds (a damaged page makes it read
// outside the map and crash), so a book is checked here before LMDB reads it.
//
// The layout read is LMDB 0.9's on-disk format on a 64-bit little-endian
// machine (docs/FORMAT.md, "Damage"): two meta pages, then B-tree pages (a
// 16-byte header: page number, pad, flags, lower, upper; then 16-bit node
// offsets), overflow pages for large values, and the free list (the FREE
// database: transaction id -> page numbers).
//
//   auto cheap = check_file_cheaply("games.book");      // on every open
//   PageReport full = check_pages("games.book");        // graphbook check
//
// Both read with pread(): damage can never make them read outside the file.
// A writer may commit while they read (they take no lock): damage found in a
// snapshot that a commit replaced meanwhile is read again from the new one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gb::store {

// One thing found damaged: where ("meta page 0", "page 17 of positions",
// "file") and what.
struct Damage {
  std::string where;
  std::string what;
  std::string message() const { return where + ": " + what; }
};

// What the meta page LMDB would use (the one with the higher transaction id) says.
struct FileLayout {
  std::uint64_t file_size = 0;
  std::uint64_t page_size = 0;
  std::uint64_t last_page = 0;  // pages 0..last_page are in use by the file's last commit
  std::uint64_t txnid = 0;
};

struct CheapCheck {
  enum class Verdict {
    Sound,       // as far as the cheap checks go: LMDB may open it
    Absent,      // no such file
    Empty,       // 0 bytes: not a book (LMDB makes one of it only when creating)
    NotLmdb,     // does not start with an LMDB meta page
    Damaged,     // an LMDB file whose meta pages, size or main database are damaged
    Unreadable,  // cannot be opened or read (detail: the errno text)
  };
  Verdict verdict = Verdict::Sound;
  std::string detail;  // what is wrong, without the file name
  FileLayout layout;   // filled when the meta pages were read
};

// The checks every open makes (a few pages, microseconds): both meta pages
// (magic, data version, page size, transaction ids), the file's size against
// the last page the meta page names, the roots of the free list and of the
// main database, and every page of the main database (the names of the
// databases) and of the database named "meta" (graphbook's format records).
[[nodiscard]] CheapCheck check_file_cheaply(const std::string& path);

struct PageReport {
  CheapCheck cheap;                    // the cheap checks (damage below only when Sound)
  std::uint64_t pages_reached = 0;     // B-tree and overflow pages of all databases
  std::uint64_t free_pages = 0;        // pages in the free list
  std::vector<std::string> databases;  // the named databases, in key order
  std::vector<Damage> damage;          // empty when every page is sound
};

// Every page: each B-tree page of every named database (and of their
// duplicate-data sub-databases and sub-pages) and of the free list, from
// the meta page's roots: page number in range and equal to the one stored in
// the page, page kind, lower/upper and node offsets within the page, nodes
// within the page, keys in order within the page and within the bounds its
// parent gives, every leaf at the tree's depth, overflow pages in the file,
// entry and page counts equal to the database's record, each page reached
// once, and every page of the file either reached or free. Stops listing
// after 100 findings.
[[nodiscard]] PageReport check_pages(const std::string& path);

}  // namespace gb::store
