#include "builder/book_check.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>

#include "book/store/book.h"
#include "book/store/buckets.h"
#include "book/store/exit_status.h"
#include "book/store/fingerprint_blocks.h"
#include "book/store/game_index.h"
#include "book/store/section_groups.h"
#include "book/store/shard_manifest.h"

namespace gb::builder {

namespace {

constexpr std::size_t kMaxFindings = 100;

std::string hex_key(std::string_view key) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : key) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// What must hold of any source counters (docs/FORMAT.md, "Counters").
std::string counters_problem(const store::Counters& c) {
  if (std::uint64_t(c.white_wins) + c.draws + c.black_wins + c.unknown != c.games)
    return "results add up to " +
           std::to_string(std::uint64_t(c.white_wins) + c.draws + c.black_wins + c.unknown) + ", not its " +
           std::to_string(c.games) + " games";
  if (c.rated_games > c.games) return "more rated games than games";
  if (c.min_year > c.max_year || (c.min_year == 0 && c.max_year != 0)) return "a year range that is not one";
  return "";
}

// Checks the records of one book through LMDB (its pages were found sound).
class RecordCheck {
 public:
  RecordCheck(store::Book& book, BookCheck& out) : book_(book), out_(out) {}

  void run() {
    store::Error e;
    auto txn = store::ReadTxn::begin(book_.env(), &e);
    if (!txn) return note("the book", e.message());
    const store::Databases& dbs = book_.dbs();
    walk(*txn, "meta", dbs.meta, [&](auto k, auto v) { meta(k, v); });
    walk_groups(*txn, dbs.positions);
    walk(*txn, "learn", dbs.learn, [&](auto k, auto v) { learn(k, v); });
    std::string last;  // the last fingerprint of the block before: below this block's key
    walk(*txn, "games", dbs.games, [&](auto k, auto v) {
      if (auto why = store::block_problem(k, v)) return note("games " + hex_key(k), "not a block: " + *why);
      if (!last.empty() && std::string_view(last) >= k)
        note("games " + hex_key(k), "not above the fingerprints of the block before");
      last.assign(v.empty() ? k : v.substr(v.size() - 16));
    });
    std::uint64_t sources = 0;
    walk(*txn, "sources", dbs.sources, [&](auto k, auto v) { source(k, v, ++sources); });
    walk(*txn, "collisions", dbs.collisions, [&](auto k, auto v) {
      if (k.size() != 8 || v.size() != 8) note("collisions " + hex_key(k), "not an 8-byte key and hash");
    });
    auto names = txn->database_names(&e);
    if (!names) return note("the main database", e.message());
    std::uint64_t stored = 0;
    for (const std::string& name : *names) {
      if (name == store::kStoredGamesDb || name == store::kGameIndexDb) {
        auto dbi = txn->open_db(name.c_str(), 0, &e);
        if (!dbi) return note(name, e.message());
        if (name == store::kStoredGamesDb)
          walk(*txn, name, *dbi, [&](auto k, auto v) { stored_game(k, v, stored++); });
      }
    }
    for (const std::string& name : *names)
      if (name == store::kBucketsDb) {
        auto dbi = txn->open_db(name.c_str(), 0, &e);
        std::vector<store::BucketEntry> entries;
        if (dbi)
          walk(*txn, name, *dbi, [&](auto k, auto v) {
            if (k.size() != 8 || !store::decode_buckets(v, entries))
              note("buckets " + hex_key(k), "not a bucket section (docs/FORMAT.md, Buckets)");
          });
      }
    for (const std::string& name : *names)
      if (name == store::kGameIndexDb) {
        auto dbi = txn->open_db(name.c_str(), 0, &e);
        if (dbi) walk(*txn, name, *dbi, [&](auto k, auto v) { index_row(k, v, stored); });
      }
  }

 private:
  void note(std::string where, std::string what) {
    if (out_.damage.size() < kMaxFindings) out_.damage.push_back({std::move(where), std::move(what)});
  }

  void walk(const store::Txn& txn, const std::string& name, MDB_dbi dbi,
            const std::function<void(std::string_view, std::string_view)>& record) {
    store::Error e;
    auto cursor = store::Cursor::open(txn, dbi, &e);
    if (!cursor) return note(name, e.message());
    std::uint64_t& count = out_.records[name];
    for (auto item = cursor->first(&e); item; item = cursor->next(&e)) {
      ++count;
      record(item->key, item->value);
    }
    if (e.code) note(name, e.message());
  }

  // The groups of sections of the positions database (store/section_groups.h):
  // each group's positions in key order, from its key to the next group's.
  void walk_groups(const store::Txn& txn, MDB_dbi dbi) {
    std::uint64_t& count = out_.records["positions"];
    std::optional<Key> last;  // the last position's key, of any group so far
    walk(txn, "position groups", dbi, [&](std::string_view k, std::string_view v) {
      const std::string where = "positions group " + hex_key(k);
      const auto g = store::group_key(k);
      if (!g) return note(where, "a key of " + std::to_string(k.size()) + " bytes, not 8");
      if (last && *g <= *last) note(where, "a group whose key is not above the positions before it");
      store::GroupReader group(*g, v);
      Key key;
      std::string_view section;
      bool any = false;
      while (group.next(key, section)) {
        ++count;
        any = true;
        last = key;
        store::NodeKey nk(key);
        position(nk.view(), section);
      }
      if (group.damaged()) note(where, "a group that does not decode");
      if (!any) note(where, "an empty group");
    });
  }

  void meta(std::string_view key, std::string_view value) {
    if (key == "stats") {
      store::BookStats stats;
      if (!store::from_bytes(value, stats))
        note("meta stats", "not " + std::to_string(sizeof stats) + " bytes");
    } else if (key == "build_params") {
      if (nlohmann::json::parse(value, nullptr, false).is_discarded()) note("meta build_params", "not JSON");
    }
  }

  void position(std::string_view key, std::string_view value) {
    const std::string where = "positions " + hex_key(key);
    if (key.size() != 8) return note(where, "a key of " + std::to_string(key.size()) + " bytes, not 8");
    store::Section section;
    if (!store::from_bytes(value, section)) return note(where, "a section that does not decode");
    if (!section.node && section.edges.empty()) return note(where, "an empty section");
    if (section.node) {
      if (auto p = counters_problem(section.node->counters); !p.empty()) note(where + " node", p);
      if (section.node->flags > store::kBlackToMove) note(where + " node", "unknown flags");
    }
    std::uint32_t previous = 0;
    bool first = true;
    for (const auto& [move, edge] : section.edges) {
      const std::string at = where + " move " + std::to_string(move);
      if (!first && move <= previous) note(at, "edges out of move order");
      first = false;
      previous = move;
      if (edge.flags & ~(store::kEdgeBlackMoves | store::kEdgeKeyOnly | store::kEdgeImported))
        note(at, "unknown flags");
      if ((edge.flags & store::kEdgeKeyOnly) ? edge.child_key != 0 : edge.child_key == 0)
        note(at, "a child key that does not agree with its key-only flag");
      if (auto p = counters_problem(edge.counters); !p.empty()) note(at, p);
      if (!(edge.flags & store::kEdgeImported)) {
        // Each game counts once on the edge but once or more in occurrences.
        if (edge.occurrences < edge.counters.games) note(at, "fewer occurrences than games");
        if (edge.score > 2ull * edge.occurrences) note(at, "a score above 2 per occurrence");
        // Every game that played the move reached the position.
        if (section.node && edge.counters.games > section.node->counters.games)
          note(at, std::to_string(edge.counters.games) + " games, more than the " +
                       std::to_string(section.node->counters.games) + " of its position");
      }
    }
  }

  void learn(std::string_view key, std::string_view value) {
    store::LearnRecord r;
    if (key.size() != 10 || !store::from_bytes(value, r))
      return note("learn " + hex_key(key), "not a 10-byte key with a 24-byte learning record");
    if (r.last_result > 3) note("learn " + hex_key(key), "an unknown last result");
  }

  void source(std::string_view key, std::string_view value, std::uint64_t expected) {
    const std::string where = "sources " + hex_key(key);
    if (key.size() != 8 || store::get_be64(key.data()) != expected)
      note(where, "not source number " + std::to_string(expected));
    auto j = nlohmann::json::parse(value, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("name")) note(where, "not a source's JSON object");
  }

  void stored_game(std::string_view key, std::string_view value, std::uint64_t expected) {
    const std::string where = std::string(store::kStoredGamesDb) + " " + hex_key(key);
    if (key.size() != 4 || (std::uint64_t(std::uint8_t(key[0])) << 24 | std::uint8_t(key[1]) << 16 |
                            std::uint8_t(key[2]) << 8 | std::uint8_t(key[3])) != expected)
      note(where, "not game id " + std::to_string(expected));
    store::StoredGame game;
    if (!store::decode_game(value, game)) note(where, "a stored game that does not decode");
  }

  void index_row(std::string_view key, std::string_view value, std::uint64_t games) {
    const std::string where = std::string(store::kGameIndexDb) + " " + hex_key(key);
    if (key.size() != 8 || value.size() != 8) return note(where, "not an 8-byte key with an 8-byte row");
    const std::uint64_t game = std::uint64_t(std::uint8_t(value[0])) << 24 | std::uint8_t(value[1]) << 16 |
                               std::uint8_t(value[2]) << 8 | std::uint8_t(value[3]);
    if (game >= games) note(where, "a row of game " + std::to_string(game) + ", which is not stored");
  }

  store::Book& book_;
  BookCheck& out_;
};

}  // namespace

BookCheck check_book(const std::string& path) {
  BookCheck out;
  out.path = path;
  out.pages = store::check_pages(path);
  using V = store::CheapCheck::Verdict;
  switch (out.pages.cheap.verdict) {
    case V::Sound: break;
    case V::Absent: out.refused = "no such file"; return out;
    case V::Empty: out.refused = "not a book: an empty file (0 bytes)"; return out;
    case V::NotLmdb: out.refused = "not a book: " + out.pages.cheap.detail; return out;
    case V::Unreadable: out.refused = "cannot be read: " + out.pages.cheap.detail; return out;
    case V::Damaged: out.damage.push_back({"the file", out.pages.cheap.detail}); return out;
  }
  out.damage = out.pages.damage;
  if (!out.damage.empty()) return out;  // LMDB would read outside the pages: stop here
  store::BookError be;
  auto book = store::Book::open(path, store::OpenMode::ReadOnly, &be);
  if (!book) {
    if (be.code == store::BookError::Code::NotABook)
      out.refused = be.message;
    else
      out.damage.push_back({"the book", be.message});
    return out;
  }
  RecordCheck(*book, out).run();
  return out;
}

nlohmann::json to_json(const BookCheck& check) {
  nlohmann::json damage = nlohmann::json::array();
  for (const auto& d : check.damage) damage.push_back({{"where", d.where}, {"what", d.what}});
  const store::FileLayout& layout = check.pages.cheap.layout;
  nlohmann::json j = {{"book", check.path},
                      {"sound", check.sound()},
                      {"file_size", layout.file_size},
                      {"page_size", layout.page_size},
                      {"last_page", layout.last_page},
                      {"pages_reached", check.pages.pages_reached},
                      {"free_pages", check.pages.free_pages},
                      {"databases", check.pages.databases},
                      {"records", check.records},
                      {"damage", damage}};
  if (!check.refused.empty()) j["refused"] = check.refused;
  return j;
}

std::string to_text(const BookCheck& check) {
  std::ostringstream out;
  if (!check.refused.empty()) {
    out << check.path << ": " << check.refused << "\n";
    return out.str();
  }
  const store::FileLayout& layout = check.pages.cheap.layout;
  for (const auto& d : check.damage) out << check.path << ": damaged: " << d.message() << "\n";
  out << check.path << ": " << (check.sound() ? "sound" : "DAMAGED") << ": " << layout.file_size << " bytes, "
      << check.pages.pages_reached << " pages in databases, " << check.pages.free_pages << " free";
  std::uint64_t records = 0;
  for (const auto& [name, n] : check.records) records += n;
  out << ", " << records << " records checked";
  if (!check.damage.empty()) out << ", " << check.damage.size() << " findings";
  out << "\n";
  return out.str();
}

void add_check_command(CLI::App& app, int& exit_status) {
  struct Options {
    std::string book;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Walk every page and record of a book and name what is damaged (exit 0 sound, 1 damaged)");
  cmd->add_option("book", opt->book, "The book file, or a sharded book's directory (each shard is checked)")
      ->required();
  cmd->add_flag("--json", opt->json, "JSON output");
  cmd->footer(
      "Example:\n  graphbook check games.book --json\n"
      "(never writes. Every other command refuses a book whose meta pages, size or main database are\n"
      "damaged, and build, import and learn refuse a book with any damaged page; docs/FORMAT.md, "
      "\"Damage\")");
  cmd->callback([opt, &exit_status] {
    auto status_of = [](const BookCheck& check) {
      return check.sound()            ? store::kExitSuccess
             : !check.refused.empty() ? store::kExitBadInput
                                      : store::kExitDamagedBook;
    };
    if (!store::is_sharded_book(opt->book)) {
      const BookCheck check = check_book(opt->book);
      if (opt->json)
        std::printf("%s\n", to_json(check).dump(2).c_str());
      else
        std::fputs(to_text(check).c_str(), check.sound() ? stdout : stderr);
      exit_status = status_of(check);
      return;
    }
    // A sharded book (build --mpi): its manifest, then each shard as a book.
    store::BookError be;
    auto manifest = store::read_manifest(opt->book, &be);
    if (!manifest) {
      if (opt->json)
        std::printf(
            "%s\n",
            nlohmann::json{{"book", opt->book}, {"sound", false}, {"refused", be.message}}.dump(2).c_str());
      else
        std::fprintf(stderr, "%s\n", be.message.c_str());
      exit_status = store::kExitBadInput;
      return;
    }
    nlohmann::json shards = nlohmann::json::array();
    exit_status = store::kExitSuccess;
    for (const std::string& path : store::shard_paths(opt->book, *manifest)) {
      const BookCheck check = check_book(path);
      if (opt->json)
        shards.push_back(to_json(check));
      else
        std::fputs(to_text(check).c_str(), check.sound() ? stdout : stderr);
      exit_status = std::max(exit_status, status_of(check));
    }
    if (opt->json)
      std::printf("%s\n",
                  nlohmann::json{
                      {"book", opt->book}, {"sound", exit_status == store::kExitSuccess}, {"shards", shards}}
                      .dump(2)
                      .c_str());
  });
}

}  // namespace gb::builder
