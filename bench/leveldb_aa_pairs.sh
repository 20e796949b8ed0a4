#!/bin/bash
# Two LevelDB benchmark runs side by side, one CPU each, swapped every
# pair: what one configuration (or one build) costs against another when
# the machine's noise hits both (docs/decisions/bench-pairs.md).
#   usage: bench/leveldb_aa_pairs.sh OUT_DIR [PAIRS]   (as root)
# Environment (defaults in brackets):
#   DB         a DB of `symbiosis bench leveldb`      [leveldb-160MiB-v1000-a0.5-s1]
#   SYMBIOSIS_BENCH_DB_DIR  where the DBs are (the CLI's --db-dir) [/var/tmp/symbiosis-bench]
#   WORKLOAD   [hotspot20]
#   A, B       the runs: "DRIVER CONFIG"              [driver static-default, driver symbiosis]
# with driver = SYMBIOSIS_LEVELDB_BENCH or build/native/leveldb_bench.
# Prints B's throughput over A's per pair and their geometric mean.
set -euo pipefail
out=${1:?usage: $0 OUT_DIR [PAIRS]}
pairs=${2:-6}
driver=${SYMBIOSIS_LEVELDB_BENCH:-build/native/leveldb_bench}
db=${SYMBIOSIS_BENCH_DB_DIR:-/var/tmp/symbiosis-bench}/${DB:-leveldb-160MiB-v1000-a0.5-s1}
read -r a_bench a_config <<< "${A:-$driver static-default}"
read -r b_bench b_config <<< "${B:-$driver symbiosis}"
[[ -d $db ]] || { echo "$0: no DB $db; load it with symbiosis bench leveldb first" >&2; exit 2; }
(( $(nproc) >= 2 )) || { echo "$0: needs 2 CPUs, one per run" >&2; exit 2; }
mkdir -p "$out"
for copy in a b; do rm -rf "$out/db-$copy"; cp -a "$db" "$out/db-$copy"; done
sync
for i in $(seq 1 "$pairs"); do
  if (( i % 2 )); then ca=0; cb=1; da=a; dbb=b; else ca=1; cb=0; da=b; dbb=a; fi
  flags=(--memory 64MiB --workload "${WORKLOAD:-hotspot20}" --duration 24s --warmup 8s
         --interval 2s --seed "$i")
  taskset -c $ca "$a_bench" run --db "$out/db-$da" --config "$a_config" "${flags[@]}" > "$out/$i-a.jsonl" &
  p=$!
  taskset -c $cb "$b_bench" run --db "$out/db-$dbb" --config "$b_config" "${flags[@]}" > "$out/$i-b.jsonl" &
  wait $p $!
  echo "pair $i of $pairs done" >&2
done
rm -rf "$out/db-a" "$out/db-b"
python3 - "$out" "$pairs" <<'PY'
import json, math, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def summary(path):
    return json.loads(open(path).read().splitlines()[-1])
ratios = []
for i in range(1, pairs + 1):
    a, b = summary(f"{out}/{i}-a.jsonl"), summary(f"{out}/{i}-b.jsonl")
    ratios.append(b["throughput_ops"] / a["throughput_ops"])
    print(f"pair {i}: A {a['throughput_ops']:.0f} ops/s (M_a {a['final_ma_bytes'] >> 20} MiB), "
          f"B {b['throughput_ops']:.0f} (M_a {b['final_ma_bytes'] >> 20} MiB): {ratios[-1]:.3f}")
print(f"B / A geometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} over {pairs} pairs")
PY
