#!/usr/bin/env bash
# Installs what is missing (Debian packages, a Python virtualenv with the
# Python dependencies) and builds the native library, its tests and tools,
# and the Python package. Idempotent: a second run only rebuilds what
# changed. Sourced by run.sh and test.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

APT_PACKAGES=(g++ cmake ninja-build libgtest-dev python3 python3-dev python3-venv)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
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
PY_DEPS=(numpy matplotlib pytest pybind11 scikit-build-core)
if ! "$PY" -c "import numpy, matplotlib, pytest, pybind11, scikit_build_core" 2>/dev/null; then
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
