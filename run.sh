#!/usr/bin/env bash
# One command: install what is missing, build, and run the main job:
#  1. the two-level study of the paper's Figure 4 setting on an embedded
#     default (hotspot20, D_u = 2 GiB, M = 1 GiB, alpha = 0.5, C_a = 3,
#     C_k = 16): a table, out/sim.json and out/sim.png;
#  2. the paper's Figure 11 demo on embedded LevelDB: hotspot20 while the
#     data set grows from M to 2M (M = 256 MiB), Symbiosis against
#     LevelDB's default 8 MiB block cache and against a block cache of M,
#     each pair run side by side (at the same time, one CPU each, twice
#     with the CPUs swapped), under a real memory cgroup where one can be
#     made and the emulated budget otherwise: the pairs, out/demo.json and
#     out/demo.png. About six minutes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$ROOT/scripts/setup.sh"
mkdir -p "$ROOT/out"
"$ROOT/.venv/bin/symbiosis" sim --workload hotspot20 --data-size 2GiB --memory 1GiB \
  --alpha 0.5 --ca 3 --ck 16 --json "$ROOT/out/sim.json" --plot "$ROOT/out/sim.png" "$@"
echo
echo "==> Figure 11 demo: LevelDB, hotspot20, D_u from M to 2M"
exec "$ROOT/.venv/bin/symbiosis" bench leveldb --memory 256MiB --data-size 512MiB \
  --phases "hotspot20@{M}*5M;hotspot20@{2M}*5M" --configs static-default,static-max,symbiosis \
  --side-by-side --duration 60s --warmup 0s --interval 2s --allow-fallback \
  --json "$ROOT/out/demo.json" --plot "$ROOT/out/demo.png"
