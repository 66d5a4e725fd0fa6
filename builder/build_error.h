// Why a build, an import or an upgrade stopped, which decides the command's
// exit status (README, "Exit status"; book/store/exit_status.h).
#pragma once

#include <optional>
#include <string>

#include "book/store/book.h"
#include "book/store/exit_status.h"

namespace gb::builder {

struct BuildError {
  // Input: an input, an option or the BOOK path itself is wrong (nothing was
  // written). Book: the book is damaged, or LMDB or the build's working files
  // failed reading or writing.
  enum class Code { Input, Book };
  Code code = Code::Input;
  std::string message;  // names the file

  static BuildError input(std::string message) { return {Code::Input, std::move(message)}; }
  static BuildError book(std::string message) { return {Code::Book, std::move(message)}; }
  // A book that would not open: Input when the path names no book (or one of
  // another format version), Book when it is damaged or cannot be read.
  static BuildError opening(const store::BookError& e) {
    return {store::exit_status_for(e) == store::kExitBadInput ? Code::Input : Code::Book, e.message};
  }
};

// Either success (empty) or why a step failed, for steps that return no
// value: `if (auto e = step()) return e;` (store::Status's form).
using BuildStatus = std::optional<BuildError>;

inline int exit_status_for(const BuildError& e) {
  return e.code == BuildError::Code::Input ? store::kExitBadInput : store::kExitDamagedBook;
}

}  // namespace gb::builder
