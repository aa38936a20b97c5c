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
# Binaries (sm_90, built on the dev machine) in .device-carry/bin.txz: bench_cuda, bench_k*,
# test_big. Usage: scripts/device_lead.sh [reduce] [cross] [pairs64] [big]; logs under $OUT.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/fb
cd "$(dirname "$0")/.."
xz -dc .device-carry/bin.txz | tar xf - -C /tmp/fb
B=/tmp/fb
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
  big)
    GPUSORT_BIG_TESTS=1 timeout ${BIG_LIMIT:-200} "$B/test_big" --backend cuda ${BIG_ARGS:---no-argsort} > "$OUT/big.log" 2>&1
    note "test_big --backend cuda rc=$?"; cat "$OUT/big.log" >> "$S" ;;
  esac
  note "$step took $(( $(date +%s) - t0 )) s"
done
echo "==== summary"; cat "$S"
