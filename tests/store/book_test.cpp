// The LMDB store: opening books, the format check, reads, learning counters,
// atomic writes and map growth.
#include "book/store/book.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "book/chess/movegen.h"
#include "book/chess/notation.h"
#include "book/store/polyglot.h"
#include "book/store/position_hash.h"
#include "book/store/section_groups.h"
#include "one_game_section.h"
#include "temp_dir.h"
#include "test_data.h"

using namespace gb;
using namespace gb::store;

using gb::test::TempDir;

TEST_CASE("A missing book is reported as not found unless it is created", "[store]") {
  TempDir dir;
  BookError error;
  CHECK_FALSE(Book::open(dir.file("none.book"), OpenMode::ReadOnly, &error));
  CHECK(error.code == BookError::Code::NotFound);
  CHECK(error.message.find("none.book") != std::string::npos);
  auto book = Book::open(dir.file("new.book"), OpenMode::Create, &error);
  REQUIRE(book);
  CHECK(book->stats().games == 0);
}

TEST_CASE("A book made unsynced is made at its path and commits without a sync until its writer syncs it",
          "[store]") {
  // The file a new book is written into before it is renamed over the book
  // (builder/new_book_file.h): its first commit waits for no disk.
  TempDir dir;
  auto flags_of = [](Book& book) {
    unsigned flags = 0;
    REQUIRE(mdb_env_get_flags(book.env().get(), &flags) == 0);
    return flags;
  };
  BookError error;
  auto scratch = Book::open(dir.file("scratch.book"), OpenMode::CreateUnsynced, &error);
  REQUIRE(scratch);
  CHECK((flags_of(*scratch) & MDB_NOSYNC) != 0);
  CHECK(scratch->stats().games == 0);
  CHECK_FALSE(scratch->env().sync());
  // A book made the usual way syncs every commit.
  auto synced = Book::open(dir.file("synced.book"), OpenMode::Create, &error);
  REQUIRE(synced);
  CHECK((flags_of(*synced) & MDB_NOSYNC) == 0);
  // The unsynced book is a book: it opens again, read-only, after its writer closed it.
  scratch.reset();
  auto again = Book::open(dir.file("scratch.book"), OpenMode::ReadOnly, &error);
  REQUIRE(again);
  CHECK(again->stats().games == 0);
}

TEST_CASE("A file that is not a book gets a clear error", "[store]") {
  TempDir dir;
  std::ofstream(dir.file("text.book")) << "[Event \"not a book\"]\n";
  BookError error;
  CHECK_FALSE(Book::open(dir.file("text.book"), OpenMode::ReadOnly, &error));
  CHECK(error.code == BookError::Code::NotABook);
  CHECK(error.message.find("not a graphbook book") != std::string::npos);

  // An LMDB file made by someone else (no graphbook meta record) is refused too.
  {
    Error e;
    auto env = Env::open(dir.file("other.mdb"), false, 1 << 20, 4, &e);
    REQUIRE(env);
    auto txn = WriteTxn::begin(*env, &e);
    REQUIRE(txn);
    auto dbi = txn->open_db("things", MDB_CREATE, &e);
    REQUIRE(dbi);
    REQUIRE_FALSE(txn->put(*dbi, "a", "b"));
    REQUIRE_FALSE(txn->commit());
  }
  CHECK_FALSE(Book::open(dir.file("other.mdb"), OpenMode::ReadWrite, &error));
  CHECK(error.code == BookError::Code::NotABook);
}

TEST_CASE("A book of another format version is refused with both versions named", "[store]") {
  TempDir dir;
  std::string path = dir.file("v.book");
  {
    auto book = Book::open(path, OpenMode::Create, nullptr);
    REQUIRE(book);
    std::uint32_t future = kFormatVersion + 1;
    REQUIRE_FALSE(
        book->write([&](WriteTxn& t) { return t.put(book->dbs().meta, "version", as_bytes(future)); }));
  }
  BookError error;
  CHECK_FALSE(Book::open(path, OpenMode::ReadOnly, &error));
  CHECK(error.code == BookError::Code::WrongVersion);
  CHECK(error.message.find("version " + std::to_string(kFormatVersion + 1)) != std::string::npos);
}

TEST_CASE("Reads of absent keys return empty results, not errors", "[store]") {
  TempDir dir;
  auto book = Book::open(dir.file("e.book"), OpenMode::Create, nullptr);
  REQUIRE(book);
  Error e;
  CHECK_FALSE(book->node(Position().key(), &e));
  CHECK(e.code == 0);
  CHECK(book->find_all(Position().key(), &e).empty());
  CHECK(e.code == 0);
  CHECK_FALSE(book->learning(Position().key(), Move(SQ_E2, SQ_E4)));
}

TEST_CASE("Edges of a position come back from its section in move order with their learning", "[store]") {
  TempDir dir;
  auto book = Book::open(dir.file("r.book"), OpenMode::Create, nullptr);
  REQUIRE(book);
  Position start;
  Key k = start.key();
  Move e4(SQ_E2, SQ_E4), d4(SQ_D2, SQ_D4);
  REQUIRE_FALSE(book->write([&](WriteTxn& t) -> Status {
    EdgeRecord a, b;
    a.counters.add_game(Result::WhiteWins, 2500, 2001);
    b.counters.add_game(Result::Draw, 0, 0);
    // Another key before and after, whose edges must not be included.
    Section other, section;
    other.edges = {{e4.raw(), a}};
    section.edges = {{e4.raw(), a}, {d4.raw(), b}};
    std::sort(section.edges.begin(), section.edges.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    std::string v;
    SectionUpdater positions(t, book->dbs().positions);
    to_bytes(other, v);
    if (auto s = positions.put(k - 1, v)) return s;
    if (auto s = positions.put(k + 1, v)) return s;
    to_bytes(section, v);
    if (auto s = positions.put(k, v)) return s;
    return positions.flush();
  }));
  LearnRecord learned;
  learned.wins = 3;
  learned.last_result = 1;
  REQUIRE_FALSE(book->update_learning(k, e4, learned));

  auto edges = book->find_all(k);
  REQUIRE(edges.size() == 2);
  CHECK(edges[0].move.raw() < edges[1].move.raw());
  for (const auto& e : edges) {
    if (e.move == e4) {
      CHECK(e.record.counters.white_wins == 1);
      CHECK(e.record.counters.average_elo() == 2500);
      CHECK(e.learning.wins == 3);
      CHECK(e.polyglot_move == 0x031c);  // e2e4 in Polyglot: from e2 (row 1, file 4), to e4 (row 3, file 4)
    } else {
      CHECK(e.move == d4);
      CHECK(e.record.counters.draws == 1);
      CHECK(e.learning.wins == 0);
    }
  }
}

TEST_CASE("An uncommitted write transaction leaves nothing behind", "[store]") {
  TempDir dir;
  auto book = Book::open(dir.file("a.book"), OpenMode::Create, nullptr);
  REQUIRE(book);
  {
    Error e;
    auto txn = WriteTxn::begin(book->env(), &e);
    REQUIRE(txn);
    Section section;
    section.node = NodeRecord{};
    std::string v;
    to_bytes(section, v);
    SectionUpdater positions(*txn, book->dbs().positions);
    REQUIRE_FALSE(positions.put(42, v));
    REQUIRE_FALSE(positions.flush());
    REQUIRE(find_section(*txn, book->dbs().positions, 42));
  }  // destructor aborts
  CHECK_FALSE(book->node(42));
}

TEST_CASE("The map grows by itself when a batch does not fit", "[store]") {
  TempDir dir;
  BookError error;
  auto book = Book::open(dir.file("tiny.book"), OpenMode::Create, &error, 64 * 1024);
  REQUIRE(book);
  std::size_t before = book->env().map_size();
  int runs = 0;
  auto s = book->write([&](WriteTxn& t) -> Status {
    ++runs;
    std::string v;
    GroupAppender positions([&](std::string_view key, std::string_view group) {
      return t.put(book->dbs().positions, key, group, MDB_APPEND);
    });
    for (Key k = 1; k <= 20000; ++k) {
      Section section;
      section.node = NodeRecord{};
      section.node->counters.games = std::uint32_t(k);
      to_bytes(section, v);
      if (auto s = positions.add(k, v)) return s;
    }
    return positions.finish();
  });
  REQUIRE_FALSE(s);
  CHECK(runs > 1);  // the batch was redone after MDB_MAP_FULL
  CHECK(book->env().map_size() > before);
  auto n = book->node(20000);
  REQUIRE(n);
  CHECK(n->counters.games == 20000);
}

TEST_CASE("Polyglot moves translate both ways, castling as king takes rook", "[store]") {
  // Expected values worked out by hand from the format's bit layout (docs/FORMAT.md, NOTES.md).
  Position pos;
  Move d4 = *parse_uci(pos, "d2d4");
  // d2: row 1 file 3 -> from = 1*8+3 = 11; d4: row 3 file 3 -> to = 27. 11<<6 | 27 = 731.
  CHECK(to_polyglot_move(d4) == 731);
  CHECK(from_polyglot_move(pos, 731) == d4);
  auto castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  REQUIRE(castle);
  // e1h1: from 4, to 7 -> 4<<6 | 7 = 263.
  Move oo = from_polyglot_move(*castle, 263);
  REQUIRE(oo);
  CHECK(oo.kind() == Move::Kind::Castling);
  CHECK(to_polyglot_move(oo) == 263);
  auto promo = Position::from_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1");
  REQUIRE(promo);
  // a7a8q: from 48, to 56, queen = 4 -> 4<<12 | 48<<6 | 56.
  Move q = from_polyglot_move(*promo, std::uint16_t(4 << 12 | 48 << 6 | 56));
  REQUIRE(q);
  CHECK(q.promotion() == PieceType::Queen);
  CHECK(to_polyglot_move(raw_move_from_polyglot(std::uint16_t(4 << 12 | 48 << 6 | 56))) ==
        (4 << 12 | 48 << 6 | 56));
}

TEST_CASE("A Polyglot file reads and writes back byte for byte", "[store]") {
  TempDir dir;
  PolyglotFileError error;
  auto entries = read_polyglot_file(gb::test::data_path("polyglot/python-chess-lasker-trap.bin"), &error);
  REQUIRE(entries);
  CHECK(entries->size() == 7);  // 112 bytes / 16
  REQUIRE_FALSE(write_polyglot_file(dir.file("copy.bin"), *entries));
  std::ifstream a(gb::test::data_path("polyglot/python-chess-lasker-trap.bin"), std::ios::binary);
  std::ifstream b(dir.file("copy.bin"), std::ios::binary);
  std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
  CHECK(sa == sb);
  std::ofstream(dir.file("odd.bin")) << "12345";
  CHECK_FALSE(read_polyglot_file(dir.file("odd.bin"), &error));
  CHECK(error.code == PolyglotFileError::Code::NotPolyglot);
  CHECK(error.message() ==
        dir.file("odd.bin") + ": not a Polyglot book (size is not a multiple of 16 bytes)");
  CHECK_FALSE(read_polyglot_file(dir.file("absent.bin"), &error));
  CHECK(error.code == PolyglotFileError::Code::Open);
  CHECK(error.message() == dir.file("absent.bin") + ": " + std::strerror(ENOENT));
}

namespace {

// Two positions with one Polyglot key, found for this test by Gaussian
// elimination over GF(2) on the format's constants: knights, bishops, rooks and
// queens of both colours away from kings on e1 and e8, no pawns, White to move,
// neither king in check, piece counts a game can reach (promotions). Both keys
// are computed below from the published constants alone.
const char* kCollidingA = "2r1k3/1R4b1/N3n1R1/2qB4/3r4/5Q1R/6N1/4K3 w - - 0 1";
const char* kCollidingB = "4k3/7N/8/2n1n3/5n2/nr6/8/4K3 w - - 0 1";

// The Polyglot key of a FEN without castling rights or en passant square, by the format's
// description (polyglot-random64.txt: piece kind order bp wp bn wn bb wb br wr bq wq bk wk,
// index 64*kind + 8*rank + file; 780 when White is to move).
Key polyglot_key_by_hand(const std::string& fen) {
  std::ifstream in(gb::test::data_path("polyglot/polyglot-random64.txt"));
  std::vector<Key> random;
  for (std::string word; in >> word;) random.push_back(std::stoull(word, nullptr, 16));
  REQUIRE(random.size() == 781);
  Key key = 0;
  int rank = 7, file = 0;
  std::size_t i = 0;
  for (; fen[i] != ' '; ++i) {
    char c = fen[i];
    if (c == '/') {
      --rank, file = 0;
    } else if (c >= '1' && c <= '8') {
      file += c - '0';
    } else {
      int kind = 2 * int(std::string("pnbrqk").find(char(std::tolower(c)))) + (std::isupper(c) ? 1 : 0);
      key ^= random[std::size_t(64 * kind + 8 * rank + file++)];
    }
  }
  REQUIRE(fen.substr(i) == " w - - 0 1");
  return key ^ random[780];
}

}  // namespace

TEST_CASE("The position hash tells apart positions a Polyglot key does not see", "[store]") {
  auto a = Position::from_fen(kCollidingA), b = Position::from_fen(kCollidingB);
  REQUIRE(a);
  REQUIRE(b);
  const Key key = polyglot_key_by_hand(kCollidingA);
  REQUIRE(polyglot_key_by_hand(kCollidingB) == key);
  CHECK(a->key() == key);
  CHECK(b->key() == key);
  CHECK_FALSE(*a == *b);
  CHECK(position_hash(*a) != position_hash(*b));
  // One position reached by two move orders keeps its hash.
  Position start, c;
  UndoInfo u1, u2, u3, u4;
  c.do_move(*parse_uci(c, "g1f3"), u1);
  c.do_move(*parse_uci(c, "g8f6"), u2);
  c.do_move(*parse_uci(c, "f3g1"), u3);
  c.do_move(*parse_uci(c, "f6g8"), u4);
  CHECK(position_hash(c) == position_hash(start));
}

using gb::test::one_game_node;

TEST_CASE("A section holds its node and its edges in move order and reads them back", "[store]") {
  Section section;
  section.node = one_game_node();
  EdgeRecord a, b;
  a.child_key = 0xfedcba9876543210ull;
  a.counters.add_game(Result::BlackWins, 2710, 2019);
  a.occurrences = 2;
  a.score = 4;
  b.flags = kEdgeKeyOnly | kEdgeImported;
  b.polyglot_learn = 77;
  section.edges = {{0x0105, a}, {0x0a1c, b}};
  std::string v;
  to_bytes(section, v);

  SectionReader reader(v);
  REQUIRE(reader.node());
  CHECK(*reader.node() == *section.node);
  std::uint16_t move;
  EdgeRecord edge;
  REQUIRE(reader.next(move, edge));
  CHECK(move == 0x0105);
  CHECK(edge == a);
  REQUIRE(reader.next(move, edge));
  CHECK(move == 0x0a1c);
  CHECK(edge == b);
  CHECK_FALSE(reader.next(move, edge));
  CHECK(reader.ok());

  Section back;
  REQUIRE(from_bytes(v, back));
  CHECK(back.node == section.node);
  CHECK(back.edges == section.edges);
}

TEST_CASE("A section without a node (key-only edges) or without edges reads back as such", "[store]") {
  Section keys_only;
  EdgeRecord e;
  e.flags = kEdgeKeyOnly;
  keys_only.edges = {{0x031c, e}};
  std::string v;
  to_bytes(keys_only, v);
  SectionReader reader(v);
  CHECK_FALSE(reader.node());
  std::uint16_t move;
  EdgeRecord edge;
  CHECK(reader.next(move, edge));
  CHECK(edge == e);
  CHECK(reader.ok());

  Section leaf;
  leaf.node = NodeRecord{};
  to_bytes(leaf, v);
  SectionReader leaf_reader(v);
  CHECK(leaf_reader.node());
  CHECK_FALSE(leaf_reader.next(move, edge));
  CHECK(leaf_reader.ok());
}

TEST_CASE("An edge that every game at its position played once shares its node's fields", "[store]") {
  // One game reached the position (Black to move, at ply 7) and Black won
  // with the move played there: the edge's counters, its one occurrence,
  // its score (2, a win), its min_ply and its side are the node's.
  Section section;
  section.node = one_game_node();
  const EdgeRecord a = gb::test::one_game_edge();
  section.edges = {{gb::test::kOneGameMove, a}};
  std::string v;
  to_bytes(section, v);
  // docs/FORMAT.md, byte by byte. The node, one game's, packed: its head
  // 0xde (0xc0, black won 2, rated 4, black to move 8, a year 16), the
  // 32-bit hash little-endian, min ply 7, Elo 2710 and the year 2019 (19
  // after 2000, zigzagged: 38) as varints. The edge: its move, the length
  // byte 0xff (it shares the node's fields and holds its child key alone)
  // and the key little-endian.
  const std::string want(
      "\xde\xef\xcd\xab\x89\x07\x96\x15\x26"
      "\x01\x05\xff\x10\x32\x54\x76\x98\xba\xdc\xfe",
      20);
  CHECK(v == want);
  const std::size_t node_end = 9;
  Section back;
  REQUIRE(from_bytes(v, back));
  CHECK(back.node == section.node);
  CHECK(back.edges == section.edges);
  SectionReader moves_only(v);
  std::uint16_t move = 0;
  CHECK(moves_only.next(move));
  CHECK(move == 0x0105);
  // A group holds it self-delimited: the head says the edge is inline
  // (0x20) and the edge loses its length byte.
  const std::string inline_form(
      "\xfe\xef\xcd\xab\x89\x07\x96\x15\x26"
      "\x01\x05\x10\x32\x54\x76\x98\xba\xdc\xfe",
      19);
  CHECK(self_delimited_size(v) == 19);
  std::string stored;
  append_self_delimited(stored, v);
  CHECK(stored == inline_form);
  CHECK(self_delimited_size(stored) == 19);
  CHECK(self_delimited_length(stored + "more") == 19);
  Section inline_back;
  REQUIRE(from_bytes(stored, inline_back));
  CHECK(inline_back.node == section.node);
  CHECK(inline_back.edges == section.edges);
  CHECK_FALSE(from_bytes(stored + "x", inline_back));  // nothing after an inline edge
  CHECK_FALSE(from_bytes(stored.substr(0, 18), inline_back));

  // What it shares must be the node's exactly: else the edge is written
  // whole (a sharing edge is the shorter).
  auto shares = [&](const Section& s) {
    std::string bytes;
    to_bytes(s, bytes);
    Section read;
    REQUIRE(from_bytes(bytes, read));
    CHECK(read.node == s.node);
    CHECK(read.edges == s.edges);
    std::string whole;
    append_section_node(whole, &*s.node);
    append_section_edge(whole, s.edges[0].first, s.edges[0].second);  // no node: whole
    return bytes.size() < whole.size();
  };
  CHECK(shares(section));
  Section repeated = section;  // the game played it twice (a repetition)
  repeated.edges[0].second.occurrences = 2;
  repeated.edges[0].second.score = 4;
  CHECK_FALSE(shares(repeated));
  Section deeper = section;  // first played later than the node was first reached
  deeper.edges[0].second.min_ply = 9;
  CHECK_FALSE(shares(deeper));
  Section other_game = section;  // the node has a game that did not play it
  other_game.node->counters.add_game(Result::Draw, 2700, 2020);
  CHECK_FALSE(shares(other_game));
  Section unknown = section;  // "*" scores as a draw: 1
  unknown.node->counters = {};
  unknown.node->counters.add_game(Result::Unknown, 0, 0);
  unknown.edges[0].second.counters = unknown.node->counters;
  unknown.edges[0].second.score = 1;
  CHECK(shares(unknown));
  Section two = section;  // one game played both moves (a repetition, another move the second time)
  two.edges.push_back({0x0a1c, a});
  std::string both;
  to_bytes(two, both);
  Section two_back;
  REQUIRE(from_bytes(both, two_back));
  CHECK(two_back.edges == two.edges);
  CHECK(both.size() == v.size() + 3 + 8);
  CHECK(self_delimited_size(both) == 0);  // two edges: a group gives it a size

  // A shared edge without a node to share, or with fields of its own, is damage.
  std::string no_node = std::string(1, '\0') + v.substr(node_end);
  CHECK_FALSE(from_bytes(no_node, back));
  std::string own_fields = v.substr(0, node_end);
  append_section_edge(own_fields, 0x0105, a);  // whole
  own_fields[node_end + 2] = char(std::uint8_t(own_fields[node_end + 2]) | 0x80);
  CHECK_FALSE(from_bytes(own_fields, back));
}

TEST_CASE("A one-game node and its edge go straight to the self-delimited form, or not at all", "[store]") {
  // docs/FORMAT.md's one-game section in the form a group holds it: the
  // packed node with the inline bit (0xde | 0x20), its move, its child key.
  const std::string inline_form(
      "\xfe\xef\xcd\xab\x89\x07\x96\x15\x26"
      "\x01\x05\x10\x32\x54\x76\x98\xba\xdc\xfe",
      19);
  const NodeRecord node = one_game_node();
  const EdgeRecord edge = gb::test::one_game_edge();
  std::string out = "before";
  REQUIRE(append_one_game_inline(out, node, gb::test::kOneGameMove, edge));
  CHECK(out == "before" + inline_form);

  // The pairs that have no such form leave out as it was; the section of
  // each, made the long way, has none either.
  auto no_form = [&](const NodeRecord& n, const EdgeRecord& e) {
    std::string bytes = "x";
    const bool made = append_one_game_inline(bytes, n, gb::test::kOneGameMove, e);
    Section section{n, {{gb::test::kOneGameMove, e}}};
    std::string value;
    to_bytes(section, value);
    CHECK(self_delimited_size(value) == 0);
    return !made && bytes == "x";
  };
  EdgeRecord repeated = edge;  // played twice by its game
  repeated.occurrences = 2;
  repeated.score = 4;
  CHECK(no_form(node, repeated));
  EdgeRecord deeper = edge;  // first played later than the node was first reached
  deeper.min_ply = 9;
  CHECK(no_form(node, deeper));
  NodeRecord two_games = node;
  two_games.counters.add_game(Result::Draw, 2700, 2020);
  EdgeRecord two_games_edge = edge;
  two_games_edge.counters = two_games.counters;
  two_games_edge.occurrences = 2;
  two_games_edge.score = 3;
  CHECK(no_form(two_games, two_games_edge));
  EdgeRecord ranked = edge;  // a rank of its own is a field of the edge's record
  ranked.polyglot_rank = 1;
  CHECK(no_form(node, ranked));
}

TEST_CASE("A damaged section is reported as damaged, never read past its end", "[store]") {
  Section section;
  section.node = NodeRecord{};
  section.node->position_hash = 42;
  EdgeRecord e;
  e.child_key = 43;
  e.counters.add_game(Result::Draw, 0, 0);
  section.edges = {{0x031c, e}};
  std::string v;
  to_bytes(section, v);
  // Cut anywhere but between two parts, the value ends inside a record.
  const std::size_t node_end = 1 + as_bytes(*section.node).size;
  for (std::size_t cut = 0; cut < v.size(); ++cut) {
    Section out;
    INFO("cut at " << cut);
    CHECK(from_bytes(std::string_view(v).substr(0, cut), out) == (cut == node_end));
  }
  Section out;
  std::string bad = v;
  bad[0] = char(200);  // a node longer than the value
  CHECK_FALSE(from_bytes(bad, out));
  bad = v;
  bad[1 + as_bytes(*section.node).size + 2] = 1;  // an edge's record shorter than what it holds
  CHECK_FALSE(from_bytes(bad, out));
}

TEST_CASE("A node of one game is packed, any other is written with its mask, and both read back", "[store]") {
  // docs/FORMAT.md, Sections: packed (its first byte 0xc0 or above) exactly
  // when the node is one game's: games 1, one result, at most one rating, one
  // year, no flag but the side to move, and a position hash.
  auto packed = [](const NodeRecord& node) {
    Section section;
    section.node = node;
    std::string v;
    to_bytes(section, v);
    Section back;
    REQUIRE(from_bytes(v, back));
    CHECK(back.node == section.node);
    return std::uint8_t(v[0]) >= 0xc0;
  };
  for (Result r : {Result::WhiteWins, Result::Draw, Result::BlackWins, Result::Unknown}) {
    NodeRecord n;
    n.counters.add_game(r, 0, 0);  // unrated, undated, White to move
    CHECK_FALSE(packed(n));        // no hash: the mask form
    n.position_hash = 1;
    CHECK(packed(n));
    n.min_ply = 300;
    for (int year : {1, 1851, 1937, 2063, 2064, 65535}) {
      n.counters = {};
      n.counters.add_game(r, 1500, year);
      n.flags = kBlackToMove;
      CHECK(packed(n));
    }
  }
  NodeRecord two;
  two.position_hash = 1;
  two.counters.add_game(Result::Draw, 2000, 2001);
  two.counters.add_game(Result::Draw, 2000, 2001);
  CHECK_FALSE(packed(two));
  NodeRecord years = one_game_node();
  years.counters.max_year = 2020;  // a year range: not one game's
  CHECK_FALSE(packed(years));
  NodeRecord rated_without_elo = one_game_node();
  rated_without_elo.counters.elo_sum = 0;
  CHECK_FALSE(packed(rated_without_elo));
  NodeRecord imported;  // a .bin's node: no game
  imported.position_hash = 5;
  CHECK_FALSE(packed(imported));

  // A packed node cut short, with a hash of 0, a year of 0 or an inline
  // edge it does not have, or bytes after it that are no edge, is damage.
  Section section;
  section.node = one_game_node();
  std::string v;
  to_bytes(section, v);
  REQUIRE(v.size() == 9);
  Section back;
  REQUIRE(from_bytes(v, back));
  for (std::size_t cut = 0; cut < v.size(); ++cut) CHECK_FALSE(from_bytes(v.substr(0, cut), back));
  std::string bad = v;
  bad.replace(1, 4, std::string(4, '\0'));
  CHECK_FALSE(from_bytes(bad, back));
  bad = v;
  bad.replace(8, 1, "\x9f\x1f");  // zigzag 3999: the year 0
  CHECK_FALSE(from_bytes(bad, back));
  bad = v;
  bad[0] = char(std::uint8_t(bad[0]) | 0x20);
  CHECK_FALSE(from_bytes(bad, back));
  CHECK_FALSE(from_bytes(v + "x", back));
}
