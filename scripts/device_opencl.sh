#!/bin/bash
# device_opencl.sh -- run the OpenCL backend on the GPU machine: tests and benchmark vs CUDA.
#
#   scripts/device_opencl.sh [STEP...]      steps: icd test bench benchf32 ab tune
#                                           (default: icd test bench benchf32)
#
# The NVIDIA driver there ships libnvidia-opencl.so.1 but no ICD file names it, so the loader
# only sees PoCL. Step "icd" writes an nvidia.icd (plus the system's PoCL one) into a folder and
# points OCL_ICD_VENDORS at it; the backend lists GPUs first, so device 0 is the H100/H200.
#
# Binaries (built on the dev machine with -DGPUSORT_CUDA=ON -DGPUSORT_OPENCL=ON
# -DCMAKE_CUDA_ARCHITECTURES=90, so the device's time is spent running, not compiling):
# test_backends and bench_opencl, plus lib/libOpenCL.so.1 in case the machine lacks the ICD
# loader, and for step ab bench_opencl_before (and _mid: the same bench of earlier commits),
# either in .device-carry/opencl.txz (xz; or .tgz) -- unpacked to /tmp; pass
# .device-carry/opencl.txz in `carry` -- or in build-oclbin/. Logs go to $OUT; a summary is
# printed last.
#
#   test      test_backends --backend opencl, AUTO (= radix) and reduce, 6 types in parallel,
#             quick sizes to 2^16 + 1; the no-fp64 path (f32); every algorithm for u32; then
#             radix with 1 work-group per compute unit at 2^20 (several tiles per work-group)
#             for u32, f32 and u64, and reduce with 32 work-groups per compute unit (4224 on
#             an H200: thousands of tickets) for f32, i64, f64, at the default sizes to 2^20+1
#   bench     bench_opencl u32 at 2^24 and 2^28, data on the device, vs our CUDA backend, with
#             the radix pass's kernels timed one by one (--breakdown)
#   benchf32  reduce rows for f32 (no radix)
#   ab        bench_opencl_before, [bench_opencl_mid,] bench_opencl in turn (those named in $AB,
#             default all three): u32 radix + reduce,
#             u32 reduce, f32 reduce, 2^24 and 2^28: the same rows before and after a change,
#             each with its CUDA reference of the same process; and the PTX of the reduce
#             program
#   ab24      reduce rows only, u32 2^24, 3 rounds of each binary of $AB (default: mid after)
#   tune      the rows again with each setting of $TUNE (default: 2, 4, 16 reduce work-groups
#             per compute unit instead of 8; a radix setting times the radix rows)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BIN=$ROOT/build-oclbin
if [ -f "$ROOT/.device-carry/opencl.txz" ]; then
  BIN=/tmp/gpusort-oclbin
  mkdir -p "$BIN" && xz -dc "$ROOT/.device-carry/opencl.txz" | tar -xf - -C "$BIN"
elif [ -f "$ROOT/.device-carry/opencl.tgz" ]; then
  BIN=/tmp/gpusort-oclbin
  mkdir -p "$BIN" && tar -xzf "$ROOT/.device-carry/opencl.tgz" -C "$BIN"
fi
STEPS=${*:-icd test bench benchf32}
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }

# The ICD loader itself: the system's, else the copy carried in $BIN/lib.
ldconfig -p 2>/dev/null | grep -q libOpenCL.so.1 || export LD_LIBRARY_PATH=$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

ICD_DIR=/tmp/gpusort-icd
mkdir -p "$ICD_DIR"
cp /etc/OpenCL/vendors/*.icd "$ICD_DIR"/ 2>/dev/null
echo libnvidia-opencl.so.1 > "$ICD_DIR/nvidia.icd"
export OCL_ICD_VENDORS=$ICD_DIR

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/device.txt" 2>&1
note "device: $(cat "$OUT/device.txt")  date: $(date -u +%FT%TZ)"

for step in $STEPS; do
  case $step in
  icd)
    (command -v clinfo > /dev/null && clinfo -l) > "$OUT/clinfo.txt" 2>&1
    note "ICD files: $(ls "$ICD_DIR" | tr '\n' ' ')"
    note "clinfo -l: $(tr '\n' ' ' < "$OUT/clinfo.txt" | cut -c1-300)"
    ;;
  bench)
    t0=$(date +%s)
    timeout 60 "$BIN/bench_opencl" --sizes 24,28 --device-only --no-bitonic --breakdown \
        --dump-reduce "$OUT/reduce.ptx" > "$OUT/bench.md" 2>&1
    note "bench_opencl u32 2^24,2^28: rc=$? ($(( $(date +%s) - t0 )) s)"
    grep -E "^\||device:" "$OUT/bench.md" >> "$SUMMARY"
    # The fence before the ticket and the volatile reads of the partials, as compiled.
    note "reduce program PTX: $(cat "$OUT/reduce.ptx" 2>/dev/null |
          grep -oE "membar[.a-z]*|fence[.a-z]*|atom[.a-z0-9]*|ld[.a-z]*volatile[.a-z0-9]*" |
          sort | uniq -c | tr '\n' ' ')"
    ;;
  benchf32)
    t0=$(date +%s)
    timeout 40 "$BIN/bench_opencl" --type f32 --sizes 24,28 --device-only --no-bitonic \
        --no-radix >> "$OUT/bench.md" 2>&1
    note "bench_opencl f32 2^24,2^28: rc=$? ($(( $(date +%s) - t0 )) s)"
    grep -E "^\| (opencl|cuda)" "$OUT/bench.md" | grep f32 >> "$SUMMARY"
    ;;
  ab)
    # Order before/after, after/before, before/after: neither side always runs first. A third
    # binary bench_opencl_mid (an intermediate version), when carried, runs between them.
    t0=$(date +%s)
    : > "$OUT/ab.md"
    for run in "before mid after|" "after mid before|--no-radix" \
               "before mid after|--no-radix --type f32"; do
      args=${run#*|}
      for which in ${run%|*}; do
        exe=$BIN/bench_opencl extra=
        [ $which = after ] || exe=$BIN/bench_opencl_$which
        [ -x "$exe" ] || continue
        case " ${AB:-before mid after} " in *" $which "*) ;; *) continue ;; esac
        [ $which = after ] && [ -z "$args" ] && extra="--dump-reduce $OUT/reduce.ptx"
        timeout 60 "$exe" --sizes 24,28 --device-only --no-bitonic $args $extra \
            > "$OUT/ab1.md" 2>&1
        note "ab $which $args: rc=$?"
        { echo "## $which $args"; cat "$OUT/ab1.md"; } >> "$OUT/ab.md"
        grep -E "^\| (opencl|cuda)|WRONG|differs" "$OUT/ab1.md" >> "$SUMMARY"
      done
    done
    rm -f "$OUT/ab1.md"
    note "ab: $(( $(date +%s) - t0 )) s"
    # The fence before the ticket and the volatile reads of the partials, as compiled.
    note "reduce program PTX: $(cat "$OUT/reduce.ptx" 2>/dev/null |
          grep -oE "membar[.a-z]*|fence[.a-z]*|atom[.a-z0-9]*|ld[.a-z]*volatile[.a-z0-9]*" |
          sort | uniq -c | tr '\n' ' ')"
    ;;
  ab24)
    # Reduce only, u32 2^24 (where the fixed costs decide), 3 rounds of each binary of $AB
    # (default: mid after) in turn: more samples of the ratio's run-to-run spread.
    t0=$(date +%s)
    for round in 1 2 3; do
      for which in ${AB:-mid after}; do
        exe=$BIN/bench_opencl
        [ $which = after ] || exe=$BIN/bench_opencl_$which
        [ -x "$exe" ] || continue
        timeout 30 "$exe" --sizes 24 --device-only --no-bitonic --no-radix > "$OUT/ab1.md" 2>&1
        note "ab24 $which round $round: rc=$?"
        { echo "## ab24 $which round $round"; cat "$OUT/ab1.md"; } >> "$OUT/ab.md"
        grep -E "^\| (opencl|cuda)|WRONG|differs" "$OUT/ab1.md" >> "$SUMMARY"
      done
    done
    rm -f "$OUT/ab1.md"
    note "ab24: $(( $(date +%s) - t0 )) s"
    ;;
  tune)
    # One setting per run: radix work-groups per compute unit (OpenCL rows, 2^24 and 2^28), or
    # the reduce grid (reduce rows with their CUDA reference).
    for cfg in ${TUNE:-GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU=2 GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU=4 GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU=16}; do
      sizes=24,28 extra="--no-cuda" rows=4
      case $cfg in *REDUCE*) extra="--no-radix" ;; esac
      t0=$(date +%s)
      echo "## $cfg" >> "$OUT/bench.md"
      env "$cfg" timeout 40 "$BIN/bench_opencl" --sizes $sizes --device-only --no-bitonic \
          $extra > "$OUT/tune1.md" 2>&1
      note "$cfg: rc=$? ($(( $(date +%s) - t0 )) s)"
      cat "$OUT/tune1.md" >> "$OUT/bench.md"
      grep -E "^\| (opencl|cuda)|WRONG|differs" "$OUT/tune1.md" | tail -$rows >> "$SUMMARY"
      rm -f "$OUT/tune1.md"
    done
    ;;
  test)
    t0=$(date +%s)
    for t in u32 i32 f32 u64 i64 f64; do
      timeout 45 stdbuf -oL "$BIN/test_backends" --backend opencl --quick -v \
          --max-n 65537 --filter "$t/" > "$OUT/test_$t.log" 2>&1 &
    done
    GPUSORT_OPENCL_NO_FP64=1 timeout 45 stdbuf -oL "$BIN/test_backends" --backend opencl \
        --quick -v --max-n 65537 --filter f32/ > "$OUT/test_nofp64.log" 2>&1 &
    timeout 45 stdbuf -oL "$BIN/test_backends" --backend opencl --algorithm all --quick -v \
        --max-n 65537 --filter u32/ > "$OUT/test_all_u32.log" 2>&1 &
    fails=0
    for j in $(jobs -p); do wait "$j" || fails=$((fails + 1)); done
    for t in u32 f32 u64; do
      GPUSORT_OPENCL_RADIX_GROUPS_PER_CU=1 timeout 45 stdbuf -oL "$BIN/test_backends" \
          --backend opencl -v --filter "$t/" > "$OUT/test_g1_$t.log" 2>&1 &
    done
    for t in f32 i64 f64; do
      GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU=32 timeout 45 stdbuf -oL "$BIN/test_backends" \
          --backend opencl -v --filter "$t/" > "$OUT/test_r32_$t.log" 2>&1 &
    done
    for j in $(jobs -p); do wait "$j" || fails=$((fails + 1)); done
    cat "$OUT"/test_*.log > "$OUT/test.log"
    rm -f "$OUT"/test_*.log
    note "test_backends --backend opencl (6 types quick to 65537, no-fp64 f32, all algorithms u32; radix 1 group/CU u32 f32 u64, reduce 32 groups/CU f32 i64 f64 to 2^20+1): $fails failing processes in $(( $(date +%s) - t0 )) s"
    note "cases: $(grep -c ': ok' "$OUT/test.log") ok, $(grep -c 'FAILED' "$OUT/test.log") FAILED"
    grep -E "^device|passed|FAIL|replay|rror" "$OUT/test.log" | head -40 >> "$SUMMARY"
    ;;
  *) note "unknown step $step" ;;
  esac
done
echo "==== summary"
cat "$SUMMARY"
