#!/usr/bin/env bash
# Installs what is missing (Debian packages, a Python virtualenv with the
# Python dependencies) and builds the native library, its tests and tools,
# and the Python package. Idempotent: a second run only rebuilds what
# changed. Run by run.sh and test.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

APT_PACKAGES=(g++ cmake ninja-build libgtest-dev python3 python3-dev python3-venv
  libleveldb-dev libsnappy-dev librocksdb-dev libwiredtiger-dev libjemalloc2 pkgconf
  nlohmann-json3-dev redis-server libhiredis-dev libzstd-dev zstd)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
# cargo fetches Redis's module header from crates.io (cmake/RedisModuleHeader.cmake).
command -v cargo >/dev/null || missing+=(cargo)
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]] && ! command -v sudo >/dev/null; then
    echo "setup: missing Debian packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
    exit 1
  fi
  SUDO=$([[ $(id -u) -eq 0 ]] && echo "" || echo sudo)
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

VENV="$ROOT/.venv"
if [[ ! -x "$VENV/bin/python" ]]; then
  log "creating the Python virtualenv in .venv"
  python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"
# The same lower bounds as pyproject.toml.
PY_DEPS=("numpy>=1.21" "matplotlib>=3.5" "pytest>=7" "hypothesis>=6.0" "pybind11>=2.11"
  "scikit-build-core>=0.8" "redis>=4.5" "distributed>=2024.1")
if ! "$PY" - "${PY_DEPS[@]}" <<'CHECK' 2>/dev/null; then
import sys
from importlib.metadata import version
for spec in sys.argv[1:]:
    name, low = spec.split(">=")
    have = tuple(int(x) for x in version(name).split(".")[:2] if x.isdigit())
    want = tuple(int(x) for x in low.split("."))
    if have < want:
        sys.exit(1)
CHECK
  log "installing Python dependencies: ${PY_DEPS[*]}"
  "$PY" -m pip install -q --upgrade pip
  "$PY" -m pip install -q "${PY_DEPS[@]}"
fi

JOBS=$(nproc)
log "building the native library, tests and tools (build/native)"
cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build/native -j "$JOBS" >&2

log "building and installing the Python package into .venv"
"$PY" -m pip install -q --no-build-isolation --no-deps . >&2
