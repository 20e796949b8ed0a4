#!/usr/bin/env bash
# One command: install what is missing, build, and run every test
# (GoogleTest through ctest, then pytest).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
echo "==> C++ tests (ctest)"
ctest --test-dir build/native --output-on-failure -j "$(nproc)"
# A user's program links the installed library: install it, build
# examples/ against it as a project of its own (CMake's package, then
# pkg-config), and run each (a DB written, read back and checked).
echo "==> the installed package: examples/ built against it and run"
prefix="$ROOT/build/install"
rm -rf "$prefix" build/examples build/examples-data
mkdir -p build/examples-data
cmake --install build/native --prefix "$prefix" >/dev/null
cmake -S examples -B build/examples -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build/examples >/dev/null
PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name symbiosis.pc)")"
export PKG_CONFIG_PATH
for engine in leveldb rocksdb wiredtiger; do
  build/examples/${engine}_example "build/examples-data/$engine"
  # shellcheck disable=SC2046
  g++ -O1 "examples/${engine}_example.cc" -o "build/examples/${engine}_example_pkgconfig" \
    $(pkg-config --cflags --libs "symbiosis-$engine")
  "build/examples/${engine}_example_pkgconfig" "build/examples-data/$engine-pkgconfig"
done
# The concurrent parts' tests again under ThreadSanitizer and under
# AddressSanitizer + UBSan: the online controller (8 threads), and the LevelDB
# plugins inside Debian's LevelDB and RocksDB (4 readers + resizes, the crash
# tests), and the miss-ratio curves and trace reader (bounds) but not their
# minute-long accuracy tests, which the plain ctest pass runs.
for sanitizer in thread address; do
  echo "==> concurrent tests under the $sanitizer sanitizer"
  dir="build/sanitize-$sanitizer"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSYMBIOSIS_SANITIZE="$sanitizer" >/dev/null
  cmake --build "$dir" --target symbiosis_tests >/dev/null
  if [ "$sanitizer" = thread ]; then
    # Debian's RocksDB publishes through atomics TSan cannot see, and
    # WiredTiger through its own spinlocks and atomics; their tests run with
    # the libraries' interceptor calls ignored (see tsan-suppressions.txt).
    TSAN_OPTIONS="halt_on_error=1 suppressions=$ROOT/tsan-suppressions.txt" \
      "$dir/symbiosis_tests" --gtest_brief=1 --gtest_filter='-RocksDb*:WiredTiger*:*Accuracy*'
    TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1" \
      "$dir/symbiosis_tests" --gtest_brief=1 --gtest_filter='RocksDb*:WiredTiger*'
  else
    ASAN_OPTIONS="detect_leaks=1" "$dir/symbiosis_tests" --gtest_brief=1 \
      --gtest_filter='-*Accuracy*'
  fi
done
echo "==> Python tests (pytest)"
"$ROOT/.venv/bin/python" -m pytest -q -rs tests/python
