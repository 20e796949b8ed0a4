#!/usr/bin/env bash
# One command: install what is missing, build, and run the main job, the
# two-level study of the paper's Figure 4 setting on an embedded default
# (hotspot20, D_u = 2 GiB, M = 1 GiB, alpha = 0.5, C_a = 3, C_k = 16).
# Output: a table on the terminal, out/sim.json and out/sim.png.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$ROOT/scripts/setup.sh"
mkdir -p "$ROOT/out"
exec "$ROOT/.venv/bin/symbiosis" sim --workload hotspot20 --data-size 2GiB --memory 1GiB \
  --alpha 0.5 --ca 3 --ck 16 --json "$ROOT/out/sim.json" --plot "$ROOT/out/sim.png" "$@"
