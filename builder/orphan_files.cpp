#include "builder/orphan_files.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace gb::builder {

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

namespace {

// Removes the files in dir named prefix, a process id, then nothing or '-'
// and anything, for which remove(pid) is true.
template <class Remove>
void remove_files(const std::string& dir, const std::string& prefix, Remove remove) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    char* end = nullptr;
    long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || (*end != '\0' && *end != '-')) continue;
    if (remove(pid_t(pid))) ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
}

}  // namespace

void remove_orphans(const std::string& dir, const std::string& prefix) {
  remove_files(dir, prefix, [](pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; });
}

void remove_own_files(const std::string& dir, const std::string& prefix) {
  const pid_t self = ::getpid();
  remove_files(dir, prefix, [self](pid_t pid) { return pid == self; });
}

}  // namespace gb::builder
