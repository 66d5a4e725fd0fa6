// `graphbook query`: a CQL query over the book graph (docs/QUERY.md).
#pragma once

#include <CLI/CLI.hpp>

namespace gb::query {

void add_commands(CLI::App& app, int& exit_status);

}  // namespace gb::query
