// The error of query/'s library calls (docs/DESIGN.md, "Errors: one convention
// per layer"). The subcommand chooses the exit status from the code: a book
// that cannot be read is damaged (3); an OUT that cannot be written is the
// user's input (2).
#pragma once

#include <string>
#include <utility>

namespace gb::query {

struct QueryError {
  enum class Code {
    Book,    // LMDB failed reading the book
    Output,  // the sub-book (or its working file) could not be written
  };
  Code code = Code::Book;
  std::string text;

  static QueryError book(std::string text) { return {Code::Book, std::move(text)}; }
  static QueryError output(std::string text) { return {Code::Output, std::move(text)}; }
  // The words the user reads: run_graph_query's is the store's reason (the
  // caller names the book); write_sub_book's names the file.
  const std::string& message() const { return text; }
};

}  // namespace gb::query
