#include "book/store/fault_guard.h"

#include <dlfcn.h>
#include <lmdb.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "book/store/exit_status.h"

namespace gb::store {

namespace {

// A read with a damaged size starts in the map and runs on past its end.
constexpr std::uintptr_t kSlack = std::uintptr_t(256) << 20;
constexpr int kRegions = 16;

struct Region {
  std::atomic<std::uintptr_t> begin{0}, end{0};
  char path[480] = {};
};
Region regions[kRegions];
std::mutex regions_mutex;
struct sigaction previous_segv, previous_bus;
bool installed = false;
void say(const char* s) {
  for (std::size_t n = std::strlen(s); n > 0;) {
    ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= std::size_t(w);
  }
}

// LMDB's code in memory: a fault there while a book is open is a damaged
// page (LMDB follows a damaged offset or page pointer to no memory at all).
std::uintptr_t lmdb_code_begin = 0, lmdb_code_end = 0;

void find_lmdb_code() {
  Dl_info lib;
  char real[PATH_MAX];  // /proc/self/maps names the file with symbolic links resolved
  if (!::dladdr(reinterpret_cast<void*>(&mdb_get), &lib) || !lib.dli_fname ||
      !::realpath(lib.dli_fname, real))
    return;
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return;
  char line[1024], perms[8], file[768];
  unsigned long start, end;
  while (std::fgets(line, sizeof line, maps))
    if (std::sscanf(line, "%lx-%lx %7s %*x %*x:%*x %*u %767s", &start, &end, perms, file) == 4 &&
        perms[2] == 'x' && std::strcmp(file, real) == 0) {
      lmdb_code_begin = start;
      lmdb_code_end = end;
    }
  std::fclose(maps);
}

std::uintptr_t fault_instruction(void* context) {
#if defined(__x86_64__)
  return std::uintptr_t(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return std::uintptr_t(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return 0;
#endif
}

[[noreturn]] void stop(const char* path, const char* what) {
  say("graphbook: ");
  say(path);
  say(": damaged book: ");
  say(what);
  say(" (graphbook check ");
  say(path);
  say(" names the damage)\n");
  ::_exit(kExitDamagedBook);
}

void on_fault(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const std::uintptr_t instruction = fault_instruction(context);
  const bool in_lmdb = instruction >= lmdb_code_begin && instruction < lmdb_code_end;
  for (Region& r : regions) {
    const std::uintptr_t begin = r.begin.load(), end = r.end.load();
    if (begin && address >= begin && address < end + kSlack) stop(r.path, "a read past its pages");
    if (begin && in_lmdb) stop(r.path, "LMDB followed a damaged page to no memory");
  }
  // Not a book's map: the handler that was there before takes the fault again.
  ::sigaction(signal, signal == SIGBUS ? &previous_bus : &previous_segv, nullptr);
}

}  // namespace

void guard_map(const void* map, std::size_t size, const std::string& path) {
  if (!map) return;
  std::lock_guard lock(regions_mutex);
  if (!installed) {
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGSEGV, &action, &previous_segv);
    ::sigaction(SIGBUS, &action, &previous_bus);
    find_lmdb_code();
    installed = true;
  }
  const auto begin = reinterpret_cast<std::uintptr_t>(map);
  Region* free_slot = nullptr;
  for (Region& r : regions) {
    if (r.begin.load() == begin) {
      r.end.store(begin + size);
      return;
    }
    if (!r.begin.load() && !free_slot) free_slot = &r;
  }
  if (!free_slot) return;  // more books open than watched: the rest crash as before
  std::strncpy(free_slot->path, path.c_str(), sizeof free_slot->path - 1);
  free_slot->end.store(begin + size);
  free_slot->begin.store(begin);
}

void unguard_map(const void* map) {
  if (!map) return;
  std::lock_guard lock(regions_mutex);
  for (Region& r : regions)
    if (r.begin.load() == reinterpret_cast<std::uintptr_t>(map)) r.begin.store(0);
}

void exit_damaged(const char* path, const char* what) { stop(path, what); }

}  // namespace gb::store
