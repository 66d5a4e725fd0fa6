#include "uci-adapter/options.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <charconv>
#include <fstream>

#include "uci-adapter/protocol.h"

namespace gb::uci_adapter {

namespace {

std::optional<bool> parse_bool(std::string_view v) {
  if (same_name(v, "true") || v == "1" || same_name(v, "on") || same_name(v, "yes")) return true;
  if (same_name(v, "false") || v == "0" || same_name(v, "off") || same_name(v, "no")) return false;
  return std::nullopt;
}

std::optional<long long> parse_int(std::string_view v) {
  long long n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return n;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace((unsigned char)s.front())) s.remove_prefix(1);
  while (!s.empty() && std::isspace((unsigned char)s.back())) s.remove_suffix(1);
  return std::string(s);
}

constexpr int kMaxDepth = 1024;
constexpr int kMaxMinGames = 1000000;
constexpr int kMaxExitMargin = 10000;  // centipawns: the value scale's clamp (docs/VALUES.md)
constexpr int kMaxLookahead = 64;

}  // namespace

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower((unsigned char)x) == std::tolower((unsigned char)y);
         });
}

std::string joined_weights(const command::FilterOptions& f) {
  std::string out;
  for (const std::string& w : f.weights) out += (out.empty() ? "" : ",") + w;
  return out;
}

std::vector<std::string> option_lines(const BookOptions& o) {
  return {check_option("OwnBook", o.own_book),
          string_option("BookFile", o.file),
          spin_option("BookDepth", o.depth, 0, kMaxDepth),
          spin_option("BookMinGames", o.min_games, 1, kMaxMinGames),
          combo_option("BookPolicy", explore::to_string(o.policy),
                       {"best", "weighted", "uniform", "learned", "lcb"}),
          check_option("BookLearning", o.learning),
          string_option("BookFilter", o.filter),
          spin_option("BookExitMargin", o.exit_margin, 0, kMaxExitMargin),
          spin_option("BookLookahead", o.lookahead, 0, kMaxLookahead),
          string_option("BookRatings", o.buckets.ratings),
          string_option("BookSpeeds", o.buckets.speeds),
          string_option("BookSince", o.buckets.since),
          string_option("BookUntil", o.buckets.until),
          string_option("BookWeights", joined_weights(o.buckets))};
}

bool is_our_option(std::string_view name) {
  for (std::string_view n : {"OwnBook", "BookFile", "BookDepth", "BookMinGames", "BookPolicy", "BookLearning",
                             "BookFilter", "BookExitMargin", "BookLookahead", "BookRatings", "BookSpeeds",
                             "BookSince", "BookUntil", "BookWeights"})
    if (same_name(name, n)) return true;
  return false;
}

AdapterStatus apply_option(BookOptions& o, std::string_view name, std::string_view value) {
  auto bad = [&](const char* what) {
    return AdapterError{AdapterError::Code::Option,
                        std::string(name) + ": " + what + " '" + std::string(value) + "'"};
  };
  if (same_name(name, "OwnBook") || same_name(name, "BookLearning")) {
    auto b = parse_bool(value);
    if (!b) return bad("not true or false:");
    (same_name(name, "OwnBook") ? o.own_book : o.learning) = *b;
  } else if (same_name(name, "BookFile")) {
    o.file = std::string(value);
  } else if (same_name(name, "BookDepth") || same_name(name, "BookMinGames")) {
    bool depth = same_name(name, "BookDepth");
    auto n = parse_int(value);
    if (!n || *n < (depth ? 0 : 1) || *n > (depth ? kMaxDepth : kMaxMinGames)) return bad("out of range:");
    (depth ? o.depth : o.min_games) = int(*n);
  } else if (same_name(name, "BookExitMargin") || same_name(name, "BookLookahead")) {
    bool margin = same_name(name, "BookExitMargin");
    auto n = parse_int(value);
    if (!n || *n < 0 || *n > (margin ? kMaxExitMargin : kMaxLookahead)) return bad("out of range:");
    (margin ? o.exit_margin : o.lookahead) = int(*n);
  } else if (same_name(name, "BookPolicy")) {
    auto p = explore::parse_policy(value);
    if (!p) return bad("not best, weighted, uniform, learned or lcb:");
    o.policy = *p;
  } else if (same_name(name, "BookFilter")) {
    o.filter = std::string(value);
  } else if (same_name(name, "BookRatings") || same_name(name, "BookSpeeds") ||
             same_name(name, "BookSince") || same_name(name, "BookUntil") || same_name(name, "BookWeights")) {
    // Checked with the other three as they stand, so that a value that
    // makes the filter wrong (since after until) is refused and not kept.
    command::FilterOptions f = o.buckets;
    if (same_name(name, "BookWeights")) {  // SOURCE=WEIGHT,SOURCE=WEIGHT (--weight, comma-separated)
      f.weights.clear();
      std::string_view rest = value;
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        if (comma != 0) f.weights.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
    } else {
      std::string& field = same_name(name, "BookRatings")  ? f.ratings
                           : same_name(name, "BookSpeeds") ? f.speeds
                           : same_name(name, "BookSince")  ? f.since
                                                           : f.until;
      field = std::string(value);
    }
    store::FilterError why;
    if (!f.parse(&why))
      return AdapterError{AdapterError::Code::Option, std::string(name) + ": " + why.message};
    o.buckets = f;
  } else {
    return AdapterError{AdapterError::Code::Option, std::string(name) + ": not an option of the adapter"};
  }
  return std::nullopt;
}

std::optional<store::BucketFilter> bucket_filter(const BookOptions& o) {
  if (!o.buckets.given()) return std::nullopt;
  store::FilterError why;
  auto f = o.buckets.parse(&why);
  assert(f);  // apply_option keeps only values that parse
  return f;
}

AdapterStatus read_config_file(const std::string& path, AdapterConfig& config) {
  auto option_error = [](std::string message) {
    return AdapterError{AdapterError::Code::Option, std::move(message)};
  };
  std::ifstream in(path);
  if (!in) return option_error(path + ": cannot read the configuration file");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    auto where = [&] { return path + ":" + std::to_string(number) + ": "; };
    std::string text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    auto eq = text.find('=');
    if (eq == std::string::npos) return option_error(where() + "expected 'key = value'");
    std::string key = trim(std::string_view(text).substr(0, eq));
    std::string value = trim(std::string_view(text).substr(eq + 1));
    AdapterStatus error;
    if (key == "book")
      error = apply_option(config.book, "BookFile", value);
    else if (key == "depth")
      error = apply_option(config.book, "BookDepth", value);
    else if (key == "min-games")
      error = apply_option(config.book, "BookMinGames", value);
    else if (key == "policy")
      error = apply_option(config.book, "BookPolicy", value);
    else if (key == "learning")
      error = apply_option(config.book, "BookLearning", value);
    else if (key == "filter")
      error = apply_option(config.book, "BookFilter", value);
    else if (key == "exit-margin")
      error = apply_option(config.book, "BookExitMargin", value);
    else if (key == "lookahead")
      error = apply_option(config.book, "BookLookahead", value);
    else if (key == "ratings")
      error = apply_option(config.book, "BookRatings", value);
    else if (key == "speeds")
      error = apply_option(config.book, "BookSpeeds", value);
    else if (key == "since")
      error = apply_option(config.book, "BookSince", value);
    else if (key == "until")
      error = apply_option(config.book, "BookUntil", value);
    else if (key == "weight")
      error = apply_option(config.book, "BookWeights", value);
    else if (key == "own-book")
      error = apply_option(config.book, "OwnBook", value);
    else if (key == "seed") {
      auto n = parse_int(value);
      if (!n || *n < 0)
        error = option_error("seed: not a number: '" + value + "'");
      else
        config.book.seed = std::uint64_t(*n);
    } else if (key == "engine") {
      config.engine.clear();
      for (auto t : tokens(value)) config.engine.emplace_back(t);
    } else if (key == "arg") {
      config.engine.push_back(value);
    } else {
      return option_error(where() + "unknown key '" + key + "'");
    }
    if (error) return option_error(where() + error->message);
  }
  return std::nullopt;
}

}  // namespace gb::uci_adapter
