// The adapter's own configuration: its UCI options (OwnBook, BookFile,
// BookDepth, BookMinGames, BookPolicy, BookLearning, BookFilter,
// BookExitMargin, BookLookahead, and the bucket filter's BookRatings,
// BookSpeeds, BookSince, BookUntil), how they are
// declared to the GUI, how setoption changes them, and the configuration
// file that GUIs which cannot pass arguments use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/explore/move_choice.h"
#include "book/store/buckets.h"
#include "command/filter_options.h"
#include "uci-adapter/adapter_error.h"

namespace gb::uci_adapter {

struct BookOptions {
  bool own_book = true;  // play book moves at all
  std::string file;      // the book (empty: no book)
  int depth = 256;       // book moves only while the game ply is below this
  int min_games = 3;     // a move needs this many source games (Polyglot make-book's -min-game; docs/UCI.md)
  explore::Policy policy = explore::Policy::Best;
  bool learning = false;   // write game results into the book
  std::string filter;      // a CQL filter for the resulting position (stored; see docs/UCI.md)
  int exit_margin = 0;     // BookExitMargin, cp: leave a move whose backed-up value is this far below
                           // the stored evaluation of the position (0: off; docs/UCI.md)
  int lookahead = 0;       // BookLookahead, plies: leave a move without a line of this many plies of
                           // BookMinGames games each (0: off)
  std::uint64_t seed = 0;  // 0: seeded from the clock
  // BookRatings, BookSpeeds, BookSince, BookUntil: book moves are chosen
  // from the games of these rating bands, speeds and dates (a book built
  // with --buckets; docs/UCI.md). Each valid, as apply_option checks.
  command::FilterOptions buckets;
};

// The bucket filter of the options: nullopt when none is set.
// --weight values as the BookWeights option writes them: SOURCE=WEIGHT,...
std::string joined_weights(const command::FilterOptions& f);
std::optional<store::BucketFilter> bucket_filter(const BookOptions& options);

// The "option name ..." lines for the GUI, in the order of docs/UCI.md.
std::vector<std::string> option_lines(const BookOptions& options);

// Option names and values compare without case, as UCI says ("true", "True").
bool same_name(std::string_view a, std::string_view b);

// True when name (case-insensitive, as UCI option names are) is one of ours.
bool is_our_option(std::string_view name);

// Applies "setoption name <name> value <value>" for one of our options.
// An AdapterError::Option for a bad value (the option keeps its value).
[[nodiscard]] AdapterStatus apply_option(BookOptions& options, std::string_view name, std::string_view value);

// A configuration file: "key = value" lines, '#' comments, blank lines.
// Keys: book, depth, min-games, policy, learning, filter, seed (as the
// command line options), engine (the command, split on spaces) and arg (one
// more engine argument, kept whole; repeatable).
struct AdapterConfig {
  BookOptions book;
  std::vector<std::string> engine;  // the engine's argv
};
// Reads path into config (keys override what is there). The error (Option)
// names the file and line: "sf.conf:3: unknown key 'boook'".
[[nodiscard]] AdapterStatus read_config_file(const std::string& path, AdapterConfig& config);

}  // namespace gb::uci_adapter
