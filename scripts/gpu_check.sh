#!/usr/bin/env bash
# gpu_check.sh -- build, test, sanitize and benchmark gpusort on a machine with an NVIDIA GPU.
# It builds there itself (a Release build for sm_90, in build-gpu/; incremental when the folder
# is kept), runs the chosen steps, prints one summary line per step, and exits non-zero when a
# step failed. On a machine without a GPU or without the CUDA backend the GPU parts say so and
# are skipped (the build and the CPU/OpenCL tests still run).
#
#   scripts/gpu_check.sh [STEP [ARG...]]...       default: build test sanitize bench
#   scripts/gpu_check.sh --help
#
# Steps (arguments follow their step; any step that needs binaries builds first):
#   build                    cmake (Release, CUDA architectures $CUDA_ARCH) + ninja, every target
#   test [quick|full]        ctest of the build (every backend; OpenCL also on the GPU through
#                            NVIDIA's driver), then GPU runs ctest does not make: the host-data
#                            pipeline and host runs at test sizes, OpenCL work-group knobs;
#                            full: default sizes instead of --quick, every key type, bitonic
#                            spans to 2^23                                      (default quick)
#   sanitize [quick|full]    compute-sanitizer memcheck / racecheck / synccheck (full: also
#                            initcheck and larger sorts) on small test_backends runs and on
#                            single CLI sorts past every tile size, each output checked
#   big [full]               GPUSORT_BIG_TESTS=1 test_big --backend cuda (n = 2^32 + 1234 keys;
#                            full adds the argsort, whose exact CPU check takes minutes)
#   portions                 the radix sort built with 24576-key portions, so that its
#                            multi-portion path (n > 2^27 normally) runs at test sizes
#   alloc [quick]            issue 14 on the GPU: test_alloc --part cuda, knob and tuning (the
#                            caller's workspace and allocator, the failing k-th allocation, every
#                            architecture's tuning row forced), and compute-sanitizer memcheck
#                            of test_alloc --part cuda --quick and --part knob
#   ptxjit [ROW...]          a build with PTX of compute_75 only (build-gpu-ptx), every kernel
#                            JIT-compiled by the driver (CUDA_FORCE_PTX_JIT=1): ctest -L cuda
#                            (test_backends_cuda_* --quick, test_alloc), `gpusort devices`, the
#                            first-call cost of one sort (native, JIT without cache, JIT with a
#                            cold and a warm CUDA_CACHE_PATH), and bench rows (default: the
#                            2^28 headline rows) of the JIT build beside this build's
#   noarch                   the capability check on a real GPU: a build with machine code for
#                            another architecture only (100-real; 90-real on a 10.x GPU), no
#                            PTX: `gpusort devices` must call the GPU not usable and say why,
#                            `--backend cuda` must fail with that reason, AUTO must sort on the
#                            CPU
#   abtree DIR [ROW...]      bench rows of this build against a build of another source tree
#                            DIR (built in DIR/build-abtree with the same flags), alternating
#                            processes, 3 rounds; old.csv / new.csv for bench/compare.py
#   bench [SUITE...]         benchmarks, rows in CSV/JSON (default: every suite but text; all):
#     radix    bench_cuda --suite radix: every key type and mode at 2^28 vs CUB and Thrust, and
#              u32/u64 keys and pairs at 2^16 .. 2^30, and every key type and mode at
#              $BENCH_SIZES (bench_cuda --sweep) for the throughput-vs-n plot
#     reduce   bench_cuda --suite reduce: sums of the six types, 2^16 .. 2^30, vs CUB
#     host     bench_cuda --suite host: 1 GiB of host data end to end vs bare copies
#     seeds    bench_cuda --suite seeds: bitonic, merge, rank, segmented vs their peers, seed
#              000's table, and every algorithm at 2^5 .. 2^22 (AUTO's crossovers)
#     opencl   bench_opencl through NVIDIA's OpenCL driver vs the CUDA backend, 2^24 and 2^28
#     peers    bench/peers.py: torch.sort and cupy.sort at $BENCH_SIZES
#     cpu      bench_cpu: the CPU backend vs std::sort and __gnu_parallel::sort, $CPU_SIZES
#     text     $TEXT_LINES integer lines, gpusort -n vs GNU sort -n on every core
#   ab -DNAME=VALUE... [ROW...]  a variant build (CUDA flags -D..., in build-gpu-ab) against
#                            this build: bench rows in alternating processes, 3 rounds; ROW is
#                            OP:TYPE:LOG2 for `bench_cuda --only` (default: the 2^28 headline
#                            rows) or seeds:NAME for `bench_cuda --suite seeds --only NAME`.
#                            (The variant's tests: GPU_CHECK_BUILD=build-gpu-ab
#                            GPU_CHECK_CMAKE_ARGS=-DCMAKE_CUDA_FLAGS=-DNAME=VALUE ... test.)
#   plot                     bench/plot.py on the CSVs in $OUT (those bench wrote): PNGs into
#                            plots.tgz
#   ncu [ROW]                per-kernel times (Nsight Compute) of one bench_cuda row, ours and
#                            the peer's: ROW as for ab (default keys:u32:24)
#
# Output ($OUT, default ./out/gpu_check; the device tool brings back at most 8 files, so all
# logs travel packed): summary.txt (the summary lines), logs.tgz (every log, by step), and the
# result tables: cuda.csv + cuda.json (bench_cuda radix/reduce/host rows), seeds.csv
# (bitonic/merge/rank/segmented/crossover rows), peers.csv (torch/cupy), cpu.csv (bench_cpu),
# plots.tgz.
#
# Environment:
#   OUT                   where the results go (default ./out/gpu_check)
#   GPU_CHECK_BUILD       the build folder (default build-gpu)
#   CUDA_ARCH             CMAKE_CUDA_ARCHITECTURES (default 90: H100, H200)
#   GPU_CHECK_CMAKE_ARGS  more cmake arguments, e.g. -DGPUSORT_CUDA=OFF
#   JOBS, SAN_JOBS        processes at once (default nproc; sanitizer runs half of that)
#   LIMIT                 seconds per test or sanitizer process (default 300)
#   BENCH_SIZES           log2 sizes of the GPU size sweep (default 10,12,...,30)
#   CPU_SIZES             log2 sizes of bench cpu (default "16 18 20 22 24 26")
#   TEXT_LINES            lines of bench text (default 100000000)
#
# One call of the device tool may run 10 minutes and starts with an empty $OUT: run the steps
# in several calls, e.g. `build test`, then `sanitize`, then `bench plot` (plot reads the CSVs
# that bench wrote to $OUT in the same call; a warm machine keeps build-gpu/ between calls).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
source scripts/common.sh

usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
STEPS=" build test sanitize big portions alloc ptxjit noarch abtree bench ab plot ncu "
case " $* " in *" --help "*|*" -h "*) usage; exit 0 ;; esac
for a in "$@"; do   # the first word must be a step; later words are steps or their arguments
  [[ $STEPS == *" $a "* ]] && break
  echo "gpu_check.sh: unknown step '$a' (steps:$STEPS; --help)" >&2; exit 2
done

OUT=${OUT:-$ROOT/out/gpu_check}
B=${GPU_CHECK_BUILD:-build-gpu}
[[ $B = /* ]] || B=$ROOT/$B
JOBS=${JOBS:-$(nproc)}
LIMIT=${LIMIT:-300}
TMPD=${GPU_CHECK_TMP:-/tmp/gpu_check}   # logs (packed into $OUT), test data, ICD folder
LOGS=$TMPD/logs
rm -rf "$LOGS" "$TMPD/data"
mkdir -p "$OUT" "$LOGS" "$TMPD/data"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
failures=0
built=0

# ---- reporting ----

# note LINE: one summary line, printed and kept in summary.txt.
note() { echo "$*" | tee -a "$SUMMARY"; }
# result STEP STATUS DETAIL: the step's summary line; STATUS ok, FAILED or skipped.
result() {
  local step=$1 status=$2; shift 2
  [ "$status" = FAILED ] && failures=$((failures + 1))
  note "== $step: $status${*:+: $*} ($((SECONDS - step_t0)) s)"
}
# pack: all logs so far into $OUT/logs.tgz (after every step, so a call cut off by its time
# limit still brings back what ran).
pack() { tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null; }

# ---- what this machine has ----

have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then have_gpu=1; fi
gpu_name=$( ((have_gpu)) && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
[ -n "$nvcc" ] && PATH=$(dirname "$nvcc"):$PATH
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "unknown (no .git)")
note "gpu_check: $(date -u +%FT%TZ); commit $commit; $(nproc) cores; GPU: ${gpu_name:-none}; nvcc: ${nvcc:-none}"

# NVIDIA's OpenCL library without an ICD file naming it (the GPU machine's driver ships it so):
# a private vendors folder with it and the system's ICDs, so the OpenCL backend sees the GPU
# (it lists GPUs first).
ocl_nvidia=0
if ((have_gpu)) && ldconfig -p 2>/dev/null | grep -q libnvidia-opencl.so.1; then
  icd=$TMPD/icd
  mkdir -p "$icd"
  cp /etc/OpenCL/vendors/*.icd "$icd"/ 2>/dev/null
  echo libnvidia-opencl.so.1 > "$icd/nvidia.icd"
  export OCL_ICD_VENDORS=$icd
  ocl_nvidia=1
fi

# ---- running programs ----

# run NAME CMD...: CMD with a time limit, output in $LOGS/$step/NAME.log, exit status in
# NAME.rc. In the background, at most $JOBS at once; `wait` collects them.
run() {
  local name=$1; shift
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  ( timeout "$LIMIT" "$@" > "$LOGS/$step/$name.log" 2>&1; echo $? > "$LOGS/$step/$name.rc" ) &
}
# verdicts: judges every finished run of this step: ok (exit 0 and no sanitizer error or failed
# check in its log), skipped (exit 77) or failed; counts in n_ok, n_skip, n_bad, the failed
# runs with why in bad_list.
verdicts() {
  local f name rc why
  n_ok=0 n_bad=0 n_skip=0 bad_list=
  for f in "$LOGS/$step"/*.rc; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .rc) rc=$(cat "$f")
    why=
    case $rc in
      0) ;;
      77) n_skip=$((n_skip + 1)); continue ;;
      124) why="time limit ${LIMIT} s" ;;
      *) why="exit $rc" ;;
    esac
    # A sanitizer's report or a failed output check fails the run even with exit 0.
    if grep -qE "ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]|^check: FAILED|^FAIL" "$LOGS/$step/$name.log"; then
      why=${why:-"errors reported"}
    fi
    if [ -z "$why" ]; then n_ok=$((n_ok + 1)); else n_bad=$((n_bad + 1)); bad_list+=" $name ($why)"; fi
  done
}
# pass counts that test_backends printed ("N passed, N failed, N skipped"), summed over runs.
case_counts() {
  cat "$LOGS/$step"/*.log 2>/dev/null | awk '/^[0-9]+ passed, [0-9]+ failed/ { p += $1; f += $3; s += $5 }
    END { printf "%d cases passed, %d failed, %d skipped", p, f, s }'
}

gpusort=$B/tools/gpusort
tb=$B/tests/test_backends
# The backends of the build, from its configure output ("gpusort: CUDA backend ON, ...").
cuda_built() { grep -q "CUDA backend ON" "$B/gpu_check-configure.log" 2>/dev/null; }
opencl_built() { grep -q "OpenCL backend ON" "$B/gpu_check-configure.log" 2>/dev/null; }
need_gpu() {  # prints why the GPU part of a step cannot run here; nothing when it can
  if ! ((have_gpu)); then echo "no CUDA device (nvidia-smi lists no GPU)"
  elif ! cuda_built; then echo "CUDA backend not built (no nvcc?)"; fi
}

# ---- steps ----

step_build() {
  mkdir -p "$LOGS/build"
  local extra=()
  read -ra extra <<< "${GPU_CHECK_CMAKE_ARGS:-}"
  if ! cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
         -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" "${extra[@]}" \
         > "$LOGS/build/configure.log" 2>&1; then
    tail -20 "$LOGS/build/configure.log"; result build FAILED "cmake configure (logs: build/configure.log)"; return 1
  fi
  cp "$LOGS/build/configure.log" "$B/gpu_check-configure.log"
  local backends
  backends=$(grep "gpusort:" "$LOGS/build/configure.log" | sed 's/.*gpusort: //' | tr '\n' ' ')
  cmake --build "$B" -j"$JOBS" 2>&1 | build_progress build "$LOGS/build/build.log"
  if [ "${PIPESTATUS[0]}" != 0 ]; then
    grep -B2 -A8 -m3 "error" "$LOGS/build/build.log" | head -40
    result build FAILED "ninja (logs: build/build.log)"; return 1
  fi
  built=1
  result build ok "$backends in $B"
}

ensure_built() {
  ((built)) && return 0
  local saved=$step step_t0=$SECONDS
  step=build
  step_build
  local rc=$?
  step=$saved
  return $rc
}

step_test() {
  local mode=${1:-quick} why
  ensure_built || return 1
  mkdir -p "$LOGS/test"
  # 1. ctest: every registered test (test_api, test_backends per backend and type, CLI, text).
  local ct=$LOGS/test/ctest.log quick=()
  [ "$mode" = quick ] && quick=(GPUSORT_TEST_QUICK=1)   # every test_backends run --quick
  env "${quick[@]}" ctest --test-dir "$B" -j"$JOBS" --output-on-failure > "$ct" 2>&1
  local st=$?
  ctest_counts "$ct"
  [ "$ct_total" = 0 ] && [ "$st" != 0 ] && ct_failed=1
  ctest_skip_reasons "$ct" "$B" | tee "$LOGS/test/skipped.txt"
  grep -A30 "The following tests FAILED" "$ct" | head -20
  local ctest_line="ctest ${ct_passed} passed, ${ct_failed} failed, ${ct_skipped} skipped"
  # 2. GPU runs that ctest does not make.
  why=$(need_gpu)
  if [ -z "$why" ]; then
    local q=(--quick) types="u32 f64" max=70000
    [ "$mode" = full ] && { q=(); types="u32 i32 f32 u64 i64 f64"; max=140000; }
    for t in $types; do
      # host data through the chunked pipeline (4096-key chunks: many chunks and merge passes)
      run "pipeline_pinned_$t" env GPUSORT_CUDA_HOST_CHUNK_KEYS=5000 "$tb" --backend cuda "${q[@]}" \
          --max-n "$max" --host-only --pinned --filter "$t/"
      run "pipeline_pageable_$t" env GPUSORT_CUDA_HOST_CHUNK_KEYS=5000 "$tb" --backend cuda "${q[@]}" \
          --max-n "$max" --host-only --filter "$t/"
      # host arrays sorted in GPU runs of 50000 keys and merged on the CPU (arrays larger
      # than the device take this path)
      run "hostruns_$t" env GPUSORT_CUDA_HOST_RUN_KEYS=50000 "$tb" --backend cuda "${q[@]}" --host-only --filter "$t/"
    done
    if [ "$mode" = full ]; then
      for f in u32/uniform f32/special u64/uniform; do   # bitonic spans up to 2^23
        run bitonic_spans_${f%%/*} "$tb" --backend cuda --algorithm bitonic --full --max-n 8388613 --filter "$f"
      done
    fi
    if ((ocl_nvidia)) && opencl_built; then
      # OpenCL on the GPU with the work-group knobs: several tiles per work-group (radix),
      # thousands of reduce tickets
      for t in u32 f32 u64; do
        run "opencl_radix_1group_$t" env GPUSORT_OPENCL_RADIX_GROUPS_PER_CU=1 "$tb" --backend opencl "${q[@]}" --filter "$t/"
      done
      for t in f32 i64 f64; do
        run "opencl_reduce_32groups_$t" env GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU=32 "$tb" --backend opencl "${q[@]}" --filter "$t/"
      done
    fi
    wait
    verdicts
    local gpu_line
    gpu_line="GPU runs: $n_ok passed, $n_bad failed ($(case_counts))"
    if [ "$n_bad" = 0 ] && [ "$ct_failed" = 0 ]; then result "test $mode" ok "$ctest_line; $gpu_line"
    else result "test $mode" FAILED "$ctest_line; $gpu_line;${bad_list:- see test/ctest.log}"; fi
  elif [ "$ct_failed" = 0 ]; then result "test $mode" ok "$ctest_line; GPU runs skipped: $why"
  else result "test $mode" FAILED "$ctest_line (see test/ctest.log); GPU runs skipped: $why"
  fi
}

# san NAME TOOL CMD...: CMD under compute-sanitizer --tool TOOL.
san() {
  local name=$1 tool=$2; shift 2
  run "${tool}_$name" compute-sanitizer --tool "$tool" --error-exitcode 3 "$@"
}
# san_sort NAME TOOL TYPE N DIST ALGORITHM [sort options]: one `gpusort sort` of host data on
# CUDA under the tool, its output then checked with `gpusort check` (same log). SAN_ENV
# (VAR=VALUE...) is set for the sort; SAN_VALUES=u32|u64 sorts pairs (values 0..N-1).
san_sort() {
  local name=$1 tool=$2 type=$3 n=$4 dist=$5 alg=$6; shift 6
  local d=$TMPD/data/$tool-$name desc='' envs=() pairs=()
  [[ " $* " == *" -r "* ]] && desc=--desc
  read -ra envs <<< "${SAN_ENV:-}"
  mkdir -p "$d"
  "$gpusort" gen --type "$type" --n "$n" --dist "$dist" --seed 7 -o "$d/in" || return
  if [ -n "${SAN_VALUES:-}" ]; then
    "$gpusort" gen --type "$SAN_VALUES" --n "$n" --dist index -o "$d/values" || return
    pairs=(--values "$d/values" --values-out "$d/values.out")
  fi
  set -- "$@" "${pairs[@]}"
  # shellcheck disable=SC2016  # the script's $0..$6 are the arguments after it
  run "${tool}_$name" env "${envs[@]}" bash -c '
    compute-sanitizer --tool "$0" --error-exitcode 3 "$1" sort "$2/in" -o "$2/out" --type "$3" \
        --backend cuda --algorithm "$4" -q "${@:6}"; rc=$?
    if "$1" check "$2/out" --type "$3" $5; then echo "check: ok"; else echo "check: FAILED"; fi
    exit $rc' "$tool" "$gpusort" "$d" "$type" "$alg" "$desc" "$@"
}

step_sanitize() {
  local mode=${1:-quick} why
  ensure_built || return 1
  why=$(need_gpu)
  [ -z "$why" ] && ! command -v compute-sanitizer >/dev/null && why="compute-sanitizer not found"
  [ -n "$why" ] && { result "sanitize $mode" skipped "$why"; return 0; }
  mkdir -p "$LOGS/sanitize"
  local JOBS=${SAN_JOBS:-$(( (JOBS + 1) / 2 ))}   # a sanitized process keeps a core busy
  # test_backends on small sizes: every algorithm, keys / pairs / argsort / segmented / batch,
  # host and device pointers.
  san all_u32 memcheck "$tb" --backend cuda --algorithm all --quick --max-n 5000 --filter u32/uniform
  san all_f64 synccheck "$tb" --backend cuda --algorithm all --quick --max-n 5000 --filter f64/uniform
  for a in radix merge bitonic rank; do   # racecheck is slow: one process per algorithm
    san "$a" racecheck "$tb" --backend cuda --algorithm "$a" --quick --max-n 2100 --filter u32/uniform
  done
  # Single sorts past every tile size (host data: the device path of each algorithm runs past
  # its tiles, radix over many tiles and its look-back), outputs checked.
  local tools="memcheck racecheck"
  [ "$mode" = full ] && tools="memcheck racecheck synccheck"
  for tool in $tools; do
    san_sort radix_u32 "$tool" u32 300000 uniform radix
    san_sort merge_u32 "$tool" u32 70000 uniform merge
    san_sort bitonic_u32 "$tool" u32 300000 uniform bitonic            # 16 KiB tiles
    san_sort bitonic_f32_desc "$tool" f32 20000 special bitonic -r     # the float fix-up
    san_sort rank_u32 "$tool" u32 6000 uniform rank
    san_sort rank_f64_desc "$tool" f64 5000 special rank -r
    SAN_VALUES=u64 san_sort radix_u64_pairs "$tool" u64 100000 uniform radix
    SAN_VALUES=u32 san_sort merge_u32_pairs "$tool" u32 40000 uniform merge
    # the chunked host pipeline, forced at a small size by its chunk knob
    SAN_ENV=GPUSORT_CUDA_HOST_CHUNK_KEYS=5000 san_sort pipeline_u32 "$tool" u32 70000 uniform auto
    if [ "$mode" = full ]; then
      san_sort bitonic_u32_3m "$tool" u32 3000000 uniform bitonic      # 32 KiB tiles, 2T merge
      san_sort merge_f64_desc "$tool" f64 20000 uniform merge -r
      SAN_VALUES=u32 san_sort bitonic_u32_pairs "$tool" u32 20000 uniform bitonic
    fi
  done
  "$gpusort" gen --type f32 --n 1000000 --dist special --seed 6 -o "$TMPD/data/reduce.f32"
  for op in sum max; do
    san "reduce_$op" memcheck "$gpusort" reduce "$TMPD/data/reduce.f32" --type f32 --op "$op" --backend cuda
  done
  if [ "$mode" = full ]; then
    san all_u32 initcheck "$tb" --backend cuda --algorithm all --quick --max-n 5000 --filter u32/uniform
    san auto_u64 memcheck "$tb" --backend cuda --quick --max-n 20000 --filter u64/
  fi
  wait
  verdicts
  local n=$((n_ok + n_bad))
  if [ "$n_bad" = 0 ]; then result "sanitize $mode" ok "$n runs clean (0 errors, 0 hazards, outputs checked; $(case_counts))"
  else result "sanitize $mode" FAILED "$n_bad of $n runs:$bad_list"; fi
}

step_big() {
  local mode=${1:-} why args=--no-argsort
  ensure_built || return 1
  why=$(need_gpu)
  [ -n "$why" ] && { result "big${mode:+ $mode}" skipped "$why"; return 0; }
  mkdir -p "$LOGS/big"
  [ "$mode" = full ] && args=
  LIMIT=$((LIMIT > 580 ? LIMIT : 580)) run test_big env GPUSORT_BIG_TESTS=1 "$B/tests/test_big" --backend cuda $args
  wait
  verdicts
  local last
  last=$(grep -E "^[0-9]+ passed" "$LOGS/big/test_big.log" | tail -1)
  if [ "$n_skip" != 0 ]; then result "big${mode:+ $mode}" skipped "$(sed -n 's/^skipped: //p' "$LOGS/big/test_big.log" | head -1)"
  elif [ "$n_bad" = 0 ]; then result "big${mode:+ $mode}" ok "${last:-no summary line}"
  else result "big${mode:+ $mode}" FAILED "${last:-no summary line};$bad_list"; fi
}

step_portions() {
  local why pb=$B-portions
  ensure_built || return 1
  why=$(need_gpu)
  [ -n "$why" ] && { result portions skipped "$why"; return 0; }
  mkdir -p "$LOGS/portions"
  if ! { cmake -S . -B "$pb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
           -DCMAKE_CUDA_FLAGS=-DGPUSORT_RADIX_PORTION_LOG2=15 -DGPUSORT_OPENCL=OFF -DGPUSORT_BUILD_BENCH=OFF \
           > "$LOGS/portions/configure.log" 2>&1 &&
         cmake --build "$pb" -j"$JOBS" --target test_backends 2>&1 | build_progress portions "$LOGS/portions/build.log"; }; then
    result portions FAILED "build of the 24576-key-portion variant (logs: portions/)"; return 1
  fi
  for t in u32 u64 f64; do
    run "radix_$t" "$pb/tests/test_backends" --backend cuda --algorithm radix --quick --filter "$t/"
  done
  wait
  verdicts
  if [ "$n_bad" = 0 ]; then result portions ok "radix with 24576-key portions, u32 u64 f64: $(case_counts)"
  else result portions FAILED "$bad_list"; fi
}

# ---- benchmarks ----

bench_cuda=$B/bench/bench_cuda
SIZES=${BENCH_SIZES:-10,12,14,16,18,20,22,24,26,28,30}
# csv_append SRC DST: rows of SRC appended to DST (header once).
csv_append() {
  [ -s "$1" ] || return 0
  if [ -s "$2" ]; then tail -n +2 "$1" >> "$2"; else cp "$1" "$2"; fi
}
# csv_pick FILE CONDITION FORMAT FIELDS...: printf FORMAT of FIELDS for the rows of a CSV with
# a header where CONDITION holds, "; " between rows. Columns by name: v["ratio_cub"].
csv_pick() {
  awk -F, -v cond="$2" -v fmt="$3" -v fields="$4" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; nf = split(fields, f, " "); next }
    { for (k in col) v[k] = $col[k]
      ok = 1; nc = split(cond, c, "&")            # "name=value&name=value"
      for (i = 1; i <= nc; i++) { split(c[i], kv, "="); if (v[kv[1]] != kv[2]) ok = 0 }
      if (!ok) next
      for (i = 1; i <= nf; i++) a[i] = v[f[i]]
      printf "%s" fmt, sep, a[1], a[2], a[3], a[4]; sep = "; " }' "$1"
}

# bench_one SUITE: one suite's programs, rows appended to $OUT/*.csv, one summary line.
bench_one() {
  local s=$1 why d=$LOGS/bench rc detail
  case $s in
  radix|reduce|host|seeds)
    why=$(need_gpu)
    [ -n "$why" ] && { result "bench $s" skipped "$why"; return; }
    local csv=$d/$s.csv
    if [ "$s" = seeds ]; then   # bitonic, merge, rank, segmented, seed 000's table, crossovers
      timeout 600 "$bench_cuda" --suite seeds --csv "$csv" > "$d/$s.log" 2>&1
    else
      timeout 600 "$bench_cuda" --suite "$s" --csv "$csv" --json "$d/$s.json" > "$d/$s.log" 2>&1
    fi
    rc=$?
    if [ "$s" = seeds ]; then csv_append "$csv" "$OUT/seeds.csv"; else csv_append "$csv" "$OUT/cuda.csv"; fi
    case $s in
      radix) detail="uniform vs CUB, 2^28: $(csv_pick "$csv" "suite=radix&dist=uniform&n=268435456" "%s %s %.3fx" "op type ratio_cub")"
             detail+="; 2^27: $(csv_pick "$csv" "suite=radix&dist=uniform&n=134217728" "%s %s %.3fx" "op type ratio_cub")" ;;
      reduce) detail="sum 2^28 vs CUB+copy: $(csv_pick "$csv" "n=268435456" "%s %.3fx" "type ratio_cub")" ;;
      host) detail="1 GiB vs bare copies: $(csv_pick "$csv" "n=268435456" "%s %.3f" "op ratio_cub")" ;;
      seeds) detail="$(grep -cE "^(bitonic|merge|rank|segmented|table|cross) " "$d/$s.log") rows" ;;
    esac
    if [ $rc = 0 ] && ! grep -qE "FAIL|WRONG" "$d/$s.log"; then result "bench $s" ok "$detail"
    else result "bench $s" FAILED "exit $rc: $(grep -m3 -E 'FAIL|WRONG|rror' "$d/$s.log" | tr '\n' ' ')"; fi
    # The size sweep of every key type (bench_cuda --sweep LOG2,...).
    if [ "$s" = radix ]; then
      step_t0=$SECONDS
      timeout 600 "$bench_cuda" --suite radix --sweep "$SIZES" --csv "$d/sweep.csv" > "$d/sweep.log" 2>&1
      rc=$?
      csv_append "$d/sweep.csv" "$OUT/cuda.csv"
      if [ $rc = 0 ]; then result "bench sweep" ok "$(($(wc -l < "$d/sweep.csv") - 1)) rows, 2^{$SIZES}"
      else result "bench sweep" FAILED "exit $rc (bench/sweep.log)"; fi
    fi ;;
  opencl)
    why=$(need_gpu)
    [ -z "$why" ] && ! opencl_built && why="OpenCL backend not built here"
    [ -z "$why" ] && ! ((ocl_nvidia)) && why="no libnvidia-opencl.so.1"
    [ -n "$why" ] && { result "bench opencl" skipped "$why"; return; }
    # OpenCL through NVIDIA's driver against the CUDA backend: same process, data on the device.
    # (--breakdown: the radix pass's kernels timed one by one)
    timeout 300 "$B/bench/bench_opencl" --sizes 24,28 --device-only --no-bitonic --breakdown > "$d/opencl.log" 2>&1
    rc=$?
    timeout 300 "$B/bench/bench_opencl" --type f32 --sizes 24,28 --device-only --no-bitonic >> "$d/opencl.log" 2>&1
    rc=$((rc | $?))
    detail=$(grep -E "^\| opencl" "$d/opencl.log" |
             awk -F'|' '{ for (i = 2; i <= 9; i++) gsub(/^ +| +$/, "", $i)
                          printf "%s%s %s %s %s", sep, $2, $4, $5, $9; sep = "; " }')
    if [ $rc = 0 ]; then result "bench opencl" ok "OpenCL / CUDA: $detail"
    else result "bench opencl" FAILED "exit $rc (bench/opencl.log)"; fi ;;
  peers)
    why=$(need_gpu)
    [ -n "$why" ] && { result "bench peers" skipped "$why"; return; }
    PYTHONUNBUFFERED=1 timeout 600 python3 bench/peers.py --csv "$d/peers.csv" --sizes "$SIZES" \
        > "$d/peers.log" 2>&1
    rc=$?
    csv_append "$d/peers.csv" "$OUT/peers.csv"
    case $rc in
      0) result "bench peers" ok "$(tail -1 "$d/peers.log")" ;;
      77) result "bench peers" skipped "$(tail -1 "$d/peers.log")" ;;
      *) result "bench peers" FAILED "exit $rc: $(tail -1 "$d/peers.log")" ;;
    esac ;;
  cpu)
    # The CPU backend against std::sort and __gnu_parallel::sort, u32 keys 2^16 .. 2^26 on every
    # core (bench_cpu --csv appends rows without a header; this is its "csv," line's header).
    local k
    rc=0
    echo "keys,n,threads,algorithm,gpusort_ms,std_sort_ms,gnu_parallel_ms,gpusort_mkeys_s,x_std_sort,x_gnu_parallel,check" > "$d/cpu.csv"
    for k in ${CPU_SIZES:-16 18 20 22 24 26}; do
      timeout 300 "$B/bench/bench_cpu" --n $((1 << k)) --only-headline --runs 3 --csv "$d/cpu.csv" \
          >> "$d/cpu.log" 2>&1 || rc=1
    done
    csv_append "$d/cpu.csv" "$OUT/cpu.csv"
    detail=$(csv_pick "$d/cpu.csv" "n=$(tail -1 "$d/cpu.csv" | cut -d, -f2)" \
             "u32 n=%s, %s threads: %sx std::sort, %sx __gnu_parallel::sort" "n threads x_std_sort x_gnu_parallel")
    if [ $rc = 0 ]; then result "bench cpu" ok "$detail"; else result "bench cpu" FAILED "see bench/cpu.log"; fi ;;
  text)
    # The README's GPU-machine text row: TEXT_LINES random integers, one per line (10% negative),
    # sorted numerically by gpusort (AUTO) and by GNU sort on every core; outputs compared.
    local n=${TEXT_LINES:-100000000} td=$TMPD/text p t0 ms_ours ms_gnu same
    local per=$(( (n + JOBS - 1) / JOBS ))
    mkdir -p "$td"
    for ((p = 0; p < JOBS; p++)); do
      awk -v n="$per" -v seed=$((p + 1)) 'BEGIN { srand(seed)
          for (i = 0; i < n; i++) printf "%d\n", int((rand() - 0.1) * 2147483647) }' > "$td/ints.$p" &
    done
    wait
    cat "$td"/ints.[0-9]* | head -n "$n" > "$td/ints.txt"
    rm -f "$td"/ints.[0-9]*
    t0=$(date +%s%N)
    LC_ALL=C GPUSORT_TIMING=1 "$gpusort" -n "$td/ints.txt" -o "$td/ours.txt" > "$d/text.log" 2>&1
    ms_ours=$(( ($(date +%s%N) - t0) / 1000000 ))
    t0=$(date +%s%N)
    LC_ALL=C sort -n --parallel="$(nproc)" -S 50% "$td/ints.txt" -o "$td/gnu.txt" >> "$d/text.log" 2>&1
    ms_gnu=$(( ($(date +%s%N) - t0) / 1000000 ))
    if cmp -s "$td/ours.txt" "$td/gnu.txt"; then same=identical; else same=DIFFERENT; fi
    rm -rf "$td"
    detail=$(awk -v o="$ms_ours" -v g="$ms_gnu" -v n="$n" -v c="$(nproc)" 'BEGIN {
        printf "%d lines -n: gpusort %.2f s, GNU sort --parallel=%d %.2f s: %.1fx", n, o / 1000, c, g / 1000, g / o }')
    echo "$detail; outputs $same" >> "$d/text.log"
    if [ $same = identical ]; then result "bench text" ok "$detail; outputs identical"
    else result "bench text" FAILED "$detail; outputs DIFFER (bench/text.log)"; fi ;;
  *) result "bench $s" FAILED "unknown suite (radix reduce host seeds opencl peers cpu text all)" ;;
  esac
}

step_bench() {
  local suites="$*"
  case " $suites " in "  ") suites="radix reduce host seeds opencl peers cpu" ;;
    *" all "*) suites="radix reduce host seeds opencl peers cpu text" ;; esac
  ensure_built || return 1
  mkdir -p "$LOGS/bench"
  local s
  for s in $suites; do
    step_t0=$SECONDS
    bench_one "$s"
    pack
  done
  # cuda.json: the rows of every bench_cuda suite run, one document.
  if ls "$LOGS"/bench/*.json >/dev/null 2>&1; then
    python3 - "$OUT/cuda.json" "$LOGS"/bench/*.json <<'EOF'
import json, sys
docs = [json.load(open(p)) for p in sys.argv[2:]]
json.dump({"device": docs[0].get("device"), "runs": docs[0].get("runs"),
           "rows": [r for d in docs for r in d["rows"]]}, open(sys.argv[1], "w"), indent=1)
EOF
  fi
}

# ab_row BIN ROW: one process of bench_cuda for ROW; prints "ours_ms ratio" of its rows.
ab_row() {
  local bin=$1 row=$2 f=$TMPD/ab.csv
  rm -f "$f"
  if [[ $row == seeds:* ]]; then
    timeout 300 "$bin" --suite seeds --only "${row#seeds:}" --csv "$f" >> "$LOGS/ab/ab.log" 2>&1
    csv_pick "$f" "" "%s %.4f ms %sx" "case ours_ms ratio"
  else
    timeout 300 "$bin" --only "$row" --csv "$f" >> "$LOGS/ab/ab.log" 2>&1
    csv_pick "$f" "" "%.4f ms %.3fx" "ours_ms ratio_cub"
  fi
}

step_ab() {
  local flags=() rows=() a why vb=$B-ab
  for a in "$@"; do if [[ $a == -D* ]]; then flags+=("$a"); else rows+=("$a"); fi; done
  [ ${#flags[@]} = 0 ] && { result ab FAILED "no -DNAME=VALUE given (--help)"; return 1; }
  [ ${#rows[@]} = 0 ] && rows=(keys:u32:28 keys:f32:28 keys:u64:28 pairs32:u32:28 pairs64:u64:27 argsort:f32:28)
  ensure_built || return 1
  why=$(need_gpu)
  [ -n "$why" ] && { result "ab ${flags[*]}" skipped "$why"; return 0; }
  mkdir -p "$LOGS/ab"
  if ! { cmake -S . -B "$vb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
           -DCMAKE_CUDA_FLAGS="${flags[*]}" -DGPUSORT_OPENCL=OFF > "$LOGS/ab/configure.log" 2>&1 &&
         cmake --build "$vb" -j"$JOBS" --target bench_cuda 2>&1 | build_progress ab "$LOGS/ab/build.log"; }; then
    result "ab ${flags[*]}" FAILED "build of the variant (logs: ab/)"; return 1
  fi
  local row base var
  for row in "${rows[@]}"; do
    base='' var=''
    for _ in 1 2 3; do   # base and variant alternate, so that drift hits both alike
      base+=" | $(ab_row "$bench_cuda" "$row")"
      var+=" | $(ab_row "$vb/bench/bench_cuda" "$row")"
    done
    note "   $row base:${base}"
    note "   $row ${flags[*]}:${var}"
  done
  result "ab ${flags[*]}" ok "${#rows[@]} rows x 3 rounds above (ours ms, ratio to the peer)"
}

step_plot() {
  mkdir -p "$LOGS/plot"
  local inputs=()
  for f in cuda.csv seeds.csv peers.csv cpu.csv; do [ -s "$OUT/$f" ] && inputs+=("$OUT/$f"); done
  [ ${#inputs[@]} = 0 ] && { result plot skipped "no CSV of this run under $OUT (run bench first)"; return 0; }
  if ! python3 -c "import matplotlib" 2>/dev/null; then
    result plot skipped "python3 has no matplotlib (pip install matplotlib)"; return 0
  fi
  local dev
  dev=$(echo "${gpu_name:-}" | cut -d, -f1)
  rm -rf "$TMPD/plots"
  python3 bench/plot.py --out "$TMPD/plots" ${dev:+--device "$dev"} "${inputs[@]}" > "$LOGS/plot/plot.log" 2>&1
  local rc=$?
  tar czf "$OUT/plots.tgz" -C "$TMPD" plots 2>/dev/null
  if [ $rc = 0 ]; then result plot ok "$(grep -c '^plot.py: wrote' "$LOGS/plot/plot.log") PNGs in plots.tgz"
  else result plot FAILED "$(tail -1 "$LOGS/plot/plot.log")"; fi
}

step_ncu() {
  local row=${1:-keys:u32:24} why
  ensure_built || return 1
  why=$(need_gpu)
  [ -z "$why" ] && ! command -v ncu >/dev/null && why="ncu not found"
  [ -n "$why" ] && { result ncu skipped "$why"; return 0; }
  mkdir -p "$LOGS/ncu"
  # Clocks left alone (--clock-control none), warm caches: durations comparable within the run.
  local what=(--only "$row")
  [[ $row == seeds:* ]] && what=(--suite seeds --only "${row#seeds:}")
  timeout 300 ncu --clock-control none --metrics gpu__time_duration.sum \
      "$bench_cuda" "${what[@]}" --runs 1 > "$LOGS/ncu/ncu.log" 2>&1
  local rc=$?
  awk '/^  [A-Za-z_].*\(/ { k = $1 } /gpu__time_duration.sum/ { t[k] += $NF; c[k]++ }
       END { for (k in t) printf "%s %.1f us x%d\n", substr(k, 1, 60), t[k] / 1000, c[k] }' \
      "$LOGS/ncu/ncu.log" | sort -k2 -rn | head -12 > "$LOGS/ncu/kernels.txt"
  if [ $rc = 0 ]; then result "ncu $row" ok "per kernel (total, calls): $(head -6 "$LOGS/ncu/kernels.txt" | tr '\n' ';')"
  else result "ncu $row" FAILED "exit $rc (ncu/ncu.log)"; fi
}

# ---- issue 14: caller memory, tuning rows, PTX JIT ----

step_alloc() {
  local mode=${1:-full} why q=()
  ensure_built || return 1
  why=$(need_gpu)
  [ -n "$why" ] && { result alloc skipped "$why"; return 0; }
  mkdir -p "$LOGS/alloc"
  [ "$mode" = quick ] && q=(--quick)
  local ta=$B/tests/test_alloc
  run alloc_cuda "$ta" --part cuda "${q[@]}"
  run alloc_knob "$ta" --part knob
  run alloc_tuning "$ta" --part tuning "${q[@]}"
  if command -v compute-sanitizer >/dev/null; then
    san alloc_cuda memcheck "$ta" --part cuda --quick
    san alloc_knob memcheck "$ta" --part knob
  fi
  wait
  verdicts
  local rows
  rows=$(grep -h "^tuning row" "$LOGS/alloc"/*tuning*.log 2>/dev/null | sed 's/ (shared.*//' | tr '\n' ';')
  if [ "$n_bad" = 0 ]; then result alloc ok "$n_ok runs passed; $rows"
  else result alloc FAILED "$n_ok passed, $n_bad failed:$bad_list"; fi
}

# first_call NAME ENV...: wall ms of one `gpusort sort` process (2^20 u32, host data, CUDA),
# the median of 3; CUDA_CACHE_PATH=fresh makes a new empty cache folder for each process.
first_call() {
  local name=$1 bin=$2; shift 2
  local t=() e ms i
  for i in 1 2 3; do
    e=("$@")
    [[ " ${e[*]} " == *" CUDA_CACHE_PATH=fresh "* ]] && e=("${e[@]/CUDA_CACHE_PATH=fresh/CUDA_CACHE_PATH=$TMPD/jitcache.$i}")
    local t0=$(date +%s%N)
    env "${e[@]}" "$bin" sort "$TMPD/data/jit.in" -o "$TMPD/data/jit.out" --type u32 --backend cuda -q \
        >> "$LOGS/ptxjit/first_call.log" 2>&1
    t+=($(( ($(date +%s%N) - t0) / 1000000 )))
  done
  ms=$(printf "%s\n" "${t[@]}" | sort -n | sed -n 2p)
  echo "$name ${t[*]} -> median $ms ms" >> "$LOGS/ptxjit/first_call.log"
  echo "$ms"
}

step_ptxjit() {
  local rows=("$@") why pb=$B-ptx
  [ ${#rows[@]} = 0 ] && rows=(keys:u32:28 keys:f32:28 keys:u64:28 pairs32:u32:28 pairs64:u64:27 argsort:f32:28)
  ensure_built || return 1
  why=$(need_gpu)
  [ -n "$why" ] && { result ptxjit skipped "$why"; return 0; }
  mkdir -p "$LOGS/ptxjit"
  if ! { cmake -S . -B "$pb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=75-virtual \
           -DGPUSORT_OPENCL=OFF > "$LOGS/ptxjit/configure.log" 2>&1 &&
         cmake --build "$pb" -j"$JOBS" 2>&1 | build_progress ptxjit "$LOGS/ptxjit/build.log"; }; then
    result ptxjit FAILED "build of the compute_75 PTX build (logs: ptxjit/)"; return 1
  fi
  CUDA_FORCE_PTX_JIT=1 "$pb/tools/gpusort" devices > "$LOGS/ptxjit/devices.log" 2>&1
  # 1. the CUDA tests, every kernel from PTX
  local ct=$LOGS/ptxjit/ctest.log
  CUDA_FORCE_PTX_JIT=1 GPUSORT_TEST_QUICK=1 ctest --test-dir "$pb" -L cuda -j"$JOBS" --output-on-failure > "$ct" 2>&1
  local st=$?
  ctest_counts "$ct"
  local line="JIT ctest -L cuda: ${ct_passed} passed, ${ct_failed} failed, ${ct_skipped} skipped"
  # 2. first-call cost
  "$gpusort" gen --type u32 --n 1048576 --dist uniform --seed 3 -o "$TMPD/data/jit.in" > /dev/null 2>&1
  local native jit_nocache jit_cold jit_warm
  native=$(first_call native "$gpusort")
  jit_nocache=$(first_call jit_nocache "$pb/tools/gpusort" CUDA_CACHE_DISABLE=1)
  jit_cold=$(first_call jit_cold "$pb/tools/gpusort" CUDA_CACHE_PATH=fresh)
  rm -rf "$TMPD/jitwarm"
  CUDA_CACHE_PATH=$TMPD/jitwarm "$pb/tools/gpusort" sort "$TMPD/data/jit.in" -o "$TMPD/data/jit.out" --type u32 --backend cuda -q >/dev/null 2>&1
  jit_warm=$(first_call jit_warm "$pb/tools/gpusort" CUDA_CACHE_PATH=$TMPD/jitwarm)
  line+="; one 2^20 u32 sort process: native $native ms, JIT no cache $jit_nocache ms, cold cache $jit_cold ms, warm cache $jit_warm ms"
  # 3. bench rows, JIT build beside this build (alternating processes)
  local r f
  echo "build,row,ours_ms,ratio_cub" > "$OUT/ptxjit.csv"
  for r in "${rows[@]}"; do
    for f in native jit; do
      local bin=$B/bench/bench_cuda
      [ $f = jit ] && bin=$pb/bench/bench_cuda
      timeout 300 "$bin" --only "$r" --csv "$TMPD/jit.csv" >> "$LOGS/ptxjit/bench.log" 2>&1
      echo "$f,$r,$(csv_pick "$TMPD/jit.csv" "" "%s,%s" "ours_ms ratio_cub")" >> "$OUT/ptxjit.csv"
    done
  done
  line+="; bench rows in ptxjit.csv"
  if [ $st = 0 ] && [ "$ct_failed" = 0 ]; then result ptxjit ok "$line"; else result ptxjit FAILED "$line"; fi
}

step_noarch() {
  local why nb=$B-noarch arch=100-real g
  ensure_built || return 1
  why=$(need_gpu)
  [ -n "$why" ] && { result noarch skipped "$why"; return 0; }
  nvidia-smi --query-gpu=compute_cap --format=csv,noheader | grep -q '^10' && arch=90-real
  mkdir -p "$LOGS/noarch"
  if ! { cmake -S . -B "$nb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$arch \
           -DGPUSORT_OPENCL=OFF > "$LOGS/noarch/configure.log" 2>&1 &&
         cmake --build "$nb" -j"$JOBS" --target gpusort_cli 2>&1 | build_progress noarch "$LOGS/noarch/build.log"; }; then
    result noarch FAILED "build for $arch (logs: noarch/)"; return 1
  fi
  g=$(ls "$nb"/tools/gpusort 2>/dev/null || find "$nb" -name gpusort -type f | head -1)
  local d=$TMPD/data/noarch ok=1 detail
  mkdir -p "$d"
  "$gpusort" gen --type u32 --n 100000 --seed 5 -o "$d/in" > /dev/null 2>&1
  "$g" devices > "$LOGS/noarch/devices.log" 2>&1
  grep -q "not usable by this build" "$LOGS/noarch/devices.log" || ok=0
  grep -q "^auto: cpu" "$LOGS/noarch/devices.log" || ok=0
  "$g" sort "$d/in" -o "$d/out" --type u32 --backend cuda -q > "$LOGS/noarch/sort_cuda.log" 2>&1
  echo "exit $?" >> "$LOGS/noarch/sort_cuda.log"
  grep -q "exit 2" "$LOGS/noarch/sort_cuda.log" || ok=0
  [ -e "$d/out" ] && { echo "an output was left" >> "$LOGS/noarch/sort_cuda.log"; ok=0; }
  # AUTO on a file above the command's small-file share (16 MiB per thread: one thread, 2^22 + 1
  # keys), so that the library's AUTO decides, and must take the CPU.
  "$gpusort" gen --type u32 --n 4194305 --seed 6 -o "$d/in" > /dev/null 2>&1
  "$g" sort "$d/in" -o "$d/out" --type u32 --backend auto --threads 1 --stats -q > "$LOGS/noarch/sort_auto.log" 2>&1 &&
    grep -q "keys with cpu " "$LOGS/noarch/sort_auto.log" &&
    "$g" check "$d/out" --type u32 >> "$LOGS/noarch/sort_auto.log" 2>&1 || ok=0
  detail="$arch build on this GPU: $(grep -m1 'not usable' "$LOGS/noarch/devices.log" | sed 's/^ *//'); --backend cuda: $(head -1 "$LOGS/noarch/sort_cuda.log"); $(grep '^auto:' "$LOGS/noarch/devices.log")"
  if [ $ok = 1 ]; then result noarch ok "$detail"; else result noarch FAILED "$detail (noarch/)"; fi
}

step_abtree() {
  local dir=$1 rows=("${@:2}") why ob round r
  [ -d "$dir" ] || { result abtree FAILED "no source tree '$dir'"; return 1; }
  ob=$(cd "$dir" && pwd)/build-abtree
  [ ${#rows[@]} = 0 ] && rows=(keys:u32:28 keys:f32:28 keys:u64:28 keys:f64:28 pairs32:u32:28 pairs64:u64:27 argsort:f32:28)
  ensure_built || return 1
  why=$(need_gpu)
  [ -n "$why" ] && { result abtree skipped "$why"; return 0; }
  mkdir -p "$LOGS/abtree"
  if ! { cmake -S "$dir" -B "$ob" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
           -DGPUSORT_OPENCL=OFF > "$LOGS/abtree/configure.log" 2>&1 &&
         cmake --build "$ob" -j"$JOBS" --target bench_cuda 2>&1 | build_progress abtree "$LOGS/abtree/build.log"; }; then
    result abtree FAILED "build of $dir (logs: abtree/)"; return 1
  fi
  rm -f "$OUT/old_rounds.csv" "$OUT/new_rounds.csv"
  for round in 1 2 3; do
    for r in "${rows[@]}"; do
      timeout 300 "$ob/bench/bench_cuda" --only "$r" --csv "$TMPD/ab_old.csv" >> "$LOGS/abtree/old.log" 2>&1
      timeout 300 "$B/bench/bench_cuda" --only "$r" --csv "$TMPD/ab_new.csv" >> "$LOGS/abtree/new.log" 2>&1
      for w in old new; do
        [ -f "$OUT/${w}_rounds.csv" ] || head -1 "$TMPD/ab_$w.csv" > "$OUT/${w}_rounds.csv"
        tail -n +2 "$TMPD/ab_$w.csv" >> "$OUT/${w}_rounds.csv"
      done
    done
  done
  # each row's median over the rounds (ours_ms, and the peer's ratio of the same process)
  for w in old new; do
    python3 - "$OUT/${w}_rounds.csv" "$OUT/$w.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = list(rows[0].keys()); key = cols[: cols.index("ours_ms")]
groups = {}
for r in rows: groups.setdefault(tuple(r[c] for c in key), []).append(r)
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=cols); w.writeheader()
for k, rs in groups.items():
    rs.sort(key=lambda r: float(r["ours_ms"])); w.writerow(rs[len(rs) // 2])
EOF
  done
  python3 bench/compare.py "$OUT/old.csv" "$OUT/new.csv" > "$LOGS/abtree/compare.log" 2>&1
  local rc=$?
  cp "$LOGS/abtree/compare.log" "$OUT/compare.txt"
  if [ $rc = 0 ]; then result abtree ok "no row slower than 3% (compare.txt)"
  else result abtree FAILED "rows slower than 3%: $(grep -c SLOWER "$LOGS/abtree/compare.log") (compare.txt)"; fi
}

# ---- main: split the arguments into steps and their arguments ----

args=("$@")
[ ${#args[@]} = 0 ] && args=(build test sanitize bench)
i=0
while [ $i -lt ${#args[@]} ]; do
  step=${args[$i]} sargs=()
  i=$((i + 1))
  while [ $i -lt ${#args[@]} ] && [[ $STEPS != *" ${args[$i]} "* ]]; do sargs+=("${args[$i]}"); i=$((i + 1)); done
  step_t0=$SECONDS
  "step_$step" "${sargs[@]}"
  pack
done
echo
echo "==== summary ($OUT/summary.txt; logs in $OUT/logs.tgz)"
cat "$SUMMARY"
[ $failures = 0 ]
