#!/usr/bin/env bash
# Fuzzes the trace readers and the miss-ratio curves built from what they
# read (tests/fuzz/trace_reader_fuzzer.cc) with libFuzzer under ASan + UBSan.
#
#   scripts/fuzz.sh [SECONDS]      # default 180; installs clang-14 if missing
#
# The corpus starts from the first 64 KiB of each shared CloudPhysics trace
# (when ../shared/traces exists) and a few written here, and is kept in
# build/fuzz/corpus between runs; a crash leaves its input in build/fuzz/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_TO_RUN="${1:-180}"
CXX="$(command -v clang++-14 || command -v clang++ || true)"
if [ -z "$CXX" ]; then
  echo "fuzz: installing clang-14 (libFuzzer)" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang-14 >/dev/null
  CXX=clang++-14
fi
OUT="$ROOT/build/fuzz"
mkdir -p "$OUT/corpus"
SOURCES=("$ROOT/tests/fuzz/trace_reader_fuzzer.cc" "$ROOT/src/base/trace.cc")
for f in "$ROOT"/src/mrc/*.cc "$ROOT"/src/model/ghost_lru.cc "$ROOT"/src/model/krr_stack.cc; do
  case "$f" in *_test.cc) ;; *) SOURCES+=("$f") ;; esac
done
echo "fuzz: building $OUT/trace_reader_fuzzer" >&2
"$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$ROOT/include" -I"$ROOT/src" "${SOURCES[@]}" -lzstd -o "$OUT/trace_reader_fuzzer"
# Seeds: one per format (the first byte picks it; see the target).
printf '\x01%s' $'1\n2\n3\n1\n' > "$OUT/corpus/seed_txt"
printf '\x07%s' $'version,time,op,size,lbn\n1,2,R,512,77\n1,3,R,4096,78\n' > "$OUT/corpus/seed_csv"
printf '\x02%s' $'1,5,9,4096,0,default,0,12,1,0,3,4,100,0,1,20,7,0,18,24,4096\n' > "$OUT/corpus/seed_rocksdb"
printf '\xf0%s' $'0,q:q:1:8WTfjZU,19,42,1,get,0\n1,a,b,10,300,2,set,3600\n' > "$OUT/corpus/seed_twitter"
printf '\xf1%s' $'128166372003061629,hm,1,Read,3608576000,4096,1337\n' > "$OUT/corpus/seed_msr"
{ printf '\x01'; printf '1\n2\n3\n1\n' | zstd -q -c; } > "$OUT/corpus/seed_txt_zstd"
SHARED="$ROOT/../shared/traces"
if [ -d "$SHARED" ]; then
  { printf '\x00'; head -c 65536 "$SHARED/cloudPhysicsIO.oracleGeneral.bin"; } > "$OUT/corpus/seed_oracle"
  { printf '\x07'; head -c 65536 "$SHARED/cloudPhysicsIO.csv"; } > "$OUT/corpus/seed_cp_csv"
fi
cd "$OUT"
echo "fuzz: running for $SECONDS_TO_RUN s" >&2
./trace_reader_fuzzer -max_total_time="$SECONDS_TO_RUN" -max_len=70000 -print_final_stats=1 corpus
