#!/usr/bin/env bash
# bench/scale: how `graphbook build` grows with the collection. Builds books
# from 10 k, 100 k, 1 M and 10 M lichess-like generated games
# (data/tools/generate_games.cpp, seed 1) at --max-ply 40 and at full depth,
# all with --memory 256M, and records per build: wall and CPU time, peak RSS
# (/usr/bin/time -v), the peaks of its anonymous memory (heap and stacks, what
# --memory bounds) and of its file-backed pages (the program, the book's map),
# from /proc/PID/status every 0.1 s, spilled runs (the build's --json
# summary), nodes, edges,
# book size, bytes per node and per edge, and the load average around it (the
# machine may be shared). Each collection is read once by `graphbook
# pgn-check` too: its plies, and that not one game is skipped.
#
# Output: $SCALE_DIR/scale.tsv, $SCALE_DIR/scale.png (gnuplot, bench/scale.gp),
# the table and the fitted growth laws (time and size against games, a power
# law fitted on the largest sizes) with their predictions for 100 M and 1 B
# games. docs/SCALE.md holds a run.
#
#   bash bench/scale.sh                      # all sizes (the 10 M collection is 6.5 GB)
#   SCALE_MAX=1000000 bash bench/scale.sh    # up to 1 M games
# Environment: SCALE_DIR (default /tmp/graphbook-scale: the generated games
# are kept there and made again only when the generator or the seed changed),
# SCALE_MAX, SCALE_MEMORY (256M), SCALE_SEED (1), GRAPHBOOK, GENERATE_GAMES.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gb=${GRAPHBOOK:-$here/../build/cli/graphbook}
gen=${GENERATE_GAMES:-$here/../build/data/generate_games}
dir=${SCALE_DIR:-/tmp/graphbook-scale}
max=${SCALE_MAX:-10000000}
memory=${SCALE_MEMORY:-256M}
seed=${SCALE_SEED:-1}
for tool in "$gb" "$gen"; do
  [ -x "$tool" ] || { echo "bench/scale: $tool is missing: cmake --build build (from the repository root)" >&2; exit 2; }
done
for tool in /usr/bin/time gnuplot; do
  command -v "$tool" >/dev/null || { echo "bench/scale: $tool is missing: bash scripts/setup.sh" >&2; exit 2; }
done
mkdir -p "$dir"
work=$(mktemp -d "$dir/work-XXXXXX")  # the books, beside the games: the spilled runs go beside the book
trap 'rm -rf "$work"' EXIT
tsv=$dir/scale.tsv

# games N: the path of N generated games, made unless the cached file is from this generator and seed.
games() {
  local n=$1 pgn=$dir/games-$1.pgn stamp
  stamp="$(sha256sum < "$gen" | cut -c1-16) seed $seed"
  if [ ! -f "$pgn" ] || [ "$(cat "$pgn.gen" 2>/dev/null)" != "$stamp" ]; then
    echo "bench/scale: generating $n games into $pgn" >&2
    "$gen" --games "$n" --seed "$seed" -o "$pgn.part"
    mv "$pgn.part" "$pgn"
    echo "$stamp" > "$pgn.gen"
  fi
  echo "$pgn"
}

load() { cut -d' ' -f1 /proc/loadavg; }

# peaks PID: the largest RssAnon and RssFile (kB) of process PID, read every
# 0.1 s until it ends. RSS (VmHWM) counts both; --memory bounds the first (a
# spike shorter than a sample can be missed; VmHWM misses none).
peaks() {
  local pid=$1 anon=0 file=0 a f
  while [ -r "/proc/$pid/status" ]; do
    read -r a f < <(awk '/^RssAnon:/ {a = $2} /^RssFile:/ {f = $2} END {print a + 0, f + 0}' \
      "/proc/$pid/status" 2>/dev/null || echo 0 0)
    [ "$a" -gt "$anon" ] && anon=$a
    [ "$f" -gt "$file" ] && file=$f
    sleep 0.1
  done
  echo "$anon $file"
}

printf 'games\tmax_ply\tplies\twall_s\tcpu_s\tpeak_rss_kb\tspilled_runs\tnodes\tedges\tbook_bytes\tbytes_per_node\tbytes_per_edge\tduplicates\tskipped\tload_before\tload_after\tpeak_anon_kb\tpeak_file_kb\tfingerprint_runs\n' > "$tsv"
for n in 10000 100000 1000000 10000000; do
  [ "$n" -le "$max" ] || continue
  pgn=$(games "$n")
  "$gb" pgn-check "$pgn" --json > "$work/check.json" || {
    echo "bench/scale: graphbook pgn-check found errors in $pgn" >&2; exit 1; }
  plies=$(grep -m1 '"plies"' "$work/check.json" | tr -dc 0-9)
  for ply in 40 0; do
    rm -f "$work/b.book" "$work/b.book-lock"
    before=$(load)
    /usr/bin/time -v -o "$work/time" "$gb" build "$work/b.book" "$pgn" --max-ply "$ply" --memory "$memory" \
      --json --quiet > "$work/build.json" 2> "$work/err" &
    timer=$!
    build=""  # the build, time's child
    while [ -z "$build" ] && kill -0 "$timer" 2>/dev/null; do build=$(pgrep -P "$timer" || true); done
    read -r anon file < <(if [ -n "$build" ]; then peaks "$build"; else echo 0 0; fi)
    wait "$timer" || { cat "$work/err" >&2; exit 1; }
    after=$(load)
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time")
    cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$work/time")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time")
    field() { grep -m1 "\"$1\"" "$work/build.json" | tr -dc 0-9; }
    nodes=$(field nodes_written) edges=$(field edges_written) spills=$(field spilled_runs)
    fp_runs=$(field fingerprint_spilled_runs)
    dups=$(field duplicates) skipped=$(field skipped)
    bytes=$(du -sb "$work/b.book" | cut -f1)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$ply" "$plies" \
      "$wall" "$cpu" "$rss" "$spills" "$nodes" "$edges" "$bytes" "$(echo "$bytes / $nodes" | bc -l)" \
      "$(echo "$bytes / $edges" | bc -l)" "$dups" "$skipped" "$before" "$after" "$anon" "$file" "$fp_runs" >> "$tsv"
    echo "bench/scale: $n games, --max-ply $ply: $wall s, peak RSS $((rss / 1024)) MiB (anonymous $((anon / 1024)) MiB," \
      "file-backed $((file / 1024)) MiB), $spills spilled runs, $fp_runs of fingerprints" >&2
  done
done

gnuplot -e "tsv='$tsv'; png='$dir/scale.png'; budget_kb=$(numfmt --from=iec "$memory")/1024" "$here/scale.gp"

# The table; the power laws y = a n^b fitted (least squares on logs) to the
# sizes of 100 k games and more (at 10 k fixed costs still weigh), for wall
# time, CPU time and book size; and the linear prediction from the time per
# game between the two largest sizes (the marginal cost, which fixed costs do
# not flatter).
column -t -s $'\t' "$tsv"
awk -F'\t' -v budget="$(numfmt --from=iec "$memory")" '
  NR > 1 {
    if ($17 * 1024 > budget) over = over " " $1 "/" $2 "(" int($17 / 1024) "MiB)"
    if ($6 * 1024 > budget) rss_over = rss_over " " $1 "/" $2 "(" int($6 / 1024) "MiB)"
    k = $2
    if (last_n[k] != "") { prev_n[k] = last_n[k]; prev_t[k] = last_t[k] }
    last_n[k] = $1; last_t[k] = $4
    if ($1 < 100000) next
    m[k]++; x = log($1)
    sx[k] += x; sxx[k] += x * x
    st[k] += log($4); sxt[k] += x * log($4)
    sc[k] += log($5); sxc[k] += x * log($5)
    sb[k] += log($10); sxb[k] += x * log($10)
  }
  function fit(sy, sxy, k,   b) {
    b = (m[k] * sxy - sx[k] * sy) / (m[k] * sxx[k] - sx[k] * sx[k]); A = exp((sy - b * sx[k]) / m[k]); return b
  }
  END {
    for (k in m) {
      if (m[k] < 2) continue
      name = k == 0 ? "full-depth" : "max-ply-" k
      bt = fit(st[k], sxt[k], k); at = A; bc = fit(sc[k], sxc[k], k); ac = A; bb = fit(sb[k], sxb[k], k); ab = A
      printf "FIT %s wall: %.3g * n^%.3f s -> 100M %.0f s, 1B %.0f s\n", name, at, bt, at * 1e8 ^ bt, at * 1e9 ^ bt
      printf "FIT %s cpu: %.3g * n^%.3f s -> 100M %.0f s, 1B %.0f s\n", name, ac, bc, ac * 1e8 ^ bc, ac * 1e9 ^ bc
      printf "FIT %s size: %.3g * n^%.3f bytes -> 100M %.1f GB, 1B %.1f GB\n", name, ab, bb, ab * 1e8 ^ bb / 1e9,
        ab * 1e9 ^ bb / 1e9
      r = (last_t[k] - prev_t[k]) / (last_n[k] - prev_n[k])
      printf "LINEAR %s wall: %.1f us per game from %d to %d games -> 100M %.0f s, 1B %.0f s\n", name, r * 1e6,
        prev_n[k], last_n[k], last_t[k] + r * (1e8 - last_n[k]), last_t[k] + r * (1e9 - last_n[k])
    }
    print (over == "" ? "MEMORY every build'"'"'s anonymous memory stayed within " budget " bytes" \
                      : "MEMORY anonymous peak over the " budget "-byte budget:" over)
    if (rss_over != "") print "MEMORY peak RSS with the file-backed pages over the budget:" rss_over
  }' "$tsv"
echo "bench/scale: wrote $tsv and $dir/scale.png"
