#include "book/store/page_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

namespace gb::store {

namespace {

// LMDB 0.9's on-disk layout (64-bit): the facts mdb.c documents for MDB_page,
// MDB_node, MDB_meta and MDB_db.
constexpr std::uint64_t kHeader = 16;  // page number u64, pad u16, flags u16, lower u16, upper u16
constexpr std::uint16_t kBranch = 0x01, kLeaf = 0x02, kOverflow = 0x04, kMeta = 0x08, kLeaf2 = 0x20,
                        kSubPage = 0x40, kKindBits = kBranch | kLeaf | kOverflow | kMeta | kLeaf2 | kSubPage;
constexpr std::uint16_t kBigData = 0x01, kSubData = 0x02, kDupData = 0x04;  // node flags
constexpr std::uint16_t kDupSort = 0x04, kIntegerKey = 0x08, kDupFixed = 0x10, kIntegerDup = 0x20,
                        kReverse = 0x02 | 0x40;  // database flags
constexpr std::uint32_t kMagic = 0xBEEFC0DE, kDataVersion = 1;
constexpr std::uint64_t kNoPage = ~std::uint64_t(0);
constexpr std::uint64_t kNodeHeader = 8;  // lo u16, hi u16, flags u16, key size u16
constexpr std::uint64_t kDbSize = 48;     // MDB_db
constexpr std::uint64_t kMetaSize = 136;  // MDB_meta after the page header
constexpr std::size_t kMaxFindings = 100;

std::uint16_t u16(std::string_view b, std::size_t at) {
  return std::uint16_t(std::uint8_t(b[at]) | std::uint8_t(b[at + 1]) << 8);
}
std::uint32_t u32(std::string_view b, std::size_t at) {
  return std::uint32_t(u16(b, at)) | std::uint32_t(u16(b, at + 2)) << 16;
}
std::uint64_t u64(std::string_view b, std::size_t at) {
  return std::uint64_t(u32(b, at)) | std::uint64_t(u32(b, at + 4)) << 32;
}

// An MDB_db record: a database's root, depth, page and entry counts.
struct DbRecord {
  std::uint32_t pad = 0;  // the page size (free list) or the fixed value size (MDB_DUPFIXED)
  std::uint16_t flags = 0, depth = 0;
  std::uint64_t branch_pages = 0, leaf_pages = 0, overflow_pages = 0, entries = 0, root = kNoPage;
};
DbRecord read_db(std::string_view b, std::size_t at) {
  return {u32(b, at),      u16(b, at + 4),  u16(b, at + 6),  u64(b, at + 8),
          u64(b, at + 16), u64(b, at + 24), u64(b, at + 32), u64(b, at + 40)};
}

struct Meta {
  std::uint32_t magic = 0, version = 0;
  DbRecord free_db, main_db;
  std::uint64_t last_page = 0, txnid = 0;
};

// The file, read a page at a time; never past its end.
class PageFile {
 public:
  explicit PageFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    struct stat st;
    if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_ = std::uint64_t(st.st_size);
  }
  ~PageFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  PageFile(const PageFile&) = delete;
  PageFile& operator=(const PageFile&) = delete;
  bool is_open() const { return fd_ >= 0; }
  std::uint64_t size() const { return size_; }
  // count bytes at offset; false when the file ends before them.
  bool read(std::uint64_t offset, std::uint64_t count, std::string& out) const {
    if (offset > size_ || count > size_ - offset) return false;
    out.resize(count);
    for (std::uint64_t done = 0; done < count;) {
      ssize_t n = ::pread(fd_, out.data() + done, count - done, off_t(offset + done));
      if (n <= 0) return false;
      done += std::uint64_t(n);
    }
    return true;
  }

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

std::optional<Meta> read_meta(const PageFile& file, std::uint64_t offset) {
  std::string b;
  if (!file.read(offset, kHeader + kMetaSize, b) || !(u16(b, 10) & kMeta)) return std::nullopt;
  Meta m;
  m.magic = u32(b, kHeader);
  m.version = u32(b, kHeader + 4);
  m.free_db = read_db(b, kHeader + 24);
  m.main_db = read_db(b, kHeader + 72);
  m.last_page = u64(b, kHeader + 120);
  m.txnid = u64(b, kHeader + 128);
  return m;
}

// LMDB's default order (mdb_cmp_memn), or native 64-bit integers (MDB_INTEGERKEY).
int compare(std::string_view a, std::string_view b, bool integer) {
  if (integer && a.size() == 8 && b.size() == 8) {
    std::uint64_t x = u64(a, 0), y = u64(b, 0);
    return x < y ? -1 : x > y;
  }
  return a.compare(b);
}

// A tree being walked: what its records must look like.
struct TreeKind {
  std::string name;
  bool free_list = false;  // the FREE database: integer keys, values are page lists
  bool integer_keys = false;
  bool main = false;        // the main database: every record names a database
  bool dupsort = false;     // records may hold sorted duplicates
  bool dup_tree = false;    // the duplicates of one key: keys only
  std::uint32_t fixed = 0;  // MDB_DUPFIXED value size
};

struct Counts {
  std::uint64_t branch = 0, leaf = 0, overflow = 0, entries = 0;
};

// Walks B-trees from their roots, marking each page reached and noting damage.
class Walker {
 public:
  Walker(const PageFile& file, const FileLayout& layout, std::vector<Damage>& damage)
      : file_(file), layout_(layout), reached_(layout.last_page + 1, 0), damage_(damage) {
    reached_[0] = reached_[1] = 1;  // the meta pages
  }

  // Walks a whole database (the main one collects the named ones).
  void walk_db(const TreeKind& kind, const DbRecord& db) {
    damaged_in_walk_ = false;
    if (db.root == kNoPage) {
      if (db.depth || db.entries)
        note(kind.name, "no root page, yet depth " + std::to_string(db.depth) + " and " +
                            std::to_string(db.entries) + " entries");
      return;
    }
    if (db.depth == 0 || db.depth > 32) return note(kind.name, "depth " + std::to_string(db.depth));
    Counts counts;
    walk(kind, db, db.root, 1, std::nullopt, std::nullopt, counts);
    if (full() || damaged_in_walk_) return;
    const std::pair<const char*, std::pair<std::uint64_t, std::uint64_t>> tallies[] = {
        {"branch pages", {counts.branch, db.branch_pages}},
        {"leaf pages", {counts.leaf, db.leaf_pages}},
        {"overflow pages", {counts.overflow, db.overflow_pages}},
        {"entries", {counts.entries, db.entries}}};
    for (auto& [what, n] : tallies)
      if (n.first != n.second)
        note(kind.name,
             std::to_string(n.first) + " " + what + " found, its record says " + std::to_string(n.second));
  }

  // Checks only that a root page is a B-tree page that says it is that page.
  void check_root(const std::string& name, const DbRecord& db) {
    if (db.root == kNoPage) return;
    std::string page;
    if (auto bad = read_tree_page(db.root, page)) note(name + " root page " + std::to_string(db.root), *bad);
  }

  const std::vector<std::string>& names() const { return names_; }
  std::vector<std::pair<std::string, DbRecord>>& named() { return named_; }
  std::vector<std::uint8_t>& reached() { return reached_; }
  std::uint64_t pages_reached() const { return pages_; }
  // The free list's page numbers (the values of the FREE database).
  std::vector<std::uint64_t>& free_list() { return free_list_; }
  bool full() const { return damage_.size() >= kMaxFindings; }

 private:
  void note(std::string where, std::string what) {
    if (!full()) damage_.push_back({std::move(where), std::move(what)});
    damaged_in_walk_ = true;
  }

  std::optional<std::string> read_tree_page(std::uint64_t pgno, std::string& page) {
    if (pgno < 2 || pgno > layout_.last_page)
      return "page number " + std::to_string(pgno) + " outside the file's pages 2.." +
             std::to_string(layout_.last_page);
    if (!file_.read(pgno * layout_.page_size, layout_.page_size, page)) return std::string("cannot be read");
    if (u64(page, 0) != pgno) return "says it is page " + std::to_string(u64(page, 0));
    const std::uint16_t kind = u16(page, 10) & kKindBits;
    if (kind != kBranch && kind != kLeaf && kind != (kLeaf | kLeaf2))
      return "flags " + std::to_string(u16(page, 10)) + " are not those of a B-tree page";
    return std::nullopt;
  }

  // Marks pages first..first+count-1 reached; false when one already was.
  bool mark(std::uint64_t first, std::uint64_t count, const std::string& where) {
    for (std::uint64_t p = first; p < first + count; ++p) {
      if (reached_[p]) {
        note(where, "page " + std::to_string(p) + " is reached twice");
        return false;
      }
      reached_[p] = 1;
      ++pages_;
    }
    return true;
  }

  void walk(const TreeKind& kind, const DbRecord& db, std::uint64_t pgno, unsigned level,
            std::optional<std::string> low, std::optional<std::string> high, Counts& counts) {
    if (full()) return;
    const std::string where = "page " + std::to_string(pgno) + " of " + kind.name;
    std::string page;
    if (auto bad = read_tree_page(pgno, page)) return note(where, *bad);
    if (!mark(pgno, 1, where)) return;
    const std::uint16_t flags = u16(page, 10);
    const bool branch = flags & kBranch;
    if (branch == (level == db.depth))
      return note(where, std::string(branch ? "a branch page" : "a leaf page") + " at level " +
                             std::to_string(level) + " of a tree of depth " + std::to_string(db.depth));
    if (flags & kLeaf2) {
      if (!kind.dup_tree || !kind.fixed)
        return note(where, "a page of fixed-size values outside a duplicate tree");
      ++counts.leaf;
      return check_fixed_page(page, where, kind.fixed, low, high, counts);
    }
    std::vector<std::uint16_t> nodes;
    if (!node_offsets(page, page.size(), where, nodes)) return;
    if (branch && nodes.empty()) return note(where, "a branch page without children");
    branch ? ++counts.branch : ++counts.leaf;
    std::optional<std::string> previous;
    for (std::size_t i = 0; i < nodes.size() && !full(); ++i) {
      const std::size_t at = nodes[i];
      const std::uint16_t ksize = u16(page, at + 6), nflags = u16(page, at + 4);
      if (at + kNodeHeader + ksize > page.size())
        return note(where, "node " + std::to_string(i) + " has a key past the page's end");
      const std::string key = page.substr(at + kNodeHeader, ksize);
      if (!(branch && i == 0)) {  // a branch page's first key is its parent's bound
        if (previous && compare(*previous, key, kind.integer_keys) >= 0)
          return note(where, "node " + std::to_string(i) + ": keys out of order");
        if ((low && compare(key, *low, kind.integer_keys) < 0) ||
            (high && compare(key, *high, kind.integer_keys) >= 0))
          return note(where, "node " + std::to_string(i) + ": a key outside the range its parent gives");
        previous = key;
      }
      if (branch) {
        const std::uint64_t child = std::uint64_t(u16(page, at)) | std::uint64_t(u16(page, at + 2)) << 16 |
                                    std::uint64_t(nflags) << 32;
        std::optional<std::string> child_low = i == 0 ? low : std::optional<std::string>(key);
        std::optional<std::string> child_high = high;
        if (i + 1 < nodes.size()) {
          const std::size_t next = nodes[i + 1];
          const std::uint16_t nk = u16(page, next + 6);
          if (next + kNodeHeader + nk > page.size())
            return note(where, "node " + std::to_string(i + 1) + " has a key past the page's end");
          child_high = page.substr(next + kNodeHeader, nk);
        }
        walk(kind, db, child, level + 1, child_low, child_high, counts);
      } else {
        leaf_node(kind, page, at, ksize, nflags, key, where + ", node " + std::to_string(i), counts);
      }
    }
  }

  // The node offsets of a branch or leaf page (or sub-page) of size bytes.
  bool node_offsets(std::string_view page, std::size_t size, const std::string& where,
                    std::vector<std::uint16_t>& out) {
    const std::uint16_t lower = u16(page, 12), upper = u16(page, 14);
    if (lower < kHeader || lower > upper || upper > size || (lower - kHeader) % 2)
      return note(where, "lower " + std::to_string(lower) + " and upper " + std::to_string(upper) +
                             " do not fit a page of " + std::to_string(size) + " bytes"),
             false;
    for (std::size_t i = 0; i < (lower - kHeader) / 2; ++i) {
      const std::uint16_t at = u16(page, kHeader + 2 * i);
      if (at < upper || at % 2 || at + kNodeHeader > size)
        return note(where, "node " + std::to_string(i) + " at offset " + std::to_string(at) +
                               " is outside the page's node area"),
               false;
      out.push_back(at);
    }
    return true;
  }

  // A page of fixed-size keys (MDB_DUPFIXED duplicates): a page or a sub-page.
  void check_fixed_page(std::string_view page, const std::string& where, std::uint32_t fixed,
                        const std::optional<std::string>& low, const std::optional<std::string>& high,
                        Counts& counts) {
    const std::uint16_t lower = u16(page, 12);
    const std::size_t n = lower >= kHeader ? (lower - kHeader) / 2 : 0;
    if (lower < kHeader || kHeader + n * fixed > page.size())
      return note(where, std::to_string(n) + " values of " + std::to_string(fixed) + " bytes do not fit");
    std::string_view previous;
    for (std::size_t i = 0; i < n; ++i) {
      std::string_view v = page.substr(kHeader + i * fixed, fixed);
      if ((i && compare(previous, v, false) >= 0) || (low && compare(v, *low, false) < 0) ||
          (high && compare(v, *high, false) >= 0))
        return note(where, "value " + std::to_string(i) + " out of order");
      previous = v;
    }
    counts.entries += n;
  }

  void leaf_node(const TreeKind& kind, std::string_view page, std::size_t at, std::uint16_t ksize,
                 std::uint16_t nflags, const std::string& key, const std::string& where, Counts& counts) {
    const std::uint64_t dsize = std::uint64_t(u16(page, at)) | std::uint64_t(u16(page, at + 2)) << 16;
    const std::size_t data_at = at + kNodeHeader + ksize;
    if (kind.dup_tree) {  // keys only
      if (dsize || nflags) return note(where, "a duplicate that carries data");
      ++counts.entries;
      return;
    }
    if (nflags & kBigData) {
      if (nflags & ~kBigData) return note(where, "node flags " + std::to_string(nflags));
      if (data_at + 8 > page.size()) return note(where, "its overflow page number is past the page's end");
      ++counts.entries;
      return overflow(kind, u64(page, data_at), dsize, where, counts);
    }
    if (data_at + dsize > page.size())
      return note(where, "its value of " + std::to_string(dsize) + " bytes ends past the page");
    std::string_view data = page.substr(data_at, dsize);
    if (kind.main) {
      if (nflags != kSubData || dsize != kDbSize)
        return note(where, "a record of the main database that is not a database");
      named_.emplace_back(key, read_db(data, 0));
      names_.push_back(key);
      ++counts.entries;
      return;
    }
    if (nflags == 0) {
      ++counts.entries;
      if (kind.free_list) collect_free(data, where);
      return;
    }
    if (!kind.dupsort || !(nflags & kDupData)) return note(where, "node flags " + std::to_string(nflags));
    TreeKind dups;
    dups.name = kind.name + " duplicates";
    dups.dup_tree = true;
    dups.fixed = kind.fixed;
    if (nflags & kSubData) {  // the duplicates have a tree of their own
      if (dsize != kDbSize)
        return note(where, "a duplicate tree record of " + std::to_string(dsize) + " bytes");
      DbRecord sub = read_db(data, 0);
      if (kind.fixed) dups.fixed = sub.pad;
      const std::size_t before = damage_.size();
      walk_sub(dups, sub);
      counts.entries += sub.entries;
      if (damage_.size() > before) damaged_in_walk_ = true;
      return;
    }
    // A sub-page: a small leaf page inside the value.
    if (dsize < kHeader) return note(where, "a duplicate sub-page of " + std::to_string(dsize) + " bytes");
    const std::uint16_t sflags = u16(data, 10) & kKindBits;
    if (!(sflags & kSubPage) || !(sflags & kLeaf))
      return note(where, "a duplicate sub-page with flags " + std::to_string(sflags));
    if (sflags & kLeaf2) {
      const std::uint16_t fixed = u16(data, 8);
      if (!kind.fixed || fixed == 0)
        return note(where, "a sub-page of fixed-size values in a database without them");
      return check_fixed_page(data, where, fixed, std::nullopt, std::nullopt, counts);
    }
    std::vector<std::uint16_t> nodes;
    if (!node_offsets(data, data.size(), where, nodes)) return;
    std::optional<std::string> previous;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::uint16_t vsize = u16(data, nodes[i] + 6);
      if (nodes[i] + kNodeHeader + vsize > data.size())
        return note(where, "a duplicate past its sub-page's end");
      std::string v(data.substr(nodes[i] + kNodeHeader, vsize));
      if (previous && compare(*previous, v, false) >= 0) return note(where, "duplicates out of order");
      previous = v;
      ++counts.entries;
    }
  }

  void walk_sub(const TreeKind& dups, const DbRecord& sub) {
    if (sub.root == kNoPage || sub.depth == 0 || sub.depth > 32)
      return note(dups.name, "a duplicate tree without a root");
    Counts c;
    walk(dups, sub, sub.root, 1, std::nullopt, std::nullopt, c);
    if (c.entries != sub.entries)
      note(dups.name,
           std::to_string(c.entries) + " duplicates found, the record says " + std::to_string(sub.entries));
  }

  void overflow(const TreeKind& kind, std::uint64_t first, std::uint64_t dsize, const std::string& where,
                Counts& counts) {
    const std::uint64_t psize = layout_.page_size;
    const std::uint64_t pages = (kHeader - 1 + dsize) / psize + 1;  // LMDB's OVPAGES
    if (first < 2 || first > layout_.last_page || pages > layout_.last_page + 1 - first)
      return note(where, "its value's " + std::to_string(pages) + " overflow pages from page " +
                             std::to_string(first) + " are outside the file's pages");
    std::string head;
    if (!file_.read(first * psize, kHeader, head)) return note(where, "its overflow page cannot be read");
    if (u64(head, 0) != first || !(u16(head, 10) & kOverflow) || u32(head, 12) != pages)
      return note("page " + std::to_string(first) + " of " + kind.name,
                  "not the overflow page of " + std::to_string(pages) + " pages that " + where + " names");
    if (!mark(first, pages, where)) return;
    counts.overflow += pages;
    if (kind.free_list) {  // a free list too long for a leaf
      std::string data;
      if (file_.read(first * psize + kHeader, dsize, data)) collect_free(data, where);
    }
  }

  // A value of the FREE database: a count, then that many page numbers.
  void collect_free(std::string_view data, const std::string& where) {
    if (data.size() < 8 || data.size() % 8 || u64(data, 0) != data.size() / 8 - 1)
      return note(where,
                  "a free list of " + std::to_string(data.size()) + " bytes that does not hold its count");
    for (std::size_t i = 8; i < data.size(); i += 8) free_list_.push_back(u64(data, i));
  }

  const PageFile& file_;
  FileLayout layout_;
  std::vector<std::uint8_t> reached_;
  std::vector<Damage>& damage_;
  std::vector<std::string> names_;
  std::vector<std::pair<std::string, DbRecord>> named_;
  std::vector<std::uint64_t> free_list_;
  std::uint64_t pages_ = 0;
  bool damaged_in_walk_ = false;
};

TreeKind named_kind(const std::string& name, const DbRecord& db) {
  TreeKind k;
  k.name = name;
  k.integer_keys = db.flags & kIntegerKey;
  k.dupsort = db.flags & kDupSort;
  k.fixed = (db.flags & kDupFixed) ? 1 : 0;  // the size comes with each duplicate tree or sub-page
  return k;
}

// The meta pages and the file's size: nullopt when they are sound (layout filled).
CheapCheck read_layout(const PageFile& file, Meta& chosen) {
  CheapCheck c;
  c.layout.file_size = file.size();
  using V = CheapCheck::Verdict;
  if (file.size() == 0) return {V::Empty, "an empty file (0 bytes)", c.layout};
  auto m0 = read_meta(file, 0);
  if (!m0 || m0->magic != kMagic) return {V::NotLmdb, "it does not start with an LMDB meta page", c.layout};
  if (m0->version != kDataVersion)
    return {V::NotLmdb, "LMDB data version " + std::to_string(m0->version) + ", not 1", c.layout};
  const std::uint64_t psize = m0->free_db.pad;
  if (psize < 512 || psize > 65536 || (psize & (psize - 1)))
    return {V::Damaged, "meta page 0 names a page size of " + std::to_string(psize), c.layout};
  c.layout.page_size = psize;
  if (file.size() < 2 * psize)
    return {V::Damaged,
            "truncated: " + std::to_string(file.size()) + " bytes, shorter than its two meta pages",
            c.layout};
  auto m1 = read_meta(file, psize);
  if (!m1 || m1->magic != kMagic || m1->version != kDataVersion)
    return {V::Damaged, "meta page 1 is not an LMDB meta page", c.layout};
  chosen = m1->txnid > m0->txnid ? *m1 : *m0;  // as LMDB chooses
  const char* which = m1->txnid > m0->txnid ? "meta page 1" : "meta page 0";
  c.layout.last_page = chosen.last_page;
  c.layout.txnid = chosen.txnid;
  if (chosen.last_page < 1 || chosen.last_page >= (std::uint64_t(1) << 40))
    return {V::Damaged, std::string(which) + " names last page " + std::to_string(chosen.last_page),
            c.layout};
  if ((chosen.last_page + 1) * psize > file.size())
    return {V::Damaged,
            "truncated: " + std::string(which) + " names pages up to " + std::to_string(chosen.last_page) +
                " (" + std::to_string((chosen.last_page + 1) * psize) + " bytes), the file has " +
                std::to_string(file.size()) + " bytes",
            c.layout};
  for (const DbRecord* db : {&chosen.free_db, &chosen.main_db})
    if (db->root != kNoPage && (db->root < 2 || db->root > chosen.last_page))
      return {V::Damaged,
              std::string(which) + " names root page " + std::to_string(db->root) + " outside pages 2.." +
                  std::to_string(chosen.last_page),
              c.layout};
  return c;
}

}  // namespace

namespace {

CheapCheck check_once(const std::string& path) {
  using V = CheapCheck::Verdict;
  PageFile file(path);
  if (!file.is_open()) return {errno == ENOENT ? V::Absent : V::Unreadable, std::strerror(errno), {}};
  Meta meta;
  CheapCheck c = read_layout(file, meta);
  if (c.verdict != V::Sound) return c;
  std::vector<Damage> damage;
  Walker walker(file, c.layout, damage);
  walker.walk_db({"the main database", false, false, true}, meta.main_db);
  for (auto& [name, db] : walker.named()) {
    if (name == "meta")
      walker.walk_db(named_kind("meta", db), db);
    else
      walker.check_root(name, db);
  }
  if (!damage.empty()) return {V::Damaged, damage.front().message(), c.layout};
  return c;
}

// The transaction id of the meta page LMDB would use now (0 when unreadable).
std::uint64_t current_txnid(const std::string& path) {
  PageFile file(path);
  Meta meta;
  return file.is_open() && read_layout(file, meta).verdict == CheapCheck::Verdict::Sound ? meta.txnid : 0;
}

}  // namespace

CheapCheck check_file_cheaply(const std::string& path) {
  // A writer that commits twice while the pages are read may reuse a page of
  // the snapshot being checked: damage that a later commit explains is read again.
  CheapCheck c = check_once(path);
  for (int attempt = 0; attempt < 3 && c.verdict == CheapCheck::Verdict::Damaged; ++attempt) {
    if (c.layout.txnid == 0 || current_txnid(path) == c.layout.txnid) break;
    c = check_once(path);
  }
  return c;
}

namespace {

PageReport check_pages_once(const std::string& path) {
  PageReport report;
  PageFile file(path);
  using V = CheapCheck::Verdict;
  if (!file.is_open()) {
    report.cheap = {errno == ENOENT ? V::Absent : V::Unreadable, std::strerror(errno), {}};
    return report;
  }
  Meta meta;
  report.cheap = read_layout(file, meta);
  if (report.cheap.verdict != V::Sound) return report;
  const FileLayout& layout = report.cheap.layout;
  Walker walker(file, layout, report.damage);
  walker.walk_db({"the free list", true, true}, meta.free_db);
  walker.walk_db({"the main database", false, false, true}, meta.main_db);
  for (auto& [name, db] : walker.named()) {
    if (db.flags & (kReverse | kIntegerDup)) {
      report.damage.push_back({name, "database flags " + std::to_string(db.flags) + " that no book uses"});
      continue;
    }
    walker.walk_db(named_kind(name, db), db);
  }
  report.databases = walker.names();
  report.pages_reached = walker.pages_reached();
  if (!report.damage.empty()) return report;

  // Every page is either in a tree or free, never both.
  std::vector<std::uint8_t>& reached = walker.reached();
  for (std::uint64_t p : walker.free_list()) {
    if (p < 2 || p > layout.last_page) {
      report.damage.push_back(
          {"the free list", "names page " + std::to_string(p) + " outside the file's pages"});
    } else if (reached[p]) {
      report.damage.push_back(
          {"the free list",
           "names page " + std::to_string(p) + (reached[p] == 2 ? " twice" : ", which a database uses")});
    } else {
      reached[p] = 2;
      ++report.free_pages;
    }
    if (report.damage.size() >= kMaxFindings) return report;
  }
  std::uint64_t lost = 0, first_lost = 0;
  for (std::uint64_t p = 2; p <= layout.last_page; ++p)
    if (!reached[p] && !lost++) first_lost = p;
  if (lost)
    report.damage.push_back({"the file", std::to_string(lost) + " pages (the first is page " +
                                             std::to_string(first_lost) +
                                             ") are neither in a database nor free"});
  return report;
}

}  // namespace

PageReport check_pages(const std::string& path) {
  PageReport report = check_pages_once(path);
  for (int attempt = 0; attempt < 3 && !report.damage.empty(); ++attempt) {
    if (report.cheap.layout.txnid == 0 || current_txnid(path) == report.cheap.layout.txnid) break;
    report = check_pages_once(path);  // a writer committed meanwhile: read the new snapshot
  }
  return report;
}

}  // namespace gb::store
