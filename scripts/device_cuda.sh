#!/bin/bash
# device_cuda.sh -- build, test, sanitize and benchmark the CUDA backend on the GPU machine.
#
#   scripts/device_cuda.sh [STEP...]     steps: build test sanitize big bench benchquick ncu tune
#                                         (default: build test sanitize benchquick)
#
# Logs go to $OUT (the device tool brings them back); a short summary is printed last.
# Binaries: if build-cudabin/ holds bench_cuda, test_backends and test_big built elsewhere
# (same nvcc, sm_90), "build" uses them and saves the device's time; otherwise it configures
# with -DGPUSORT_OPENCL=OFF -DCMAKE_CUDA_ARCHITECTURES=90 in /tmp/build and builds with ninja.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
STEPS=${*:-build test sanitize benchquick}
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv \
    > "$OUT/device.txt" 2>&1
note "device: $(tail -1 "$OUT/device.txt")  date: $(date -u +%FT%TZ)"

BIN=$ROOT/build-cudabin
# Prebuilt binaries may also travel compressed (the device tool carries at most 64 MiB).
if [ -f "$ROOT/build-cudapack/bin.tgz" ]; then
  mkdir -p "$BIN" && tar xzf "$ROOT/build-cudapack/bin.tgz" -C "$BIN"
fi
for step in $STEPS; do
  case $step in
  build)
    if [ -x "$BIN/bench_cuda" ] && [ -x "$BIN/test_backends" ]; then
      note "build: using prebuilt binaries in build-cudabin/"
    else
      t0=$(date +%s)
      cmake -S . -B /tmp/build -G Ninja -DGPUSORT_OPENCL=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
          > "$OUT/build.log" 2>&1 &&
        ninja -C /tmp/build -j16 bench_cuda test_backends test_big >> "$OUT/build.log" 2>&1
      rc=$?
      note "build: rc=$rc in $(( $(date +%s) - t0 )) s"
      [ $rc -eq 0 ] || { tail -30 "$OUT/build.log"; exit 1; }
      mkdir -p "$BIN"
      cp /tmp/build/bench/bench_cuda /tmp/build/tests/test_backends /tmp/build/tests/test_big "$BIN/"
    fi
    ;;
  test)
    # One process per key type, in parallel (16 cores for the CPU reference).
    t0=$(date +%s)
    for t in u32 i32 f32 u64 i64 f64; do
      "$BIN/test_backends" --backend cuda --filter "$t/" > "$OUT/test_$t.log" 2>&1 &
    done
    # Host arrays in runs of at most 50000 keys (sorted on the GPU, merged on the CPU).
    for t in u32 f64; do
      GPUSORT_CUDA_HOST_RUN_KEYS=50000 "$BIN/test_backends" --backend cuda --filter "$t/" \
          > "$OUT/test_runs_$t.log" 2>&1 &
    done
    # The radix sort built with 24576-key portions (-DGPUSORT_RADIX_PORTION_LOG2=15): the
    # multi-portion path (n > 2^27) at test sizes.
    if [ -x "$BIN/test_backends_portions" ]; then
      for t in u32 u64; do
        "$BIN/test_backends_portions" --backend cuda --filter "$t/" > "$OUT/test_portions_$t.log" 2>&1 &
      done
    fi
    fails=0
    for j in $(jobs -p); do wait "$j" || fails=$((fails + 1)); done
    cat "$OUT"/test_*.log > "$OUT/test.log"; rm -f "$OUT"/test_*.log
    note "test_backends --backend cuda (6 types, + u32 f64 in host runs of 50000, + u32 u64 small portions): $fails failing processes in $(( $(date +%s) - t0 )) s"
    grep -E "passed|failed|FAIL|skipped" "$OUT/test.log" | tail -20 | tee -a "$SUMMARY"
    ;;
  sanitize)
    t0=$(date +%s)
    : > "$OUT/sanitize.log"
    for tool in memcheck racecheck synccheck; do
      compute-sanitizer --tool $tool --error-exitcode 3 "$BIN/test_backends" --backend cuda \
          --quick --max-n 20000 --filter u32/uniform >> "$OUT/sanitize.log" 2>&1
      note "compute-sanitizer $tool (test_backends --quick --max-n 20000 --filter u32/uniform): rc=$?"
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize.log" | tail -1 | tee -a "$SUMMARY"
    done
    compute-sanitizer --tool memcheck --error-exitcode 3 "$BIN/test_backends" --backend cuda \
        --quick --max-n 20000 --filter u64/ >> "$OUT/sanitize.log" 2>&1
    note "compute-sanitizer memcheck (--filter u64/): rc=$?  ($(( $(date +%s) - t0 )) s in all)"
    ;;
  tune)
    # Tile-shape variants (bench_cuda_V* built with other GPUSORT_RADIX_* values), same data.
    : > "$OUT/tune.log"
    for b in "$BIN"/bench_cuda "$BIN"/bench_cuda_V*; do
      [ -x "$b" ] || continue
      for cfg in keys:u32:26 keys:u64:26 pairs32:u32:26 pairs64:u64:26; do
        echo "== $(basename "$b") $cfg" >> "$OUT/tune.log"
        "$b" --only "$cfg" >> "$OUT/tune.log" 2>&1
      done
    done
    grep -E "^==|^radix" "$OUT/tune.log" | paste - - | sed -E 's/ +/ /g' | cut -c1-170 |
      tee -a "$SUMMARY" > /dev/null
    ;;
  big)
    t0=$(date +%s)
    GPUSORT_BIG_TESTS=1 timeout 300 "$BIN/test_big" --backend cuda > "$OUT/big.log" 2>&1
    note "test_big --backend cuda (n = 2^32 + 1234): rc=$? in $(( $(date +%s) - t0 )) s"
    tail -5 "$OUT/big.log" | tee -a "$SUMMARY"
    ;;
  benchquick)
    "$BIN/bench_cuda" --quick --csv "$OUT/bench.csv" --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
    note "bench_cuda --quick: rc=$?"
    grep -E "^\|" "$OUT/bench.log" | tee -a "$SUMMARY" > /dev/null
    ;;
  bench)
    "$BIN/bench_cuda" --csv "$OUT/bench.csv" --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
    note "bench_cuda (full): rc=$?"
    grep -E "^\|" "$OUT/bench.log" | tee -a "$SUMMARY" > /dev/null
    ;;
  ncu)
    # Per-kernel device time of ours and CUB's for u32 keys at 2^24 (one timed run).
    ncu --metrics gpu__time_duration.sum "$BIN/bench_cuda" --only keys:u32:24 --runs 1 \
        > "$OUT/ncu.log" 2>&1
    note "ncu: rc=$?"
    grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" "$OUT/ncu.log" | paste - - |
      sed -E 's/ +/ /g' | cut -c1-160 | head -60 | tee -a "$SUMMARY" > /dev/null
    ;;
  *) note "unknown step $step" ;;
  esac
done
echo "==== summary"
cat "$SUMMARY"
