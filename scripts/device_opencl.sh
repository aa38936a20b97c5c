#!/bin/bash
# device_opencl.sh -- run the OpenCL backend on the GPU machine: tests and benchmark vs CUDA.
#
#   scripts/device_opencl.sh [STEP...]      steps: icd bench test benchf32
#                                           (default: all four, in order)
#
# The NVIDIA driver there ships libnvidia-opencl.so.1 but no ICD file names it, so the loader
# only sees PoCL. Step "icd" writes an nvidia.icd (plus the system's PoCL one) into a folder and
# points OCL_ICD_VENDORS at it; the backend lists GPUs first, so device 0 is the H100/H200.
#
# Binaries: build-oclbin/ must hold test_backends and bench_opencl built on the dev machine with
# -DGPUSORT_CUDA=ON -DGPUSORT_OPENCL=ON -DCMAKE_CUDA_ARCHITECTURES=90 (pass it in `carry`), and
# lib/libOpenCL.so.1 in case the machine lacks the ICD loader: the device's time is then spent
# running, not compiling. Logs go to $OUT; a summary is printed last.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BIN=$ROOT/build-oclbin
STEPS=${*:-icd bench test benchf32}
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }

# The ICD loader itself: the system's, else the copy carried in build-oclbin/lib.
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
    timeout 60 "$BIN/bench_opencl" --sizes 24,28 --device-only > "$OUT/bench_u32.md" 2>&1
    note "bench_opencl u32 2^24,2^28: rc=$? ($(( $(date +%s) - t0 )) s)"
    grep -E "^\||device:" "$OUT/bench_u32.md" >> "$SUMMARY"
    ;;
  benchf32)
    t0=$(date +%s)
    timeout 25 "$BIN/bench_opencl" --type f32 --sizes 24,28 --device-only --no-bitonic \
        > "$OUT/bench_f32.md" 2>&1
    note "bench_opencl f32 2^24,2^28: rc=$? ($(( $(date +%s) - t0 )) s)"
    grep -E "^\||device:" "$OUT/bench_f32.md" >> "$SUMMARY"
    ;;
  test)
    # One process per key type, in parallel (16 cores for the CPU reference); every algorithm
    # (radix, bitonic; merge/rank must be refused), the quick size set up to 2^16 + 1.
    t0=$(date +%s)
    for t in u32 i32 f32 u64 i64 f64; do
      timeout 35 stdbuf -oL "$BIN/test_backends" --backend opencl --algorithm all --quick -v \
          --max-n 65537 --filter "$t/" \
          > "$OUT/test_$t.log" 2>&1 &
    done
    fails=0
    for j in $(jobs -p); do wait "$j" || fails=$((fails + 1)); done
    cat "$OUT"/test_*.log > "$OUT/test.log"
    note "test_backends --backend opencl --algorithm all --quick --max-n 65537 (6 types): $fails failing processes in $(( $(date +%s) - t0 )) s"
    note "cases: $(grep -c ': ok' "$OUT/test.log") ok, $(grep -c 'FAILED' "$OUT/test.log") FAILED"
    grep -E "^device|passed|FAIL|replay" "$OUT/test.log" | head -30 >> "$SUMMARY"
    ;;
  *) note "unknown step $step" ;;
  esac
done
echo "==== summary"
cat "$SUMMARY"
