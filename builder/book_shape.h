// The build options that decide what a book's counts are — --max-ply,
// --min-games, --color — which every build into one book must share, so that
// a book built in steps holds what one build of all its inputs would. A build
// into a book that a build has recorded them for takes the options it is not
// given from the book, and is refused when one it is given differs.
// (--min-elo, --since, --until and --no-dedup choose games, not what is
// counted of them: they may differ per build and are recorded per source.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "book/store/book.h"
#include "builder/build_error.h"
#include "builder/game_filter.h"

namespace gb::builder {

struct BookShape {
  int max_ply = 40;
  std::uint32_t min_games = 1;
  Side side = Side::Both;
  bool operator==(const BookShape&) const = default;
};

// The shape the book's builds recorded: its build parameters, or those of the
// last source a build added (an import overwrote the parameters before
// imports stopped doing so); nullopt when no build recorded one (a new book,
// or one only imported into).
[[nodiscard]] std::optional<BookShape> recorded_shape(store::Book& book);

// The --player NAME of the book's build parameters (JSON text); empty for none.
std::string recorded_player(const std::string& build_params);

// Sets the options of options.given_* false from recorded; a BuildError::input
// naming the book and the option when one that was given differs, or when the book
// was built with --min-games above 1 without keeping the counts below it
// (books of graphbook before the pruned database: no later build can be exact).
[[nodiscard]] BuildStatus adopt_shape(store::Book& book, const BookShape& recorded, BuildOptions& options);

}  // namespace gb::builder
