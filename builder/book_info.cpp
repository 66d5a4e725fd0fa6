#include "builder/book_info.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "book/store/book_snapshot.h"
#include "book/store/buckets.h"
#include "book/store/section_groups.h"
#include "book/store/shard_manifest.h"

namespace gb::builder {

std::optional<BookInfo> book_info(store::Book& book, BuildError* error) {
  BookInfo info;
  store::Error e;
  auto snapshot = store::BookSnapshot::begin(book, &e);
  if (!snapshot) return *error = BuildError::book(e.message()), std::nullopt;
  auto pages_bytes = [](const MDB_stat& s) {
    return std::uint64_t(s.ms_branch_pages + s.ms_leaf_pages + s.ms_overflow_pages) * s.ms_psize;
  };
  std::uint64_t groups = 0;  // of positions (store/section_groups.h): only a reserve
  if (snapshot->entries(&store::Databases::positions, groups)) groups = 0;
  const auto bucket_params = store::bucket_params(snapshot->global_txn(), book.dbs().meta);
  if (bucket_params) {
    info.has_buckets = true;
    info.by_month = bucket_params->by_month;
  }
  for (std::size_t p = 0; p < snapshot->part_count(); ++p) {  // a sharded book's shards
    store::ReadTxn& txn = snapshot->txn(p);
    MDB_stat st;
    if (!txn.stat(snapshot->dbs(p).learn, st)) info.learned += st.ms_entries;
    if (!txn.stat(snapshot->dbs(p).positions, st)) info.positions_bytes += pages_bytes(st);
    if (!bucket_params) continue;
    store::Error be;
    if (auto dbi = txn.open_db(store::kBucketsDb, 0, &be)) {
      if (!txn.stat(*dbi, st)) {
        info.bucket_keys += st.ms_entries;
        info.bucket_bytes += pages_bytes(st);
      }
      auto cursor = store::Cursor::open(txn, *dbi, &e);
      if (!cursor) return *error = BuildError::book(e.message()), std::nullopt;
      std::vector<store::BucketEntry> entries;
      for (auto item = cursor->first(&e); item; item = cursor->next(&e))
        if (store::decode_buckets(item->value, entries)) info.buckets += entries.size();
      if (e.code) return *error = BuildError::book(e.message()), std::nullopt;
    }
  }
  info.stats = book.stats();

  std::unordered_map<Key, std::uint32_t> incoming;
  incoming.reserve(groups * store::kGroupPositions);
  const Key root = Position().key();
  if (book.sharded())
    for (std::size_t p = 0; p < book.part_count(); ++p) {
      const store::BookPart& part = book.part(p);
      info.shards.push_back({.file = part.path.substr(part.path.rfind('/') + 1),
                             .first_key = part.first_key,
                             .last_key = part.last_key});
    }
  if (auto s = snapshot->each_section([&](Key key, std::string_view value) {
        BookInfo::Shard* shard = info.shards.empty() ? nullptr : &info.shards[book.part_of(key)];
        store::SectionReader section(value);
        info.section_bytes += value.size();
        if (auto node = section.node()) {
          if (node->counters.games == 1) {
            ++info.one_game_positions;
            info.one_game_section_bytes += value.size();
          }
          ++info.nodes;
          if (shard) ++shard->nodes;
          ++info.depth_histogram[node->min_ply];
          if (key == root) info.root_games = node->counters.games;
        }
        std::uint16_t move;
        store::EdgeRecord r;
        while (section.next(move, r)) {
          ++info.edges;
          if (shard) ++shard->edges;
          if (r.flags & store::kEdgeKeyOnly)
            ++info.key_only_edges;
          else
            ++incoming[r.child_key];
        }
        return true;
      }))
    return *error = BuildError::book(s->message()), std::nullopt;
  for (const auto& [key, n] : incoming)
    if (n > 1) ++info.transpositions;
  snapshot.reset();  // its transactions end before the next read begins one
  info.sources = book.sources();
  info.build_params = book.build_params();
  for (std::size_t p = 0; p < book.part_count(); ++p) {
    struct stat fst;
    if (::stat(book.part(p).path.c_str(), &fst) != 0) continue;
    info.file_bytes += std::uint64_t(fst.st_size);
    if (!info.shards.empty()) info.shards[p].file_bytes = std::uint64_t(fst.st_size);
  }
  return info;
}

namespace {

// A yyyymmdd date as PGN writes it, "2012.03.??" for an unknown day; null for none.
nlohmann::json pgn_date(int date) {
  if (date == 0) return nullptr;
  auto part = [](int v, int width) {
    std::string s = std::to_string(v);
    return v == 0 || v == 99 ? std::string(std::size_t(width), '?')
                             : std::string(std::size_t(width) - s.size(), '0') + s;
  };
  return part(date / 10000, 4) + "." + part(date / 100 % 100, 2) + "." + part(date % 100, 2);
}

// The book's sources by name (a --source label, else the file's path), in
// the order of their first record; retracted records left out.
struct SourceTotal {
  std::string name;
  std::uint64_t files = 0, games = 0, duplicates = 0;
  int first_date = 0, last_date = 0;
};

std::vector<SourceTotal> source_totals(const std::vector<store::SourceInfo>& sources) {
  std::vector<SourceTotal> out;
  std::unordered_map<std::string, std::size_t> at;
  for (const store::SourceInfo& s : sources) {
    if (s.retracted_at) continue;
    auto [it, added] = at.emplace(s.source_name(), out.size());
    if (added) out.push_back({.name = s.source_name()});
    SourceTotal& t = out[it->second];
    ++t.files;
    t.games += s.games_added;
    t.duplicates += s.duplicates;
    if (s.first_date) t.first_date = t.first_date ? std::min(t.first_date, s.first_date) : s.first_date;
    t.last_date = std::max(t.last_date, s.last_date);
  }
  return out;
}

double share_of(std::uint64_t games, std::uint64_t all) { return all ? double(games) / double(all) : 0.0; }

}  // namespace

nlohmann::json to_json(const BookInfo& info) {
  nlohmann::json hist = nlohmann::json::object();
  for (auto [ply, n] : info.depth_histogram) hist[std::to_string(ply)] = n;
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& s : info.sources) {
    auto params = nlohmann::json::parse(s.params, nullptr, false);
    sources.push_back(
        {{"name", s.name},
         {"size", s.size},
         {"xxh3", s.content_hash},
         {"games_added", s.games_added},
         {"added_at", s.added_at},
         {"params", params.is_discarded() ? nlohmann::json::object() : params},
         {"source", s.source_name()},
         {"first_date", pgn_date(s.first_date)},
         {"last_date", pgn_date(s.last_date)},
         {"duplicates", s.duplicates},
         {"retracted_at", s.retracted_at ? nlohmann::json(s.retracted_at) : nlohmann::json(nullptr)}});
  }
  // The games of the sources in the book; their sum is the book's games
  // (a book before per-source records, or a merge of shared games, may differ).
  const auto totals = source_totals(info.sources);
  std::uint64_t all = 0;
  for (const SourceTotal& t : totals) all += t.games;
  nlohmann::json by_source = nlohmann::json::array();
  for (const SourceTotal& t : totals)
    by_source.push_back({{"name", t.name},
                         {"files", t.files},
                         {"games", t.games},
                         {"duplicates", t.duplicates},
                         {"first_date", pgn_date(t.first_date)},
                         {"last_date", pgn_date(t.last_date)},
                         {"share", share_of(t.games, all)}});
  auto params = nlohmann::json::parse(info.build_params, nullptr, false);
  nlohmann::json shards = nlohmann::json::array();
  for (const BookInfo::Shard& s : info.shards)
    shards.push_back({{"file", s.file},
                      {"first_key", store::hex_key(s.first_key)},
                      {"last_key", store::hex_key(s.last_key)},
                      {"nodes", s.nodes},
                      {"edges", s.edges},
                      {"size_bytes", s.file_bytes}});
  return {{"format_version", store::kFormatVersion},
          {"sharded", !info.shards.empty()},
          {"shard_count", info.shards.empty() ? 1 : info.shards.size()},
          {"shards", shards},
          {"nodes", info.nodes},
          {"edges", info.edges},
          {"key_only_edges", info.key_only_edges},
          {"games", info.stats.games},
          {"games_at_start_position", info.root_games},
          {"duplicates_skipped", info.stats.duplicates},
          {"bad_games_skipped", info.stats.skipped},
          {"key_collisions", info.stats.collisions},
          {"builds", info.stats.builds},
          {"transpositions", info.transpositions},
          {"learned_records", info.learned},
          {"depth_histogram", hist},
          {"sources", sources},
          {"source_totals", by_source},
          {"build_params", params.is_discarded() ? nlohmann::json::object() : params},
          {"size_bytes", info.file_bytes},
          {"bytes_per_edge", info.edges ? double(info.file_bytes) / double(info.edges) : 0.0},
          {"positions_bytes", info.positions_bytes},
          {"section_bytes", info.section_bytes},
          {"one_game_positions", info.one_game_positions},
          {"one_game_section_bytes", info.one_game_section_bytes},
          {"buckets", info.has_buckets ? nlohmann::json{{"by_month", info.by_month},
                                                        {"keys", info.bucket_keys},
                                                        {"buckets", info.buckets},
                                                        {"bytes", info.bucket_bytes}}
                                       : nlohmann::json(nullptr)}};
}

std::string to_text(const BookInfo& info) {
  std::ostringstream o;
  o << "format version     " << store::kFormatVersion << '\n'
    << "nodes              " << info.nodes << '\n'
    << "edges              " << info.edges;
  if (info.key_only_edges) o << " (" << info.key_only_edges << " key-only, from a .bin)";
  o << '\n'
    << "games              " << info.stats.games << '\n'
    << "duplicates skipped " << info.stats.duplicates << '\n'
    << "bad games skipped  " << info.stats.skipped << '\n'
    << "key collisions     " << info.stats.collisions << '\n'
    << "transpositions     " << info.transpositions << " positions reached by more than one move order\n"
    << "size on disk       " << info.file_bytes << " bytes";
  if (info.edges) o << " (" << info.file_bytes / info.edges << " bytes per edge)";
  o << "\nbuckets            ";
  if (!info.has_buckets)
    o << "none (built without them: probe and export cannot filter by rating, speed or date)";
  else
    o << info.buckets << " in " << info.bucket_keys << " positions, by " << (info.by_month ? "month" : "year")
      << ", " << info.bucket_bytes << " bytes (positions: " << info.positions_bytes << " bytes)";
  o << "\nbuild parameters   " << info.build_params << '\n' << "depth histogram (ply: nodes)\n";
  for (auto [ply, n] : info.depth_histogram) o << "  " << ply << ": " << n << '\n';
  const auto totals = source_totals(info.sources);
  std::uint64_t all = 0;
  for (const SourceTotal& t : totals) all += t.games;
  o << "sources (name: files, games, share, first and last date)\n";
  for (const SourceTotal& t : totals) {
    char share[16];
    std::snprintf(share, sizeof share, "%.1f%%", 100 * share_of(t.games, all));
    auto date = [](int d) { return d ? pgn_date(d).get<std::string>() : std::string("-"); };
    o << "  " << t.name << ": " << t.files << (t.files == 1 ? " file, " : " files, ") << t.games << " games, "
      << share << ", " << date(t.first_date) << " to " << date(t.last_date) << '\n';
  }
  o << "files\n";
  for (const auto& s : info.sources) {
    o << "  " << s.name << "  " << s.size << " bytes  " << s.games_added << " games added";
    if (s.retracted_at) o << "  (retracted)";
    o << '\n';
  }
  if (!info.shards.empty()) o << "shards (build --mpi: a book per key range)\n";
  for (const BookInfo::Shard& s : info.shards)
    o << "  " << s.file << "  keys " << store::hex_key(s.first_key) << ".." << store::hex_key(s.last_key)
      << "  nodes " << s.nodes << "  edges " << s.edges << "  " << s.file_bytes << " bytes\n";
  return o.str();
}

}  // namespace gb::builder
