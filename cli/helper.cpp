#include "cli/helper.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "book/store/exit_status.h"

namespace gb::cli {

std::optional<const char*> helper_for(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string_view command = argv[1];
  if (command == "serve") return "graphbook-serve";
#ifdef GRAPHBOOK_WITH_MPI
  // build's flag --mpi (CLI11 also takes --mpi=VALUE), up to a "--" after
  // which every word is an input.
  if (command == "build")
    for (int i = 2; i < argc && std::string_view(argv[i]) != "--"; ++i)
      if (std::string_view(argv[i]) == "--mpi" || std::string_view(argv[i]).starts_with("--mpi="))
        return "graphbook-mpi";
#endif
  return std::nullopt;
}

int run_helper(const char* helper, char** argv) {
  // Beside the running binary, whatever directory it was started from (the
  // tests start it by its build path, a user from PATH).
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string path = n > 0 ? std::string(self, std::size_t(n)) : std::string();
  path = path.substr(0, path.rfind('/') + 1) + helper;
  ::execv(path.c_str(), argv);
  std::fprintf(stderr,
               "graphbook %s: cannot run %s: %s (it is built beside graphbook: cmake --build build)\n",
               argv[1], path.c_str(), std::strerror(errno));
  return store::kExitBadInput;
}

}  // namespace gb::cli
