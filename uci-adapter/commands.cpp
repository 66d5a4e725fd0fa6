#include "uci-adapter/commands.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "book/explore/book_reader.h"
#include "book/store/book.h"
#include "book/store/exit_status.h"
#include "uci-adapter/line_reader.h"
#include "uci-adapter/options.h"
#include "uci-adapter/run.h"

namespace gb::uci_adapter {

namespace {

constexpr const char* kConfigVariable = "GRAPHBOOK_UCI_CONFIG";

bool is_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The path this program was started as: argv[0] when it names a path,
// otherwise its first match in PATH (a link keeps its own name there).
std::string invoked_path(const char* argv0) {
  std::string name = argv0 ? argv0 : "";
  if (name.empty() || name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;
}

// The configuration file that applies, or "" when none does.
std::string configuration_file(const char* argv0) {
  if (const char* env = std::getenv(kConfigVariable); env && *env) return env;
  std::string beside = invoked_path(argv0) + ".conf";
  return is_file(beside) ? beside : "";
}

// A book given at start that cannot be opened (a PGN given by mistake, a
// missing file, a read-only book with learning on) stops the adapter before
// the engine starts: a tournament that believes its engine plays a book must
// not find out from the games that it did not. The message goes to stderr and,
// for a GUI that shows only the engine's output, as an info string.
// The exit status when the book does not open (2 no book, 3 a damaged one),
// said to the GUI and on stderr; nullopt when it opens or none is given.
// A bucket filter (--ratings, ...) the book cannot answer is refused the
// same way, with the words of probe's refusal: the book would play moves
// of the games the user left out.
std::optional<int> book_refused(const BookOptions& options) {
  if (options.file.empty()) return std::nullopt;
  store::BookError error;
  auto mode = options.learning ? store::OpenMode::ReadWrite : store::OpenMode::ReadOnly;
  auto book = store::Book::open(options.file, mode, &error);
  if (book && !options.buckets.given()) return std::nullopt;  // the session opens its own
  if (book) {
    store::Error e;
    auto reader = explore::BookReader::open(*book, &e);
    if (!reader) {
      std::fprintf(stderr, "graphbook uci: %s: %s\n", options.file.c_str(), e.message().c_str());
      return store::kExitDamagedBook;
    }
    // Printed on stderr by resolve_filter ("graphbook uci: ..."), as every command says it.
    bool refused = false;
    (void)command::resolve_filter("uci", options.buckets, options.file, reader->bucket_params(),
                                  book->sources(), &refused);
    if (!refused) return std::nullopt;
    store::FilterError why;
    auto filter = options.buckets.parse(&why);
    if (filter) {
      if (auto refusal = store::filter_refusal(options.file, reader->bucket_params(), *filter))
        why = *refusal;
      else if (auto unknown = store::resolve_weights(*filter, book->sources()))
        why = {options.file + ": " + unknown->message};
    }
    (void)write_all(STDOUT_FILENO, "info string graphbook: no book moves: " + why.message + "\n");
    return store::kExitBadInput;
  }
  std::string line = "info string graphbook: no book: " + error.message + "\n";
  (void)write_all(STDOUT_FILENO, line);
  std::fprintf(stderr, "graphbook uci: %s\n", error.message.c_str());
  return store::exit_status_for(error);
}

int run_checked(const AdapterConfig& config) {
  if (config.engine.empty()) {
    std::fprintf(stderr,
                 "graphbook uci: no engine: give it after '--' or as 'engine = ...' in the configuration\n");
    return 2;
  }
  if (auto status = book_refused(config.book)) return *status;
  return run_adapter(config);
}

}  // namespace

std::optional<int> run_from_configuration(int argc, char** argv) {
  if (argc != 1) return std::nullopt;
  std::string file = configuration_file(argv[0]);
  if (file.empty()) return std::nullopt;
  AdapterConfig config;
  if (auto error = read_config_file(file, config)) {
    std::fprintf(stderr, "graphbook uci: %s\n", error->message.c_str());
    return 2;
  }
  return run_checked(config);
}

void add_commands(CLI::App& app, int& exit_status) {
  struct Args {
    std::string config;
    std::optional<std::string> book, policy, filter;
    std::optional<int> depth, min_games, exit_margin, lookahead;
    std::optional<std::uint64_t> seed;
    bool learning = false, no_own_book = false;
    std::vector<std::string> engine;
    command::FilterOptions buckets;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "uci", "Speak UCI in front of a real engine: play book moves, pass the rest through, learn from games");
  cmd->add_option(
      "--config", args->config,
      "Read options from this file first (default: $GRAPHBOOK_UCI_CONFIG, or the executable's path + "
      "'.conf')");
  cmd->add_option("--book", args->book, "The graphbook book (UCI option BookFile)");
  cmd->add_option("--depth", args->depth, "Book moves only before this ply (BookDepth, default 256)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--min-games", args->min_games,
                  "A book move needs this many games (BookMinGames, default 3)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--policy", args->policy,
                  "best, weighted, uniform, learned or lcb (BookPolicy, default best)");
  cmd->add_option("--exit-margin", args->exit_margin,
                  "Leave the book when a move backs up this many cp below the position's evaluation "
                  "(BookExitMargin, default 0: off)")
      ->check(CLI::Range(0, 10000));
  cmd->add_option("--lookahead", args->lookahead,
                  "A book move needs a line of this many plies of BookMinGames games (BookLookahead, "
                  "default 0: off)")
      ->check(CLI::Range(0, 64));
  cmd->add_flag("--learning", args->learning, "Learn game results into the book (BookLearning)");
  cmd->add_flag("--no-own-book", args->no_own_book, "Start with OwnBook off");
  cmd->add_option("--filter", args->filter, "A CQL filter for book moves (BookFilter; see docs/UCI.md)");
  // BookRatings, BookSpeeds, BookSince, BookUntil.
  command::add_filter_options(cmd, args->buckets);
  cmd->add_option("--seed", args->seed, "Seed for the random policies (default: from the clock)");
  cmd->add_option("engine", args->engine, "The engine's command and arguments, after '--'");
  cmd->footer(
      "Example:\n  graphbook uci --book games.book --policy weighted -- /usr/games/stockfish\n"
      "Without arguments (for GUIs that cannot pass any): set GRAPHBOOK_UCI_CONFIG=/path/sf.conf, or link\n"
      "graphbook as 'sf-book' beside 'sf-book.conf' and start that. The file holds 'key = value' lines:\n"
      "  engine = /usr/games/stockfish\n  book = /books/games.book\n  policy = weighted\n  learning = true\n"
      "See docs/UCI.md.");
  cmd->callback([args, &exit_status] {
    AdapterConfig config;
    std::string file = args->config;
    if (const char* env = std::getenv(kConfigVariable); file.empty() && env) file = env;
    if (!file.empty()) {
      if (auto error = read_config_file(file, config)) {
        std::fprintf(stderr, "graphbook uci: %s\n", error->message.c_str());
        exit_status = 2;
        return;
      }
    }
    auto set = [&](const char* name, const std::string& value) {
      if (auto error = apply_option(config.book, name, value)) {
        std::fprintf(stderr, "graphbook uci: %s\n", error->message.c_str());
        exit_status = 2;
      }
    };
    if (args->book) set("BookFile", *args->book);
    if (args->depth) set("BookDepth", std::to_string(*args->depth));
    if (args->min_games) set("BookMinGames", std::to_string(*args->min_games));
    if (args->policy) set("BookPolicy", *args->policy);
    if (args->exit_margin) set("BookExitMargin", std::to_string(*args->exit_margin));
    if (args->lookahead) set("BookLookahead", std::to_string(*args->lookahead));
    if (args->filter) set("BookFilter", *args->filter);
    if (!args->buckets.ratings.empty()) set("BookRatings", args->buckets.ratings);
    if (!args->buckets.speeds.empty()) set("BookSpeeds", args->buckets.speeds);
    if (!args->buckets.since.empty()) set("BookSince", args->buckets.since);
    if (!args->buckets.until.empty()) set("BookUntil", args->buckets.until);
    if (!args->buckets.weights.empty()) set("BookWeights", joined_weights(args->buckets));
    if (args->learning) config.book.learning = true;
    if (args->no_own_book) config.book.own_book = false;
    if (args->seed) config.book.seed = *args->seed;
    if (!args->engine.empty()) config.engine = args->engine;
    if (exit_status) return;
    exit_status = run_checked(config);
  });
}

}  // namespace gb::uci_adapter
