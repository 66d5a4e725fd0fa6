// libFuzzer target for the CQL parser and evaluator: any bytes as a query.
// A query either parses, and then runs on a short game with a variation, a
// promotion, castling and comments (unless it has a while or a loop, which
// may rightly run for ages), or is refused with an error whose rendering
// names a line and puts a caret inside it. Neither may crash, hang or trip
// the sanitizers. See docs/CQL.md.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "book/cql/evaluator.h"
#include "book/cql/game_reader.h"
#include "book/cql/parser.h"
#include "book/pgn/byte_source.h"

namespace {

// Short, so that a query looping over positions or pieces stays fast, but
// with what the filters look at: a start from a FEN, a variation, captures,
// promotions to a queen and a knight, castling on both wings, a check,
// comments, NAGs and tags.
constexpr std::string_view kGame =
    "[Event \"fuzz\"]\n[White \"A\"]\n[Black \"B\"]\n[WhiteElo \"2500\"]\n[Result \"1-0\"]\n"
    "[FEN \"r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1\"]\n[SetUp \"1\"]\n\n"
    "1. O-O-O { castles } gxh1=Q (1... g1=Q 2. Rdxg1 $1) 2. bxa8=N $2 O-O 3. Rxh1 Kg7 4. Nc7 Rh8 "
    "5. Rxh8 Kxh8 1-0\n";

const gb::cql::Game& game() {
  static const gb::cql::Game g = [] {
    std::optional<gb::cql::Game> kept;
    gb::cql::GameTreeVisitor visitor([&](gb::cql::Game& game) { kept = std::move(game); });
    gb::pgn::PgnReader reader(gb::pgn::ByteSource::from_memory(kGame), gb::cql::cql_read_options());
    reader.read_all(visitor);
    if (!kept) __builtin_trap();  // the game above is legal
    return std::move(*kept);
  }();
  return g;
}

// Whether the tree at n holds a while or a loop: `while ("C") {}` runs for
// ever by the language's rules (the condition always matches); the engine
// stops one after 10 million rounds, but nested ones multiply. A query with
// one is parsed, not run.
bool may_run_for_ever(const gb::cql::Node& n) {
  if (n.op == gb::cql::Op::While || n.op == gb::cql::Op::Loop) return true;
  for (const auto& a : n.args)
    if (may_run_for_ever(*a)) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view query(reinterpret_cast<const char*>(data), size);
  auto parsed = gb::cql::parse(query);
  if (auto* error = std::get_if<gb::cql::ParseError>(&parsed)) {
    if (error->message.empty() || error->line < 1 || error->column < 1) __builtin_trap();
    std::string shown = error->render(query, "fuzz.cql");
    if (shown.find('^') == std::string::npos) __builtin_trap();  // the caret under the token
    return 0;
  }
  const gb::cql::Program& program = std::get<gb::cql::Program>(parsed);
  if (may_run_for_ever(*program.root)) return 0;
  gb::cql::Evaluator evaluator(program);
  gb::cql::EvalOptions options;
  options.variations = true;
  gb::cql::GameResult result = evaluator.run(game(), options);
  for (std::size_t i = 1; i < result.matched_positions.size(); ++i)
    if (result.matched_positions[i - 1] >= result.matched_positions[i]) __builtin_trap();  // increasing
  (void)evaluator.persistent_values();
  return 0;
}
