#!/usr/bin/env bash
# The same experiment in anatomy and in htsim, on the same files: htsim's
# connection matrix (.cm) and fat-tree topology (.topo). Prints each one's
# mean and max flow completion time and wall time, and the ratios.
#
#   bench/htsim_compare.sh build/anatomy X.cm Y.topo
#
# HTSIM_UEC   path of an htsim binary (e.g. htsim_uec, or htsim_eqds) that
#             takes -tm, -topo, -nodes and -end and prints "... finished at
#             T" per flow (microseconds); unset: says it skipped, exit 0
# HTSIM_ARGS  extra arguments for it (e.g. "-q 35 -paths 64"); -linkspeed is
#             tier 0's speed from the .topo unless given here
#             (without -end here the script passes -end 1000000; SPCL's
#             htsim_uec reads -end in milliseconds and runs its clock to
#             it, so give it "-end 5" or its wall time is mostly idle ticks)
# NETWORK     anatomy's --network (default packet:transport=uec,ack_bytes=16KiB:
#             UEC with htsim's UEC receiver, which acknowledges once 16 KiB
#             wait, UecSink::_bytes_unacked_threshold)
# REPEAT      run the pair this many times, alternating, and compare the
#             median wall times (default 1): a 0.1 s run timed once is
#             noisy by tens of milliseconds
#
# Build htsim outside any repository (never in this one), e.g. SPCL's, whose
# UEC main the measurements in bench/README.md used:
#   cd /work/scratch/spcl-htsim/htsim/sim && cmake -S . -B build -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release && cmake --build build --target htsim_uec
# (its UEC source prints no per-flow finish line; the README says the one
# line added in scratch to print it)
set -euo pipefail
anatomy=${1:?usage: htsim_compare.sh ANATOMY X.cm Y.topo}
cm=${2:?usage: htsim_compare.sh ANATOMY X.cm Y.topo}
topo=${3:?usage: htsim_compare.sh ANATOMY X.cm Y.topo}
network=${NETWORK:-packet:transport=uec,ack_bytes=16KiB}
if [[ -z "${HTSIM_UEC:-}" ]]; then
  echo "htsim_compare: skipped (set HTSIM_UEC to the path of an htsim binary to compare against)"
  exit 0
fi
# htsim runs in a scratch folder (below): a relative path must be resolved here.
found=$(command -v "$HTSIM_UEC") || { echo "htsim_compare: $HTSIM_UEC: no such program" >&2; exit 1; }
HTSIM_UEC=$(realpath "$found")
nodes=$(awk '$1 == "Nodes" { print $2; exit }' "$cm")
# htsim's mains size their NICs and pull pacers by -linkspeed (Mb/s, default
# 100 Gb/s), not by the .topo file: pass tier 0's speed unless told otherwise.
extra=${HTSIM_ARGS:-}
if [[ "$extra" != *-end* ]]; then
  extra="$extra -end 1000000"
fi
if [[ "$extra" != *-linkspeed* ]]; then
  gbps=$(awk 'tolower($1) == "downlink_speed_gbps" { print $2; exit }' "$topo")
  extra="$extra -linkspeed $((gbps * 1000))"
fi

repeat=${REPEAT:-1}
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "htsim_compare: REPEAT must be a positive integer, not '$repeat'" >&2; exit 1; }
# htsim writes its logs (logout.dat, idmap.txt) where it runs: a scratch folder.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cm_abs=$(realpath "$cm") topo_abs=$(realpath "$topo")
a_walls=() h_walls=()
for ((r = 0; r < repeat; r++)); do
  t0=$(date +%s.%N)
  # htsim's UEC and EQDS sources print a flow's "finished at" when its sender
  # has the acknowledgement of every byte: time anatomy's flows there too.
  a_json=$("$anatomy" packet --cm "$cm" --topo "$topo" --network "$network" --fct sender --format json)
  t1=$(date +%s.%N)
  h_status=0
  # shellcheck disable=SC2086
  h_out=$(cd "$scratch" && "$HTSIM_UEC" -tm "$cm_abs" -topo "$topo_abs" -nodes "$nodes" $extra 2>&1) || h_status=$?
  if [[ $h_status != 0 ]]; then
    echo "htsim_compare: $HTSIM_UEC exited with status $h_status; its output ends with:" >&2
    printf '%s\n' "$h_out" | grep -v '^[.|]*$' | tail -5 >&2
    exit 1
  fi
  t2=$(date +%s.%N)
  a_walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  h_walls+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a_wall=$(median "${a_walls[@]}")
h_wall=$(median "${h_walls[@]}")

read -r a_mean a_max < <(printf '%s' "$a_json" | /usr/bin/python3 -c \
  'import json,sys; j=json.load(sys.stdin); print(j["mean_fct_us"], j["max_fct_us"])')
# htsim's permutation flows all start at 0, so a flow's finish time is its FCT.
read -r h_n h_mean h_max < <(printf '%s\n' "$h_out" | awk '
  /finished at/ { for (i = 1; i < NF; i++) if ($i == "at") { t = $(i + 1); n++; s += t; if (t > m) m = t } }
  END { if (n == 0) print 0, 0, 0; else print n, s / n, m }')
if [[ "$h_n" == 0 ]]; then
  echo "htsim_compare: htsim printed no finished flows; its output ends with:" >&2
  printf '%s\n' "$h_out" | tail -5 >&2
  exit 1
fi
awk -v am="$a_mean" -v ax="$a_max" -v hm="$h_mean" -v hx="$h_max" -v hn="$h_n" \
    -v aw="$a_wall" -v hw="$h_wall" -v n="$repeat" -v net="$network" -v bin="$HTSIM_UEC" 'BEGIN {
  if (n > 1) printf "wall: the median of %d alternating runs of each\n", n
  printf "| tool | flows | mean FCT (us) | max FCT (us) | wall (s) |\n| --- | ---: | ---: | ---: | ---: |\n"
  printf "| anatomy %s | | %.1f | %.1f | %.2f |\n", net, am, ax, aw
  printf "| htsim %s | %d | %.1f | %.1f | %.2f |\n", bin, hn, hm, hx, hw
  printf "anatomy / htsim: mean FCT %.3f, max FCT %.3f, wall %.3f (htsim is %.1fx slower)\n", am / hm, ax / hx, aw / hw, hw / aw
}'
