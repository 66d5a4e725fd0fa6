#include "builder/book_shape.h"

#include <nlohmann/json.hpp>

#include "builder/book_writer.h"

namespace gb::builder {

namespace {

const char* side_name(Side side) {
  switch (side) {
    case Side::Both: return "both";
    case Side::White: return "white";
    case Side::Black: return "black";
  }
  return "both";
}

// The shape in a build's parameters (JSON text), if they are a build's.
std::optional<BookShape> shape_of(const std::string& params) {
  auto j = nlohmann::json::parse(params, nullptr, false);
  if (!j.is_object() || !j.contains("max_ply") || !j["max_ply"].is_number_integer()) return std::nullopt;
  BookShape shape;
  shape.max_ply = j["max_ply"].get<int>();
  if (j.contains("min_games") && j["min_games"].is_number_unsigned())
    shape.min_games = std::max<std::uint32_t>(1, j["min_games"].get<std::uint32_t>());
  if (j.contains("color") && j["color"].is_string()) {
    const std::string color = j["color"];
    shape.side = color == "white" ? Side::White : color == "black" ? Side::Black : Side::Both;
  }
  return shape;
}

bool has_pruned_database(store::Book& book) {
  auto txn = store::ReadTxn::begin(book.env(), nullptr);
  return txn && txn->open_db(kPrunedDb, 0, nullptr).has_value();
}

}  // namespace

std::string recorded_player(const std::string& params) {
  auto j = nlohmann::json::parse(params, nullptr, false);
  return j.is_object() && j.contains("player") && j["player"].is_string() ? j["player"].get<std::string>()
                                                                          : "";
}

std::optional<BookShape> recorded_shape(store::Book& book) {
  if (auto shape = shape_of(book.build_params())) return shape;
  auto sources = book.sources();
  for (auto s = sources.rbegin(); s != sources.rend(); ++s)
    if (auto shape = shape_of(s->params)) return shape;
  return std::nullopt;
}

BuildStatus adopt_shape(store::Book& book, const BookShape& recorded, BuildOptions& options) {
  const std::string built = book.path() + " was built with ";
  const std::string how =
      ": every build into a book must count games alike (leave the option out to take the book's, or build a "
      "new book from all the inputs)";
  if (!options.max_ply_given)
    options.max_ply = recorded.max_ply;
  else if (options.max_ply != recorded.max_ply)
    return BuildError::input(built + "--max-ply " + std::to_string(recorded.max_ply) + ", not " +
                             std::to_string(options.max_ply) + how);
  if (!options.min_games_given)
    options.min_games = recorded.min_games;
  else if (std::max<std::uint32_t>(1, options.min_games) != recorded.min_games)
    return BuildError::input(built + "--min-games " + std::to_string(recorded.min_games) + ", not " +
                             std::to_string(options.min_games) + how);
  if (!options.side_given)
    options.side = recorded.side;
  else if (options.side != recorded.side)
    return BuildError::input(built + "--color " + side_name(recorded.side) + ", not " +
                             side_name(options.side) + how);
  if (recorded.min_games > 1 && !has_pruned_database(book))
    return BuildError::input(
        built + "--min-games " + std::to_string(recorded.min_games) +
        " by a graphbook that did not keep the counts below it: games added now could not be counted "
        "exactly; build a new book from all the inputs");
  return std::nullopt;
}

}  // namespace gb::builder
