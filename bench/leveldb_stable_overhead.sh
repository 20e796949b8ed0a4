#!/bin/bash
# Stable overhead of Symbiosis in LevelDB (bench/leveldb.md).
# `leveldb_bench overhead`: one DB opened with Symbiosis; once it is Stable,
# the 4 readers run in 250 ms slices alternating between Symbiosis reporting
# every access and Symbiosis suspended (the static configuration's path at
# the same M_a), PAIRS pairs per run. Per run: the median of the pairs'
# ops/s ratios and its ~95% interval; per cell: the median of REPEATS runs
# (rounds over the cells, so a slow hour falls on every cell) and, with
# CONTROL=1, one A/A run (`--control`, both halves reporting): what the
# method reads where there is nothing to find.
#   usage: [REPEATS=N] [CONTROL=1] bench/leveldb_stable_overhead.sh OUT_DIR [PAIRS] [--no-cgroup]
# Needs the DBs of `symbiosis bench leveldb --memory 64MiB` in its --db-dir
# (SYMBIOSIS_BENCH_DB_DIR, default /var/tmp/symbiosis-bench) and the driver
# (SYMBIOSIS_LEVELDB_BENCH or build/native/leveldb_bench). The kernel budget, as in the grid: a memory
# cgroup of M + 32 MiB (root); with --no-cgroup the page cache holds the
# whole DB and the readers are CPU-bound.
set -euo pipefail
usage="usage: [REPEATS=N] [CONTROL=1] $0 OUT_DIR [PAIRS] [--no-cgroup]"
(( $# >= 1 && $# <= 3 )) || { echo "$0: error: takes OUT_DIR [PAIRS] [--no-cgroup], not $# arguments; $usage" >&2; exit 2; }
out=$1
pairs=${2:-400}
extra=${3:-}
repeats=${REPEATS:-1}
control=${CONTROL:-0}
[[ $pairs =~ ^[1-9][0-9]*$ ]] || { echo "$0: error: PAIRS must be a positive count, not '$pairs'; $usage" >&2; exit 2; }
[[ -z $extra || $extra = --no-cgroup ]] || { echo "$0: error: the third argument can only be --no-cgroup, not '$extra'" >&2; exit 2; }
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "$0: error: REPEATS must be a positive count, not '$repeats'" >&2; exit 2; }
[[ $control =~ ^[01]$ ]] || { echo "$0: error: CONTROL must be 0 or 1, not '$control'" >&2; exit 2; }
bench=${SYMBIOSIS_LEVELDB_BENCH:-build/native/leveldb_bench}
dbs=${SYMBIOSIS_BENCH_DB_DIR:-/var/tmp/symbiosis-bench}
cells=(  # name DB workload M/D_u  (M = 64 MiB)
  "hot20-1.0 leveldb-64MiB-v1000-a0.5-s1 hotspot20 1.0"
  "hot10-0.6 leveldb-111848106B-v1000-a0.5-s1 hotspot10 0.6"
  "uniform-0.4 leveldb-160MiB-v1000-a0.5-s1 uniform 0.4"
  "zipfian-0.2 leveldb-320MiB-v1000-a0.5-s1 zipfian 0.2"
)
for cell in "${cells[@]}"; do
  read -r name db workload ratio <<< "$cell"
  [[ -d $dbs/$db ]] || { echo "$0: error: no DB $dbs/$db; load it first with any run of its cell, e.g. \`symbiosis bench leveldb --memory 64MiB --ratios $ratio --configs static-default --duration 2s --warmup 1s --db-dir $dbs\`" >&2; exit 2; }
done
[[ -x $bench ]] || { echo "$0: error: no driver at $bench; build it (scripts/setup.sh) or set SYMBIOSIS_LEVELDB_BENCH" >&2; exit 2; }
mkdir -p "$out"
measure() {  # NAME DB WORKLOAD TAG [FLAGS...]
  local name=$1 db=$2 workload=$3 tag=$4
  shift 4
  # A run changes the DB it opens; the kept DB stays as it was loaded.
  rm -rf "$out/db"
  cp -a "$dbs/$db" "$out/db"
  "$bench" overhead --db "$out/db" --memory 64MiB --workload "$workload" \
      --warmup 30s --pairs "$pairs" $extra "$@" > "$out/$name.$tag.jsonl"
  rm -rf "$out/db"
  echo "$(date +%T) $name $tag: done" >&2
}
for r in $(seq 1 "$repeats"); do
  for cell in "${cells[@]}"; do
    read -r name db workload _ <<< "$cell"
    measure "$name" "$db" "$workload" "$r"
    if [[ $control = 1 && $r = 1 ]]; then measure "$name" "$db" "$workload" control --control; fi
  done
done
python3 - "$out" "$repeats" "$control" "${cells[@]}" <<'PY'
import json, statistics, sys
out, repeats, control = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
def summary(name, tag):
    lines = [json.loads(l) for l in open(f"{out}/{name}.{tag}.jsonl")]
    pairs = [l for l in lines if l["type"] == "pair" and l["valid"]]
    s = next(l for l in lines if l["type"] == "overhead_summary")
    s["hit"] = sorted(p["b_hit_app"] for p in pairs)[len(pairs) // 2]
    return s
runs_title = "each run's median (~95% interval)".ljust(24 * repeats - 2)
print(f"cell          M_a (MiB)  H_a     ops/s (static)  {runs_title}  median"
      + ("   A/A run (interval)" if control else ""))
for cell in sys.argv[4:]:
    name = cell.split()[0]
    runs = [summary(name, r) for r in range(1, repeats + 1)]
    text = "  ".join(f"{s['median_ratio']:.4f} ({s['median_low']:.4f}-{s['median_high']:.4f})"
                     for s in runs)
    line = (f"{name:13} {runs[0]['ma_bytes'] / 2**20:9.1f}  {runs[0]['hit']:.4f}  "
            f"{statistics.median(s['b_ops_per_s'] for s in runs):14.0f}  {text}  "
            f"{statistics.median(s['median_ratio'] for s in runs):.4f}")
    if control:
        c = summary(name, "control")
        line += f"   {c['median_ratio']:.4f} ({c['median_low']:.4f}-{c['median_high']:.4f})"
    print(line)
PY
