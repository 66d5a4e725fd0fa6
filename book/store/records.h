// The records of a graphbook book (docs/FORMAT.md is the normative text):
// NodeRecord and EdgeRecord are stored compactly (a presence mask and
// varints, as_bytes/from_bytes below), the other records as fixed-size
// little-endian PODs; keys are big-endian so that LMDB's byte order is
// numeric order.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "book/chess/types.h"

namespace gb::store {

inline constexpr std::uint32_t kFormatVersion = 7;

enum class Result : std::uint8_t { WhiteWins, Draw, BlackWins, Unknown };

// Source counters of a node or an edge: every game counted once.
struct Counters {
  std::uint32_t games = 0;
  std::uint32_t white_wins = 0;
  std::uint32_t draws = 0;
  std::uint32_t black_wins = 0;
  std::uint32_t unknown = 0;      // "*" and other non-results
  std::uint32_t rated_games = 0;  // games in which the mover had an Elo
  std::uint64_t elo_sum = 0;      // sum of the mover's Elo over rated_games
  std::uint16_t min_year = 0;     // 0: no dated game
  std::uint16_t max_year = 0;
  std::uint32_t reserved = 0;

  void add_game(Result r, int mover_elo, int year) {
    ++games;
    switch (r) {
      case Result::WhiteWins: ++white_wins; break;
      case Result::Draw: ++draws; break;
      case Result::BlackWins: ++black_wins; break;
      case Result::Unknown: ++unknown; break;
    }
    if (mover_elo > 0) {
      ++rated_games;
      elo_sum += std::uint64_t(mover_elo);
    }
    if (year > 0) add_years(std::uint16_t(year), std::uint16_t(year));
  }
  void add_years(std::uint16_t lo, std::uint16_t hi) {
    if (lo == 0) return;
    assert(lo <= hi);
    min_year = min_year == 0 ? lo : std::min(min_year, lo);
    max_year = std::max(max_year, hi);
  }
  void merge(const Counters& o) {
    games += o.games;
    white_wins += o.white_wins;
    draws += o.draws;
    black_wins += o.black_wins;
    unknown += o.unknown;
    rated_games += o.rated_games;
    elo_sum += o.elo_sum;
    add_years(o.min_year, o.max_year);
  }
  // Average Elo of the mover, 0 when no game was rated.
  int average_elo() const { return rated_games ? int(elo_sum / rated_games) : 0; }
  bool operator==(const Counters&) const = default;
};
static_assert(sizeof(Counters) == 40);

enum NodeFlags : std::uint8_t { kBlackToMove = 1 };

// A position's node: the totals of the games that reached it (in its section).
struct NodeRecord {
  std::uint64_t position_hash = 0;  // 32 bits of XXH3-64 of the full position (collision check)
  Counters counters;
  std::uint16_t min_ply = 0;  // the smallest ply at which a game reached it
  std::uint8_t flags = 0;     // NodeFlags
  std::uint8_t reserved8 = 0;
  std::uint32_t reserved32 = 0;

  void merge(const NodeRecord& o) {
    counters.merge(o.counters);
    min_ply = std::min(min_ply, o.min_ply);
  }
  bool operator==(const NodeRecord&) const = default;
};
static_assert(sizeof(NodeRecord) == 56);

enum EdgeFlags : std::uint8_t {
  kEdgeBlackMoves = 1,  // the side that plays the move is Black
  kEdgeKeyOnly = 2,     // imported from a .bin, the position was never reached: child unknown
  kEdgeImported = 4,    // counters came from a .bin (weight/learn only)
};

// A move from a position to its child (in the position's section).
struct EdgeRecord {
  std::uint64_t child_key = 0;    // Polyglot key after the move (0 when kEdgeKeyOnly)
  Counters counters;              // games that played this move here, each once
  std::uint32_t occurrences = 0;  // every time a game played it (Polyglot make-book's n)
  std::uint32_t score = 0;        // per occurrence 2*win + draw for the mover, "*" as a draw
  std::uint16_t min_ply = 0;
  std::uint8_t flags = 0;            // EdgeFlags
  std::uint8_t polyglot_rank = 0;    // place among the position's edges: first play, or .bin order
  std::uint32_t polyglot_learn = 0;  // the learn field of an imported entry

  void merge(const EdgeRecord& o) {
    counters.merge(o.counters);
    occurrences += o.occurrences;
    score += o.score;
    min_ply = std::min(min_ply, o.min_ply);
    flags |= o.flags & ~kEdgeKeyOnly;
    if (!(o.flags & kEdgeKeyOnly)) {
      if (flags & kEdgeKeyOnly) child_key = o.child_key;
      flags &= ~kEdgeKeyOnly;
    }
  }
  bool operator==(const EdgeRecord&) const = default;
};
static_assert(sizeof(EdgeRecord) == 64);

// Polyglot make-book's score of one play of a move for the side that played
// it: 2 for a win, 1 for a draw or "*", 0 for a loss (EdgeRecord::score sums it).
constexpr std::uint32_t play_score(Result r, Color mover) {
  if (r == Result::WhiteWins) return mover == Color::White ? 2 : 0;
  if (r == Result::BlackWins) return mover == Color::Black ? 2 : 0;
  return 1;
}

// Learning counters (filled by `graphbook learn`), apart from source counters.
// Key = Polyglot key (8, BE) + move (2, BE); move 0 holds the node's own.
struct LearnRecord {
  std::uint32_t wins = 0;  // of the side that played the move (for a node: the side to move)
  std::uint32_t draws = 0;
  std::uint32_t losses = 0;
  std::uint8_t last_result = 0;  // 0 none, 1 win, 2 draw, 3 loss
  std::uint8_t reserved[3] = {};
  std::int64_t last_played = 0;  // Unix seconds
};
static_assert(sizeof(LearnRecord) == 24);

// --- key encoding ---------------------------------------------------------

inline void put_be64(char* p, std::uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = char(v & 0xff);
}
inline void put_be32(char* p, std::uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) p[i] = char(v & 0xff);
}
inline std::uint32_t get_be32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = v << 8 | std::uint8_t(p[i]);
  return v;
}
inline void put_be16(char* p, std::uint16_t v) {
  p[0] = char(v >> 8);
  p[1] = char(v & 0xff);
}
inline std::uint64_t get_be64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | std::uint8_t(p[i]);
  return v;
}
inline std::uint16_t get_be16(const char* p) {
  return std::uint16_t(std::uint8_t(p[0]) << 8 | std::uint8_t(p[1]));
}

struct NodeKey {
  char bytes[8];
  explicit NodeKey(Key k) { put_be64(bytes, k); }
  std::string_view view() const { return {bytes, 8}; }
};

struct EdgeKey {
  char bytes[10];
  EdgeKey(Key k, std::uint16_t move) {
    put_be64(bytes, k);
    put_be16(bytes + 8, move);
  }
  std::string_view view() const { return {bytes, 10}; }
};

// The bytes of a fixed-size record (a view of the object itself).
template <class T>
std::string_view as_bytes(const T& t) {
  return {reinterpret_cast<const char*>(&t), sizeof(T)};
}

// Copies a fixed-size value out of the map (LMDB values need not be aligned).
template <class T>
bool from_bytes(std::string_view v, T& out) {
  if (v.size() != sizeof(T)) return false;
  std::memcpy(&out, v.data(), sizeof(T));
  return true;
}

// Nodes and edges are encoded: a 16-bit mask of the fields that are not zero,
// then those fields (keys as 8 raw bytes, the position hash as 4 (bit 12;
// formats 2 to 5 wrote 8, bit 0, read as their low 32 bits), numbers as LEB128
// varints). A one-game edge takes about 20 bytes instead of 64.
struct EncodedRecord {
  char bytes[128];
  std::size_t size = 0;
  operator std::string_view() const { return {bytes, size}; }
};
EncodedRecord as_bytes(const NodeRecord& r);
EncodedRecord as_bytes(const EdgeRecord& r);
// False (and out unspecified) when v is not a valid encoding.
bool from_bytes(std::string_view v, NodeRecord& out);
bool from_bytes(std::string_view v, EdgeRecord& out);

// --- sections ----------------------------------------------------------------
// The value of the positions database (key = Polyglot key, 8 bytes BE) is a
// position's section, as the paper has it: the node's encoded record after
// its length (1 byte; 0: no node, a position only an imported .bin's key-only
// edges know; a packed node has none, below), then every edge in move order, each its move (2 bytes, BE),
// its record's length (1 byte) and its encoded record. One value per position
// is one LMDB record where a node and its edges were several (a build appends
// half as many), and a probe is one get; the lengths let a reader pass over
// what it does not need undecoded.
//
// An edge that every game at its position played, once each (most positions
// of a collection are reached by one game, which played one move there),
// has the node's counters, one occurrence and one play's score per game, the
// node's min_ply and its side to move: it shares them (format 4). Its length
// byte says so (kSharesNode) and its record leaves them out: 9 bytes of a
// one-game edge's 23.
inline constexpr std::uint8_t kSharesNode = 0x80;  // in an edge's length byte
// A sharing edge whose record would hold its child key alone (its mask would
// say so) has this length byte, and the 8 bytes of the key without the mask
// (format 5).
inline constexpr std::uint8_t kSharesChildKeyOnly = 0xff;
// A node of one game (games 1, one result, at most one rating, one year, no
// flag but the side to move, a position hash: most nodes of a collection) is packed. Format 5
// gave it a length byte with kOneGameNode; format 6 writes no length: its
// first byte is a head at kPackedHead or above (bits 0-1 the result: white
// wins, draw, black wins, unknown; bit 2 rated, bit 3 black to move, bit 4 a
// year, bit 5 kInlineEdge), then the position hash (4 bytes), the min ply, the
// Elo sum (when bit 2) and the year less 2000, zigzagged (when bit 4), as
// varints: 9 bytes where format 5's took 15. With kInlineEdge the section is
// that node and one edge that shares it and holds its child key alone, as its
// move (2 bytes) and key (8 bytes), nothing after: the self-delimited form a
// group stores without a size (section_groups.h; append_self_delimited).
inline constexpr std::uint8_t kOneGameNode = 0x80;  // in a format 5 node's length byte
inline constexpr std::uint8_t kPackedHead = 0xc0;   // a format 6 packed node's first byte, at least
inline constexpr std::uint8_t kInlineEdge = 0x20;   // in a packed head

// The fields an edge shares with its node, as the node gives them
// (node_share) or as the edge has them (edge_share): the edge shares them
// when the two are equal.
struct NodeShare {
  Counters counters;
  std::uint32_t occurrences = 0;
  std::uint32_t score = 0;
  std::uint16_t min_ply = 0;
  bool black = false;  // the node's side to move; the edge's kEdgeBlackMoves
  bool operator==(const NodeShare&) const = default;
};
NodeShare node_share(const NodeRecord& node);
NodeShare edge_share(const EdgeRecord& edge);

// Appends a section's parts to out, node first (nullptr: no node), then the
// edges in move order. node: the section's node, when the edge may share its
// fields (nullptr: it is written whole).
void append_section_node(std::string& out, const NodeRecord* node);
void append_section_edge(std::string& out, std::uint16_t move, const EdgeRecord& edge,
                         const NodeRecord* node = nullptr);
// The edge as it shares its node's fields; only after a node with
// node_share(node) == edge_share(edge) (a writer that encodes nodes and edges
// apart compares the two shares before it joins them).
void append_section_edge_sharing(std::string& out, std::uint16_t move, const EdgeRecord& edge);

// Reads a section in place, decoding only what is asked: node(), the edges
// one by one. The value must outlive the reader.
class SectionReader {
 public:
  explicit SectionReader(std::string_view value);
  // The node, nullopt when the section has none (or it is damaged: then ok()
  // is false). Decoded once (an edge that shares its fields needs it too).
  std::optional<NodeRecord> node();
  // The next edge; false at the end of the section, or when the rest is
  // damaged (then ok() is false).
  bool next(std::uint16_t& move, EdgeRecord& edge);
  // The next edge's move only, its record passed over undecoded.
  bool next(std::uint16_t& move);
  // False when the value is not a well-formed section (as far as it was read).
  bool ok() const { return ok_; }

 private:
  // Empty at the end or on damage; shares: the edge shares its node's
  // fields; key_only: the record is the child key alone (kSharesChildKeyOnly
  // or kInlineEdge).
  std::string_view next_record(std::uint16_t& move, bool& shares, bool& key_only);
  std::string_view node_bytes_, rest_;
  std::string_view inline_edge_;  // its move and key, until read (kInlineEdge)
  enum class NodeForm : std::uint8_t { Mask, Packed5, Packed6 } form_ = NodeForm::Mask;
  std::optional<NodeRecord> node_;
  bool node_read_ = false;
  bool ok_ = true;
};

// The self-delimited form of a section (format 6): a packed node, and its
// one edge when that shares the node and holds its child key alone, inline
// (kInlineEdge), or no edge. A group stores such a section without its size.
// The size of section in that form, 0 when it has none.
std::size_t self_delimited_size(std::string_view section);
// Appends it, false (and out unchanged) when it has none.
bool append_self_delimited(std::string& out, std::string_view section);
// The self-delimited form of the section of node and its one edge, in one
// step: what append_section_node, append_section_edge (sharing the node) and
// append_self_delimited make of them, without the section between. Most
// positions of a collection are reached by one game, so a build writes this
// form by the million. False (out unchanged) when the two have no such form
// (the node is not one game's, or the edge does not share it and hold its
// child key alone).
bool append_one_game_inline(std::string& out, const NodeRecord& node, std::uint16_t move,
                            const EdgeRecord& edge);
// One game's node as a build's table holds it, with what makes its counters
// (Counters::add_game: a rating above 0 is counted, a year above 0 kept).
struct OneGameNode {
  std::uint32_t position_hash = 0;
  std::uint16_t min_ply = 0;
  bool black = false;  // Black is to move
  Result result = Result::Unknown;
  int mover_elo = 0;
  int year = 0;
};
// The same from the fields: the node of one game and the one edge that game
// played there once, with child key child_key (its rank 0, shared fields as
// the node gives them), without making either record. False (out unchanged)
// when they have no such form (a position hash or a child key of 0).
bool append_one_game_inline(std::string& out, const OneGameNode& node, std::uint16_t move,
                            std::uint64_t child_key);
// The length of the self-delimited section at the start of bytes (the first
// byte at kPackedHead or above), 0 when it does not decode.
std::size_t self_delimited_length(std::string_view bytes);

// A section decoded whole (what an ordered merge into a book rewrites).
struct Section {
  std::optional<NodeRecord> node;
  std::vector<std::pair<std::uint16_t, EdgeRecord>> edges;  // in move order
};
// False when v is not a well-formed section.
bool from_bytes(std::string_view v, Section& out);
// out is cleared first.
void to_bytes(const Section& section, std::string& out);

}  // namespace gb::store
