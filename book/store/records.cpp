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
  // The mask has 16 bits, one per field. A raw field is its bytes as they
  // are (a key, a hash).
  template <class T>
  void raw(int bit, T v) {
    assert(bit >= 0 && bit < 16 && !(mask_ >> bit & 1));
    if (!v) return;
    mask_ |= std::uint16_t(1u << bit);
    std::memcpy(p_, &v, sizeof v);
    p_ += sizeof v;
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
  template <class T>
  T raw(int bit) {
    if (!(mask_ >> bit & 1) || !ok_) return 0;
    if (at_ + sizeof(T) > v_.size()) return ok_ = false, 0;
    T v;
    std::memcpy(&v, v_.data() + at_, sizeof v);
    at_ += sizeof v;
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
  // The position hash has 32 bits since format 6 (bit 12); formats 2 to 5
  // wrote 64 (bit 0), which a reader keeps the low 32 of.
  assert(n.position_hash <= 0xffffffff);
  w.raw(12, std::uint32_t(n.position_hash));
  write_counters(w, 1, n.counters);
  w.var(10, n.min_ply);
  w.var(11, n.flags);
  w.finish();
  return out;
}

bool from_bytes(std::string_view v, NodeRecord& n) {
  Reader r(v);
  n = NodeRecord{};
  const auto hash64 = r.raw<std::uint64_t>(0);
  const auto hash32 = r.raw<std::uint32_t>(12);
  if (hash64 && hash32) return false;
  n.position_hash = hash32 ? hash32 : hash64 & 0xffffffff;
  read_counters(r, 1, n.counters);
  n.min_ply = std::uint16_t(r.var(10));
  n.flags = std::uint8_t(r.var(11));
  return r.done();
}

EncodedRecord as_bytes(const EdgeRecord& e) {
  EncodedRecord out;
  Writer w(out);
  w.raw(0, e.child_key);
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
  e.child_key = r.raw<std::uint64_t>(0);
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

// Whether node is one game's, as a packed node holds it.
bool one_game(const NodeRecord& n) {
  const Counters& c = n.counters;
  return c.games == 1 && c.white_wins + c.draws + c.black_wins + c.unknown == 1 &&
         c.rated_games == (c.elo_sum > 0) && c.max_year == c.min_year && c.reserved == 0 &&
         (n.flags & ~kBlackToMove) == 0 && n.reserved8 == 0 && n.reserved32 == 0 && n.position_hash != 0 &&
         n.position_hash <= 0xffffffff;
}

// A packed node keeps a year as its distance from 2000, zigzagged: one byte
// from 1937 to 2063.
constexpr std::int64_t kYearBase = 2000;

// The packed form of a one-game node (format 6), its head first, from its
// fields: result 0 to 3 (white wins, draw, black wins, unknown), the Elo sum
// (0: not rated) and the year (0: unknown).
void append_packed(std::string& out, int result, bool black, std::uint32_t hash, std::uint16_t min_ply,
                   std::uint64_t elo_sum, std::uint16_t year) {
  out.push_back(char(kPackedHead | result | (elo_sum ? 4 : 0) | (black ? 8 : 0) | (year ? 16 : 0)));
  out.append(reinterpret_cast<const char*>(&hash), 4);
  put_varint(out, min_ply);
  if (elo_sum) put_varint(out, elo_sum);
  if (year) put_varint(out, zigzag(std::int64_t(year) - kYearBase));
}

void append_packed_node(std::string& out, const NodeRecord& n) {
  const Counters& c = n.counters;
  assert(bool(c.rated_games) == (c.elo_sum > 0));  // one_game
  const int result = c.white_wins ? 0 : c.draws ? 1 : c.black_wins ? 2 : 3;
  append_packed(out, result, n.flags & kBlackToMove, std::uint32_t(n.position_hash), n.min_ply, c.elo_sum,
                c.min_year);
}

// The counters of one game from a packed head's result and rating bits.
void one_game_counters(std::uint8_t head, std::uint64_t elo, std::uint16_t year, NodeRecord& n) {
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
  c.min_year = c.max_year = year;
  n.flags = (head & 8) ? kBlackToMove : 0;
}

// The length of the format 6 packed node at the start of v (its head at
// kPackedHead or above), without its inline edge; 0 when it does not decode.
// Decodes it into n when n is given.
std::size_t packed_node_length(std::string_view v, NodeRecord* n) {
  if (v.size() < 5 || std::uint8_t(v[0]) < kPackedHead) return 0;
  const auto head = std::uint8_t(v[0]);
  std::size_t at = 5;
  std::uint64_t min_ply, elo = 0, year_code = 0;
  std::int64_t year = 0;
  if (!get_varint(v, at, min_ply) || min_ply > 0xffff) return 0;
  if ((head & 4) && (!get_varint(v, at, elo) || elo == 0)) return 0;
  if (head & 16) {
    if (!get_varint(v, at, year_code) || year_code > 2 * 0xffff) return 0;
    year = kYearBase + unzigzag(year_code);
    if (year <= 0 || year > 0xffff) return 0;
  }
  if (n) {
    *n = NodeRecord{};
    std::uint32_t hash;
    std::memcpy(&hash, v.data() + 1, 4);
    if (hash == 0) return 0;
    n->position_hash = hash;
    n->min_ply = std::uint16_t(min_ply);
    one_game_counters(head, elo, std::uint16_t(year), *n);
  }
  return at;
}

// Format 5's packed node (kOneGameNode; read, no longer written): its head,
// the position hash of 8 bytes, the min ply, Elo sum and year as varints.
bool unpack_format5_node(std::string_view v, NodeRecord& n) {
  n = NodeRecord{};
  if (v.empty()) return false;
  const auto head = std::uint8_t(v[0]);
  if (head & 0xc0) return false;
  std::size_t at = 1;
  if (head & 16) {
    if (v.size() < 9) return false;
    std::memcpy(&n.position_hash, v.data() + 1, 8);
    n.position_hash &= 0xffffffff;  // format 6 keeps 32 bits
    at = 9;
  }
  std::uint64_t min_ply, elo = 0, year = 0;
  if (!get_varint(v, at, min_ply) || min_ply > 0xffff) return false;
  if ((head & 4) && (!get_varint(v, at, elo) || elo == 0)) return false;
  if ((head & 32) && (!get_varint(v, at, year) || year == 0 || year > 0xffff)) return false;
  if (at != v.size()) return false;
  one_game_counters(head, elo, std::uint16_t(year), n);  // bits 0-3 as format 6's
  n.min_ply = std::uint16_t(min_ply);
  return true;
}

// Whether a record holds its child key and nothing else (what a sharing
// edge writes as the key alone: kSharesChildKeyOnly, or inline).
bool child_key_only(const EdgeRecord& record) {
  EdgeRecord key_only;
  key_only.child_key = record.child_key;
  return record.child_key && record == key_only;
}

void append_edge_record(std::string& out, std::uint16_t move, const EdgeRecord& record, std::uint8_t shares) {
  if (shares && child_key_only(record)) {
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
  if (one_game(*node)) return append_packed_node(out, *node);
  EncodedRecord r = as_bytes(*node);
  // Its length byte: 0 would say "no node", and from kOneGameNode up the
  // byte is a packed node's (an encoding is at most 78 bytes: Writer::finish).
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

namespace {

// The size of section in the self-delimited form, 0 when it has none; node:
// where its packed node ends. A section already in the form keeps its size;
// one whose edge shares the node and holds its child key alone (its length
// byte kSharesChildKeyOnly, as a writer appends it) loses that byte.
std::size_t self_delimited_form(std::string_view section, std::size_t& node) {
  node = packed_node_length(section, nullptr);
  if (!node) return 0;
  if (std::uint8_t(section[0]) & kInlineEdge) return node + 10 == section.size() ? section.size() : 0;
  if (node == section.size()) return node;  // no edge
  const bool key_only_edge =
      node + 11 == section.size() && std::uint8_t(section[node + 2]) == kSharesChildKeyOnly;
  return key_only_edge ? section.size() - 1 : 0;
}

}  // namespace

std::size_t self_delimited_size(std::string_view section) {
  std::size_t node;
  return self_delimited_form(section, node);
}

bool append_self_delimited(std::string& out, std::string_view section) {
  std::size_t node;
  const std::size_t size = self_delimited_form(section, node);
  if (!size) return false;
  if (size == section.size()) {
    out.append(section);
    return true;
  }
  out.push_back(char(std::uint8_t(section[0]) | kInlineEdge));
  out.append(section.substr(1, node + 1));  // the rest of the node, the move
  out.append(section.substr(node + 3));     // the key, past the length byte
  return true;
}

namespace {

// Marks the packed node that starts at out[head] as followed by its one edge
// and appends that edge: its move and child key.
void append_inline_edge(std::string& out, std::size_t head, std::uint16_t move, std::uint64_t child_key) {
  out[head] = char(std::uint8_t(out[head]) | kInlineEdge);
  char bytes[10];
  put_be16(bytes, move);
  std::memcpy(bytes + 2, &child_key, 8);
  out.append(bytes, 10);
}

}  // namespace

bool append_one_game_inline(std::string& out, const NodeRecord& node, std::uint16_t move,
                            const EdgeRecord& edge) {
  if (!one_game(node) || !(node_share(node) == edge_share(edge)) || !child_key_only(without_share(edge)))
    return false;
  const std::size_t head = out.size();
  append_packed_node(out, node);
  append_inline_edge(out, head, move, edge.child_key);
  return true;
}

bool append_one_game_inline(std::string& out, const OneGameNode& node, std::uint16_t move,
                            std::uint64_t child_key) {
  if (node.position_hash == 0 || child_key == 0) return false;
  // Counters::add_game's: a rating above 0 is counted, a year above 0 kept.
  const int result = node.result == Result::WhiteWins   ? 0
                     : node.result == Result::Draw      ? 1
                     : node.result == Result::BlackWins ? 2
                                                        : 3;
  const std::size_t head = out.size();
  append_packed(out, result, node.black, node.position_hash, node.min_ply,
                node.mover_elo > 0 ? std::uint64_t(node.mover_elo) : 0,
                node.year > 0 ? std::uint16_t(node.year) : 0);
  append_inline_edge(out, head, move, child_key);
  return true;
}

std::size_t self_delimited_length(std::string_view bytes) {
  const std::size_t node = packed_node_length(bytes, nullptr);
  if (!node || !(std::uint8_t(bytes[0]) & kInlineEdge)) return node;
  return node + 10 <= bytes.size() ? node + 10 : 0;
}

SectionReader::SectionReader(std::string_view value) {
  const std::uint8_t first = value.empty() ? 0 : std::uint8_t(value[0]);
  if (first >= kPackedHead) {
    // A packed node without a length (format 6), and its inline edge: the
    // whole section.
    const std::size_t n = packed_node_length(value, nullptr);
    const bool inline_edge = first & kInlineEdge;
    if (!n || (inline_edge && n + 10 != value.size())) {
      ok_ = false;
      return;
    }
    form_ = NodeForm::Packed6;
    node_bytes_ = value.substr(0, n);
    if (inline_edge)
      inline_edge_ = value.substr(n);
    else
      rest_ = value.substr(n);
    return;
  }
  const std::size_t n = first & ~kOneGameNode;
  if (value.empty() || n + 1 > value.size() || first == kOneGameNode) {
    ok_ = false;
    return;
  }
  form_ = (first & kOneGameNode) ? NodeForm::Packed5 : NodeForm::Mask;
  node_bytes_ = value.substr(1, n);
  rest_ = value.substr(1 + n);
}

std::optional<NodeRecord> SectionReader::node() {
  if (node_read_) return node_;
  node_read_ = true;
  if (node_bytes_.empty()) return std::nullopt;
  NodeRecord r;
  const bool ok = form_ == NodeForm::Packed6   ? packed_node_length(node_bytes_, &r) == node_bytes_.size()
                  : form_ == NodeForm::Packed5 ? unpack_format5_node(node_bytes_, r)
                                               : from_bytes(node_bytes_, r);
  if (!ok) return ok_ = false, std::nullopt;
  return node_ = r;
}

std::string_view SectionReader::next_record(std::uint16_t& move, bool& shares, bool& key_only) {
  if (!ok_) return {};
  if (!inline_edge_.empty()) {
    move = get_be16(inline_edge_.data());
    shares = key_only = true;
    std::string_view key = inline_edge_.substr(2);
    inline_edge_ = {};
    return key;
  }
  if (rest_.empty()) return {};
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
