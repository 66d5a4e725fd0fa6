// The exit statuses every subcommand shares (README, "Exit status"), here
// because every component's commands open books: 0 success; 1 nothing found
// (not in the book, no move to choose, no match); 2 a usage or input error (a
// bad option, FEN, move or file, a book that does not exist or is not a
// book); 3 a book that is damaged or that LMDB cannot read or write; 4 a
// search stopped at its budget before it was done (query --max-nodes or
// --time-limit: what it found so far was written).
#pragma once

#include "book/store/book.h"

namespace gb::store {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitNothingFound = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitDamagedBook = 3;
inline constexpr int kExitStopped = 4;

// The exit status for a book that would not open: 2 when the path names no
// book (or one of another format version), 3 when the book is damaged or
// LMDB cannot read it.
inline int exit_status_for(const BookError& error) {
  switch (error.code) {
    case BookError::Code::NotFound:
    case BookError::Code::NotABook:
    case BookError::Code::WrongVersion: return kExitBadInput;
    case BookError::Code::Damaged:
    case BookError::Code::Storage: return kExitDamagedBook;
  }
  return kExitDamagedBook;
}

}  // namespace gb::store
