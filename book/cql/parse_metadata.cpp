// Tags, the result and the book statistics: their keywords.
#include "book/cql/parser_impl.h"

namespace gb::cql {

namespace {

enum class MetadataKeyword : std::uint8_t {
  Result,
  StandardTag,
  Player,
  Elo,
  Tag,
  RemoveTag,
  SetTag,
};

const std::unordered_map<std::string_view, MetadataKeyword> kMetadataKeywords = {
    {"result", MetadataKeyword::Result},
    {"date", MetadataKeyword::StandardTag},
    {"eco", MetadataKeyword::StandardTag},
    {"event", MetadataKeyword::StandardTag},
    {"eventdate", MetadataKeyword::StandardTag},
    {"site", MetadataKeyword::StandardTag},
    {"player", MetadataKeyword::Player},
    {"elo", MetadataKeyword::Elo},
    {"tag", MetadataKeyword::Tag},
    {"removetag", MetadataKeyword::RemoveTag},
    {"settag", MetadataKeyword::SetTag},
};

}  // namespace

NodePtr Parser::parse_metadata_keyword(const Token& t) {
  const std::string& w = t.text;
  auto it = kMetadataKeywords.find(w);
  if (it == kMetadataKeywords.end()) {
    if (auto stat = book_stat_keyword(w)) {
      auto n = node(stat->first, Type::Numeric, t);
      n->number = std::int64_t(stat->second);
      return n;
    }
    return nullptr;
  }
  switch (it->second) {
    case MetadataKeyword::Result: {
      auto n = node(Op::Result, Type::Boolean, t);
      n->text = parse_result_text();
      return n;
    }
    case MetadataKeyword::StandardTag: {
      static const std::map<std::string, std::string> tags = {
          {"date", "Date"}, {"eco", "ECO"}, {"event", "Event"}, {"eventdate", "EventDate"}, {"site", "Site"}};
      return tag_filter(t, tags.at(w), 0);
    }
    case MetadataKeyword::Player: {
      if (accept_word("white")) return tag_filter(t, "White", 1);
      if (accept_word("black")) return tag_filter(t, "Black", -1);
      return tag_filter(t, "Players", 2);
    }
    case MetadataKeyword::Elo: {
      auto n = node(Op::Elo, Type::Numeric, t);
      if (accept_word("white"))
        n->number = 1;
      else if (accept_word("black"))
        n->number = -1;
      return n;
    }
    case MetadataKeyword::Tag: {
      auto n = node(Op::Tag, Type::String, t);
      n->text = expect_string();
      return n;
    }
    case MetadataKeyword::RemoveTag: {
      auto n = node(Op::RemoveTag, Type::Boolean, t);
      n->text = expect_string();
      return n;
    }
    case MetadataKeyword::SetTag:
      return typed_call(Op::SetTag, Type::Boolean, t, "settag", Type::String, 2, 2);
  }
  return nullptr;
}

std::string Parser::parse_result_text() {
  if (tok().kind == TokenKind::String) {
    std::string s = toks_[pos_++].text;
    if (s != "1-0" && s != "0-1" && s != "1/2-1/2" && s != "*")
      fail_at(toks_[pos_ - 1], "not a game result", "1-0, 0-1, 1/2-1/2 or *");
    return s;
  }
  if (accept_punct("*")) return "*";
  auto num = [&](int v) { return tok().kind == TokenKind::Number && tok().number == v; };
  if (num(1) && peek_punct(1, "-") && tok(2).kind == TokenKind::Number && tok(2).number == 0) {
    pos_ += 3;
    return "1-0";
  }
  if (num(0) && peek_punct(1, "-") && tok(2).kind == TokenKind::Number && tok(2).number == 1) {
    pos_ += 3;
    return "0-1";
  }
  if (num(1) && peek_punct(1, "/") && tok(2).kind == TokenKind::Number && tok(2).number == 2 &&
      peek_punct(3, "-") && tok(4).kind == TokenKind::Number && tok(4).number == 1 && peek_punct(5, "/") &&
      tok(6).kind == TokenKind::Number && tok(6).number == 2) {
    pos_ += 7;
    return "1/2-1/2";
  }
  fail("unexpected " + describe(tok()), "a result: 1-0, 0-1, 1/2-1/2 or *");
}

NodePtr Parser::tag_filter(const Token& t, const std::string& tag, int color) {
  const std::size_t word_at = pos_ - (color == 1 || color == -1 ? 2 : 1);  // player white: two words
  if (tok().kind == TokenKind::String && word_at != message_arg_start_) {
    auto n = node(Op::TagContains, Type::Boolean, t);
    n->text = tag;
    n->number = color;
    auto s = node(Op::String, Type::String, tok());
    s->text = toks_[pos_++].text;
    n->args.push_back(std::move(s));
    return n;
  }
  auto n = node(Op::TagValue, Type::String, t);
  n->text = tag;
  n->number = color;
  return n;
}

}  // namespace gb::cql
