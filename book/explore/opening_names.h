// Opening names by position, not by move order: every line of an ECO table is
// replayed and its name stored under the Polyglot key of the position it
// reaches (placement, side to move, castling, en passant), so 1.Nf3 d5 2.d4
// gets the name of 1.d4 d5 2.Nf3.
//
// Two table formats are read:
//   - the lichess chess-openings TSV: "eco<TAB>name<TAB>pgn" with a header
//     line, pgn like "1. e4 e5 2. Nf3";
//   - pgn-extract's eco.pgn (Debian package pgn-extract,
//     /usr/share/pgn-extract/eco.pgn): games with [ECO], [Opening],
//     [Variation] and [SubVariation] tags; the name is
//     "Opening: Variation, SubVariation".
// When several lines reach one position the shortest line names it (the
// first in the file among equals).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "book/chess/position.h"
#include "book/explore/explore_error.h"

namespace gb::explore {

struct OpeningName {
  std::string eco;   // "D02"
  std::string name;  // "Queen's Pawn Game: Zukertort Variation"
};

// Where the default table for users lives (installed by scripts/setup).
inline constexpr std::string_view kDefaultEcoTable = "/usr/share/pgn-extract/eco.pgn";

class OpeningTable {
 public:
  // Reads one table file; the format is chosen by the extension (".tsv" is
  // lichess, anything else pgn-extract PGN). Files can be added one after the
  // other. A line whose moves do not replay is an error naming file and line
  // (ExploreError::Code::Names); the lines before it stay added.
  [[nodiscard]] ExploreStatus add_file(const std::string& path);
  // The same from text already in memory (source names the text in errors).
  [[nodiscard]] ExploreStatus add_tsv(std::string_view text, std::string_view source);
  [[nodiscard]] ExploreStatus add_eco_pgn(std::string_view text, std::string_view source);

  // The name of exactly this position, or nullptr. Valid while the table lives.
  const OpeningName* find(Key key) const;
  const OpeningName* find(const Position& pos) const { return find(pos.key()); }

  // The name of the last position of a line that has one: the position itself
  // if named, else its nearest named ancestor. line holds the keys of the
  // positions from the root to the position asked about.
  const OpeningName* nearest(std::span<const Key> line) const;

  std::size_t size() const { return by_key_.size(); }
  bool empty() const { return by_key_.empty(); }

 private:
  struct Entry {
    OpeningName name;
    int plies;
  };
  // Replays movetext from the start position; the error names a bad move.
  ExploreStatus add_line(std::string_view movetext, OpeningName name, std::string_view source,
                         std::size_t line);
  std::unordered_map<Key, Entry> by_key_;
};

}  // namespace gb::explore
