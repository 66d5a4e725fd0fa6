// Turns a crash inside LMDB's map of a damaged book into a message naming the
// book. LMDB trusts the node offsets and sizes of the pages it reads: on a
// page damaged past what the cheap checks see (store/page_check.h), it can
// read outside its map and fault. A fault whose address lies in (or just
// past) the map of an open book prints "BOOK: damaged book: ..." and exits
// with status 3; any other fault goes to the handler that was there before
// (a bug stays a crash).
#pragma once

#include <cstddef>
#include <string>

namespace gb::store {

// Watches [map, map + size) for the book at path (installs the SIGSEGV and
// SIGBUS handlers on first use); again with the same map to update its size.
void guard_map(const void* map, std::size_t size, const std::string& path);
// Stops watching it (before the map goes away).
void unguard_map(const void* map);

// Prints "graphbook: PATH: damaged book: WHAT (graphbook check PATH names the
// damage)" and exits with status 3 (async-signal-safe: the fault handler's
// end, and that of LMDB's assertions, which a damaged page trips).
[[noreturn]] void exit_damaged(const char* path, const char* what);

}  // namespace gb::store
