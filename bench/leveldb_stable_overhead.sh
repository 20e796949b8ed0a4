#!/bin/bash
# Stable overhead of Symbiosis in LevelDB (bench/leveldb.md section 4).
# `leveldb_bench overhead`: one DB opened with Symbiosis; once it is Stable,
# the 4 readers run in 250 ms slices alternating between Symbiosis reporting
# every access and Symbiosis suspended (the static configuration's path at
# the same M_a), PAIRS pairs per cell. Per cell: the median of the pairs'
# ops/s ratios and its ~95% interval.
#   usage: bench/leveldb_stable_overhead.sh OUT_DIR [PAIRS] [--no-cgroup]
# Needs the DBs of `symbiosis bench leveldb --memory 64MiB` under
# /var/tmp/symbiosis-bench and the driver (SYMBIOSIS_LEVELDB_BENCH or
# build/native/leveldb_bench). The kernel budget, as in the grid: a memory
# cgroup of M + 32 MiB (root); with --no-cgroup the page cache holds the
# whole DB and the readers are CPU-bound.
set -euo pipefail
out=${1:?usage: $0 OUT_DIR [PAIRS]}
pairs=${2:-400}
extra=${3:-}
bench=${SYMBIOSIS_LEVELDB_BENCH:-build/native/leveldb_bench}
mkdir -p "$out"
cells=(  # name DB workload  (M = 64 MiB)
  "hot20-1.0 leveldb-64MiB-v1000-a0.5 hotspot20"
  "hot10-0.6 leveldb-106MiB-v1000-a0.5 hotspot10"
  "uniform-0.4 leveldb-160MiB-v1000-a0.5 uniform"
  "zipfian-0.2 leveldb-320MiB-v1000-a0.5 zipfian"
)
for cell in "${cells[@]}"; do
  read -r name db workload <<< "$cell"
  db=/var/tmp/symbiosis-bench/$db
  [[ -d $db ]] || { echo "$0: no DB $db; load it with symbiosis bench leveldb first" >&2; exit 2; }
  "$bench" overhead --db "$db" --memory 64MiB --workload "$workload" --warmup 30s \
      --pairs "$pairs" $extra > "$out/$name.jsonl"
  echo "$name: done" >&2
done
python3 - "$out" "${cells[@]}" <<'PY'
import json, sys
out = sys.argv[1]
print("cell          M_a (MiB)  H_a     ops/s (static)  Symbiosis/static  median  ~95% interval  pairs")
for cell in sys.argv[2:]:
    name = cell.split()[0]
    lines = [json.loads(l) for l in open(f"{out}/{name}.jsonl")]
    pairs = [l for l in lines if l["type"] == "pair" and l["valid"]]
    s = next(l for l in lines if l["type"] == "overhead_summary")
    hit = sorted(p["b_hit_app"] for p in pairs)[len(pairs) // 2]
    print(f"{name:13} {s['app_bytes'] / 2**20:9.1f}  {hit:.4f}  {s['b_ops_per_s']:14.0f}  "
          f"{s['ratio']:16.4f}  {s['median_ratio']:.4f}  {s['median_low']:.4f}-{s['median_high']:.4f}"
          f"  {s['valid_pairs']}/{s['pairs']}")
PY
