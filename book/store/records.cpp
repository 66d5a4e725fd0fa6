#include "book/store/records.h"

#include <cassert>

#include "book/store/varint.h"

namespace gb::store {

namespace {

// Writes through a local pointer and keeps the size out of the record until
// finish(): char stores may alias anything, so a size kept in the record was
// reloaded and stored for every byte (the encoder runs for every node and edge
// a build writes; bench/build.sh times builds).
class Writer {
 public:
  explicit Writer(EncodedRecord& out) : out_(out), p_(out.bytes + 2) {}
  // The mask has 16 bits, one per field.
  void raw64(int bit, std::uint64_t v) {
    assert(bit >= 0 && bit < 16 && !(mask_ >> bit & 1));
    if (!v) return;
    mask_ |= std::uint16_t(1u << bit);
    std::memcpy(p_, &v, 8);
    p_ += 8;
  }
  void var(int bit, std::uint64_t v) {
    assert(bit >= 0 && bit < 16 && !(mask_ >> bit & 1));
    if (!v) return;
    mask_ |= std::uint16_t(1u << bit);
    char* p = p_;
    while (v >= 0x80) {
      *p++ = char((v & 0x7f) | 0x80);
      v >>= 7;
    }
    *p++ = char(v);
    p_ = p;
  }
  void finish() {
    // An encoding is at most 78 bytes (an edge: the mask, a raw key, eight
    // 32-bit varints of 5 bytes, elo_sum's 10, three 16-bit ones of 3, two
    // 8-bit ones of 2), within the buffer and the sections' one-byte length.
    assert(p_ <= out_.bytes + sizeof(out_.bytes));
    out_.bytes[0] = char(mask_ & 0xff);
    out_.bytes[1] = char(mask_ >> 8);
    out_.size = std::size_t(p_ - out_.bytes);
  }

 private:
  EncodedRecord& out_;
  char* p_;
  std::uint16_t mask_ = 0;
};

class Reader {
 public:
  explicit Reader(std::string_view v) : v_(v) {
    if (v_.size() < 2)
      ok_ = false;
    else
      mask_ = std::uint16_t(std::uint8_t(v_[0]) | std::uint8_t(v_[1]) << 8);
  }
  std::uint64_t raw64(int bit) {
    if (!(mask_ >> bit & 1) || !ok_) return 0;
    if (at_ + 8 > v_.size()) return ok_ = false, 0;
    std::uint64_t v;
    std::memcpy(&v, v_.data() + at_, 8);
    at_ += 8;
    return v;
  }
  std::uint64_t var(int bit) {
    if (!(mask_ >> bit & 1) || !ok_) return 0;
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= v_.size()) return ok_ = false, 0;
      std::uint8_t b = std::uint8_t(v_[at_++]);
      v |= std::uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return ok_ = false, 0;
  }
  bool done() const { return ok_ && at_ == v_.size(); }

 private:
  std::string_view v_;
  std::size_t at_ = 2;
  std::uint16_t mask_ = 0;
  bool ok_ = true;
};

// Counters take bits first..first+8.
[[gnu::always_inline]] inline void write_counters(Writer& w, int first, const Counters& c) {
  w.var(first, c.games);
  w.var(first + 1, c.white_wins);
  w.var(first + 2, c.draws);
  w.var(first + 3, c.black_wins);
  w.var(first + 4, c.unknown);
  w.var(first + 5, c.rated_games);
  w.var(first + 6, c.elo_sum);
  w.var(first + 7, c.min_year);
  w.var(first + 8, std::uint16_t(c.max_year - c.min_year));
}

void read_counters(Reader& r, int first, Counters& c) {
  c = Counters{};
  c.games = std::uint32_t(r.var(first));
  c.white_wins = std::uint32_t(r.var(first + 1));
  c.draws = std::uint32_t(r.var(first + 2));
  c.black_wins = std::uint32_t(r.var(first + 3));
  c.unknown = std::uint32_t(r.var(first + 4));
  c.rated_games = std::uint32_t(r.var(first + 5));
  c.elo_sum = r.var(first + 6);
  c.min_year = std::uint16_t(r.var(first + 7));
  c.max_year = std::uint16_t(c.min_year + r.var(first + 8));
}

}  // namespace

EncodedRecord as_bytes(const NodeRecord& n) {
  EncodedRecord out;
  Writer w(out);
  w.raw64(0, n.position_hash);
  write_counters(w, 1, n.counters);
  w.var(10, n.min_ply);
  w.var(11, n.flags);
  w.finish();
  return out;
}

bool from_bytes(std::string_view v, NodeRecord& n) {
  Reader r(v);
  n = NodeRecord{};
  n.position_hash = r.raw64(0);
  read_counters(r, 1, n.counters);
  n.min_ply = std::uint16_t(r.var(10));
  n.flags = std::uint8_t(r.var(11));
  return r.done();
}

EncodedRecord as_bytes(const EdgeRecord& e) {
  EncodedRecord out;
  Writer w(out);
  w.raw64(0, e.child_key);
  write_counters(w, 1, e.counters);
  w.var(10, e.occurrences);
  w.var(11, e.score);
  w.var(12, e.min_ply);
  w.var(13, e.flags);
  w.var(14, e.polyglot_rank);
  w.var(15, e.polyglot_learn);
  w.finish();
  return out;
}

bool from_bytes(std::string_view v, EdgeRecord& e) {
  Reader r(v);
  e = EdgeRecord{};
  e.child_key = r.raw64(0);
  read_counters(r, 1, e.counters);
  e.occurrences = std::uint32_t(r.var(10));
  e.score = std::uint32_t(r.var(11));
  e.min_ply = std::uint16_t(r.var(12));
  e.flags = std::uint8_t(r.var(13));
  e.polyglot_rank = std::uint8_t(r.var(14));
  e.polyglot_learn = std::uint32_t(r.var(15));
  return r.done();
}

NodeShare node_share(const NodeRecord& node) {
  const bool black = node.flags & kBlackToMove;
  const Counters& c = node.counters;
  // A play's score for the side to move: 2 a win, 1 a draw or "*" (play_score).
  const std::uint32_t wins = black ? c.black_wins : c.white_wins;
  return {.counters = c,
          .occurrences = c.games,
          .score = 2 * wins + c.draws + c.unknown,
          .min_ply = node.min_ply,
          .black = black};
}

NodeShare edge_share(const EdgeRecord& edge) {
  return {.counters = edge.counters,
          .occurrences = edge.occurrences,
          .score = edge.score,
          .min_ply = edge.min_ply,
          .black = bool(edge.flags & kEdgeBlackMoves)};
}

namespace {

// The edge without what it shares with its node: what its record holds.
EdgeRecord without_share(const EdgeRecord& edge) {
  EdgeRecord own = edge;
  own.counters = {};
  own.occurrences = own.score = 0;
  own.min_ply = 0;
  own.flags &= std::uint8_t(~kEdgeBlackMoves);
  return own;
}

// Whether node is one game's, as kOneGameNode packs it.
bool one_game(const NodeRecord& n) {
  const Counters& c = n.counters;
  return c.games == 1 && c.white_wins + c.draws + c.black_wins + c.unknown == 1 &&
         c.rated_games == (c.elo_sum > 0) && c.max_year == c.min_year && c.reserved == 0 &&
         (n.flags & ~kBlackToMove) == 0 && n.reserved8 == 0 && n.reserved32 == 0;
}

// The packed form of a one-game node (kOneGameNode), length byte first.
void append_one_game_node(std::string& out, const NodeRecord& n) {
  const Counters& c = n.counters;
  const int result = c.white_wins ? 0 : c.draws ? 1 : c.black_wins ? 2 : 3;
  const std::uint8_t head =
      std::uint8_t(result | (c.rated_games ? 4 : 0) | ((n.flags & kBlackToMove) ? 8 : 0) |
                   (n.position_hash ? 16 : 0) | (c.min_year ? 32 : 0));
  const std::size_t length_at = out.size();
  out.push_back(0);
  out.push_back(char(head));
  if (n.position_hash) out.append(reinterpret_cast<const char*>(&n.position_hash), 8);
  put_varint(out, n.min_ply);
  if (c.rated_games) put_varint(out, c.elo_sum);
  if (c.min_year) put_varint(out, c.min_year);
  const std::size_t length = out.size() - length_at - 1;
  assert(length < kOneGameNode);
  out[length_at] = char(kOneGameNode | length);
}

bool unpack_one_game_node(std::string_view v, NodeRecord& n) {
  n = NodeRecord{};
  if (v.empty()) return false;
  const auto head = std::uint8_t(v[0]);
  if (head & 0xc0) return false;
  std::size_t at = 1;
  if (head & 16) {
    if (v.size() < 9) return false;
    std::memcpy(&n.position_hash, v.data() + 1, 8);
    at = 9;
  }
  std::uint64_t min_ply, elo = 0, year = 0;
  if (!get_varint(v, at, min_ply) || min_ply > 0xffff) return false;
  if ((head & 4) && (!get_varint(v, at, elo) || elo == 0)) return false;
  if ((head & 32) && (!get_varint(v, at, year) || year == 0 || year > 0xffff)) return false;
  if (at != v.size()) return false;
  Counters& c = n.counters;
  c.games = 1;
  switch (head & 3) {
    case 0: c.white_wins = 1; break;
    case 1: c.draws = 1; break;
    case 2: c.black_wins = 1; break;
    default: c.unknown = 1; break;
  }
  c.rated_games = (head & 4) ? 1 : 0;
  c.elo_sum = elo;
  c.min_year = c.max_year = std::uint16_t(year);
  n.min_ply = std::uint16_t(min_ply);
  n.flags = (head & 8) ? kBlackToMove : 0;
  return true;
}

void append_edge_record(std::string& out, std::uint16_t move, const EdgeRecord& record, std::uint8_t shares) {
  EdgeRecord key_only;
  key_only.child_key = record.child_key;
  if (shares && record == key_only && record.child_key) {
    char head[3];
    put_be16(head, move);
    head[2] = char(kSharesChildKeyOnly);
    out.append(head, 3);
    out.append(reinterpret_cast<const char*>(&record.child_key), 8);
    return;
  }
  EncodedRecord r = as_bytes(record);
  // Its length byte: 0 is damage to a reader, and kSharesNode is a flag (an
  // encoding is at most 78 bytes: Writer::finish).
  assert(r.size >= 2 && r.size < kSharesNode);
  char head[3];
  put_be16(head, move);
  head[2] = char(r.size | shares);
  out.append(head, 3);
  out.append(std::string_view(r));
}

}  // namespace

void append_section_node(std::string& out, const NodeRecord* node) {
  if (!node) {
    out.push_back(0);
    return;
  }
  if (one_game(*node)) return append_one_game_node(out, *node);
  EncodedRecord r = as_bytes(*node);
  // Its length byte: 0 would say "no node", and kOneGameNode is a flag (an
  // encoding is at most 78 bytes: Writer::finish).
  assert(r.size >= 2 && r.size < kOneGameNode);
  out.push_back(char(r.size));
  out.append(std::string_view(r));
}

void append_section_edge(std::string& out, std::uint16_t move, const EdgeRecord& edge,
                         const NodeRecord* node) {
  if (node && node_share(*node) == edge_share(edge))
    append_section_edge_sharing(out, move, edge);
  else
    append_edge_record(out, move, edge, 0);
}

void append_section_edge_sharing(std::string& out, std::uint16_t move, const EdgeRecord& edge) {
  append_edge_record(out, move, without_share(edge), kSharesNode);
}

SectionReader::SectionReader(std::string_view value) {
  const std::uint8_t length = value.empty() ? 0 : std::uint8_t(value[0]);
  const std::size_t n = length & ~kOneGameNode;
  if (value.empty() || n + 1 > value.size() || length == kOneGameNode) {
    ok_ = false;
    return;
  }
  one_game_node_ = length & kOneGameNode;
  node_bytes_ = value.substr(1, n);
  rest_ = value.substr(1 + n);
}

std::optional<NodeRecord> SectionReader::node() {
  if (node_read_) return node_;
  node_read_ = true;
  if (node_bytes_.empty()) return std::nullopt;
  NodeRecord r;
  if (!(one_game_node_ ? unpack_one_game_node(node_bytes_, r) : from_bytes(node_bytes_, r)))
    return ok_ = false, std::nullopt;
  return node_ = r;
}

std::string_view SectionReader::next_record(std::uint16_t& move, bool& shares, bool& key_only) {
  if (!ok_ || rest_.empty()) return {};
  const std::uint8_t length = rest_.size() >= 3 ? std::uint8_t(rest_[2]) : 0;
  key_only = length == kSharesChildKeyOnly;
  const std::size_t n = key_only ? 8 : length & ~kSharesNode;
  if (rest_.size() < 3 || n == 0 || 3 + n > rest_.size()) return ok_ = false, std::string_view();
  move = get_be16(rest_.data());
  shares = length & kSharesNode;
  std::string_view record = rest_.substr(3, n);
  rest_.remove_prefix(3 + n);
  return record;
}

bool SectionReader::next(std::uint16_t& move, EdgeRecord& edge) {
  bool shares = false, key_only = false;
  std::string_view record = next_record(move, shares, key_only);
  if (record.empty()) return false;
  if (key_only) {
    edge = EdgeRecord{};
    std::memcpy(&edge.child_key, record.data(), 8);
    if (!edge.child_key) return ok_ = false;
  } else if (!from_bytes(record, edge)) {
    return ok_ = false;
  }
  if (!shares) return true;
  // The shared fields come from the node; a record that shares them and has
  // its own too, or shares a node the section lacks, is damaged.
  std::optional<NodeRecord> n = node();
  if (!n || !(without_share(edge) == edge)) return ok_ = false;
  const NodeShare share = node_share(*n);
  edge.counters = share.counters;
  edge.occurrences = share.occurrences;
  edge.score = share.score;
  edge.min_ply = share.min_ply;
  if (share.black) edge.flags |= kEdgeBlackMoves;
  return true;
}

bool SectionReader::next(std::uint16_t& move) {
  bool shares = false, key_only = false;
  return !next_record(move, shares, key_only).empty();
}

bool from_bytes(std::string_view v, Section& out) {
  SectionReader reader(v);
  out.edges.clear();
  out.node = reader.node();
  std::uint16_t move;
  EdgeRecord edge;
  while (reader.next(move, edge)) out.edges.emplace_back(move, edge);
  return reader.ok();
}

void to_bytes(const Section& section, std::string& out) {
  // The edges of a section are in strictly increasing move order (a reader
  // and the ordered merge rely on it).
  assert(std::adjacent_find(section.edges.begin(), section.edges.end(), [](const auto& a, const auto& b) {
           return a.first >= b.first;
         }) == section.edges.end());
  out.clear();
  append_section_node(out, section.node ? &*section.node : nullptr);
  const NodeRecord* node = section.node ? &*section.node : nullptr;
  for (const auto& [move, edge] : section.edges) append_section_edge(out, move, edge, node);
}

}  // namespace gb::store
