#!/usr/bin/env bash
# device_seeds.sh -- the seeds engineer's runs on the GPU machine (session 3): tests, sanitizers
# and benchmark rows of the CUDA bitonic, merge and rank sorts. Binaries are built elsewhere
# (nvcc 13.0, `cmake -S . -B build-seeds -G Ninja -DGPUSORT_OPENCL=OFF
# -DCMAKE_CUDA_ARCHITECTURES=90`), stripped and carried in .device-carry/seeds.txz:
# test_backends, bench_cuda, gpusort (the CLI).
#
#   PHASES (default "trank tbitonic tmerge san bench again ncu"), each with a time limit:
#   trank     test_backends on CUDA, rank, all six key types (n <= RANK_MAX_N, default 70000);
#   tbitonic  bitonic f32/f64 "special" data at the default sizes (to 2^20 + 1: the float fix-up
#             with NaN and -0.0), f32/f64/u32 to 140000 (every distribution);
#   tmerge    merge u32 and f32 to 140000.
#   san    compute-sanitizer memcheck / racecheck / synccheck: single CLI sorts past the tile
#          sizes (bitonic f32 "special" data, both orders: the fix-up path; merge u32 70000:
#          device passes; rank u32 6000 and f64 special 5000) and test_backends rank --quick.
#   bench  bench_cuda --suite seeds --only rank,bitonic,merge (median of 7), CSV.
#   again  the bench rows twice more, each in its own process (the floor of a timed launch, an
#          empty kernel, moves by 1-2 us from one process to the next: see the rank rows).
#   ncu    per-kernel durations (clocks not locked, warm caches) of NCU_KERNELS (a regex,
#          default: the rank kernel, an empty kernel and a load+store kernel) in the bench rows
#          NCU_ONLY (default rank).
# Only summary.txt, bench.log and logs.tgz are left in $OUT (the run tool returns few files).
# Logs under $OUT; a summary last.
set -u
OUT=${OUT:-/tmp/out}
PHASES=${PHASES:-"trank tbitonic tmerge san bench again ncu"}
mkdir -p "$OUT/logs" /tmp/sb /tmp/san
cd "$(dirname "$0")/.."
S=$OUT/summary.txt
note() { echo "$*" | tee -a "$S"; }
has() { [[ " $PHASES " == *" $1 "* ]]; }
xz -dc .device-carry/seeds.txz | tar xf - -C /tmp/sb
B=/tmp/sb
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(date -u +%FT%TZ); commit $(git rev-parse --short HEAD 2>/dev/null) + $(git status --short -- src bench scripts 2>/dev/null | wc -l) changed files"
L=${LIMIT_TESTS:-110}

san_sort() {  # tool name type n dist algorithm [extra sort args]
  local tool=$1 name=$2 type=$3 n=$4 dist=$5 alg=$6; shift 6
  local d=/tmp/san/$tool-$name
  mkdir -p "$d"
  "$B/gpusort" gen --type "$type" --n "$n" --dist "$dist" --seed 7 -o "$d/in"
  timeout $L compute-sanitizer --tool "$tool" --error-exitcode 3 "$B/gpusort" sort "$d/in" \
      -o "$d/out" --type "$type" --backend cuda --algorithm "$alg" "$@" > "$OUT/logs/san_$tool-$name.log" 2>&1
  echo "sort rc=$?" >> "$OUT/logs/san_$tool-$name.log"
  "$B/gpusort" check "$d/out" --type "$type" $( [[ " $* " == *" -r "* ]] && echo --desc ) \
      >> "$OUT/logs/san_$tool-$name.log" 2>&1
  echo "check rc=$?" >> "$OUT/logs/san_$tool-$name.log"
}

t0=$(date +%s)
if has trank; then
  for t in u32 i32 f32 u64 i64 f64; do
    timeout $L "$B/test_backends" --backend cuda --algorithm rank --max-n ${RANK_MAX_N:-70000} \
        --filter "$t/" > "$OUT/logs/test_rank_$t.log" 2>&1 &
  done
fi
if has tbitonic; then
  for t in f32 f64; do
    timeout $L "$B/test_backends" --backend cuda --algorithm bitonic --filter "$t/special" \
        > "$OUT/logs/test_bitonic_${t}_special.log" 2>&1 &
    timeout $L "$B/test_backends" --backend cuda --algorithm bitonic --max-n 140000 --filter "$t/" \
        > "$OUT/logs/test_bitonic_$t.log" 2>&1 &
  done
  timeout $L "$B/test_backends" --backend cuda --algorithm bitonic --max-n 140000 --filter u32/ \
      > "$OUT/logs/test_bitonic_u32.log" 2>&1 &
fi
if has tmerge; then
  for t in u32 f32; do
    timeout $L "$B/test_backends" --backend cuda --algorithm merge --max-n 140000 --filter "$t/" \
        > "$OUT/logs/test_merge_$t.log" 2>&1 &
  done
fi
if has san; then
  san_sort memcheck bitonic-f32-desc f32 20000 special bitonic -r &
  san_sort racecheck bitonic-f32-desc f32 20000 special bitonic -r &
  timeout $L compute-sanitizer --tool memcheck --error-exitcode 3 "$B/test_backends" --backend cuda \
      --algorithm rank --quick --max-n 5000 --filter u32/ > "$OUT/logs/san_memcheck-rank-tests-u32.log" 2>&1 &
  san_sort racecheck rank-u32 u32 6000 uniform rank &
  san_sort racecheck rank-f64 f64 5000 special rank -r &
fi
wait
if has san; then
  san_sort synccheck bitonic-f32 f32 20000 special bitonic &
  if has tmerge; then
    san_sort memcheck merge-u32 u32 70000 uniform merge &
    san_sort racecheck merge-u32 u32 70000 uniform merge &
    san_sort synccheck merge-u32 u32 70000 uniform merge &
  fi
  san_sort memcheck rank-f64 f64 5000 special rank -r &
  san_sort synccheck rank-f64 f64 5000 special rank -r &
  san_sort memcheck bitonic-f64 f64 20000 special bitonic &
  wait
fi
note "tests + sanitizers took $(( $(date +%s) - t0 )) s"
for f in "$OUT"/logs/test_*.log; do
  [ -f "$f" ] || continue
  note "$(basename "$f" .log): $(grep -E '^[0-9]+ passed' "$f" | tail -1) [$(grep -c '^FAIL' "$f") FAIL lines] $(grep -m1 -E '^seed' "$f")"
done
for f in "$OUT"/logs/san_*.log; do
  [ -f "$f" ] || continue
  note "$(basename "$f" .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) $(grep -E '^[0-9]+ passed' "$f" | tail -1) $(grep -E '^(sort|check) rc' "$f" | tr '\n' ' ')"
done

if has bench; then
  t0=$(date +%s)
  timeout ${LIMIT_BENCH:-90} "$B/bench_cuda" --suite seeds --only rank,bitonic,merge \
      --csv "$OUT/logs/seeds.csv" > "$OUT/bench.log" 2>&1
  note "bench rc=$? in $(( $(date +%s) - t0 )) s"
  grep -E "^(rank|bitonic|merge) |all checks|FAIL" "$OUT/bench.log" >> "$S"
fi
if has again; then  # the bench rows again (two more samples, separate processes)
  t0=$(date +%s)
  mkdir -p "$OUT/logs/again"
  for round in 1 2; do
    timeout ${LIMIT_BENCH:-90} "$B/bench_cuda" --suite seeds --only rank,bitonic,merge \
        > "$OUT/logs/again/bench_$round.log" 2>&1
    note "bench again $round rc=$?"; grep -E "^(rank|bitonic|merge) |all checks|FAIL" "$OUT/logs/again/bench_$round.log" >> "$S"
  done
  note "again took $(( $(date +%s) - t0 )) s"
fi
if has ncu; then
  t0=$(date +%s)
  M=gpu__time_duration.sum,sm__cycles_elapsed.avg
  for v in final; do
    for cc in none; do
      timeout 60 ncu --clock-control none \
          --cache-control $cc -k "regex:${NCU_KERNELS:-k_rank_small|empty_kernel|copy_kernel}" \
          --metrics $M --csv "$B/bench_cuda" --suite seeds --only ${NCU_ONLY:-rank} --runs 1 \
          > "$OUT/logs/ncu_rank_${v}_$cc.csv" 2>&1
      note "ncu ${NCU_ONLY:-rank} $v cache-control $cc rc=$?"
      grep -E '"(gpu__time_duration.sum|sm__cycles_elapsed.avg)"' "$OUT/logs/ncu_rank_${v}_$cc.csv" | \
          awk -F"\",\"" "{print substr(\$5,1,30), \$9, \$(NF-2), \$NF}" | head -40 >> "$S"
    done
  done
  note "ncu took $(( $(date +%s) - t0 )) s"
fi
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
echo; echo "==== summary"; cat "$S"
