#include "builder/book_upgrade.h"

#include <sys/stat.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "book/store/book.h"
#include "book/store/fingerprint_blocks.h"
#include "book/store/section_groups.h"
#include "book/store/shard_manifest.h"
#include "builder/book_writer.h"
#include "builder/interrupt_cleanup.h"
#include "builder/new_book_file.h"

namespace gb::builder {

namespace {

using store::Status;

constexpr std::uint32_t kSectionlessFormat = 2;  // nodes and edges in two databases
constexpr std::uint32_t kUngroupedFormat = 4;    // a section per LMDB record
constexpr std::uint32_t kLastFormat = 6;         // the newest a book is upgraded from
static_assert(kLastFormat + 1 == store::kFormatVersion);

// What makes a format 2 book a book of this kind: its meta records.
struct OldBook {
  MDB_dbi meta = 0, nodes = 0, edges = 0;  // nodes and edges: format 2 only
  std::uint32_t version = 0;
};

// Writes the sections of the format 2 nodes and edges databases of from.
Status write_sections(const store::Txn& from, const OldBook& old, store::Book& to, ChunkedAppender& appender,
                      UpgradeReport& report, const std::string& path) {
  store::Error error;
  auto nodes = store::Cursor::open(from, old.nodes, &error);
  if (!nodes) return error;
  auto edges = store::Cursor::open(from, old.edges, &error);
  if (!edges) return error;
  const auto damaged = [&](std::string_view what, std::string_view key) {
    return store::Error{EIO, path + ": a damaged " + std::string(what) + " record (key of " +
                                 std::to_string(key.size()) + " bytes)"};
  };
  auto node = nodes->first(&error);
  auto edge = edges->first(&error);
  store::GroupAppender groups = appender.groups(to.dbs().positions);
  std::string value;
  while (!error.code && (node || edge)) {
    if (node && node->key.size() != 8) return damaged("node", node->key);
    if (edge && edge->key.size() != 10) return damaged("edge", edge->key);
    const Key key = !edge   ? store::get_be64(node->key.data())
                    : !node ? store::get_be64(edge->key.data())
                            : std::min(store::get_be64(node->key.data()), store::get_be64(edge->key.data()));
    value.clear();
    std::optional<store::NodeRecord> section_node;
    if (node && store::get_be64(node->key.data()) == key) {
      store::NodeRecord r;
      if (!store::from_bytes(node->value, r)) return damaged("node", node->key);
      store::append_section_node(value, &r);
      section_node = r;
      ++report.nodes;
      node = nodes->next(&error);
    } else {
      store::append_section_node(value, nullptr);
    }
    // Edges of one key are in move order: the order of a section.
    while (!error.code && edge && edge->key.size() == 10 && store::get_be64(edge->key.data()) == key) {
      store::EdgeRecord r;
      if (!store::from_bytes(edge->value, r)) return damaged("edge", edge->key);
      store::append_section_edge(value, store::get_be16(edge->key.data() + 8), r,
                                 section_node ? &*section_node : nullptr);
      ++report.edges;
      edge = edges->next(&error);
    }
    if (auto s = groups.add(key, value)) return s;
    ++report.positions;
  }
  if (error.code) return error;
  return groups.finish();
}

// Copies database `name` of from into its namesake in to, created with the
// same flags (sorted duplicates are put one by one, the rest appended).
Status copy_database(const store::Txn& from, MDB_dbi source, MDB_dbi target, unsigned flags,
                     ChunkedAppender& appender, UpgradeReport& report) {
  store::Error error;
  auto cursor = store::Cursor::open(from, source, &error);
  if (!cursor) return error;
  const unsigned put_flags = (flags & MDB_DUPSORT) ? 0u : unsigned(MDB_APPEND);
  for (auto item = cursor->first(&error); item; item = cursor->next(&error)) {
    if (auto s = appender.add(target, item->key, item->value, put_flags)) return s;
    ++report.other_records;
  }
  if (error.code) return error;
  return std::nullopt;
}

// Writes the game fingerprints of database source of from (a record each,
// before format 7) into target in blocks (fingerprint_blocks.h).
Status regroup_fingerprints(const store::Txn& from, MDB_dbi source, MDB_dbi target, ChunkedAppender& appender,
                            UpgradeReport& report) {
  store::Error error;
  auto cursor = store::FingerprintCursor::open(from, source, &error);
  if (!cursor) return error;
  store::FingerprintAppender blocks = appender.fingerprints(target);
  while (auto fp = cursor->next(&error)) {
    if (auto s = blocks.add(*fp)) return s;
    ++report.other_records;
  }
  if (error.code) return error;
  return blocks.finish();
}

// Writes the sections of database source of from (formats 3 and 4: one to
// an LMDB record; 5: in groups) again into target, in groups, each in format
// 6's encoding: edges sharing their node's fields where they can (format 4),
// one-game positions packed, position hashes of 32 bits (the reader keeps
// the low 32 of older books' 64). The positions (counted as such in report)
// or, positions false, the pruned counts (as other records).
Status rewrite_sections(const store::Txn& from, MDB_dbi source, MDB_dbi target, ChunkedAppender& appender,
                        UpgradeReport& report, const std::string& path, bool positions, bool grouped) {
  const std::string name = positions ? "positions" : kPrunedDb;
  store::GroupAppender groups = appender.groups(target);
  store::Section section;
  std::string value;
  const auto damaged = [&](const std::string& where) {
    return store::Error{EIO, path + ": a damaged section in " + name + " (" + where + ")"};
  };
  const auto rewrite = [&](Key key) -> Status {
    store::to_bytes(section, value);
    if (auto s = groups.add(key, value)) return s;
    if (positions) {
      ++report.positions;
      report.nodes += section.node.has_value();
      report.edges += section.edges.size();
    } else {
      ++report.other_records;
    }
    return std::nullopt;
  };
  store::Error error;
  if (grouped) {
    auto cursor = store::SectionCursor::open(from, source, &error);
    if (!cursor) return error;
    Key key;
    std::string_view bytes;
    while (cursor->next(key, bytes, &error)) {
      if (!store::from_bytes(bytes, section)) return damaged("key " + std::to_string(key));
      if (auto s = rewrite(key)) return s;
    }
    if (error.code) return store::Error{EIO, path + ": " + error.message()};
    return groups.finish();
  }
  auto cursor = store::Cursor::open(from, source, &error);
  if (!cursor) return error;
  for (auto item = cursor->first(&error); item; item = cursor->next(&error)) {
    if (item->key.size() != 8 || !store::from_bytes(item->value, section))
      return damaged("key of " + std::to_string(item->key.size()) + " bytes");
    if (auto s = rewrite(store::get_be64(item->key.data()))) return s;
  }
  if (error.code) return error;
  return groups.finish();
}

// A sharded book (build --mpi): each shard upgraded as a book, then the
// manifest written again with the format of its shards. Stopped part way,
// the book names the shard not yet upgraded when it is opened, and
// upgrading it again finishes the work (an upgraded shard has nothing to do).
std::optional<UpgradeReport> upgrade_sharded(const std::string& dir, BuildError* error) {
  store::BookError be;
  auto manifest = store::read_manifest(dir, &be);
  if (!manifest) return *error = BuildError::input(be.message), std::nullopt;
  UpgradeReport total;
  total.from_version = store::kFormatVersion;
  for (const std::string& shard : store::shard_paths(dir, *manifest)) {
    auto report = upgrade_book(shard, error);
    if (!report) return std::nullopt;
    total.from_version = std::min(total.from_version, report->from_version);
    total.positions += report->positions;
    total.nodes += report->nodes;
    total.edges += report->edges;
    total.other_records += report->other_records;
  }
  if (total.from_version != store::kFormatVersion)
    if (auto s = store::write_manifest(dir, *manifest))
      return *error = BuildError::book(dir + ": " + s->message()), std::nullopt;
  return total;
}

}  // namespace

std::optional<UpgradeReport> upgrade_book(const std::string& path, BuildError* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return *error = BuildError::input(path + ": no such book"), std::nullopt;
  if (store::is_sharded_book(path)) return upgrade_sharded(path, error);
  store::Error e;
  auto env = store::Env::open(path, false, store::Book::kDefaultMapSize, 64, &e);
  if (!env) {
    *error = (e.code == MDB_INVALID || e.code == MDB_VERSION_MISMATCH)
                 ? BuildError::input(path + ": not a graphbook book (not an LMDB file)")
                 : BuildError::book(path + ": " + e.message());
    return std::nullopt;
  }
  // The old book's writer lock, held until its file is replaced: no build
  // of an older graphbook writes into it meanwhile. It is only read.
  auto txn = store::WriteTxn::begin(*env, &e);
  if (!txn) return *error = BuildError::book(path + ": " + e.message()), std::nullopt;
  OldBook old;
  auto meta = txn->open_db("meta", 0, &e);
  auto version = meta ? store::format_version(*txn, *meta) : std::nullopt;
  if (!version)
    return *error = BuildError::input(path + ": not a graphbook book (no graphbook meta record)"),
           std::nullopt;
  if (*version == 0)
    return *error = BuildError::input(path + ": not a graphbook book (no format version)"), std::nullopt;
  old.meta = *meta;
  old.version = *version;
  UpgradeReport report;
  report.from_version = old.version;
  if (old.version == store::kFormatVersion) return report;  // nothing to do
  if (old.version < kSectionlessFormat || old.version > kLastFormat)
    return *error = BuildError::input(path + ": book format version " + std::to_string(old.version) +
                                      ", graphbook upgrades versions " + std::to_string(kSectionlessFormat) +
                                      " to " + std::to_string(kLastFormat) + " only"),
           std::nullopt;
  const bool sectionless = old.version == kSectionlessFormat;
  auto names = txn->database_names(&e);
  if (!names) return *error = BuildError::book(path + ": " + e.message()), std::nullopt;
  const bool grouped = old.version > kUngroupedFormat;
  std::optional<MDB_dbi> positions;  // formats 3 to 5
  if (sectionless) {
    auto nodes = txn->open_db("nodes", 0, &e);
    auto edges = nodes ? txn->open_db("edges", 0, &e) : std::nullopt;
    if (!edges)
      return *error = BuildError::input(path + ": not a format 2 book: " + e.message()), std::nullopt;
    old.nodes = *nodes;
    old.edges = *edges;
  } else if (!(positions = txn->open_db("positions", 0, &e))) {
    return *error = BuildError::input(path + ": not a format " + std::to_string(old.version) +
                                      " book: " + e.message()),
           std::nullopt;
  }
  struct Other {
    std::string name;
    MDB_dbi source;
    unsigned flags;
    bool sections = false;  // the pruned counts of formats 3 to 5: sections written again
    MDB_dbi target = 0;
  };
  std::vector<Other> others;  // every database but meta and the positions (nodes and edges)
  for (const std::string& name : *names) {
    if (name == "meta" || name == (sectionless ? "nodes" : "positions") || (sectionless && name == "edges"))
      continue;
    auto dbi = txn->open_db(name.c_str(), 0, &e);
    unsigned flags = 0;
    if (!dbi || mdb_dbi_flags(txn->get(), *dbi, &flags) != 0)
      return *error = BuildError::book(path + ": database " + name + ": " + e.message()), std::nullopt;
    others.push_back({name, *dbi, flags, !sectionless && name == kPrunedDb});
  }

  remove_new_book_orphans(path);
  InterruptCleanup cleanup([&] { remove_own_new_book(path); });
  Status status = replace_book_file(path, env->map_size(), [&](store::Book& to) -> Status {
    // The databases first: the appender holds the write transaction afterwards.
    if (auto s = to.write([&](store::WriteTxn& t) -> Status {
          for (Other& o : others) {
            store::Error oe;
            auto dbi = t.open_db(o.name.c_str(), MDB_CREATE | (o.flags & ~unsigned(MDB_CREATE)), &oe);
            if (!dbi) return oe;
            o.target = *dbi;
          }
          return std::nullopt;
        }))
      return s;
    ChunkedAppender appender(to);
    if (auto s = sectionless ? write_sections(*txn, old, to, appender, report, path)
                             : rewrite_sections(*txn, *positions, to.dbs().positions, appender, report, path,
                                                true, grouped))
      return s;
    for (const Other& o : others)
      if (auto s = o.sections
                       ? rewrite_sections(*txn, o.source, o.target, appender, report, path, false, grouped)
                   : o.name == "games" ? regroup_fingerprints(*txn, o.source, o.target, appender, report)
                                       : copy_database(*txn, o.source, o.target, o.flags, appender, report))
        return s;
    if (auto s = appender.finish()) return s;
    // The meta records but the format's own (the new book has those).
    return to.write([&](store::WriteTxn& t) -> Status {
      store::Error me;
      auto cursor = store::Cursor::open(*txn, old.meta, &me);
      if (!cursor) return me;
      for (auto item = cursor->first(&me); item; item = cursor->next(&me))
        if (item->key != store::kFormatKey && item->key != store::kVersionKey)
          if (auto s = t.put(to.dbs().meta, item->key, item->value)) return s;
      if (me.code) return me;
      return std::nullopt;
    });
  });
  if (status) return *error = BuildError::book(path + ": " + status->message()), std::nullopt;
  return report;
}

}  // namespace gb::builder
