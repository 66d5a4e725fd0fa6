#include "command/filter_options.h"

#include <cstdio>

namespace gb::command {

nlohmann::json FilterOptions::json() const {
  auto or_null = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"ratings", or_null(ratings)},
          {"speeds", or_null(speeds)},
          {"since", or_null(since)},
          {"until", or_null(until)}};
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
}

std::optional<store::BucketFilter> resolve_filter(const char* command, const FilterOptions& f,
                                                  const std::string& book_path,
                                                  const std::optional<store::BucketParams>& params,
                                                  bool* refused) {
  *refused = false;
  if (!f.given()) return std::nullopt;
  store::FilterError why;
  auto filter = f.parse(&why);
  if (filter) {
    if (auto refusal = store::filter_refusal(book_path, params, *filter)) {
      why = *refusal;
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
