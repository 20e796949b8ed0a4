#!/bin/bash
# Stable overhead of Symbiosis in LevelDB (bench/leveldb.md section 4).
# Symbiosis and the static configuration with the M_a it settles at run at
# the same time, on two copies of one DB, each in its own memory cgroup, so
# that the machine's noise hits both; the copies swap every pair. Per pair:
# Symbiosis's ops over the static run's, over the 2 s intervals after 20 s
# in which Symbiosis was Stable at the static M_a.
#   usage: bench/leveldb_stable_overhead.sh OUT_DIR [PAIRS]   (as root)
# Needs the DBs of `symbiosis bench leveldb --memory 64MiB` under
# /var/tmp/symbiosis-bench and the driver (SYMBIOSIS_LEVELDB_BENCH or
# build/native/leveldb_bench).
set -euo pipefail
out=${1:?usage: $0 OUT_DIR [PAIRS]}
pairs=${2:-8}
bench=${SYMBIOSIS_LEVELDB_BENCH:-build/native/leveldb_bench}
mkdir -p "$out"
cell() {  # name db static workload
  local name=$1 db=/var/tmp/symbiosis-bench/$2 static=$3 workload=$4
  [[ -d $db ]] || { echo "$0: no DB $db; load it with symbiosis bench leveldb first" >&2; exit 2; }
  for copy in a b; do rm -rf "$out/db-$copy"; cp -a "$db" "$out/db-$copy"; done
  sync  # no writeback of the copies during the first pair
  for i in $(seq 1 "$pairs"); do
    if (( i % 2 )); then s=a; y=b; else s=b; y=a; fi
    local flags=(--memory 64MiB --workload "$workload" --duration 40s --warmup 20s --interval 2s --seed "$i")
    "$bench" run --db "$out/db-$s" --config "$static" "${flags[@]}" > "$out/$name-$i-static.jsonl" &
    local p1=$!
    "$bench" run --db "$out/db-$y" --config symbiosis "${flags[@]}" > "$out/$name-$i-sym.jsonl" &
    wait $p1 $!
    echo "$name: pair $i of $pairs done" >&2
  done
  rm -rf "$out/db-a" "$out/db-b"
}
cell hot20-1.0 leveldb-64MiB-v1000-a0.5 static-max hotspot20
cell hot10-0.6 leveldb-106MiB-v1000-a0.5 static-3 hotspot10
python3 - "$out" "$pairs" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def load(path):
    lines = [json.loads(l) for l in open(path)]
    return [l for l in lines if l.get("type") == "interval"], next(l for l in lines if l.get("type") == "summary")
for cell in ("hot20-1.0", "hot10-0.6"):
    ratios = []
    for i in range(1, pairs + 1):
        (si, ss), (yi, _) = load(f"{out}/{cell}-{i}-static.jsonl"), load(f"{out}/{cell}-{i}-sym.jsonl")
        static = {round(x["t"]): x for x in si}
        s = y = 0
        for x in yi:
            t = round(x["t"])
            if t > 20 and t in static and x["state"] == "stable" and x["ma_bytes"] == ss["final_ma_bytes"]:
                s += static[t]["ops"]; y += x["ops"]
        if s: ratios.append(y / s)
    ratios.sort()
    print(f"{cell}: symbiosis/static median {statistics.median(ratios):.4f} over {len(ratios)} pairs "
          f"(min {ratios[0]:.4f}, max {ratios[-1]:.4f}): " + " ".join(f"{r:.3f}" for r in ratios))
PY
