// Whether the entries of a file are a Polyglot book, decided before `graphbook
// import` writes anything. Any file whose size is a multiple of 16 reads as
// entries: a PGN file, a graphbook book or random bytes would be merged as
// garbage. A book written by any Polyglot tool has its entries in key order
// and moves whose fields decode, and a walk from the start position reaches a
// share of them; what is not a book fails the first two within a few entries,
// and random keys are never reached.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "book/store/polyglot.h"

namespace gb::builder {

// Of a file that is not a book: what is wrong, for a message that names the file.
struct PolyglotProblem {
  std::string what;
};

// The first entry out of key order or with a move whose fields do not
// decode (from equal to to, a promotion piece past queen or on a move that
// does not reach the last rank, the unused bit 15 set); nullopt when every
// entry is well formed. An empty file is a problem too (nothing to import).
[[nodiscard]] std::optional<PolyglotProblem> check_entries(const std::vector<store::PolyglotEntry>& entries);

// Real books are walked to most of their entries (make-book's: all of them;
// python-chess's performance.bin: see polyglot_import.cpp), entries of random
// keys to none. A share this small keeps books whose games mostly start from
// other positions.
inline constexpr double kMinReachedShare = 0.01;

// A problem when fewer than kMinReachedShare of the entries were reached.
[[nodiscard]] std::optional<PolyglotProblem> check_reached(std::uint64_t entries, std::uint64_t reached);

}  // namespace gb::builder
