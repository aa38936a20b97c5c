#!/bin/bash
# device_radix.sh -- test and benchmark variants of the CUDA radix sort on the GPU machine, from
# binaries built elsewhere (same nvcc, sm_90) and carried in .device-carry/radix.tgz:
#   test_backends       the library as committed (or about to be)
#   bench_<VARIANT>...  bench_cuda linked with radix.cu built with other -D tuning flags
#
#   scripts/device_radix.sh [test] [sanitize] [bench "ROWS"] ...
#     test      test_backends --backend cuda --algorithm radix --quick (all types), and the
#               portion-boundary build (test_backends_portions) on u32/ and u64/ if carried
#     sanitize  compute-sanitizer memcheck on a small filter
#     ncu ROW   per-kernel times (ncu) of bench_A for one --only row, ours and CUB's
#     ncudetail ROW  occupancy, registers, stalls of the first onesweep kernel, ours and CUB's
#     sass      SASS of our onesweep kernels (radix.cu.o) and CUB's keys-only onesweep
#     bench     every bench_* binary, each --only row of ROWS (default: the 2^28 headline rows),
#               variants interleaved row by row so that all see the same machine state
# Logs go to $OUT; summary.txt holds the lines that matter.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=/tmp/radixbin
mkdir -p $B && tar xzf "$ROOT/.device-carry/radix.tgz" -C $B || exit 1
S=$OUT/summary.txt
: > "$S"
note() { echo "$*" | tee -a "$S"; }
note "device: $(nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader)  $(date -u +%FT%TZ)"
ROWS_DEFAULT="keys:u32:28 keys:f32:28 keys:u64:28 pairs32:u32:28 pairs64:u64:27 argsort:f32:28"
while [ $# -gt 0 ]; do
  case $1 in
  test)
    t0=$(date +%s)
    $B/test_backends --backend cuda --algorithm radix --quick > "$OUT/test.log" 2>&1
    note "test_backends --backend cuda --algorithm radix --quick: rc=$? ($(( $(date +%s) - t0 )) s)"
    grep -E "passed|failed|FAIL" "$OUT/test.log" | tail -5 | tee -a "$S"
    if [ -x $B/test_backends_portions ]; then
      for t in u32 u64; do
        $B/test_backends_portions --backend cuda --algorithm radix --quick --filter $t/ >> "$OUT/test.log" 2>&1
        note "portions build, $t/: rc=$?"
      done
      grep -E "passed|failed|FAIL" "$OUT/test.log" | tail -2 | tee -a "$S"
    fi
    shift ;;
  sanitize)
    compute-sanitizer --tool memcheck --error-exitcode 3 $B/test_backends --backend cuda \
        --algorithm radix --quick --max-n 20000 --filter u32/ > "$OUT/sanitize.log" 2>&1
    note "compute-sanitizer memcheck (radix --quick --max-n 20000 --filter u32/): rc=$?"
    compute-sanitizer --tool memcheck --error-exitcode 3 $B/test_backends --backend cuda \
        --algorithm radix --quick --max-n 20000 --filter u64/ >> "$OUT/sanitize.log" 2>&1
    note "compute-sanitizer memcheck (--filter u64/): rc=$?"
    grep -E "ERROR SUMMARY" "$OUT/sanitize.log" | tee -a "$S"
    shift ;;
  bench)
    rows=${2:-$ROWS_DEFAULT}
    shift; [ $# -gt 0 ] && shift
    for r in $rows; do
      for b in $B/bench_*; do
        v=${b##*/bench_}
        line=$("$b" --only "$r" --runs 7 2>&1 | grep -E "^radix" | head -1)
        echo "$v $line" >> "$OUT/bench.log"
        note "$(printf '%-8s' "$v") $(echo "$line" | sed -e 's/ Gkeys.*| cub/ | cub/' -e 's/| thrust.*| /| /')"
      done
    done ;;
  ncu)
    # Per-kernel times of ours and CUB's (bench_A, u32 keys 2^24, one timed run; ncu serialises
    # kernels and fixes clocks: compare ratios only).
    ncu --metrics gpu__time_duration.sum --launch-count 60 \
        -k 'regex:hist_kernel|scan_kernel|onesweep_kernel|Onesweep|Histogram|ExclusiveSum' \
        $B/bench_A --only ${2:-keys:u32:24} --runs 1 > "$OUT/ncu.log" 2>&1
    note "ncu ${2:-keys:u32:24}: rc=$?"
    awk '/Context/ { k = "?"; if (match($0, /[A-Za-z_]*(hist_kernel|scan_kernel|onesweep_kernel<[^>]*>|Onesweep[A-Za-z]*|Histogram[A-Za-z]*|ExclusiveSum[A-Za-z]*)/)) k = substr($0, RSTART, RLENGTH) }
         /gpu__time_duration.sum/ { print k, $(NF-1), $NF }' \
        "$OUT/ncu.log" | tee -a "$S"
    shift; [ $# -gt 0 ] && shift ;;
  ncudetail)
    # Launch statistics, occupancy and warp stalls of the first onesweep kernel of ours and CUB's.
    for k in onesweep_kernel DeviceRadixSortOnesweepKernel; do
      ncu --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
          --section MemoryWorkloadAnalysis -k "regex:$k" -s 2 -c 1 $B/bench_A --only ${2:-keys:u32:24} --runs 1 \
          >> "$OUT/ncudetail.log" 2>&1
      note "ncu detail $k: rc=$?"
    done
    grep -E "Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp Per Scheduler|No Eligible|Block Limit Reg|Block Limit Shared|Dynamic Shared|Duration|Memory Throughput" \
        "$OUT/ncudetail.log" | tee -a "$S"
    shift; [ $# -gt 0 ] && shift ;;
  sass)
    # SASS of our onesweep kernels (radix.cu.o, if carried) and of CUB's keys-only onesweep.
    if [ -f $B/radix.cu.o ]; then
      cuobjdump -sass $B/radix.cu.o | awk '/Function : /{p = ($0 ~ /onesweep_kernel/)} p' > "$OUT/sass_ours.txt" 2>&1
    fi
    cuobjdump -sass $B/bench_A | awk '/Function : /{p = ($0 ~ /OnesweepKernel/ && $0 ~ /NullType/)} p' \
        | head -c 15000000 > "$OUT/sass_cub.txt" 2>&1
    note "sass: $(grep -c 'Function :' "$OUT/sass_ours.txt" 2>/dev/null) ours, $(grep -c 'Function :' "$OUT/sass_cub.txt") CUB functions"
    shift ;;
  *) shift ;;
  esac
done
