// Splits the bytes of a non-blocking file descriptor into lines. The reader
// owns its buffer; the fd belongs to the caller.
#pragma once

#include <string>
#include <vector>

namespace gb::uci_adapter {

class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}

  enum class Read { Lines, Again, End, Error };
  // Reads what is available (one read call) and appends each complete line,
  // without its "\n" or "\r\n", to out. End: the writer closed its side (a
  // last line without a newline is still delivered). Again: nothing to read.
  [[nodiscard]] Read read_available(std::vector<std::string>& out);
  int fd() const { return fd_; }

 private:
  int fd_;
  std::string pending_;
};

// Writes all of text to fd (blocking writes, retried on EINTR/EAGAIN).
// False when the reader is gone (EPIPE) or another error occurred.
[[nodiscard]] bool write_all(int fd, std::string_view text);

}  // namespace gb::uci_adapter
