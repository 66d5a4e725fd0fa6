// `graphbook upgrade`: books of format 2 (nodes and edges in two databases,
// docs/FORMAT.md's history), of format 3 (sections whose edges are written
// whole) and of format 4 (a section per LMDB record), written here record by
// record, and of format 5 (groups of sections), alone or as the shards of
// a sharded book, rewritten as format 6 with every other database kept.
// Their records are written here in the bytes those formats had (their
// 64-bit position hashes: format 6 keeps the low 32 bits).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "book/chess/notation.h"
#include "book/store/book.h"
#include "book/store/section_groups.h"
#include "book/store/shard_manifest.h"
#include "book_dump.h"
#include "process.h"

using namespace gb;
using gb::test::graphbook;
using gb::test::open_book;
using gb::test::open_raw;
using gb::test::Output;
using gb::test::TempDir;

namespace {

const Move kE4(SQ_E2, SQ_E4), kD4(SQ_D2, SQ_D4), kNf6(SQ_G8, SQ_F6);

// The records of the old books below: the start position (3 games, 2 won
// by White) with 1.e4 (2 games) and 1.d4 (1), and the position after 1.d4
// (1 game, a draw) with 1...Nf6, every game at it once: an edge that shares
// its node's fields in format 4.
struct OldRecords {
  store::NodeRecord root, d4_node;
  store::EdgeRecord e4, d4, nf6;
};
OldRecords old_records() {
  OldRecords r;
  r.root.position_hash = 0xabcdef0100000000ull | 111;
  for (auto result : {store::Result::WhiteWins, store::Result::WhiteWins, store::Result::Draw})
    r.root.counters.add_game(result, 2500, 2020);
  r.d4_node.position_hash = 0xabcdef0200000000ull | 222;
  r.d4_node.counters.add_game(store::Result::Draw, 2400, 2021);
  r.d4_node.min_ply = 1;
  r.d4_node.flags = store::kBlackToMove;
  r.e4.child_key = gb::test::play({"e4"}).key();
  r.e4.counters.add_game(store::Result::WhiteWins, 2500, 2020);
  r.e4.counters.add_game(store::Result::WhiteWins, 2500, 2020);
  r.e4.occurrences = 2;
  r.e4.score = 4;
  r.d4.child_key = gb::test::play({"d4"}).key();
  r.d4.counters.add_game(store::Result::Draw, 2500, 2020);
  r.d4.occurrences = 1;
  r.d4.score = 1;
  r.nf6.child_key = gb::test::play({"d4", "Nf6"}).key();
  r.nf6.counters = r.d4_node.counters;
  r.nf6.occurrences = 1;
  r.nf6.score = 1;
  r.nf6.min_ply = 1;
  r.nf6.flags = store::kEdgeBlackMoves;
  return r;
}

// A node's record as formats 2 to 5 encoded it: the mask form, its position
// hash of 64 bits (bit 0) first after the mask (docs/FORMAT.md). Format 6
// writes 32 bits (bit 12): the record without its hash is the same.
std::string old_node_bytes(const store::NodeRecord& node) {
  store::NodeRecord without = node;
  without.position_hash = 0;
  std::string v(std::string_view(store::as_bytes(without)));
  if (!node.position_hash) return v;
  v[0] = char(v[0] | 1);
  v.insert(2, reinterpret_cast<const char*>(&node.position_hash), 8);
  return v;
}

// A section as formats 3 and 4 wrote it: the node's length and record, then
// each edge: its move, length and record, whole (format 3) or, sharing its
// node's fields where it can (format 4), without them and its length byte
// with kSharesNode.
std::string old_section(const store::NodeRecord& node,
                        const std::vector<std::pair<Move, store::EdgeRecord>>& edges, bool share) {
  const std::string n = old_node_bytes(node);
  std::string v(1, char(n.size()));
  v += n;
  for (const auto& [m, r] : edges) {
    const bool shares = share && store::node_share(node) == store::edge_share(r);
    store::EdgeRecord own = r;
    if (shares) {
      own.counters = {};
      own.occurrences = own.score = 0;
      own.min_ply = 0;
      own.flags &= std::uint8_t(~store::kEdgeBlackMoves);
    }
    const store::EncodedRecord record = store::as_bytes(own);
    char head[3];
    store::put_be16(head, m.raw());
    head[2] = char(record.size | (shares ? store::kSharesNode : 0));
    v.append(head, 3);
    v += std::string_view(record);
  }
  return v;
}

// A format 2 book: the start position (3 games) with 1.e4 (2 games, learned:
// 5 wins) and 1.d4 (1 game), the position after 1.d4 with 1...Nf6, a key only
// an imported .bin knows (an edge without a node), a fingerprint, a source,
// and a database of sorted duplicates (as the game index is).
void write_format_2_book(const std::string& path) {
  store::Error e;
  auto env = store::Env::open(path, false, std::size_t(1) << 24, 16, &e);
  INFO(e.message());
  REQUIRE(env);
  auto txn = store::WriteTxn::begin(*env, &e);
  REQUIRE(txn);
  auto db = [&](const char* name, unsigned flags = 0) {
    auto dbi = txn->open_db(name, MDB_CREATE | flags, &e);
    REQUIRE(dbi);
    return *dbi;
  };
  MDB_dbi meta = db("meta"), nodes = db("nodes"), edges = db("edges"), learn = db("learn"),
          games = db("games"), sources = db("sources"), extra = db("extra", MDB_DUPSORT);
  db("collisions");
  std::uint32_t version = 2;
  store::BookStats stats;
  stats.games = 3;
  stats.builds = 1;
  REQUIRE_FALSE(txn->put(meta, "format", "graphbook"));
  REQUIRE_FALSE(txn->put(meta, "version", store::as_bytes(version)));
  REQUIRE_FALSE(txn->put(meta, "stats", store::as_bytes(stats)));
  REQUIRE_FALSE(txn->put(meta, "build_params", R"({"max_ply":0})"));

  const Position start;
  Position after_d4 = gb::test::play({"d4"});
  const auto [root, d4_node, e4, d4, nf6] = old_records();
  REQUIRE_FALSE(txn->put(nodes, store::NodeKey(start.key()).view(), old_node_bytes(root)));
  REQUIRE_FALSE(txn->put(nodes, store::NodeKey(after_d4.key()).view(), old_node_bytes(d4_node)));

  store::EdgeRecord key_only;
  key_only.flags = store::kEdgeKeyOnly | store::kEdgeImported;
  key_only.score = 7;
  REQUIRE_FALSE(txn->put(edges, store::EdgeKey(start.key(), kE4.raw()).view(), store::as_bytes(e4)));
  REQUIRE_FALSE(txn->put(edges, store::EdgeKey(start.key(), kD4.raw()).view(), store::as_bytes(d4)));
  REQUIRE_FALSE(txn->put(edges, store::EdgeKey(after_d4.key(), kNf6.raw()).view(), store::as_bytes(nf6)));
  REQUIRE_FALSE(txn->put(edges, store::EdgeKey(42, 0x031c).view(), store::as_bytes(key_only)));

  store::LearnRecord learned;
  learned.wins = 5;
  REQUIRE_FALSE(txn->put(learn, store::EdgeKey(start.key(), kE4.raw()).view(), store::as_bytes(learned)));
  REQUIRE_FALSE(txn->put(games, std::string(16, 'f'), ""));
  REQUIRE_FALSE(txn->put(sources, std::string(7, '\0') + '\1', R"({"name":"old.pgn","games_added":3})"));
  REQUIRE_FALSE(txn->put(extra, "k", "a"));
  REQUIRE_FALSE(txn->put(extra, "k", "b"));
  REQUIRE_FALSE(txn->commit());
}

// A book of format version whose positions database holds records: each
// (LMDB key, value) as given, and nothing else but its meta records.
void write_positions_book(const std::string& path, std::uint32_t version,
                          const std::vector<std::pair<std::string, std::string>>& records) {
  store::Error e;
  auto env = store::Env::open(path, false, std::size_t(1) << 24, 16, &e);
  REQUIRE(env);
  auto txn = store::WriteTxn::begin(*env, &e);
  REQUIRE(txn);
  auto meta = txn->open_db("meta", MDB_CREATE, &e);
  auto positions = txn->open_db("positions", MDB_CREATE, &e);
  REQUIRE(positions);
  REQUIRE_FALSE(txn->put(*meta, "format", "graphbook"));
  REQUIRE_FALSE(txn->put(*meta, "version", store::as_bytes(version)));
  for (const auto& [key, value] : records) REQUIRE_FALSE(txn->put(*positions, key, value));
  REQUIRE_FALSE(txn->commit());
}

// A format 3 book of one-game sections at keys, each edge written whole, as
// format 3 wrote it: a node and one edge that shares its fields in format 4.
// Of version 4, the edge shares (a section per record, as format 4 wrote it).
void write_format_3_book(const std::string& path, const std::vector<Key>& keys, std::uint32_t version = 3) {
  std::vector<std::pair<std::string, std::string>> records;
  for (Key key : keys) {
    store::NodeRecord node;
    node.position_hash = key ^ 1;
    node.counters.add_game(store::Result::WhiteWins, 2200, 2024);
    store::EdgeRecord edge;
    edge.child_key = key + 1;
    edge.counters = node.counters;
    edge.occurrences = 1;
    edge.score = 2;
    records.emplace_back(store::NodeKey(key).view(), old_section(node, {{kE4, edge}}, version >= 4));
  }
  write_positions_book(path, version, records);
}

// `graphbook upgrade BOOK --json`, which must succeed, parsed.
nlohmann::json upgrade_json(const std::string& book) {
  Output o = graphbook({"upgrade", book, "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  return nlohmann::json::parse(o.out);
}

// Whether the first edge of key's section in database name of the book file path shares its node's fields.
bool first_edge_shares(const std::string& path, const char* name, Key key) {
  auto db = open_raw(path, name);
  store::Error e;
  auto meta = db.txn.open_db("meta", 0, &e);
  REQUIRE(meta);
  // A section per record before format 5, groups of them since.
  const auto version = store::format_version(db.txn, *meta);
  REQUIRE(version);
  auto v = *version < 5 ? db.txn.get(db.dbi, store::NodeKey(key).view(), &e)
                        : store::find_section(db.txn, db.dbi, key, &e);
  REQUIRE(v);
  // A packed node of format 6 (its first byte from 0xc0) has no length byte;
  // its edge, inline (0x20), shares.
  const auto first = std::uint8_t((*v)[0]);
  if (first >= store::kPackedHead && (first & store::kInlineEdge)) return true;
  const std::size_t edge_head =
      first >= store::kPackedHead ? store::self_delimited_length(*v) : 1 + (first & 0x7f);
  REQUIRE(v->size() > edge_head + 2);
  return (std::uint8_t((*v)[edge_head + 2]) & store::kSharesNode) != 0;
}

}  // namespace

TEST_CASE("A format 2 book is upgraded to sections with everything it held", "[builder][upgrade]") {
  TempDir dir;
  const std::string path = dir.file("old.book");
  write_format_2_book(path);
  {
    store::BookError be;
    CHECK_FALSE(store::Book::open(path, store::OpenMode::ReadOnly, &be));  // refused before
    CHECK(be.code == store::BookError::Code::WrongVersion);
  }
  auto j = upgrade_json(path);
  CHECK(j["from_version"] == 2);
  CHECK(j["positions"] == 3);  // the start, after 1.d4, and key 42
  CHECK(j["nodes"] == 2);
  CHECK(j["edges"] == 4);

  auto book = open_book(path);
  const Position start;
  auto root = book.node(start.key());
  REQUIRE(root);
  CHECK(root->position_hash == 111);  // the low 32 bits of the old 64
  CHECK(root->counters.games == 3);
  CHECK(root->counters.white_wins == 2);
  CHECK(root->counters.average_elo() == 2500);
  auto moves = book.find_all(start.key());
  REQUIRE(moves.size() == 2);
  for (const auto& e : moves) {
    if (e.move == kE4) {
      CHECK(e.record.counters.games == 2);
      CHECK(e.record.score == 4);
      CHECK(e.learning.wins == 5);  // the learning database came along
    } else {
      CHECK(e.move == kD4);
      CHECK(e.record.counters.draws == 1);
      CHECK(e.learning.wins == 0);
    }
  }
  auto after_d4 = gb::test::play({"d4"});
  auto d4_node = book.node(after_d4.key());
  REQUIRE(d4_node);
  CHECK(d4_node->min_ply == 1);
  CHECK(book.find_all(after_d4.key()).size() == 1);
  CHECK_FALSE(book.node(42));  // key only: no node
  auto by_key = book.find_all(42);
  REQUIRE(by_key.size() == 1);
  CHECK((by_key[0].record.flags & store::kEdgeKeyOnly));
  CHECK(by_key[0].record.score == 7);
  CHECK(book.stats().games == 3);
  CHECK(book.build_params() == R"({"max_ply":0})");
  auto sources = book.sources();
  REQUIRE(sources.size() == 1);
  CHECK(sources[0].name == "old.pgn");
  {
    auto txn = store::ReadTxn::begin(book.env(), nullptr);
    REQUIRE(txn);
    MDB_stat st;
    REQUIRE_FALSE(txn->stat(book.dbs().games, st));
    CHECK(st.ms_entries == 1);
    auto extra = txn->open_db("extra", 0, nullptr);
    REQUIRE(extra);
    unsigned flags = 0;
    REQUIRE(mdb_dbi_flags(txn->get(), *extra, &flags) == 0);
    CHECK((flags & MDB_DUPSORT));
    REQUIRE_FALSE(txn->stat(*extra, st));
    CHECK(st.ms_entries == 2);  // both duplicates of "k"
  }

  // Once more: nothing to do.
  Output o = graphbook({"upgrade", path});
  CHECK(o.status == 0);
  CHECK(o.out.find("already format " + std::to_string(store::kFormatVersion)) != std::string::npos);
}

TEST_CASE("A format 3 book is upgraded to edges that share their node's fields, with everything it held",
          "[builder][upgrade]") {
  // Format 3: sections whose edges are written whole. After 1.d4 one game
  // (a draw, 2400, 2021) played 1...Nf6: in format 4 that edge shares the
  // node's fields. The start position's edges (3 games, 2 moves) do not.
  TempDir dir;
  const std::string path = dir.file("three.book");
  const Position start;
  const Position after_d4 = gb::test::play({"d4"});
  const auto [root, d4_node, e4, d4, nf6] = old_records();
  const store::EdgeRecord pruned_edge = nf6;  // the pruned database holds sections too
  {
    store::Error e;
    auto env = store::Env::open(path, false, std::size_t(1) << 24, 16, &e);
    REQUIRE(env);
    auto txn = store::WriteTxn::begin(*env, &e);
    REQUIRE(txn);
    auto db = [&](const char* name) {
      auto dbi = txn->open_db(name, MDB_CREATE, &e);
      REQUIRE(dbi);
      return *dbi;
    };
    MDB_dbi meta = db("meta"), positions = db("positions"), pruned = db("pruned"), learn = db("learn");
    db("games");
    db("sources");
    db("collisions");
    std::uint32_t version = 3;
    store::BookStats stats;
    stats.games = 3;
    REQUIRE_FALSE(txn->put(meta, "format", "graphbook"));
    REQUIRE_FALSE(txn->put(meta, "version", store::as_bytes(version)));
    REQUIRE_FALSE(txn->put(meta, "stats", store::as_bytes(stats)));
    auto put_section = [&](MDB_dbi dbi, Key key, const store::NodeRecord& node,
                           std::vector<std::pair<Move, store::EdgeRecord>> edges) {
      REQUIRE_FALSE(txn->put(dbi, store::NodeKey(key).view(), old_section(node, edges, false)));
    };
    put_section(positions, start.key(), root, {{kE4, e4}});
    put_section(positions, after_d4.key(), d4_node, {{kNf6, nf6}});
    put_section(pruned, after_d4.key() + 1, d4_node, {{kNf6, pruned_edge}});
    store::LearnRecord learned;
    learned.wins = 5;
    REQUIRE_FALSE(txn->put(learn, store::EdgeKey(start.key(), kE4.raw()).view(), store::as_bytes(learned)));
    REQUIRE_FALSE(txn->commit());
  }
  CHECK_FALSE(first_edge_shares(path, "positions", after_d4.key()));

  auto j = upgrade_json(path);
  CHECK(j["from_version"] == 3);
  CHECK(j["positions"] == 2);
  CHECK(j["nodes"] == 2);
  CHECK(j["edges"] == 2);
  CHECK(first_edge_shares(path, "positions", after_d4.key()));
  CHECK(first_edge_shares(path, "pruned", after_d4.key() + 1));
  CHECK_FALSE(first_edge_shares(path, "positions", start.key()));  // 1.e4: 2 games of 3

  auto book = open_book(path);
  auto node = book.node(after_d4.key());
  REQUIRE(node);
  store::NodeRecord want_node = d4_node;
  want_node.position_hash = 222;  // the low 32 bits of the old 64
  CHECK(*node == want_node);
  auto moves = book.find_all(after_d4.key());
  REQUIRE(moves.size() == 1);
  CHECK(moves[0].move == kNf6);
  CHECK(moves[0].record == nf6);
  auto from_start = book.find_all(start.key());
  REQUIRE(from_start.size() == 1);
  CHECK(from_start[0].record == e4);
  CHECK(from_start[0].learning.wins == 5);  // the learning database came along
  CHECK(book.stats().games == 3);
}

TEST_CASE("A sharded book of format 3 is upgraded shard by shard, and once more does nothing",
          "[builder][upgrade]") {
  // Two shards (build --mpi's layout: store::shard_entry), a key in each.
  TempDir dir;
  const std::string book = dir.file("sharded.book");
  REQUIRE(::mkdir(book.c_str(), 0755) == 0);
  store::ShardManifest manifest;
  const Key keys[] = {0x1000, 0x9000000000000000ull};
  for (std::uint32_t i = 0; i < 2; ++i) {
    manifest.shards.push_back(store::shard_entry(i, 2));
    REQUIRE((keys[i] >= manifest.shards[i].first_key && keys[i] <= manifest.shards[i].last_key));
    write_format_3_book(book + "/" + manifest.shards[i].file, {keys[i]});
  }
  manifest.ranks = 2;
  REQUIRE_FALSE(store::write_manifest(book, manifest));
  {
    store::BookError be;
    CHECK_FALSE(store::Book::open(book, store::OpenMode::ReadOnly, &be));  // refused before, naming a shard
    CHECK(be.message.find(manifest.shards[0].file) != std::string::npos);
  }
  auto j = upgrade_json(book);
  CHECK(j["from_version"] == 3);
  CHECK(j["positions"] == 2);
  CHECK(j["edges"] == 2);
  for (std::uint32_t i = 0; i < 2; ++i)
    CHECK(first_edge_shares(book + "/" + manifest.shards[i].file, "positions", keys[i]));
  store::BookError be;
  auto opened = store::Book::open(book, store::OpenMode::ReadOnly, &be);
  INFO(be.message);
  REQUIRE(opened);
  for (Key key : keys) {
    auto moves = opened->find_all(key);
    REQUIRE(moves.size() == 1);
    CHECK(moves[0].record.counters.games == 1);
    CHECK(moves[0].record.occurrences == 1);
    CHECK(moves[0].record.score == 2);
    CHECK(moves[0].record.child_key == key + 1);
  }
  j = upgrade_json(book);
  CHECK(j["upgraded"] == false);
  CHECK(j["positions"] == 0);
}

TEST_CASE("Upgrade refuses what is not a book and leaves it as it was", "[builder][upgrade]") {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  {
    std::ofstream out(path);
    out << "not a book\n";
  }
  Output o = graphbook({"upgrade", path});
  CHECK(o.status == 2);  // README, "Exit status": not a book
  CHECK(o.err.find("not a graphbook book") != std::string::npos);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "not a book");
  o = graphbook({"upgrade", dir.file("missing.book")});
  CHECK(o.status == 2);
  CHECK(o.err.find("no such book") != std::string::npos);
}

TEST_CASE("A format 4 book is upgraded to groups of sections, every position kept", "[builder][upgrade]") {
  // docs/FORMAT.md, Groups. Each section here takes 19 bytes in its group,
  // self-delimited: the node, one game's, packed (the byte of its result and
  // flags, the 32-bit position hash, min ply, Elo sum (2) and year (1)), then
  // the edge inline: its move and child key. With its delta (keys
  // 0x0101010101010101 apart: 8 bytes wide; the first a varint 0), a group
  // of at most 1,002 bytes (its width byte first) holds 1 + 20 + 27 × 36:
  // 37 positions. 61 positions take 2 records (by the cap of 64 positions
  // alone, 1).
  TempDir dir;
  const std::string path = dir.file("v4.book");
  std::vector<Key> keys;
  for (Key k = 1; k <= 61; ++k) keys.push_back(k * 0x0101010101010101ull);
  write_format_3_book(path, keys, 4);
  CHECK(first_edge_shares(path, "positions", keys[7]));  // format 4's edges share already

  auto j = upgrade_json(path);
  CHECK(j["from_version"] == 4);
  CHECK(j["positions"] == 61);
  CHECK(j["edges"] == 61);
  {
    auto positions = open_raw(path, "positions");
    auto section = store::find_section(positions.txn, positions.dbi, keys[0]);
    REQUIRE(section);
    CHECK(section->size() == 19);
    MDB_stat st;
    REQUIRE_FALSE(positions.txn.stat(positions.dbi, st));
    CHECK(st.ms_entries == 2);
  }
  Output check = graphbook({"check", path});
  INFO(check.err);
  CHECK(check.status == 0);
  auto book = open_book(path);
  for (Key key : keys) {
    auto moves = book.find_all(key);
    REQUIRE(moves.size() == 1);
    CHECK(moves[0].record.child_key == key + 1);
    CHECK(moves[0].record.counters.white_wins == 1);
  }
  CHECK(book.find_all(keys[0] + 1).empty());  // between two positions of a group
  CHECK(book.find_all(0).empty());            // before every group
  CHECK(book.find_all(~Key(0)).empty());      // after every group
}

TEST_CASE("A format 5 book is upgraded to format 6: packed positions without sizes, 32-bit hashes",
          "[builder][upgrade]") {
  // A group in format 5's layout (docs/FORMAT.md history): its width byte 2,
  // then each position's delta in 2 bytes, its size as a varint and its
  // section. The first section is FORMAT.md's format 5 example: a packed node
  // (its length byte 0x80 | 14, the byte 0x3e, the 64-bit hash
  // 0x0123456789abcdef, min ply 7, Elo 2710, year 2019) and its edge
  // 0x0105 sharing it with the child key alone (0xff). The second: the
  // start position's node in the mask form with its 64-bit hash, and two
  // edges written whole.
  TempDir dir;
  const std::string path = dir.file("v5.book");
  const std::string one_game(
      "\x8e\x3e\xef\xcd\xab\x89\x67\x45\x23\x01\x07\x96\x15\xe3\x0f"
      "\x01\x05\xff\x10\x32\x54\x76\x98\xba\xdc\xfe",
      26);
  const auto [root, d4_node, e4, d4, nf6] = old_records();
  const std::string several = old_section(root, {{kD4, d4}, {kE4, e4}}, true);
  REQUIRE(several.size() < 0x80);
  const Key first = 0x1000, second = 0x3000;
  std::string group("\x02\x00\x00", 3);
  group += char(one_game.size());
  group += one_game;
  group += std::string("\x00\x20", 2);
  group += char(several.size());
  group += several;
  write_positions_book(path, 5, {{std::string(store::NodeKey(first).view()), group}});
  auto j = upgrade_json(path);
  CHECK(j["from_version"] == 5);
  CHECK(j["positions"] == 2);
  CHECK(j["nodes"] == 2);
  CHECK(j["edges"] == 3);
  {
    // The one-game position as format 6 stores it (book_test's byte-exact
    // case): the head 0xfe (0xc0, black won 2, rated 4, Black to move 8, a
    // year 16, the inline edge 0x20), the hash's low 32 bits, min ply 7, Elo
    // 2710, 2019 as 38, then the edge's move and key.
    auto positions = open_raw(path, "positions");
    auto section = store::find_section(positions.txn, positions.dbi, first);
    REQUIRE(section);
    CHECK(*section == std::string("\xfe\xef\xcd\xab\x89\x07\x96\x15\x26"
                                  "\x01\x05\x10\x32\x54\x76\x98\xba\xdc\xfe",
                                  19));
  }
  Output check = graphbook({"check", path});
  INFO(check.err);
  CHECK(check.status == 0);
  auto book = open_book(path);
  auto node = book.node(second);
  REQUIRE(node);
  CHECK(node->position_hash == 111);
  CHECK(node->counters == root.counters);
  auto moves = book.find_all(second);
  REQUIRE(moves.size() == 2);
  CHECK(moves[0].record == d4);
  CHECK(moves[1].record == e4);
  auto packed = book.node(first);
  REQUIRE(packed);
  CHECK(packed->position_hash == 0x89abcdef);
  CHECK(packed->min_ply == 7);
  CHECK(packed->counters.black_wins == 1);
  CHECK(packed->counters.average_elo() == 2710);
  CHECK(packed->counters.min_year == 2019);
  auto edge = book.find_all(first);
  REQUIRE(edge.size() == 1);
  CHECK(edge[0].record.child_key == 0xfedcba9876543210ull);
  CHECK(edge[0].record.counters == packed->counters);
}

TEST_CASE("A format 6 book is upgraded to format 7: its game fingerprints in blocks, found again by a build",
          "[builder][upgrade]") {
  // twic0920 built (format 7), then laid out as format 6 kept its games: a
  // record for each fingerprint, with no value, and version 6.
  TempDir dir;
  const std::string twic = gb::test::data_path("pgn/small/twic0920.pgn"), path = dir.file("v6.book");
  REQUIRE(graphbook({"build", path, twic, "--max-ply", "20", "--quiet"}).status == 0);
  std::vector<store::Fingerprint> fingerprints;
  std::map<std::string, std::string> positions;
  {
    auto book = open_book(path);
    fingerprints = gb::test::fingerprints(book);
    positions = gb::test::sections(book, book.dbs().positions);
  }
  REQUIRE(fingerprints.size() == 2245);  // the README: 2,245 games, none twice
  {
    store::Error e;
    auto env = store::Env::open(path, false, std::size_t(1) << 26, 16, &e);
    REQUIRE(env);
    auto txn = store::WriteTxn::begin(*env, &e);
    REQUIRE(txn);
    auto meta = txn->open_db("meta", 0, &e);
    auto games = txn->open_db("games", 0, &e);
    REQUIRE(games);
    REQUIRE_FALSE(txn->drop(*games));
    for (const store::Fingerprint& fp : fingerprints)
      REQUIRE_FALSE(txn->put(*games, store::FingerprintKey(fp).view(), {}));
    REQUIRE_FALSE(txn->put(*meta, "version", store::as_bytes(std::uint32_t(6))));
    REQUIRE_FALSE(txn->commit());
  }
  auto j = upgrade_json(path);
  CHECK(j["from_version"] == 6);
  CHECK(j["to_version"] == 7);
  {
    auto games = open_raw(path, "games");
    MDB_stat st;
    REQUIRE_FALSE(games.txn.stat(games.dbi, st));
    CHECK(st.ms_entries == (2245 + store::kBlockFingerprints - 1) / store::kBlockFingerprints);
  }
  Output check = graphbook({"check", path});
  INFO(check.err);
  CHECK(check.status == 0);
  {
    auto book = open_book(path);
    CHECK(gb::test::fingerprints(book) == fingerprints);
    CHECK(gb::test::sections(book, book.dbs().positions) == positions);
  }
  // The same games again (another file: a blank line first), every one a
  // duplicate of a fingerprint in a block.
  const std::string twice = dir.write("twic-again.pgn", "\n" + gb::test::read_file(twic));
  Output again = graphbook({"build", path, twice, "--max-ply", "20", "--json", "--quiet"});
  INFO(again.err);
  REQUIRE(again.status == 0);
  auto report = nlohmann::json::parse(again.out);
  CHECK(report["duplicates"] == 2245);
  CHECK(report["games_added"] == 0);
}
