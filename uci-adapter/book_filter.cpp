#include "uci-adapter/book_filter.h"

#include "book/cql/evaluator.h"
#include "book/cql/game.h"
#include "book/cql/parser.h"

namespace gb::uci_adapter {

struct BookFilter::Compiled {
  explicit Compiled(cql::Program p) : program(std::move(p)), evaluator(program) {}
  cql::Program program;
  cql::Evaluator evaluator;  // refers to program: Compiled never moves (held by pointer)
};

std::optional<BookFilter> BookFilter::compile(std::string_view query, AdapterError* error) {
  BookFilter filter;
  if (query.find_first_not_of(" \t") == std::string_view::npos) return filter;
  auto parsed = cql::parse(query);
  if (auto* parse_error = std::get_if<cql::ParseError>(&parsed)) {
    if (error) *error = AdapterError{AdapterError::Code::Filter, parse_error->render(query, "BookFilter")};
    return std::nullopt;
  }
  filter.compiled_ = std::make_shared<Compiled>(std::move(std::get<cql::Program>(parsed)));
  return filter;
}

bool BookFilter::allows(const Position& pos, Move m) const {
  if (!compiled_) return true;
  cql::GameBuilder builder;
  builder.begin(pos);
  builder.add_move(m, false);
  cql::Game game = builder.finish(1);
  return compiled_->evaluator.evaluate_at(game, 1).matches();
}

}  // namespace gb::uci_adapter
