#include "book/store/buckets.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "book/store/book.h"
#include "book/store/records.h"
#include "book/store/varint.h"

namespace gb::store {

namespace {

constexpr int kFields = 10;

std::optional<int> number(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// The comma-separated words of text, each a name of one of n values.
template <class Name>
std::optional<std::uint8_t> parse_names(std::string_view text, int n, Name name, std::string_view what,
                                        FilterError* error) {
  std::uint8_t mask = 0;
  for (std::size_t from = 0; from <= text.size();) {
    std::size_t comma = std::min(text.find(',', from), text.size());
    std::string_view word = text.substr(from, comma - from);
    int found = -1;
    for (int i = 0; i < n; ++i)
      if (name(i) == word) found = i;
    if (found < 0) {
      std::string names;
      for (int i = 0; i < n; ++i) names += std::string(i ? ", " : "") + std::string(name(i));
      if (error)
        *error = {"'" + std::string(word) + "' is no " + std::string(what) + " (one of " + names + ")"};
      return std::nullopt;
    }
    mask |= std::uint8_t(1u << found);
    from = comma + 1;
  }
  return mask;
}

}  // namespace

Band rating_band(int elo) {
  if (elo <= 0) return Band::Unrated;
  if (elo < 1600) return Band::Under1600;
  if (elo < 1800) return Band::R1600;
  if (elo < 2000) return Band::R1800;
  if (elo < 2200) return Band::R2000;
  if (elo < 2500) return Band::R2200;
  return Band::R2500;
}

Speed speed_of(std::string_view tc) {
  if (tc == "-") return Speed::Correspondence;
  // The first period of the tag: "base+inc", "base", "moves/seconds", "*seconds".
  tc = tc.substr(0, tc.find(':'));
  if (!tc.empty() && tc[0] == '*') tc.remove_prefix(1);
  if (auto slash = tc.find('/'); slash != std::string_view::npos) tc = tc.substr(slash + 1);
  auto plus = tc.find('+');
  auto base = number(tc.substr(0, plus));
  std::optional<int> inc = 0;
  if (plus != std::string_view::npos) inc = number(tc.substr(plus + 1));
  if (!base || !inc || *base < 0 || *inc < 0) return Speed::Unknown;
  const std::int64_t estimate = std::int64_t(*base) + 40 * std::int64_t(*inc);
  if (estimate < 30) return Speed::UltraBullet;
  if (estimate < 180) return Speed::Bullet;
  if (estimate < 480) return Speed::Blitz;
  if (estimate < 1500) return Speed::Rapid;
  if (estimate < 21600) return Speed::Classical;
  return Speed::Correspondence;
}

std::string_view band_name(Band b) {
  constexpr std::string_view names[kBands] = {"unrated", "0", "1600", "1800", "2000", "2200", "2500"};
  return names[int(b)];
}

std::string_view speed_name(Speed s) {
  constexpr std::string_view names[kSpeeds] = {"unknown", "ultrabullet", "bullet",        "blitz",
                                               "rapid",   "classical",   "correspondence"};
  return names[int(s)];
}

std::uint32_t period_of(int date, bool by_month) {
  const int year = date / 10000, month = date / 100 % 100;
  if (year <= 0 || year > 9999) return 0;
  return std::uint32_t(year) * 16 + std::uint32_t(by_month && month <= 12 ? month : 0);
}

void BucketCounters::add(const BucketCounters& o) {
  const bool had = games > 0;
  games += o.games;
  white_wins += o.white_wins;
  draws += o.draws;
  black_wins += o.black_wins;
  rated_games += o.rated_games;
  elo_sum += o.elo_sum;
  occurrences += o.occurrences;
  score += o.score;
  min_ply = had ? std::min(min_ply, o.min_ply) : o.min_ply;
  if (o.first_play && (!first_play || o.first_play < first_play)) first_play = o.first_play;
}

// The fields of a bucket, in mask order: the ones a one-game node or edge
// has first, so that its mask fits one varint byte. For an edge,
// occurrences - games (a game plays its move at least once); a node has no
// occurrences.
enum Field { kMinPly, kWhite, kDraws, kBlack, kEloSum, kScore, kFirstPlay, kUnrated, kMoreGames, kMorePlays };

void encode_buckets(const std::vector<BucketEntry>& entries, std::string& out) {
  out.clear();
  std::uint64_t group_first = 0;  // the first id of the group before
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t end = i;
    while (end < entries.size() && entries[end].move == entries[i].move) ++end;
    char move[2];
    put_be16(move, entries[i].move);
    out.append(move, 2);
    put_varint(out, end - i);
    put_varint(out, zigzag(std::int64_t(entries[i].id - group_first)));
    group_first = entries[i].id;
    for (std::size_t first = i; i < end; ++i) {
      const BucketEntry& e = entries[i];
      const BucketCounters& c = e.counters;
      assert(c.games > 0 && c.rated_games <= c.games && (i + 1 == end || e.id < entries[i + 1].id));
      assert(e.move ? c.occurrences >= c.games : c.occurrences == 0);
      if (i > first) put_varint(out, e.id - entries[i - 1].id);
      const std::uint64_t fields[kFields] = {c.min_ply,    c.white_wins,
                                             c.draws,      c.black_wins,
                                             c.elo_sum,    c.score,
                                             c.first_play, c.games - c.rated_games,
                                             c.games - 1u, e.move ? c.occurrences - c.games : 0u};
      std::uint64_t mask = 0;
      for (int f = 0; f < kFields; ++f) mask |= std::uint64_t(fields[f] != 0) << f;
      put_varint(out, mask);
      for (int f = 0; f < kFields; ++f)
        if (fields[f]) put_varint(out, fields[f]);
    }
  }
}

bool decode_buckets(std::string_view v, std::vector<BucketEntry>& out) {
  out.clear();
  std::size_t at = 0;
  std::uint16_t last_move = 0;
  std::uint64_t group_first = 0;
  while (at < v.size()) {
    if (at + 2 > v.size()) return false;
    const std::uint16_t move = get_be16(v.data() + at);
    at += 2;
    if (!out.empty() && move <= last_move) return false;
    last_move = move;
    std::uint64_t n, first;
    if (!get_varint(v, at, n) || n == 0 || n > v.size() || !get_varint(v, at, first)) return false;
    std::uint64_t id = group_first + std::uint64_t(unzigzag(first));
    group_first = id;
    for (std::uint64_t k = 0; k < n; ++k) {
      std::uint64_t delta = 0, mask;
      if (k > 0 && (!get_varint(v, at, delta) || delta == 0)) return false;
      if (!get_varint(v, at, mask) || mask >> kFields) return false;
      id += delta;
      std::uint64_t f[kFields] = {};
      for (int i = 0; i < kFields; ++i)
        if ((mask >> i & 1) && !get_varint(v, at, f[i])) return false;
      for (int i : {kWhite, kDraws, kBlack, kScore, kUnrated, kMoreGames, kMorePlays})
        if (f[i] >= 0xffffffffu) return false;
      if (f[kMinPly] > 0xffff || (move == 0 && f[kMorePlays]) || f[kMoreGames] + f[kMorePlays] >= 0xffffffffu)
        return false;
      BucketEntry e;
      e.move = move;
      e.id = id;
      BucketCounters& c = e.counters;
      c.games = std::uint32_t(f[kMoreGames] + 1);
      c.white_wins = std::uint32_t(f[kWhite]);
      c.draws = std::uint32_t(f[kDraws]);
      c.black_wins = std::uint32_t(f[kBlack]);
      if (f[kUnrated] > c.games) return false;
      c.rated_games = c.games - std::uint32_t(f[kUnrated]);
      c.elo_sum = f[kEloSum];
      c.occurrences = move ? c.games + std::uint32_t(f[kMorePlays]) : 0;
      c.score = std::uint32_t(f[kScore]);
      c.min_ply = std::uint16_t(f[kMinPly]);
      c.first_play = f[kFirstPlay];
      if (std::uint64_t(c.white_wins) + c.draws + c.black_wins > c.games) return false;
      out.push_back(e);
    }
  }
  return true;
}

void merge_buckets(std::vector<BucketEntry>& a, const std::vector<BucketEntry>& b) {
  if (b.empty()) return;
  std::vector<BucketEntry> out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && bucket_order(a[i], b[j]))) {
      out.push_back(a[i++]);
    } else if (i == a.size() || bucket_order(b[j], a[i])) {
      out.push_back(b[j++]);
    } else {
      out.push_back(a[i++]);
      out.back().counters.add(b[j++].counters);
    }
  }
  a.swap(out);
}

double BucketFilter::weight_of(std::uint32_t source) const {
  auto at = std::lower_bound(weights.begin(), weights.end(), source,
                             [](const auto& w, std::uint32_t s) { return w.first < s; });
  return at != weights.end() && at->first == source ? at->second : 1.0;
}

bool BucketFilter::selects(std::uint64_t id, bool by_month) const {
  if (!weights.empty() && weight_of(bucket_source(id)) == 0) return false;
  if (bands && !(bands >> int(bucket_band(id)) & 1)) return false;
  if (speeds && !(speeds >> int(bucket_speed(id)) & 1)) return false;
  if (!since && !until) return true;
  const std::uint32_t period = bucket_period(id);
  if (period == 0) return false;  // undated: as a build with --since or --until leaves it out
  const int year = int(period / 16), month = int(period % 16);
  // A book of years answers bounds of whole years (too_fine), one of months
  // bounds of whole months: the period's yyyymm against the bound's.
  if (by_month) {
    const int at = year * 100 + month;
    return (!since || at >= since / 100) && (!until || at <= until / 100);
  }
  return (!since || year >= since / 10000) && (!until || year <= until / 10000);
}

std::optional<FilterError> BucketFilter::too_fine(bool by_month) const {
  const bool since_day = since % 100 != 0, until_day = until && until % 100 != 99;
  const bool since_month = since / 100 % 100 != 0, until_month = until && until / 100 % 100 != 99;
  if (since_day || until_day)
    return FilterError{"its buckets hold months, not days: give --since and --until as YYYY or YYYY-MM"};
  if (!by_month && (since_month || until_month))
    return FilterError{
        "its buckets hold years (build it with --by-month for months): give --since and --until as YYYY"};
  return std::nullopt;
}

std::optional<std::uint8_t> parse_bands(std::string_view text, FilterError* error) {
  return parse_names(
      text, kBands, [](int i) { return band_name(Band(i)); }, "rating band", error);
}

std::optional<std::uint8_t> parse_speeds(std::string_view text, FilterError* error) {
  return parse_names(
      text, kSpeeds, [](int i) { return speed_name(Speed(i)); }, "speed", error);
}

std::optional<int> parse_date_bound(std::string_view text, bool upper) {
  if (text.size() != 4 && text.size() != 7 && text.size() != 10) return std::nullopt;
  for (std::size_t at : {std::size_t(4), std::size_t(7)})
    if (text.size() > at && text[at] != '.' && text[at] != '-') return std::nullopt;
  // from_chars alone would take a sign: every part must be digits only.
  auto digits = [&](std::size_t from, std::size_t n) -> std::optional<int> {
    for (char c : text.substr(from, n))
      if (c < '0' || c > '9') return std::nullopt;
    return number(text.substr(from, n));
  };
  auto year = digits(0, 4);
  if (!year || *year == 0) return std::nullopt;
  int month = upper ? 99 : 0, day = upper ? 99 : 0;
  if (text.size() >= 7) {
    auto m = digits(5, 2);
    if (!m || *m < 1 || *m > 12) return std::nullopt;
    month = *m;
  }
  if (text.size() == 10) {
    auto d = digits(8, 2);
    if (!d || *d < 1 || *d > 31) return std::nullopt;
    day = *d;
  }
  return *year * 10000 + month * 100 + day;
}

std::optional<BucketFilter> parse_filter(const std::string& ratings, const std::string& speeds,
                                         const std::string& since, const std::string& until,
                                         FilterError* error, const std::vector<std::string>& weights) {
  BucketFilter f;
  FilterError why;
  for (const std::string& w : weights) {
    const std::size_t eq = w.rfind('=');
    double x = -1;
    const char* end = w.data() + w.size();
    if (eq != std::string::npos && eq > 0) {
      auto [ptr, ec] = std::from_chars(w.data() + eq + 1, end, x);
      if (ec != std::errc() || ptr != end) x = -1;
    }
    if (!(x >= 0 && x <= 1000))  // also NaN
      return *error = {"--weight " + w + ": not SOURCE=WEIGHT with a weight from 0 to 1000 (e.g. twic=0.5)"},
             std::nullopt;
    f.named_weights.emplace_back(w.substr(0, eq), x);
  }
  if (!ratings.empty()) {
    auto bands = parse_bands(ratings, &why);
    if (!bands) return *error = {"--ratings " + ratings + ": " + why.message}, std::nullopt;
    f.bands = *bands;
  }
  if (!speeds.empty()) {
    auto s = parse_speeds(speeds, &why);
    if (!s) return *error = {"--speeds " + speeds + ": " + why.message}, std::nullopt;
    f.speeds = *s;
  }
  auto date = [&](const std::string& text, const char* name, bool upper, int& out) {
    if (text.empty()) return true;
    auto d = parse_date_bound(text, upper);
    if (!d) {
      *error = {std::string(name) + " " + text + ": not a date (use YYYY or YYYY-MM)"};
      return false;
    }
    out = *d;
    return true;
  };
  if (!date(since, "--since", false, f.since) || !date(until, "--until", true, f.until)) return std::nullopt;
  if (f.since && f.until && f.since > f.until)
    return *error = {"--since " + since + " is after --until " + until + ": no game could pass"},
           std::nullopt;
  return f;
}

std::optional<FilterError> filter_refusal(const std::string& book_path,
                                          const std::optional<BucketParams>& params,
                                          const BucketFilter& filter) {
  if (!params)
    return FilterError{
        book_path +
        " was built without buckets; rebuild it with --buckets to filter by rating, speed or date"};
  if (auto why = filter.too_fine(params->by_month)) return FilterError{book_path + ": " + why->message};
  return std::nullopt;
}

std::optional<FilterError> resolve_weights(BucketFilter& filter, const std::vector<SourceInfo>& sources) {
  filter.weights.clear();
  for (const auto& [name, weight] : filter.named_weights) {
    bool found = false;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (sources[i].retracted_at || sources[i].source_name() != name) continue;
      found = true;
      const std::uint32_t number = sources[i].bucket_source ? sources[i].bucket_source : std::uint32_t(i + 1);
      filter.weights.emplace_back(number, weight);
    }
    if (!found) {
      std::string names;
      for (const auto& s : sources)
        if (!s.retracted_at && names.find(s.source_name()) == std::string::npos)
          names += (names.empty() ? "" : ", ") + s.source_name();
      return FilterError{"--weight " + name + "=...: the book has no source '" + name +
                         "' (its sources: " + (names.empty() ? "none" : names) + ")"};
    }
  }
  std::sort(filter.weights.begin(), filter.weights.end());
  // One number named twice (a source given twice, or two files of one label): the last weight.
  std::vector<std::pair<std::uint32_t, double>> unique;
  for (const auto& w : filter.weights) {
    if (!unique.empty() && unique.back().first == w.first)
      unique.back().second = w.second;
    else
      unique.push_back(w);
  }
  filter.weights = std::move(unique);
  return std::nullopt;
}

Counters counters_of(const BucketSum& sum) {
  const BucketCounters& b = sum.counters;
  Counters c;
  c.games = b.games;
  c.white_wins = b.white_wins;
  c.draws = b.draws;
  c.black_wins = b.black_wins;
  c.unknown = b.unknown();
  c.rated_games = b.rated_games;
  c.elo_sum = b.elo_sum;
  c.add_years(sum.min_year, sum.max_year);
  return c;
}

BucketSum sum_selected(const std::vector<BucketEntry>& entries, std::uint16_t move,
                       const BucketFilter& filter, bool by_month) {
  BucketSum sum;
  auto first = std::lower_bound(entries.begin(), entries.end(), move,
                                [](const BucketEntry& e, std::uint16_t m) { return e.move < m; });
  // Weighted sums (doubles) when some selected bucket weighs other than 1.
  double white = 0, draws = 0, black = 0, unknown = 0, rated = 0, elo = 0, occurrences = 0, score = 0;
  bool weighted = false;
  for (auto it = first; it != entries.end() && it->move == move; ++it) {
    if (!filter.selects(it->id, by_month)) continue;
    const double w = filter.weights.empty() ? 1.0 : filter.weight_of(bucket_source(it->id));
    const BucketCounters& c = it->counters;
    weighted = weighted || w != 1.0;
    white += w * c.white_wins;
    draws += w * c.draws;
    black += w * c.black_wins;
    unknown += w * c.unknown();
    rated += w * c.rated_games;
    elo += w * double(c.elo_sum);
    occurrences += w * c.occurrences;
    score += w * c.score;
    sum.counters.add(it->counters);
    sum.any = true;
    const auto year = std::uint16_t(bucket_period(it->id) / 16);
    if (year) {
      sum.min_year = sum.min_year ? std::min(sum.min_year, year) : year;
      sum.max_year = std::max(sum.max_year, year);
    }
  }
  if (weighted) {
    auto round = [](double x) { return std::uint32_t(std::floor(x + 0.5)); };
    BucketCounters& c = sum.counters;
    c.white_wins = round(white);
    c.draws = round(draws);
    c.black_wins = round(black);
    c.games = c.white_wins + c.draws + c.black_wins + round(unknown);
    c.rated_games = std::min(round(rated), c.games);
    c.elo_sum = std::uint64_t(std::floor(elo + 0.5));
    c.occurrences = std::max(round(occurrences), c.games);
    c.score = std::min(round(score), 2 * c.occurrences);
    sum.any = c.games > 0;  // weighed down to no game: as if none were selected
  }
  return sum;
}

std::optional<BucketParams> bucket_params(const Txn& txn, MDB_dbi meta) {
  auto v = txn.get(meta, kBucketsMetaKey);
  if (!v) return std::nullopt;
  auto j = nlohmann::json::parse(*v, nullptr, false);
  BucketParams p;
  if (j.is_object() && j.contains("by_month") && j["by_month"].is_boolean())
    p.by_month = j["by_month"].get<bool>();
  if (j.is_object() && j.contains("ordinals") && j["ordinals"].is_number_unsigned())
    p.ordinals = j["ordinals"].get<std::uint64_t>();
  return p;
}

std::string bucket_params_json(const BucketParams& p) {
  return nlohmann::json{{"by_month", p.by_month}, {"ordinals", p.ordinals}}.dump();
}

bool read_buckets(const Txn& txn, MDB_dbi dbi, Key key, std::vector<BucketEntry>& out, bool* damaged,
                  Error* error) {
  out.clear();
  auto v = txn.get(dbi, NodeKey(key).view(), error);
  if (!v) return false;
  if (!decode_buckets(*v, out)) {
    if (damaged) *damaged = true;
    out.clear();
    return false;
  }
  return true;
}

}  // namespace gb::store
