#include "uci-adapter/line_reader.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <string_view>

namespace gb::uci_adapter {

namespace {

void split_lines(std::string& pending, std::vector<std::string>& out, bool flush_last) {
  std::size_t start = 0;
  for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::size_t end = nl;
    if (end > start && pending[end - 1] == '\r') --end;
    out.emplace_back(pending, start, end - start);
  }
  pending.erase(0, start);
  if (flush_last && !pending.empty()) {
    if (pending.back() == '\r') pending.pop_back();
    out.push_back(std::move(pending));
    pending.clear();
  }
}

}  // namespace

LineReader::Read LineReader::read_available(std::vector<std::string>& out) {
  char buffer[65536];
  ssize_t n;
  do {
    n = ::read(fd_, buffer, sizeof buffer);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? Read::Again : Read::Error;
  if (n == 0) {
    split_lines(pending_, out, true);
    return Read::End;
  }
  pending_.append(buffer, std::size_t(n));
  split_lines(pending_, out, false);
  return Read::Lines;
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, 1000);
        continue;
      }
      return false;
    }
    text.remove_prefix(std::size_t(n));
  }
  return true;
}

}  // namespace gb::uci_adapter
