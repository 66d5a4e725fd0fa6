#include "book/cql/transform.h"

#include <utility>

#include "book/cql/book_stats.h"

namespace gb::cql {

namespace {

// (f, r) -> (a*f + b*r + c, d*f + e*r + g) on 0..7 coordinates, in the order
// identity, clockwise90, rotate180, counterclockwise90, reflect_h, reflect_v,
// reflect_a1h8, reflect_a8h1.
struct Symmetry {
  int a, b, c, d, e, g;
  const char* name;
};
constexpr Symmetry kSymmetries[8] = {
    {1, 0, 0, 0, 1, 0, ""},
    {0, 1, 0, -1, 0, 7, "clockwise90"},
    {-1, 0, 7, 0, -1, 7, "rotate180"},
    {0, -1, 7, 1, 0, 0, "counterclockwise90"},
    {1, 0, 0, 0, -1, 7, "reflect_h"},  // about the horizontal bisector: a1 <-> a8
    {-1, 0, 7, 0, 1, 0, "reflect_v"},  // about the vertical bisector: a1 <-> h1
    {0, 1, 0, 1, 0, 0, "reflect_a1h8"},
    {0, -1, 7, -1, 0, 7, "reflect_a8h1"},
};

int direction_of(int df, int dr) {
  for (int d = 0; d < 8; ++d)
    if (kDirFile[d] == df && kDirRank[d] == dr) return d;
  return -1;
}

// Up, NE, Right, SE, Down, SW, Left, NW: one eighth of a turn apart.
constexpr int kCircle[8] = {Up, NorthEast, Right, SouthEast, Down, SouthWest, Left, NorthWest};

int map_direction(int d, const Transform& t) {
  int df = kDirFile[d], dr = kDirRank[d];
  if (t.rotate45) {
    int i = 0;
    while (kCircle[i] != d) ++i;
    d = kCircle[(i + t.rotate45) & 7];
    df = kDirFile[d];
    dr = kDirRank[d];
  }
  const Symmetry& s = kSymmetries[t.dihedral];
  int nf = s.a * df + s.b * dr, nr = s.d * df + s.e * dr;
  if (t.color) nr = -nr;
  return direction_of(nf, nr);
}

std::uint8_t map_directions(std::uint8_t dirs, const Transform& t) {
  std::uint8_t out = 0;
  for (int d = 0; d < 8; ++d)
    if (dirs >> d & 1) out |= std::uint8_t(1u << map_direction(d, t));
  return out;
}

// Maps one square; -1 when a shift moves it off the board.
int map_square(int sq, const Transform& t) {
  int f = sq & 7, r = sq >> 3;
  const Symmetry& s = kSymmetries[t.dihedral];
  int nf = s.a * f + s.b * r + s.c, nr = s.d * f + s.e * r + s.g;
  if (t.color) nr = 7 - nr;
  nf += t.dx;
  nr += t.dy;
  if (nf < 0 || nf > 7 || nr < 0 || nr > 7) return -1;
  return nr * 8 + nf;
}

std::uint16_t swap_colors(std::uint16_t mask) {
  return std::uint16_t((mask & 1) | (mask & 0x007E) << 8 | (mask & (0x007E << 8)) >> 8);
}

bool changes_square_color(const Transform& t) {
  bool odd = t.dihedral == 1 || t.dihedral == 3 || t.dihedral == 4 || t.dihedral == 5;
  if (t.color) odd = !odd;
  if ((t.dx + t.dy) & 1) odd = !odd;
  return odd;
}

}  // namespace

bool transforms_of(std::string_view keyword, std::vector<Transform>& out) {
  out.clear();
  auto symmetry = [&](int i) {
    Transform t;
    t.dihedral = i;
    t.name = kSymmetries[i].name;
    out.push_back(t);
  };
  auto color = [&] {
    Transform t;
    t.color = true;
    t.name = "invertcolor";
    out.push_back(t);
  };
  auto shift = [&](int dx, int dy) {
    Transform t;
    t.dx = dx;
    t.dy = dy;
    if (dx > 0) t.name = "right^" + std::to_string(dx);
    if (dx < 0) t.name = "left^" + std::to_string(-dx);
    if (dy)
      t.name +=
          std::string(t.name.empty() ? "" : " ") + (dy > 0 ? "up^" : "down^") + std::to_string(std::abs(dy));
    out.push_back(t);
  };
  if (keyword == "flip") {
    for (int i = 0; i < 8; ++i) symmetry(i);
  } else if (keyword == "rotate90") {
    for (int i = 0; i < 4; ++i) symmetry(i);
  } else if (keyword == "fliphorizontal") {
    symmetry(0);
    symmetry(4);
  } else if (keyword == "flipvertical") {
    symmetry(0);
    symmetry(5);
  } else if (keyword == "flipcolor") {
    symmetry(0);
    color();
  } else if (keyword == "reversecolor") {
    color();
  } else if (keyword == "rotate45") {
    for (int i = 0; i < 8; ++i) {
      Transform t;
      t.rotate45 = i;
      if (i) t.name = "rotate45^" + std::to_string(i);
      out.push_back(t);
    }
  } else if (keyword == "shifthorizontal") {
    shift(0, 0);
    for (int dx = -7; dx <= 7; ++dx)
      if (dx) shift(dx, 0);
  } else if (keyword == "shiftvertical") {
    shift(0, 0);
    for (int dy = -7; dy <= 7; ++dy)
      if (dy) shift(0, dy);
  } else if (keyword == "shift") {
    shift(0, 0);
    for (int dx = -7; dx <= 7; ++dx)
      for (int dy = -7; dy <= 7; ++dy)
        if (dx || dy) shift(dx, dy);
  } else {
    return false;
  }
  return true;
}

bool apply_transform(Node& n, const Transform& t) {
  switch (n.op) {
    case Op::Block:
      if (n.no_transform) return true;
      break;
    case Op::Transform: {
      // A nested transform's versions are elided one by one (shift flipcolor Ra1 drops ra8 shifted
      // up, not Ra1 shifted up); only when every version is elided is this one.
      std::vector<NodePtr> kept;
      for (auto& version : n.args)
        if (apply_transform(*version, t)) kept.push_back(std::move(version));
      if (kept.empty()) return false;
      n.args = std::move(kept);
      return true;
    }
    case Op::Designator: {
      if (t.color) n.piece_mask = swap_colors(n.piece_mask);
      if (n.squares == ~Bitboard(0) || n.squares == 0) break;
      Bitboard out = 0;
      bool lost = false;
      for (int sq = 0; sq < 64; ++sq)
        if (n.squares >> sq & 1) {
          int m = map_square(sq, t);
          if (m < 0)
            lost = true;
          else
            out |= square_bb(Square(m));
        }
      if (out == 0 || (lost && t.restrict_shift)) return false;
      n.squares = out;
      break;
    }
    case Op::Direction:
    case Op::Ray: n.directions = map_directions(n.directions, t); break;
    case Op::Wtm:
      if (t.color) n.op = Op::Btm;
      break;
    case Op::Btm:
      if (t.color) n.op = Op::Wtm;
      break;
    case Op::Number:
      if (n.color_constant && t.color) n.number = -n.number;  // the constants white and black
      break;
    case Op::Result:
      if (t.color) {
        if (n.text == "1-0")
          n.text = "0-1";
        else if (n.text == "0-1")
          n.text = "1-0";
      }
      break;
    case Op::Elo:
    case Op::TagValue:
    case Op::TagContains:
      if (t.color && n.number) n.number = -n.number;  // player/elo white (1) <-> black (-1)
      break;
    case Op::BookNodeStat:
    case Op::BookMoveStat:
      if (t.color) n.number = std::int64_t(flip_color(BookStat(n.number)));  // bookwhite <-> bookblack
      break;
    case Op::Light:
      if (changes_square_color(t)) n.op = Op::Dark;
      break;
    case Op::Dark:
      if (changes_square_color(t)) n.op = Op::Light;
      break;
    case Op::FenMatch: {
      std::vector<std::uint16_t> out(64, 0);
      for (int sq = 0; sq < 64; ++sq) {
        int m = map_square(sq, t);
        if (m < 0) return false;
        out[m] = t.color ? swap_colors(n.fen_pattern[sq]) : n.fen_pattern[sq];
      }
      n.fen_pattern = std::move(out);
      break;
    }
    case Op::CurrentTransform:
      if (!t.name.empty()) n.text = n.text.empty() ? t.name : t.name + " " + n.text;
      break;
    default: break;
  }
  for (auto& a : n.args)
    if (!apply_transform(*a, t)) return false;
  return true;
}

}  // namespace gb::cql
