// A file of a sorted run, in one of two layouts.
//
// Records (what an MPI build's exchange receives from each rank: nodes and
// edges come apart): its nodes in key order, then its edges in (key, move)
// order, as fixed little-endian fields (no varints: coding them was a large
// part of a full-depth build's time; bench/build.sh times it). A record is its
// key (with the move for an edge), hash or child key, min ply and flags (for
// an edge then its rank of first play in the run, record.polyglot_rank), then
// a tag: 0 for the counters of one game (the mover's Elo, the year and the
// result, 5 bytes; most positions of a collection are reached by one game),
// 1 for the counters in full. A one-game node takes 25 bytes, an edge 28.
//
// Sections (Run::sections: an Aggregator's spills and their merges): each
// position in key order as its key, the size of its entry (2 bytes), its
// edges (1 byte), whether it has a node (1 byte), and its entry: its section
// as a group of the book holds it (section_groups.h, read_entry), its edges
// ranked by first play in the run. Most positions of a collection are in one
// run only, and a new book's commit copies their entries as the spill wrote
// them (RunMerger::kEntries), where it decoded the two records above and
// encoded the section; a one-game position takes 12 + 19 bytes, not 53.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "builder/aggregator.h"
#include "builder/build_error.h"

namespace gb::builder {

// Run files are named PREFIX PID-... beside the book (orphan_files.h).
inline constexpr std::string_view kRunFilePrefix = "graphbook-run-";

// The path of a temporary file of this process in dir: kRunFilePrefix, the
// process id (which remove_orphans reads), '-' and name, which tells the
// process's files apart.
std::string run_file_path(const std::string& dir, const std::string& name);

// A new file in dir, open for reading and writing, with no name: a build
// that dies leaves nothing behind. -1 (errno set) when it cannot be made.
// O_TMPFILE makes it without a name at all; where the file system has none,
// it is made at path (run_file_path) and unlinked once open, which a SIGKILL
// between the two calls leaves behind (tests/builder/kill_test.cpp saw it
// under load) until the next build removes it.
int open_unnamed(const std::string& dir, const std::string& path);

// Writes all of data to fd (again after EINTR), kWritePiece bytes at a
// time; false, with errno set, when it cannot (ENOSPC for a write that
// writes nothing).
bool write_fully(int fd, const void* data, std::size_t bytes);
// The most write_fully writes in one call. The page cache holds what one
// write brings in folios as large as the write, up to 2 MiB: a spill
// written whole (some 4 MB) took its memory in 2 MiB blocks, and on a virtual
// machine that hands free 2 MiB blocks back to its host (virtio_balloon's
// free page reporting) every page of such a block is a fault on the host
// when first written. Pieces well under 2 MiB take smaller blocks, which
// the kernel finds among the pages recently freed (docs/SCALE.md, "Fresh
// memory").
inline constexpr std::size_t kWritePiece = std::size_t(256) << 10;

class RunFileWriter {
 public:
  RunFileWriter() = default;
  ~RunFileWriter();
  RunFileWriter(const RunFileWriter&) = delete;
  RunFileWriter& operator=(const RunFileWriter&) = delete;

  // Creates run.path; then every node, then every edge, then close(). A
  // failure is a BuildError::book naming the run file and the system's reason.
  [[nodiscard]] BuildStatus open(Run& run);
  void add(const NodeEntry& e);
  void add(const EdgeEntry& e);
  // Or, in a run of sections, every position in key order: its entry, its
  // node (has_node) and the number of its edges.
  void add_section(Key key, std::string_view entry, bool has_node, std::size_t edges);
  // Fills the run's counts and edge offset; an error if any write failed.
  // A writer destroyed before a close() that succeeded removes its file.
  [[nodiscard]] BuildStatus close();

 private:
  void reserve(std::size_t n);
  char* node_head(Key key, std::uint64_t position_hash, std::uint16_t min_ply, std::uint8_t flags);
  char* edge_head(Key key, std::uint16_t move, Key child_key, std::uint16_t min_ply, std::uint8_t flags,
                  std::uint8_t rank);
  void end(const char* p) { used_ = std::size_t(p - buffer_.data()); }
  bool flush();
  Run* run_ = nullptr;
  std::string path_;  // the file, once open() made it
  bool closed_ = false;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
  std::uint64_t written_ = 0;  // bytes flushed so far
  bool ok_ = true;
};

// Where a read of a run file for the keys of span starts: the last of marks
// (every kRunMarkEvery-th record of the file, by key) below span.first, or
// from_start when none is; nullopt when the file holds no key of the span
// (last_key: its last record's). The spill files of another key range (a
// build thread's) hold none of its slices' keys, and are not read.
std::optional<RunMark> start_mark(const std::vector<RunMark>& marks, Key last_key, KeySpan span,
                                  RunMark from_start);

// The section of a run of sections' entry (SectionRecord::entry), decoded
// whole into out; false when it does not decode (a damaged file).
bool decode_entry(std::string_view entry, store::Section& out);

// Reads the nodes (or the edges) of a run file in order.
class RunFileReader {
 public:
  RunFileReader() = default;
  ~RunFileReader();
  RunFileReader(const RunFileReader&) = delete;
  RunFileReader& operator=(const RunFileReader&) = delete;

  // Opens path at offset for count records.
  [[nodiscard]] BuildStatus open(const std::string& path, std::uint64_t offset, std::uint64_t count);
  // Opens run, a run of sections, at the first position of span: from its
  // last mark below the span, the positions before passed over. reading:
  // false when the file holds no key of the span (it is not opened), or is
  // damaged before it (then failed()).
  [[nodiscard]] BuildStatus open_sections(const Run& run, KeySpan span, bool& reading);
  // The next record; false at the end or on a damaged file (then failed()).
  bool next(NodeEntry& out);
  bool next(EdgeEntry& out);
  // Or the next position of a run of sections; out.entry stays valid until
  // the next call.
  struct SectionRecord {
    Key key = 0;
    std::string_view entry;
    bool has_node = false;
    std::uint8_t edges = 0;
  };
  bool next(SectionRecord& out);
  // Passes over the records with keys below first without decoding them;
  // false on a damaged file (then failed()).
  bool skip_nodes_below(Key first);
  bool skip_edges_below(Key first);
  bool skip_sections_below(Key first);
  bool failed() const { return failed_; }

 private:
  bool fill(std::size_t need);
  void prefetch_ahead() const;
  template <std::size_t kHead, std::size_t kFull>
  bool skip_below(Key first);
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t at_ = 0, end_ = 0;
  std::uint64_t left_ = 0;
  bool failed_ = false;
};

}  // namespace gb::builder
