#include "book/cql/game_writer.h"

#include <algorithm>

#include "book/chess/notation.h"
#include "book/pgn/tag_pair.h"

namespace gb::cql {

namespace {

class Movetext {
 public:
  void token(const std::string& t) {
    if (!line_.empty() && line_.size() + 1 + t.size() > 79) flush();
    if (!line_.empty()) line_ += ' ';
    line_ += t;
  }
  void comment(const std::string& text) {
    std::string t = "{" + text + "}";
    std::replace(t.begin() + 1, t.end() - 1, '}', ')');
    token(t);
  }
  std::string finish() {
    flush();
    return out_;
  }

 private:
  void flush() {
    if (!line_.empty()) out_ += line_ + "\n";
    line_.clear();
  }
  std::string out_, line_;
};

struct Writer {
  const Game& game;
  const std::vector<std::vector<std::string>>& added;  // per position, CQL's comments
  const std::vector<bool>& removed;                    // original comments dropped by removecomment
  Movetext text;

  void comments_at(int id) {
    const GameNode& n = game.nodes[std::size_t(id)];
    if (!removed[std::size_t(id)])
      for (const auto& c : n.comments) text.comment(c);
    for (const auto& c : added[std::size_t(id)]) text.comment(c);
  }
  bool has_comments(int id) const {
    return (!game.nodes[std::size_t(id)].comments.empty() && !removed[std::size_t(id)]) ||
           !added[std::size_t(id)].empty();
  }

  void move(int parent, int child, bool& need_number) {
    const GameNode& p = game.nodes[std::size_t(parent)];
    const GameNode& c = game.nodes[std::size_t(child)];
    for (const auto& s : c.comments_before) {
      text.comment(s);
      need_number = true;
    }
    int number = p.position.fullmove_number();
    bool white = p.position.side_to_move() == Color::White;
    std::string san = c.null_move ? "--" : to_san(p.position, c.move);
    if (white)
      text.token(std::to_string(number) + ". " + san);
    else if (need_number)
      text.token(std::to_string(number) + "... " + san);
    else
      text.token(san);
    for (int nag : c.nags) text.token("$" + std::to_string(nag));
    need_number = false;
    if (has_comments(child)) {
      comments_at(child);
      need_number = true;
    }
  }

  void line(int from) {
    bool need_number = true;
    int cur = from;
    for (;;) {
      const auto& ch = game.nodes[std::size_t(cur)].children;
      if (ch.empty()) break;
      move(cur, ch[0], need_number);
      for (std::size_t i = 1; i < ch.size(); ++i) {
        text.token("(");
        bool nn = true;
        move(cur, ch[i], nn);
        line(ch[i]);
        text.token(")");
        need_number = true;
      }
      cur = ch[0];
    }
  }
};

std::string sort_value_text(const SortValue& v) {
  if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  return std::get<std::string>(v);
}

}  // namespace

std::string write_pgn(const Game& game, const GameResult& result, const Program& program,
                      const WriteOptions& options) {
  // Tags with the edits applied.
  std::vector<std::pair<std::string, std::string>> tags = game.tags;
  for (const auto& [name, value] : result.tag_edits) {
    // (name captured by name: clang 14, which builds the fuzz targets, cannot capture a structured binding)
    auto it =
        std::find_if(tags.begin(), tags.end(), [&name = name](const auto& t) { return t.first == name; });
    if (!value) {
      if (it != tags.end()) tags.erase(it);
    } else if (it != tags.end()) {
      it->second = *value;
    } else {
      tags.emplace_back(name, *value);
    }
  }
  std::string out;
  for (const auto& [k, v] : tags) out += pgn::tag_pair(k, v);
  out += "\n";

  std::vector<std::vector<std::string>> added(game.nodes.size());
  if (options.header) added[0].push_back("Game number " + std::to_string(game.number));
  if (!options.match_string.empty())
    for (int id : result.matched_positions) added[std::size_t(id)].push_back(options.match_string);
  if (options.sort_comments)
    for (std::size_t k = 0; k < program.sorts.size(); ++k)
      if (result.sort_values[k] && !program.sorts[k].quiet)
        added[0].push_back(program.sorts[k].description + ": " + sort_value_text(*result.sort_values[k]));
  for (const auto& c : result.comments) {
    if (c.auxiliary ? !options.auxiliary_comments : !options.user_comments) continue;
    auto& v = added[std::size_t(c.position)];
    if (std::find(v.begin(), v.end(), c.text) == v.end()) v.push_back(c.text);
  }

  std::vector<bool> removed(game.nodes.size(), false);
  for (int id : result.removed_comments) removed[std::size_t(id)] = true;
  Writer w{game, added, removed, {}};
  w.comments_at(0);
  w.line(0);
  w.text.token(game.result);
  out += w.text.finish();
  out += "\n";
  return out;
}

}  // namespace gb::cql
