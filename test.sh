#!/usr/bin/env bash
# One command: install what is missing, build, and run every test
# (GoogleTest through ctest, then pytest).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
echo "==> C++ tests (ctest)"
ctest --test-dir build/native --output-on-failure -j "$(nproc)"
echo "==> Python tests (pytest)"
"$ROOT/.venv/bin/python" -m pytest -q tests/python
