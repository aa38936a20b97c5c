#!/usr/bin/env bash
# radix_device.sh -- the device runs behind bench/results/radix-2026-11-25.md (issue 18, the
# radix part): build the sm_90 Release binaries the radix work needs, then the steps named on
# the command line, each under a time limit, logs and CSVs in $OUT (default ./out/radix).
#   build                 cmake + ninja bench_cuda test_backends gpusort (build-radix/)
#   test                  test_backends --backend cuda --algorithm radix, every type, at the
#                         sizes around the 8-bit and 11-bit tile boundaries (every distribution)
#                         and the default --quick sizes; the 8-bit path once (knob) for u32/u64
#   san                   compute-sanitizer memcheck and racecheck of gpusort sort (radix) of
#                         multi-tile u32 keys and u64 keys + u64 values, output checked
#   bench ROUNDS          bench_cuda --sweep 28 (every headline variant, uniform 2^28) with
#                         GPUSORT_CUDA_RADIX_BITS=8 and =11 in alternating processes
#   sizes                 bench_cuda --sweep 16,18,20,22,24,26 and --only keys:u32:30, both knobs
#   hints ROUNDS          the cache-hint experiment (see step_hints)
# Key lines are echoed to stdout (the device tool returns only 8 files).
set -u
OUT=${OUT:-out/radix}
mkdir -p "$OUT"
B=${B:-build-radix}
SIZES=2303,2304,2305,3071,3072,3073,4607,4608,4609,6143,6144,6145,7679,7680,7681,9215,9216,9217,18433,36865,100003

step_build() {
  local t0=$SECONDS
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGPUSORT_OPENCL=OFF > "$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; return 1; }
  timeout 330 ninja -C "$B" -j16 bench_cuda test_backends gpusort_cli > "$OUT/build.log" 2>&1 ||
    { grep -B2 -A10 -m3 error "$OUT/build.log" | head -60; tail -5 "$OUT/build.log"; return 1; }
  echo "build: ok ($((SECONDS - t0)) s)"
}

step_test() {
  local t0=$SECONDS pids=()
  for t in u32 i32 f32 u64 i64 f64; do
    timeout 100 "$B/tests/test_backends" --backend cuda --algorithm radix --sizes "$SIZES" \
      --filter "$t/" > "$OUT/test-sizes-$t.log" 2>&1 &
    pids+=($!)
  done
  for t in u32 f64; do
    timeout 100 "$B/tests/test_backends" --backend cuda --algorithm radix --quick \
      --filter "$t/" > "$OUT/test-quick-$t.log" 2>&1 &
    pids+=($!)
  done
  GPUSORT_CUDA_RADIX_BITS=8 timeout 100 "$B/tests/test_backends" --backend cuda --algorithm radix \
    --quick --filter "u64/" > "$OUT/test-quick8-u64.log" 2>&1 &
  pids+=($!)
  for p in "${pids[@]}"; do wait "$p" || echo "test: a run exited $?"; done
  for f in "$OUT"/test-*.log; do echo "$(basename "$f"): $(tail -1 "$f")"; done
  grep -h "FAIL" "$OUT"/test-*.log | head -10
  echo "test: $((SECONDS - t0)) s"
}

step_san() {
  local d=/tmp/radix-san g=$B/tools/gpusort
  [ -x "$g" ] || g=$(find "$B" -name gpusort -type f -perm -u+x | head -1)
  mkdir -p $d
  "$g" gen --type u32 --n 100000 --dist uniform --seed 7 -o $d/k32 &&
  "$g" gen --type u64 --n 60000 --dist uniform --seed 7 -o $d/k64 &&
  "$g" gen --type u64 --n 60000 --dist index -o $d/v64 || { echo "san: gen failed"; return 1; }
  for tool in memcheck racecheck; do
    timeout 75 compute-sanitizer --tool $tool --error-exitcode 3 "$g" sort $d/k32 -o $d/o32 \
      --type u32 --backend cuda --algorithm radix -q > "$OUT/san-$tool-u32.log" 2>&1
    echo "san $tool u32 100000: rc $? $(tail -1 "$OUT/san-$tool-u32.log"); check: $("$g" check $d/o32 --type u32 >/dev/null 2>&1 && echo ok || echo FAILED)"
    timeout 75 compute-sanitizer --tool $tool --error-exitcode 3 "$g" sort $d/k64 -o $d/o64 \
      --type u64 --values $d/v64 --values-out $d/ov64 --backend cuda --algorithm radix -q \
      > "$OUT/san-$tool-u64.log" 2>&1
    echo "san $tool u64+u64 60000: rc $? $(tail -1 "$OUT/san-$tool-u64.log"); check: $("$g" check $d/o64 --type u64 >/dev/null 2>&1 && echo ok || echo FAILED)"
  done
}

step_bench() {
  local rounds=${1:-1} r bits
  for r in $(seq 1 "$rounds"); do
    for bits in 8 11; do
      GPUSORT_CUDA_RADIX_BITS=$bits timeout 100 "$B/bench/bench_cuda" --suite radix --sweep 28 \
        --csv "$OUT/head-$bits-$r.csv" > "$OUT/head-$bits-$r.log" 2>&1
      echo "== bits $bits round $r (rc $?)"
      sed -n 's/^radix  *//p' "$OUT/head-$bits-$r.log" | cut -c1-120
    done
  done
}

# hints ROUNDS: the 2^28 u32 keys, u64 keys and u32/u32 pairs rows (bench_cuda --only) with
# GPUSORT_CUDA_RADIX_HINTS=0..3 (the cache-hint experiment of commit 'radix: cache-hint
# experiment'), rows and knob values alternating, ROUNDS rounds.
step_hints() {
  local rounds=${1:-1} r h row
  for r in $(seq 1 "$rounds"); do
    for row in ${HINT_ROWS:-keys:u32:28 keys:u64:28 pairs32:u32:28}; do
      for h in ${HINT_VALUES:-0 1 2 3 0}; do
        GPUSORT_CUDA_RADIX_HINTS=$h timeout 40 "$B/bench/bench_cuda" --only "$row" \
          --csv "$OUT/hints-$h-$row-$r-$SECONDS.csv" > "$OUT/hints.log.tmp" 2>&1
        echo "hints $h round $r: $(sed -n 's/^radix  *//p' "$OUT/hints.log.tmp" | cut -c1-112)"
      done
    done
  done
  rm -f "$OUT/hints.log.tmp"
}

step_sizes() {
  local bits
  for bits in 8 11; do
    GPUSORT_CUDA_RADIX_BITS=$bits timeout 120 "$B/bench/bench_cuda" --suite radix \
      --sweep 16,18,20,22,24,26 --csv "$OUT/sizes-$bits.csv" > "$OUT/sizes-$bits.log" 2>&1
    GPUSORT_CUDA_RADIX_BITS=$bits timeout 60 "$B/bench/bench_cuda" --only keys:u32:30 \
      --csv "$OUT/u32-30-$bits.csv" >> "$OUT/sizes-$bits.log" 2>&1
    echo "== sizes, bits $bits"
    sed -n 's/^radix  *//p' "$OUT/sizes-$bits.log" | grep -E "keys  *u(32|64)|pairs/u32  *u32|pairs/u64  *u64" | cut -c1-100
  done
}

# LIMIT (seconds, default 430): a step that would start later is skipped (the device call's limit).
while [ $# -gt 0 ]; do
  step=$1; shift
  if [ "$SECONDS" -gt "${LIMIT:-430}" ]; then echo "$step: skipped (${SECONDS} s used)"; continue; fi
  case $step in
    build) step_build || exit 1 ;;
    test) step_test ;;
    san) step_san ;;
    bench) if [[ ${1:-} =~ ^[0-9]+$ ]]; then step_bench "$1"; shift; else step_bench 1; fi ;;
    sizes) step_sizes ;;
    hints) if [[ ${1:-} =~ ^[0-9]+$ ]]; then step_hints "$1"; shift; else step_hints 1; fi ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
