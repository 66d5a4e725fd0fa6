#include "cli/app.h"

#include "book/store/exit_status.h"

namespace gb::cli {

int parse_and_run(CLI::App& app, int argc, char** argv, const int& exit_status) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? store::kExitSuccess : store::kExitBadInput;
  }
  return exit_status;
}

}  // namespace gb::cli
