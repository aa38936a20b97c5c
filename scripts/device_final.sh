#!/usr/bin/env bash
# device_final.sh -- the lead's one combined run on the GPU machine, on the integrated tree
# (budget-bound: every step has a time limit). Binaries are built elsewhere (same nvcc 13.0,
# sm_90: `cmake -S . -B build-final -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90`) and carried in
# .device-carry/bin.txz (xz: the binaries share one library fatbin, which xz's window dedupes):
# test_backends, bench_cuda, bench_opencl, gpusort, and the variant pair test_backends_packed /
# bench_cuda_packed (radix.cu built with -DGPUSORT_RADIX_PACK_ALL=1); .device-carry/COMMIT.
#
#   A. correctness, in parallel (limit ~150 s): test_backends on CUDA for the six key types
#      (AUTO: bitonic/rank/radix by n; host and device pointers, segmented and batch), every
#      algorithm on u32 and f64 (--quick, n <= 70000), OpenCL on the NVIDIA driver (every
#      algorithm, --quick, n <= 65537), test_api, and compute-sanitizer memcheck, synccheck and
#      racecheck on small cases (racecheck one process per algorithm: it is slow).
#   B. bench_cuda, every suite (radix, reduce, host, seeds), CSV + JSON (limit ~260 s).
#   C. bench_opencl u32 and f32 at 2^24 and 2^28 against our CUDA backend (limit ~70 s).
#   D. A/B of the radix variant: the six key rows at 2^28, default and packed interleaved.
# Logs under $OUT; a summary last.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/fb
cd "$(dirname "$0")/.."
S=$OUT/summary.txt
note() { echo "$*" | tee -a "$S"; }
xz -dc .device-carry/bin.txz | tar xf - -C /tmp/fb
B=/tmp/fb
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/device.txt" 2>&1
note "device: $(cat "$OUT/device.txt"); $(nproc) cores; $(date -u +%FT%TZ); commit $(cat .device-carry/COMMIT 2>/dev/null)"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
L=${LIMIT_A:-170}

# ---- A: correctness on the GPU and sanitizers, in parallel ----
t0=$(date +%s)
mkdir -p "$OUT/logs"
for t in u32 i32 f32 u64 i64 f64; do
  timeout $L "$B/test_backends" --backend cuda --filter "$t/" > "$OUT/logs/cuda_$t.log" 2>&1 &
done
for t in u32 f64; do
  timeout $L "$B/test_backends" --backend cuda --algorithm all --quick --max-n 70000 \
      --filter "$t/" > "$OUT/logs/cuda_all_$t.log" 2>&1 &
done
for t in u32 f64; do
  timeout $L "$B/test_backends" --backend opencl --algorithm all --quick --max-n 65537 \
      --filter "$t/" > "$OUT/logs/opencl_nv_$t.log" 2>&1 &
done
for t in 32 64; do
  timeout $L "$B/test_backends_packed" --backend cuda --algorithm radix --quick --filter "$t/" \
      > "$OUT/logs/cuda_packed_radix_$t.log" 2>&1 &
done
timeout $L compute-sanitizer --tool memcheck --error-exitcode 3 "$B/test_backends_packed" \
    --backend cuda --algorithm radix --quick --max-n 20000 --filter u32/ > "$OUT/logs/san_memcheck_packed.log" 2>&1 &
for tool in memcheck synccheck; do
  timeout $L compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_backends" --backend cuda \
      --algorithm all --quick --max-n 5000 --filter u32/uniform > "$OUT/logs/san_$tool.log" 2>&1 &
done
for alg in radix merge bitonic rank; do
  timeout $L compute-sanitizer --tool racecheck --error-exitcode 3 "$B/test_backends" \
      --backend cuda --algorithm $alg --quick --max-n 2100 --filter u32/uniform \
      > "$OUT/logs/san_racecheck_$alg.log" 2>&1 &
done
# Larger single sorts through the CLI (host data, so the device path of each algorithm runs past
# its tile size: merge passes above 8192/32768 keys, bitonic merges above 4096/8192, radix
# look-back over many tiles), under racecheck and memcheck, each output checked.
mkdir -p /tmp/san
san_sort() {  # tool name type n algorithm [extra sort args]
  local tool=$1 name=$2 type=$3 n=$4 alg=$5; shift 5
  local d=/tmp/san/$tool-$name
  mkdir -p "$d"
  "$B/gpusort" gen --type "$type" --n "$n" --seed 7 -o "$d/in" &&
    "$B/gpusort" gen --type u32 --n "$n" --dist sorted -o "$d/vals" 2>/dev/null
  timeout $L compute-sanitizer --tool "$tool" --error-exitcode 3 "$B/gpusort" sort "$d/in" \
      -o "$d/out" --type "$type" --backend cuda --algorithm "$alg" "$@" > "$OUT/logs/cli_$tool-$name.log" 2>&1
  echo "sort rc=$?" >> "$OUT/logs/cli_$tool-$name.log"
  "$B/gpusort" check "$d/out" --type "$type" $( [[ " $* " == *" -r "* ]] && echo --desc ) \
      >> "$OUT/logs/cli_$tool-$name.log" 2>&1
  echo "check rc=$?" >> "$OUT/logs/cli_$tool-$name.log"
}
for tool in racecheck memcheck; do
  san_sort $tool radix-u32 u32 300000 radix &
  san_sort $tool radix-u64-pairs u64 100000 radix --values /tmp/san/$tool-radix-u64-pairs/vals --values-out /tmp/san/$tool-radix-u64-pairs/vout &
  san_sort $tool merge-u32 u32 70000 merge &
  san_sort $tool merge-f64 f64 20000 merge -r &
  san_sort $tool merge-u32-pairs u32 40000 merge --values /tmp/san/$tool-merge-u32-pairs/vals --values-out /tmp/san/$tool-merge-u32-pairs/vout &
  san_sort $tool bitonic-u32 u32 70000 bitonic &
  san_sort $tool bitonic-f32 f32 20000 bitonic -r &
  san_sort $tool bitonic-u32-pairs u32 20000 bitonic --values /tmp/san/$tool-bitonic-u32-pairs/vals --values-out /tmp/san/$tool-bitonic-u32-pairs/vout &
  san_sort $tool rank-u32 u32 6000 rank &
done
wait
note "A (tests, sanitizers) took $(( $(date +%s) - t0 )) s"
for f in "$OUT"/logs/cuda_*.log "$OUT"/logs/opencl_nv_*.log; do
  note "$(basename "$f"): $(grep -E '^[0-9]+ passed' "$f" | tail -1) [$(grep -c '^FAIL' "$f") FAIL lines]"
done
for f in "$OUT"/logs/cli_*.log; do
  note "$(basename "$f" .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) $(grep -E '^(sort|check) rc' "$f" | tr '\n' ' ')"
done
for f in "$OUT"/logs/san_*.log; do
  note "$(basename "$f"): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) / $(grep -E '^[0-9]+ passed' "$f" | tail -1)"
done

# ---- B: bench_cuda, every suite ----
t0=$(date +%s)
timeout ${LIMIT_B:-235} "$B/bench_cuda" --csv "$OUT/bench.csv" --json "$OUT/bench.json" \
    > "$OUT/bench.log" 2>&1
note "B: bench_cuda (all suites): rc=$? in $(( $(date +%s) - t0 )) s"
grep -E "^\|" "$OUT/bench.log" | head -40 >> "$S"

# ---- C: OpenCL on the NVIDIA driver vs our CUDA ----
t0=$(date +%s)
timeout ${LIMIT_C:-45} "$B/bench_opencl" --sizes 24,28 --device-only --no-bitonic \
    > "$OUT/bench_opencl_u32.log" 2>&1
note "C: bench_opencl u32 2^24,2^28: rc=$?"
timeout ${LIMIT_C:-45} "$B/bench_opencl" --type f32 --sizes 24,28 --device-only --no-bitonic \
    > "$OUT/bench_opencl_f32.log" 2>&1
note "C: bench_opencl f32 2^24,2^28: rc=$? ($(( $(date +%s) - t0 )) s for C)"
# ---- D: radix variant A/B, same data, interleaved ----
t0=$(date +%s)
: > "$OUT/logs/ab.log"
for round in 1 2; do
  for row in keys:u32:28 keys:i32:28 keys:f32:28 keys:u64:28 keys:f64:28 pairs32:u32:28; do
    for b in bench_cuda bench_cuda_packed; do
      echo "== $b $row round $round" >> "$OUT/logs/ab.log"
      timeout 30 "$B/$b" --only $row >> "$OUT/logs/ab.log" 2>&1
    done
  done
  [ $(( $(date +%s) - t0 )) -gt ${LIMIT_D:-90} ] && break
done
grep -E "^==|^radix" "$OUT/logs/ab.log" | paste - - | sed -E 's/ +/ /g' | cut -c1-200 >> "$S"
note "D: A/B took $(( $(date +%s) - t0 )) s"
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
echo; echo "==== summary"; cat "$S"
