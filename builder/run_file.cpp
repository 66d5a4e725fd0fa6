#include "builder/run_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <optional>

#include "book/store/section_groups.h"

namespace gb::builder {

namespace {

constexpr std::size_t kBufferBytes = std::size_t(1) << 16;  // per stream: a final merge may read dozens
// An edge with its counters in full: key, move, child key, min ply, flags,
// rank, tag, counters, occurrences, score, learn.
constexpr std::size_t kMaxRecord = 8 + 2 + 8 + 2 + 1 + 1 + 1 + sizeof(store::Counters) + 4 + 4 + 4;

// A position of a run of sections: key, entry size, edges, node; its entry after.
constexpr std::size_t kSectionHead = 8 + 2 + 1 + 1;

BuildError io_error(const char* what, const std::string& path) {
  return BuildError::book(std::string(what) + " the aggregation run " + path + ": " + std::strerror(errno));
}

template <class T>
char* put(char* p, const T& v) {
  std::memcpy(p, &v, sizeof v);
  return p + sizeof v;
}
template <class T>
const char* get(const char* p, T& v) {
  std::memcpy(&v, p, sizeof v);
  return p + sizeof v;
}

// The counters of one game, as one record holds them when that is all it has.
struct OneGame {
  std::uint16_t elo = 0;  // the mover's
  std::uint16_t year = 0;
  store::Result result = store::Result::Unknown;

  store::Counters counters() const {
    store::Counters c;
    c.add_game(result, elo, year);
    return c;
  }
  // The one game c counts, if that is exactly what c holds.
  static std::optional<OneGame> of(const store::Counters& c) {
    if (c.games != 1 || c.min_year != c.max_year || c.elo_sum > 0xffff) return std::nullopt;
    OneGame g;
    g.elo = std::uint16_t(c.elo_sum);
    g.year = c.min_year;
    g.result = c.white_wins   ? store::Result::WhiteWins
               : c.draws      ? store::Result::Draw
               : c.black_wins ? store::Result::BlackWins
                              : store::Result::Unknown;
    if (g.counters() != c) return std::nullopt;
    return g;
  }
};

Color mover_of(const store::EdgeRecord& r) {
  return r.flags & store::kEdgeBlackMoves ? Color::Black : Color::White;
}

char* put_one_game(char* p, const OneGame& g) {
  p = put(p, g.elo);
  p = put(p, g.year);
  return put(p, g.result);
}
const char* get_one_game(const char* p, OneGame& g) {
  p = get(p, g.elo);
  p = get(p, g.year);
  return get(p, g.result);
}

}  // namespace

std::string run_file_path(const std::string& dir, const std::string& name) {
  return dir + "/" + std::string(kRunFilePrefix) + std::to_string(::getpid()) + "-" + name;
}

int open_unnamed(const std::string& dir, const std::string& path) {
#ifdef O_TMPFILE
  const int unnamed = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (unnamed >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return unnamed;
#endif
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) ::unlink(path.c_str());
  return fd;
}

bool write_fully(int fd, const void* data, std::size_t bytes) {
  const auto* at = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t w = ::write(fd, at, std::min(bytes, kWritePiece));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      return false;
    }
    at += w;
    bytes -= std::size_t(w);
  }
  return true;
}

RunFileWriter::~RunFileWriter() {
  if (file_) std::fclose(file_);
  // A run that was not written whole is of no use to anyone: it goes (a full
  // disk left the files of both threads' first spills beside the book).
  if (!path_.empty() && !closed_) ::unlink(path_.c_str());
}

BuildStatus RunFileWriter::open(Run& run) {
  run_ = &run;
  run.node_count = run.edge_count = run.edge_offset = 0;
  run.node_marks.clear();
  run.edge_marks.clear();
  run.last_node_key = run.last_edge_key = 0;
  run.section_count = 0;
  run.section_marks.clear();
  run.last_section_key = 0;
  path_ = run.path;
  file_ = std::fopen(run.path.c_str(), "wb");
  if (!file_) return io_error("cannot write", run.path);
  buffer_.resize(kBufferBytes);
  return std::nullopt;
}

bool RunFileWriter::flush() {
  if (ok_ && used_ && std::fwrite(buffer_.data(), 1, used_, file_) != used_) ok_ = false;
  written_ += used_;
  used_ = 0;
  return ok_;
}

void RunFileWriter::reserve(std::size_t n) {
  if (used_ + n > buffer_.size()) flush();
}

// A record starts with its head (after room for the longest record is made)...
char* RunFileWriter::node_head(Key key, std::uint64_t position_hash, std::uint16_t min_ply,
                               std::uint8_t flags) {
  assert(run_ && run_->edge_count == 0);  // every node, then every edge (the file's layout)
  reserve(kMaxRecord);
  if (run_->node_count % kRunMarkEvery == 0)
    run_->node_marks.push_back({key, written_ + used_, run_->node_count});
  run_->last_node_key = key;
  char* p = buffer_.data() + used_;
  p = put(p, key);
  p = put(p, position_hash);
  p = put(p, min_ply);
  return put(p, flags);
}

char* RunFileWriter::edge_head(Key key, std::uint16_t move, Key child_key, std::uint16_t min_ply,
                               std::uint8_t flags, std::uint8_t rank) {
  if (run_->edge_count == 0) run_->edge_offset = written_ + used_;
  reserve(kMaxRecord);
  if (run_->edge_count % kRunMarkEvery == 0)
    run_->edge_marks.push_back({key, written_ + used_, run_->edge_count});
  run_->last_edge_key = key;
  char* p = buffer_.data() + used_;
  p = put(p, key);
  p = put(p, move);
  p = put(p, child_key);
  p = put(p, min_ply);
  p = put(p, flags);
  return put(p, rank);
}

// ... then its counters: tag 0 and one game, or tag 1 and the counters in full.
void RunFileWriter::add(const NodeEntry& e) {
  const store::NodeRecord& r = e.record;
  char* p = node_head(e.key, r.position_hash, r.min_ply, r.flags);
  if (auto one = OneGame::of(r.counters)) {
    p = put(p, std::uint8_t(0));
    p = put_one_game(p, *one);
  } else {
    p = put(p, std::uint8_t(1));
    p = put(p, r.counters);
  }
  end(p);
  ++run_->node_count;
}

void RunFileWriter::add(const EdgeEntry& e) {
  const store::EdgeRecord& r = e.record;
  char* p = edge_head(e.key, e.move, r.child_key, r.min_ply, r.flags, r.polyglot_rank);
  auto one = OneGame::of(r.counters);
  if (one && r.occurrences == 1 && r.score == store::play_score(one->result, mover_of(r)) &&
      r.polyglot_learn == 0) {
    p = put(p, std::uint8_t(0));
    p = put_one_game(p, *one);
  } else {
    p = put(p, std::uint8_t(1));
    p = put(p, r.counters);
    p = put(p, r.occurrences);
    p = put(p, r.score);
    p = put(p, r.polyglot_learn);
  }
  end(p);
  ++run_->edge_count;
}

void RunFileWriter::add_section(Key key, std::string_view entry, bool has_node, std::size_t edges) {
  assert(run_ && run_->sections && entry.size() <= 0xffff && edges <= 0xff);
  const std::size_t size = kSectionHead + entry.size();
  reserve(size);
  if (size > buffer_.size()) buffer_.resize(size);  // (a position of 2,000 edges or so)
  if (run_->section_count % kRunMarkEvery == 0)
    run_->section_marks.push_back({key, written_ + used_, run_->section_count});
  run_->last_section_key = key;
  char* p = buffer_.data() + used_;
  p = put(p, key);
  p = put(p, std::uint16_t(entry.size()));
  p = put(p, std::uint8_t(edges));
  p = put(p, std::uint8_t(has_node));
  std::memcpy(p, entry.data(), entry.size());
  end(p + entry.size());
  ++run_->section_count;
  run_->node_count += has_node;
  run_->edge_count += edges;
}

BuildStatus RunFileWriter::close() {
  if (run_->edge_count == 0 || run_->sections) run_->edge_offset = written_ + used_;
  flush();
  if (std::fclose(file_) != 0) ok_ = false;
  file_ = nullptr;
  if (!ok_) return io_error("cannot write", run_->path);
  closed_ = true;
  return std::nullopt;
}

RunFileReader::~RunFileReader() {
  if (file_) std::fclose(file_);
}

BuildStatus RunFileReader::open(const std::string& path, std::uint64_t offset, std::uint64_t count) {
  if (file_) std::fclose(file_);
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_ || std::fseek(file_, long(offset), SEEK_SET) != 0) return io_error("cannot read", path);
  buffer_.resize(kBufferBytes);
  at_ = end_ = 0;
  left_ = count;
  failed_ = false;
  return std::nullopt;
}

// Makes at least need bytes available, or all that is left of the file.
bool RunFileReader::fill(std::size_t need) {
  if (end_ - at_ >= need) return true;
  if (need > buffer_.size()) buffer_.resize(need);
  std::memmove(buffer_.data(), buffer_.data() + at_, end_ - at_);
  end_ -= at_;
  at_ = 0;
  end_ += std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
  return end_ - at_ >= need;
}

// A record is its head (a tag last), then 5 bytes of one game (tag 0) or its
// counters in full (tag 1).
constexpr std::size_t kNodeHead = 8 + 8 + 2 + 1 + 1, kNodeFull = sizeof(store::Counters);
constexpr std::size_t kEdgeHead = 8 + 2 + 8 + 2 + 1 + 1 + 1, kEdgeFull = sizeof(store::Counters) + 4 + 4 + 4;
constexpr std::size_t kOneGameBytes = 5;
static_assert(2 * sizeof(std::uint16_t) + sizeof(store::Result) == kOneGameBytes);

template <std::size_t kHead, std::size_t kFull>
bool RunFileReader::skip_below(Key first) {
  while (left_ > 0 && !failed_) {
    if (!fill(kHead + kOneGameBytes)) return !(failed_ = true);
    Key key;
    get(buffer_.data() + at_, key);
    if (key >= first) return true;
    const auto tag = std::uint8_t(buffer_[at_ + kHead - 1]);
    const std::size_t size = kHead + (tag == 0 ? kOneGameBytes : kFull);
    if (tag > 1 || !fill(size)) return !(failed_ = true);
    at_ += size;
    --left_;
  }
  return !failed_;
}

std::optional<RunMark> start_mark(const std::vector<RunMark>& marks, Key last_key, KeySpan span,
                                  RunMark from_start) {
  if (marks.empty() || marks.front().key > span.last || last_key < span.first) return std::nullopt;
  auto after =
      std::partition_point(marks.begin(), marks.end(), [&](const RunMark& m) { return m.key < span.first; });
  return after == marks.begin() ? from_start : *(after - 1);
}

BuildStatus RunFileReader::open_sections(const Run& run, KeySpan span, bool& reading) {
  assert(run.sections);
  reading = false;
  const auto start = start_mark(run.section_marks, run.last_section_key, span, RunMark{0, 0, 0});
  if (!start) return std::nullopt;
  if (auto e = open(run.path, start->offset, run.section_count - start->ordinal)) return e;
  reading = span.first == 0 || skip_sections_below(span.first);
  return std::nullopt;
}

bool decode_entry(std::string_view entry, store::Section& out) {
  std::string_view section;
  return store::read_entry(entry, section) == entry.size() && store::from_bytes(section, out);
}

bool RunFileReader::skip_sections_below(Key first) {
  SectionRecord r;
  while (left_ > 0 && !failed_) {
    if (!fill(kSectionHead)) return !(failed_ = true);
    get(buffer_.data() + at_, r.key);
    if (r.key >= first) return true;
    next(r);
  }
  return !failed_;
}

bool RunFileReader::skip_nodes_below(Key first) { return skip_below<kNodeHead, kNodeFull>(first); }
bool RunFileReader::skip_edges_below(Key first) { return skip_below<kEdgeHead, kEdgeFull>(first); }

// Asks for the bytes some records ahead: a merge reads dozens of streams in
// turn, and the first loads of each record waited on the cache (more than
// half of next's samples at full depth on tcec; asked for ahead, next takes
// half the samples it took).
void RunFileReader::prefetch_ahead() const {
  constexpr std::size_t kAhead = 512;
  __builtin_prefetch(buffer_.data() + std::min(at_ + kAhead, buffer_.size() - 1));
}

// A record is at most kMaxRecord bytes: a file that ends inside one is damaged.
bool RunFileReader::next(NodeEntry& out) {
  if (left_ == 0 || failed_) return false;
  constexpr std::size_t kHead = kNodeHead;
  if (!fill(kHead + sizeof(store::Counters)) && end_ - at_ < kHead + 5) return !(failed_ = true);
  prefetch_ahead();
  const char* p = buffer_.data() + at_;
  store::NodeRecord& r = out.record;
  r = store::NodeRecord{};
  p = get(p, out.key);
  p = get(p, r.position_hash);
  p = get(p, r.min_ply);
  p = get(p, r.flags);
  std::uint8_t tag;
  p = get(p, tag);
  if (tag == 0) {
    OneGame g;
    p = get_one_game(p, g);
    r.counters = g.counters();
  } else if (tag == 1 && end_ - at_ >= kHead + sizeof(store::Counters)) {
    p = get(p, r.counters);
  } else {
    return !(failed_ = true);
  }
  at_ = std::size_t(p - buffer_.data());
  --left_;
  return true;
}

bool RunFileReader::next(EdgeEntry& out) {
  if (left_ == 0 || failed_) return false;
  constexpr std::size_t kHead = kEdgeHead, kFull = kEdgeFull;
  if (!fill(kHead + kFull) && end_ - at_ < kHead + 5) return !(failed_ = true);
  prefetch_ahead();
  const char* p = buffer_.data() + at_;
  store::EdgeRecord& r = out.record;
  r = store::EdgeRecord{};
  p = get(p, out.key);
  p = get(p, out.move);
  p = get(p, r.child_key);
  p = get(p, r.min_ply);
  p = get(p, r.flags);
  p = get(p, r.polyglot_rank);
  std::uint8_t tag;
  p = get(p, tag);
  if (tag == 0) {
    OneGame g;
    p = get_one_game(p, g);
    r.counters = g.counters();
    r.occurrences = 1;
    r.score = store::play_score(g.result, mover_of(r));
  } else if (tag == 1 && end_ - at_ >= kHead + kFull) {
    p = get(p, r.counters);
    p = get(p, r.occurrences);
    p = get(p, r.score);
    p = get(p, r.polyglot_learn);
  } else {
    return !(failed_ = true);
  }
  at_ = std::size_t(p - buffer_.data());
  --left_;
  return true;
}

// A file that ends inside a position is damaged. (The entry is not decoded
// here: most go into the book as they are.)
bool RunFileReader::next(SectionRecord& out) {
  if (left_ == 0 || failed_) return false;
  if (!fill(kSectionHead)) return !(failed_ = true);
  prefetch_ahead();
  const char* p = buffer_.data() + at_;
  std::uint16_t size;
  std::uint8_t has_node;
  p = get(p, out.key);
  p = get(p, size);
  p = get(p, out.edges);
  p = get(p, has_node);
  if (has_node > 1 || !fill(kSectionHead + size)) return !(failed_ = true);
  p = buffer_.data() + at_ + kSectionHead;  // (fill may have moved the bytes)
  out.entry = std::string_view(p, size);
  out.has_node = has_node;
  at_ += kSectionHead + size;
  --left_;
  return true;
}

}  // namespace gb::builder
