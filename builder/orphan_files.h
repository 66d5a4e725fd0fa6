// The files a build keeps beside a book while it runs (spill runs, the new
// book of a fresh build) are named PREFIX PID [-...]: one that a killed build
// left behind is known by its process being gone.
#pragma once

#include <string>

namespace gb::builder {

// The directory part of a path ("." when it has none).
std::string dir_of(const std::string& path);
// The file name part of a path.
std::string name_of(const std::string& path);

// Removes the files in dir named prefix, a process id, then nothing or '-'
// and anything, whose process is gone.
void remove_orphans(const std::string& dir, const std::string& prefix);
// Removes the files in dir so named with this process's id (an interrupted
// build's own).
void remove_own_files(const std::string& dir, const std::string& prefix);

}  // namespace gb::builder
