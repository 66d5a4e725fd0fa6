# bench/scale.sh's plot: four log-log panels against the number of games, one
# line per depth (--max-ply 40, full depth). Wall time beside the lines n and
# n log n through the first full-depth point; peak RSS and peak anonymous
# memory beside the --memory budget; book size; bytes per node.
#   gnuplot -e "tsv='scale.tsv'; png='scale.png'; budget_kb=262144" bench/scale.gp
set terminal pngcairo size 1400,1000 font ",11"
set output png
set datafile separator "\t"
set key top left
set logscale xy
set grid
set xlabel "games"
set format x "10^{%L}"
set xrange [5000:20000000]
set style data linespoints

ply40 = "< awk -F'\t' 'NR > 1 && $2 == 40' ".tsv
full = "< awk -F'\t' 'NR > 1 && $2 == 0' ".tsv
stats full using 1:4 name "full" nooutput
n0 = full_min_x  # the smallest collection, whose build is also the fastest
t0 = full_min_y
set multiplot layout 2,2 title "graphbook build --memory ".sprintf("%d", budget_kb / 1024)."M on generated lichess-like games"

set title "wall time"
set ylabel "seconds"
plot ply40 using 1:4 title "--max-ply 40" pt 7, \
     full using 1:4 title "full depth" pt 5, \
     t0 * x / n0 title "n (through the first full-depth point)" dt 2 lc rgb "gray", \
     t0 * x * log(x) / (n0 * log(n0)) title "n log n" dt 3 lc rgb "black"

set title "peak memory: RSS, and anonymous (heap and stacks: what --memory bounds)"
set ylabel "MiB"
plot ply40 using 1:($6 / 1024) title "RSS, --max-ply 40" pt 7, \
     full using 1:($6 / 1024) title "RSS, full depth" pt 5, \
     ply40 using 1:($17 / 1024) title "anonymous, --max-ply 40" pt 6 dt 4, \
     full using 1:($17 / 1024) title "anonymous, full depth" pt 4 dt 4, \
     budget_kb / 1024 title "--memory budget" dt 2 lc rgb "red"

set title "book size"
set ylabel "MB"
plot ply40 using 1:($10 / 1048576) title "--max-ply 40" pt 7, \
     full using 1:($10 / 1048576) title "full depth" pt 5

set title "bytes per node (position)"
set ylabel "bytes"
unset logscale y
set yrange [0:*]
plot ply40 using 1:11 title "--max-ply 40" pt 7, \
     full using 1:11 title "full depth" pt 5
unset multiplot
