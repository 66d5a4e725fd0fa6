// The bucket filter options every reading command shares (--ratings, --speeds,
// --since, --until; book/store/buckets.h): one definition of their words, one
// parse, one refusal, whether the command is probe, export or another.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "book/store/book.h"
#include "book/store/buckets.h"

namespace gb::command {

struct FilterOptions {
  std::string ratings, speeds, since, until;
  std::vector<std::string> weights;  // --weight NAME=x, repeated
  bool given() const {
    return !ratings.empty() || !speeds.empty() || !since.empty() || !until.empty() || !weights.empty();
  }
  // The options as JSON, null for those not given (answers echo the filter).
  nlohmann::json json() const;
  // store::parse_filter of the options: nullopt with the reason, naming the
  // option, when one is wrong.
  std::optional<store::BucketFilter> parse(store::FilterError* error) const {
    return store::parse_filter(ratings, speeds, since, until, error, weights);
  }
};

// Adds --ratings, --speeds, --since, --until, --weight.
void add_filter_options(CLI::App* cmd, FilterOptions& f);

// The filter of the options for the book at book_path with these bucket
// settings (nullopt: the book has no buckets) and sources (the weights'
// names): nullopt when none is given; the options' error or the book's
// refusal (store::filter_refusal, store::resolve_weights) printed as
// "graphbook <command>: ..." with *refused set (exit status 2).
std::optional<store::BucketFilter> resolve_filter(const char* command, const FilterOptions& f,
                                                  const std::string& book_path,
                                                  const std::optional<store::BucketParams>& params,
                                                  const std::vector<store::SourceInfo>& sources,
                                                  bool* refused);

}  // namespace gb::command
