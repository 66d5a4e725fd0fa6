#include "command/filter_options.h"

#include <cstdio>

namespace gb::command {

nlohmann::json FilterOptions::json() const {
  auto or_null = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  nlohmann::json j = {{"ratings", or_null(ratings)},
                      {"speeds", or_null(speeds)},
                      {"since", or_null(since)},
                      {"until", or_null(until)}};
  if (!weights.empty()) j["weight"] = weights;
  return j;
}

void add_filter_options(CLI::App* cmd, FilterOptions& f) {
  cmd->add_option("--ratings", f.ratings,
                  "Only the games whose mover is in these rating bands: unrated, 0 (below 1600), 1600, 1800, "
                  "2000, 2200, 2500 (e.g. 2000,2200); needs a book built with --buckets");
  cmd->add_option("--speeds", f.speeds,
                  "Only games of these speeds: ultrabullet, bullet, blitz, rapid, classical, correspondence, "
                  "unknown (e.g. blitz,rapid)");
  cmd->add_option("--since", f.since, "Only games played in or after this year or month (2015, 2015-03)");
  cmd->add_option("--until", f.until, "Only games played in or before this year or month (2020, 2020-06)");
  cmd->add_option("--weight", f.weights,
                  "A source's games count this much (SOURCE=WEIGHT, e.g. bots=0 or twic=0.5; repeat for "
                  "more; names as graphbook info lists them); weighted counts round to the nearest game")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::optional<store::BucketFilter> resolve_filter(const char* command, const FilterOptions& f,
                                                  const std::string& book_path,
                                                  const std::optional<store::BucketParams>& params,
                                                  const std::vector<store::SourceInfo>& sources,
                                                  bool* refused) {
  *refused = false;
  if (!f.given()) return std::nullopt;
  store::FilterError why;
  auto filter = f.parse(&why);
  if (filter) {
    if (auto refusal = store::filter_refusal(book_path, params, *filter)) {
      why = *refusal;
      filter.reset();
    } else if (auto unknown = store::resolve_weights(*filter, sources)) {
      why = {book_path + ": " + unknown->message};
      filter.reset();
    }
  }
  if (!filter) {
    std::fprintf(stderr, "graphbook %s: %s\n", command, why.message.c_str());
    *refused = true;
  }
  return filter;
}

}  // namespace gb::command
