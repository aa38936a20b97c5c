#!/usr/bin/env bash
# device_lead.sh -- the lead's measurement call on the GPU machine (written 2026-11-22, first run
# 2026-11-24):
#   reduce   bench_cuda --suite reduce with the contenders interleaved and GPUSORT_BENCH_TRACE=1
#            (every run's time, and ours timed first and alone as the old method did): does the
#            0.86-0.89x of i32/f32/i64/f64 sums come from the kernel or from the measuring order?
#   cross    bench_cuda --suite seeds --only cross: the crossovers AUTO's table is built from
#            (u32, f32, u64, f64 keys alone and with u32 values, n = 2^5 .. 2^22)
#   pairs64  radix variants (bench_<V>: radix.cu built with -DGPUSORT_RADIX_KPT64P=<V>) against
#            the committed tuning, rows interleaved variant by variant
#   big      GPUSORT_BIG_TESTS=1 test_big --backend cuda $BIG_ARGS (n = 2^32 + 1234; BIG_ARGS
#            defaults to --no-argsort: the argsort's exact CPU check takes minutes)
#   test     test_backends --backend cuda: the six key types with AUTO (--quick, host and device
#            pointers, reduce, segmented), every algorithm on u32 and f64 (n <= 70000), and
#            OpenCL through the NVIDIA driver (every algorithm, u32, n <= 65537), in parallel
#   algs     test_backends --algorithm radix|merge|bitonic|rank, u32 and f64, one process each,
#            and racecheck / memcheck of each algorithm (n <= 4097)
#   final    the closing correctness pass (tests of radix on 64-bit keys, every algorithm on u32
#            and f64, AUTO on u32/f32/f64, the host pipeline with $PIPE_ENV; memcheck and
#            racecheck of CLI sorts and reduces, $PIPE_SAN for a pipelined CLI sort)
#   portions test_backends_portions (radix with 24576-key portions) on u32, u64, f64
#   seedsrows  bench_cuda --suite seeds --only merge,bitonic,rank
#   bitab    seeds bitonic rows of bench_cuda and of a variant build bench_v, alternating; the
#            variant's bitonic tests (test_backends_v) and AUTO f32/f64 tests
#   bench    bench_cuda, every suite, CSV + JSON (the committed table)
#   oclreduce  bench_opencl reduce rows (u32, f32; 2^24, 2^28) in 3 processes each
#   san      compute-sanitizer memcheck / racecheck / synccheck on small test_backends runs
#   rows     bench_cuda --only ROW for every bench binary (bench_cuda, bench_k*) and each of
#            $ROWS (default: the 2^28 headline rows), variants interleaved row by row
#   reduce1  bench_cuda --suite reduce (no trace), the one-launch kernel
# Binaries (sm_90, built on the dev machine) in .device-carry/bin.txz: bench_cuda, bench_k*,
# test_big, test_backends, gpusort. Usage: scripts/device_lead.sh STEP...; logs under $OUT.
# Two invocations may run at once (e.g. test and san) once one has unpacked the binaries.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/fb
cd "$(dirname "$0")/.."
B=/tmp/fb
[ -f $B/.unpacked ] || { xz -dc .device-carry/bin.txz | tar xf - -C $B && touch $B/.unpacked; }
S=$OUT/summary.txt
note() { echo "$*" | tee -a "$S"; }
note "device: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader); $(date -u +%FT%TZ); commit $(cat .device-carry/COMMIT)"
for step in "$@"; do
  t0=$(date +%s)
  case $step in
  reduce)
    GPUSORT_BENCH_TRACE=1 timeout 120 "$B/bench_cuda" --suite reduce --csv "$OUT/reduce.csv" > "$OUT/reduce.log" 2>&1
    note "reduce rc=$?"; grep -E "^reduce|trace reduce .* alone" "$OUT/reduce.log" | sed -E 's/ +/ /g' >> "$S" ;;
  cross)
    timeout 150 "$B/bench_cuda" --suite seeds --only cross > "$OUT/cross.log" 2>&1
    note "cross rc=$?"; grep -E "cross|AUTO" "$OUT/cross.log" | sed -E 's/ +/ /g' >> "$S" ;;
  pairs64)
    for r in pairs64:u64:27 pairs64:u64:26 pairs64:u64:27; do
      for b in "$B"/bench_cuda "$B"/bench_k*; do
        line=$(timeout 30 "$b" --only "$r" --runs 9 2>&1 | grep -E "^radix" | head -1)
        note "$(printf '%-10s' "${b##*/}") $(echo "$line" | sed -E 's/ +/ /g')"
      done
    done ;;
  test)
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
    L=${TEST_LIMIT:-240}
    for t in u32 i32 f32 u64 i64 f64; do
      timeout $L "$B/test_backends" --backend cuda --quick --filter "$t/" > "$OUT/t_cuda_$t.log" 2>&1 &
    done
    for t in u32 f64; do
      timeout $L "$B/test_backends" --backend cuda --algorithm all --quick --max-n 70000 \
          --filter "$t/" > "$OUT/t_cuda_all_$t.log" 2>&1 &
    done
    OCL_ICD_VENDORS=/tmp/icd timeout $L "$B/test_backends" --backend opencl --algorithm all --quick \
        --max-n 65537 --filter u32/ > "$OUT/t_opencl_nv_u32.log" 2>&1 &
    wait
    for f in "$OUT"/t_*.log; do
      note "$(basename "$f" .log): $(grep -E '^[0-9]+ passed' "$f" | tail -1) [$(grep -c '^FAIL' "$f") FAIL lines]"
    done ;;
  final)
    # the session's closing correctness pass: phase 1 tests, phase 2 sanitizers (CLI sorts on
    # host data past every tile size, and reduce), each phase's processes in parallel
    L=${TEST_LIMIT:-300}
    for t in u64 i64 f64; do
      timeout $L "$B/test_backends" --backend cuda --algorithm radix --quick --filter "$t/" > "$OUT/f_radix_$t.log" 2>&1 &
    done
    for t in u32 f64; do
      for a in merge bitonic rank; do
        timeout $L "$B/test_backends" --backend cuda --algorithm $a --quick --max-n 70000 --filter "$t/" > "$OUT/f_${a}_$t.log" 2>&1 &
      done
    done
    for t in u32 f32 f64; do
      timeout $L "$B/test_backends" --backend cuda --quick --filter "$t/" > "$OUT/f_auto_$t.log" 2>&1 &
    done
    if [ -n "${PIPE_ENV:-}" ]; then  # the host-data pipeline at test sizes (chunk knob)
      for t in u32 f32 i64 f64; do
        pin=; case $t in u32|f64) pin=--pinned;; esac
        env $PIPE_ENV timeout $L "$B/test_backends" --backend cuda --quick --max-n 70000 --host-only $pin \
            --filter "$t/" > "$OUT/f_pipe_$t$pin.log" 2>&1 &
      done
    fi
    wait
    note "final tests took $(( $(date +%s) - t0 )) s"
    G=$B/gpusort; D=/tmp/san; mkdir -p $D
    $G gen --type u64 --n 100000 --seed 3 -o $D/k64 && $G gen --type u64 --n 100000 --seed 4 -o $D/v64
    $G gen --type u32 --n 70000 --seed 5 -o $D/k32 && $G gen --type u32 --n 70000 --seed 8 -o $D/v32
    $G gen --type f32 --n 1000000 --seed 6 --dist special -o $D/f32 2>/dev/null || $G gen --type f32 --n 1000000 --seed 6 -o $D/f32
    san() { # name tool command...   ($SANENV: VAR=value for the sorted program)
      local name=$1 tool=$2; shift 2
      env ${SANENV:-GPUSORT_NONE=1} timeout ${SAN_LIMIT:-240} compute-sanitizer --tool $tool --error-exitcode 3 "$@" > "$OUT/g_${name}_$tool.log" 2>&1
      echo "rc=$?" >> "$OUT/g_${name}_$tool.log"
    }
    for tool in memcheck racecheck; do
      san radix_u64pairs $tool $G sort $D/k64 --type u64 --values $D/v64 --value-type u64 -o $D/k64.$tool --values-out $D/v64.$tool --backend cuda --algorithm radix -q &
      san merge_u32 $tool $G sort $D/k32 --type u32 -o $D/k32.$tool --backend cuda --algorithm merge -q &
      san merge_u32pairs $tool $G sort $D/k32 --type u32 --values $D/v32 --value-type u32 -o $D/k32.m$tool --values-out $D/v32.m$tool --backend cuda --algorithm merge -q &
      san reduce_f32 $tool $G reduce $D/f32 --type f32 --op sum --backend cuda &
      san reduce_f32max $tool $G reduce $D/f32 --type f32 --op max --backend cuda &
      [ -n "${PIPE_SAN:-}" ] && SANENV=$PIPE_SAN san pipe $tool $G sort $D/k32 --type u32 -o $D/k32.p$tool --backend cuda -q &
    done
    wait
    for f in $D/k64.memcheck $D/k64.racecheck; do echo "$(basename $f): $($G check $f --type u64 2>&1)" >> "$OUT/g_checks.log"; done
    for f in $D/k32.memcheck $D/k32.racecheck $D/k32.pmemcheck $D/k32.pracecheck $D/k32.mmemcheck $D/k32.mracecheck; do [ -f $f ] && echo "$(basename $f): $($G check $f --type u32 2>&1)" >> "$OUT/g_checks.log"; done
    for f in "$OUT"/f_*.log; do
      note "$(basename "$f" .log): $(grep -E '^[0-9]+ passed' "$f" | tail -1) [$(grep -c '^FAIL' "$f") FAIL lines]"
    done
    for f in "$OUT"/g_*_*.log; do
      note "$(basename "$f" .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) $(tail -1 "$f")"
    done
    cat "$OUT/g_checks.log" >> "$S" ;;
  portions)
    # radix with 24576-key portions (test_backends_portions: -DGPUSORT_RADIX_PORTION_LOG2=15), so
    # every size above that runs the multi-portion look-back
    for t in u32 u64 f64; do
      timeout ${TEST_LIMIT:-240} "$B/test_backends_portions" --backend cuda --algorithm radix --quick \
          --filter "$t/" > "$OUT/p_$t.log" 2>&1 &
    done
    wait
    for f in "$OUT"/p_*.log; do note "portions $(basename "$f" .log): $(grep -E '^[0-9]+ passed' "$f" | tail -1)"; done ;;
  seedsrows)
    timeout 200 "$B/bench_cuda" --suite seeds --only merge,bitonic,rank > "$OUT/seedsrows.log" 2>&1
    note "seeds rows rc=$?"; grep -E "^(bitonic|merge|rank) |checks" "$OUT/seedsrows.log" | sed -E 's/ +/ /g' >> "$S" ;;
  bitab)
    # bench_cuda against a variant build bench_v (carried), seeds bitonic rows, alternating
    # processes; then the variant's bitonic tests (test_backends_v) and AUTO tests of the base
    for r in 1 2 3; do
      for b in bench_cuda $(cd $B && ls bench_v* 2>/dev/null); do
        timeout 60 "$B/$b" --suite seeds --only bitonic > "$OUT/bitab_${b}_$r.log" 2>&1
        grep -E "^bitonic" "$OUT/bitab_${b}_$r.log" | sed -E "s/ +/ /g; s/^/$b $r: /" >> "$S"
      done
    done
    TB=${TB:-test_backends_v}
    for t in u32 i32 f32 u64 f64; do
      timeout ${TEST_LIMIT:-240} "$B/$TB" --backend cuda --algorithm bitonic --filter "$t/" > "$OUT/v_bitonic_$t.log" 2>&1 &
    done
    for t in u32/uniform f32/special u64/uniform; do  # spans up to 2^23 (random sizes to 2^23)
      timeout ${TEST_LIMIT:-240} "$B/$TB" --backend cuda --algorithm bitonic --full --max-n 8388613 \
          --filter "$t" > "$OUT/v_bitonic_full_${t%/*}.log" 2>&1 &
    done
    for t in f32 f64; do
      timeout ${TEST_LIMIT:-240} "$B/test_backends" --backend cuda --quick --filter "$t/" > "$OUT/v_auto_$t.log" 2>&1 &
    done
    wait
    for f in "$OUT"/v_*.log; do note "$(basename "$f" .log): $(grep -E '^[0-9]+ passed' "$f" | tail -1) [$(grep -c '^FAIL' "$f") FAIL lines]"; done ;;
  bench)
    timeout ${BENCH_LIMIT:-420} "$B/bench_cuda" --csv "$OUT/bench.csv" --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
    note "bench_cuda (all suites) rc=$?"; grep -E "^(radix|reduce|host)" "$OUT/bench.log" | sed -E 's/ +/ /g' >> "$S"
    grep -E "^(bitonic|merge|rank|segmented) " "$OUT/bench.log" | sed -E 's/ +/ /g' >> "$S" ;;
  oclreduce)
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
    for r in 1 2 3; do
      for t in u32 f32; do
        OCL_ICD_VENDORS=/tmp/icd timeout 60 "$B/bench_opencl" --type $t --sizes 24,28 --device-only --no-bitonic --no-radix > "$OUT/ocl_${t}_$r.log" 2>&1
        note "bench_opencl $t round $r rc=$?"; grep -iE "reduce" "$OUT/ocl_${t}_$r.log" | sed -E 's/ +/ /g' >> "$S"
      done
    done ;;
  algs)
    # every named algorithm on its own process (u32 and f64, n <= 70000), and sanitizers of each
    L=${TEST_LIMIT:-240}
    for t in u32 f64; do
      for a in radix merge bitonic rank; do
        timeout $L "$B/test_backends" --backend cuda --algorithm $a --quick --max-n 70000 \
            --filter "$t/" > "$OUT/a_${a}_$t.log" 2>&1 &
      done
    done
    for a in merge bitonic rank; do
      timeout $L compute-sanitizer --tool racecheck --error-exitcode 3 "$B/test_backends" --backend cuda \
          --algorithm $a --quick --max-n 4097 --filter u32/uniform > "$OUT/r_racecheck_${a}_u32.log" 2>&1 &
      timeout $L compute-sanitizer --tool memcheck --error-exitcode 3 "$B/test_backends" --backend cuda \
          --algorithm $a --quick --max-n 4097 --filter f32/ > "$OUT/r_memcheck_${a}_f32.log" 2>&1 &
    done
    timeout $L compute-sanitizer --tool racecheck --error-exitcode 3 "$B/test_backends" --backend cuda \
        --algorithm radix --quick --max-n 4097 --filter u64/uniform > "$OUT/r_racecheck_radix_u64.log" 2>&1 &
    wait
    for f in "$OUT"/a_*.log "$OUT"/r_*.log; do
      note "$(basename "$f" .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) | $(grep -E '^[0-9]+ passed' "$f" | tail -1) [$(grep -c '^FAIL' "$f") FAIL lines]"
    done ;;
  san)
    L=${SAN_LIMIT:-240}
    timeout $L compute-sanitizer --tool memcheck --error-exitcode 3 "$B/test_backends" --backend cuda \
        --quick --max-n 20000 --filter u64/ > "$OUT/s_memcheck_auto_u64.log" 2>&1 &
    timeout $L compute-sanitizer --tool memcheck --error-exitcode 3 "$B/test_backends" --backend cuda \
        --algorithm all --quick --max-n 9000 --filter f32/ > "$OUT/s_memcheck_all_f32.log" 2>&1 &
    timeout $L compute-sanitizer --tool racecheck --error-exitcode 3 "$B/test_backends" --backend cuda \
        --algorithm all --quick --max-n 9000 --filter u32/uniform > "$OUT/s_racecheck_all_u32.log" 2>&1 &
    timeout $L compute-sanitizer --tool synccheck --error-exitcode 3 "$B/test_backends" --backend cuda \
        --algorithm all --quick --max-n 9000 --filter f64/uniform > "$OUT/s_synccheck_all_f64.log" 2>&1 &
    wait
    for f in "$OUT"/s_*.log; do
      note "$(basename "$f" .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) | $(grep -E '^[0-9]+ passed' "$f" | tail -1)"
    done ;;
  rows)
    for r in ${ROWS:-keys:u32:28 keys:f32:28 keys:u64:28 pairs32:u32:28 pairs64:u64:27 argsort:f32:28}; do
      for b in "$B"/bench_cuda "$B"/bench_k*; do
        [ -x "$b" ] || continue
        line=$(timeout 40 "$b" --only "$r" --runs 9 2>&1 | grep -E "^radix" | head -1)
        note "$(printf '%-12s' "${b##*/}") $(echo "$line" | sed -E 's/ +/ /g')"
      done
    done ;;
  reduce1)
    timeout 120 "$B/bench_cuda" --suite reduce > "$OUT/reduce1.log" 2>&1
    note "reduce1 rc=$?"; grep -E "^reduce" "$OUT/reduce1.log" | sed -E 's/ +/ /g' >> "$S" ;;
  big)
    GPUSORT_BIG_TESTS=1 timeout ${BIG_LIMIT:-200} "$B/test_big" --backend cuda ${BIG_ARGS:---no-argsort} > "$OUT/big.log" 2>&1
    note "test_big --backend cuda rc=$?"; cat "$OUT/big.log" >> "$S" ;;
  esac
  note "$step took $(( $(date +%s) - t0 )) s"
done
echo "==== summary"; cat "$S"
