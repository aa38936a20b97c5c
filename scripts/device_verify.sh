#!/usr/bin/env bash
# device_verify.sh -- a short correctness pass on the GPU machine for the integrated tree (the
# second call of a session whose device_final.sh run oversubscribed the 16 cores: 30 test and
# sanitizer processes at once ran out of their time limits). Fewer processes, --quick sizes:
#   test_backends on CUDA for the six key types (AUTO: bitonic/rank/radix by n, host and device
#   pointers, segmented and batch), every algorithm on u32 and f64 (n <= 70000), OpenCL on the
#   NVIDIA driver (every algorithm, u32, n <= 65537); memcheck of the radix tests (n <= 20000);
#   racecheck and memcheck of single CLI sorts (rank 6000 keys, radix 300000); then the radix
#   headline rows and the seeds rank rows of bench_cuda.
# Binaries as for device_final.sh (.device-carry/bin.txz: test_backends, bench_cuda, gpusort).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/logs" /tmp/fb /tmp/san
cd "$(dirname "$0")/.."
S=$OUT/summary.txt
note() { echo "$*" | tee -a "$S"; }
xz -dc .device-carry/bin.txz | tar xf - -C /tmp/fb
B=/tmp/fb
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(date -u +%FT%TZ); commit $(cat .device-carry/COMMIT)"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
L=${LIMIT_A:-200}
t0=$(date +%s)
for t in u32 i32 f32 u64 i64 f64; do
  timeout $L "$B/test_backends" --backend cuda --quick --filter "$t/" > "$OUT/logs/cuda_$t.log" 2>&1 &
done
for t in u32 f64; do
  timeout $L "$B/test_backends" --backend cuda --algorithm all --quick --max-n 70000 \
      --filter "$t/" > "$OUT/logs/cuda_all_$t.log" 2>&1 &
done
timeout $L "$B/test_backends" --backend opencl --algorithm all --quick --max-n 65537 \
    --filter u32/ > "$OUT/logs/opencl_nv_u32.log" 2>&1 &
timeout $L compute-sanitizer --tool memcheck --error-exitcode 3 "$B/test_backends" --backend cuda \
    --algorithm radix --quick --max-n 20000 --filter u32/ > "$OUT/logs/san_memcheck_radix.log" 2>&1 &
( "$B/gpusort" gen --type u32 --n 6000 --seed 7 -o /tmp/san/rank.in &&
  timeout $L compute-sanitizer --tool racecheck --error-exitcode 3 "$B/gpusort" sort /tmp/san/rank.in \
      -o /tmp/san/rank.out --type u32 --backend cuda --algorithm rank > "$OUT/logs/cli_racecheck_rank.log" 2>&1
  echo "sort rc=$?" >> "$OUT/logs/cli_racecheck_rank.log"
  "$B/gpusort" check /tmp/san/rank.out --type u32 >> "$OUT/logs/cli_racecheck_rank.log" 2>&1
  echo "check rc=$?" >> "$OUT/logs/cli_racecheck_rank.log" ) &
( "$B/gpusort" gen --type u32 --n 300000 --seed 7 -o /tmp/san/radix.in &&
  for tool in racecheck memcheck; do
    timeout $L compute-sanitizer --tool $tool --error-exitcode 3 "$B/gpusort" sort /tmp/san/radix.in \
        -o /tmp/san/radix.out --type u32 --backend cuda --algorithm radix > "$OUT/logs/cli_${tool}_radix.log" 2>&1
    echo "sort rc=$?" >> "$OUT/logs/cli_${tool}_radix.log"
    "$B/gpusort" check /tmp/san/radix.out --type u32 >> "$OUT/logs/cli_${tool}_radix.log" 2>&1
    echo "check rc=$?" >> "$OUT/logs/cli_${tool}_radix.log"
  done ) &
wait
note "tests took $(( $(date +%s) - t0 )) s"
for f in "$OUT"/logs/cuda_*.log "$OUT"/logs/opencl_nv_*.log; do
  note "$(basename "$f"): $(grep -E '^[0-9]+ passed' "$f" | tail -1) [$(grep -c '^FAIL' "$f") FAIL lines; types done: $(grep -cE '^[a-z0-9]+: [0-9]+ passed' "$f")]"
done
for f in "$OUT"/logs/san_*.log "$OUT"/logs/cli_*.log; do
  note "$(basename "$f" .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) $(grep -E '^[0-9]+ passed|^(sort|check) rc' "$f" | tr '\n' ' ')"
done
t0=$(date +%s)
for row in keys:u32:28 keys:i32:28 keys:f32:28 keys:u64:28 keys:f64:28 pairs32:u32:28; do
  timeout 30 "$B/bench_cuda" --only $row >> "$OUT/logs/bench_rows.log" 2>&1
done
timeout 40 "$B/bench_cuda" --suite seeds --only rank >> "$OUT/logs/bench_rows.log" 2>&1
grep -E "^radix|^rank" "$OUT/logs/bench_rows.log" | sed -E 's/ +/ /g' >> "$S"
note "bench rows took $(( $(date +%s) - t0 )) s"
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
echo "==== summary"; cat "$S"
