// Tags, the result, and the book statistics.
#include "book/cql/evaluator_impl.h"
#include "book/cql/tag_match.h"

namespace gb::cql {

Value Evaluator::Impl::eval_metadata(const Node& n) {
  switch (n.op) {
    case Op::Result: return Value::boolean(game->result == n.text);
    case Op::TagValue:
    case Op::TagContains: {
      std::optional<std::string> value;
      if (n.number == 2) {
        const std::string *w = tag("White"), *b = tag("Black");
        if (!w && !b) return n.op == Op::TagValue ? Value::none() : Value::boolean(false);
        value = (w ? *w : "") + "\n" + (b ? *b : "");
      } else {
        std::string name = n.number == 1 ? "White" : n.number == -1 ? "Black" : n.text;
        if (const std::string* t = tag(name))
          value = *t;
        else if (name == "Date")
          if (const std::string* u = tag("UTCDate")) value = *u;  // date: Date, else UTCDate
      }
      if (n.op == Op::TagValue) return value ? Value::string(*value) : Value::none();
      return Value::boolean(value && tag_contains(*value, n.args[0]->text));
    }
    case Op::Year: {
      const std::string* d = tag("Date");
      if (!d || d->size() < 4 || !std::isdigit(static_cast<unsigned char>((*d)[0]))) d = tag("UTCDate");
      if (!d || d->size() < 4) return Value::none();
      std::int64_t y = 0;
      for (int i = 0; i < 4; ++i) {
        if (!std::isdigit(static_cast<unsigned char>((*d)[std::size_t(i)]))) return Value::none();
        y = y * 10 + ((*d)[std::size_t(i)] - '0');
      }
      return Value::numeric(y);
    }
    case Op::Elo: {
      if (n.number == 1 || n.number == -1) {
        auto e = elo_of(n.number == 1 ? Color::White : Color::Black);
        return e ? Value::numeric(*e) : Value::none();
      }
      auto w = elo_of(Color::White), b = elo_of(Color::Black);
      if (!w || !b) return Value::none();
      return Value::numeric(std::max(*w, *b));
    }
    case Op::Tag: {
      const std::string* t = tag(n.text);
      return t ? Value::string(*t) : Value::none();
    }
    case Op::SetTag: {
      Value name = eval(*n.args[0]), value = eval(*n.args[1]);
      if (name.is_none() || value.is_none() || name.text.empty()) return Value::boolean(false);
      for (char c : name.text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return Value::boolean(false);
      for (char& c : value.text)
        if (c == '\n' || c == '\r') c = ' ';
      out->tag_edits.emplace_back(name.text, value.text);
      return Value::boolean(true);
    }
    case Op::RemoveTag: out->tag_edits.emplace_back(n.text, std::nullopt); return Value::boolean(true);
    case Op::GameNumber: return Value::numeric(game->number);
    case Op::BookNodeStat:
    case Op::BookMoveStat: return book_stat(n.op, BookStat(n.number));
    default: break;  // the other groups: dispatch never sends them here
  }
  assert(false && "an op of another group");
  return Value::none();
}

}  // namespace gb::cql
