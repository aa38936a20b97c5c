#!/usr/bin/env bash
# fuzz.sh -- build the libFuzzer targets of tests/fuzz/ with clang and fuzz them.
#
#   scripts/fuzz.sh [--time S | --cpu S] [--jobs J] [--build DIR] [TARGET...]
#   scripts/fuzz.sh --coverage [--build DIR] [TARGET...]
#
# Each target (default: all of tests/fuzz/fuzz_*.c) runs S seconds (default 60), J targets at a
# time (default 2), niced, on a working corpus DIR/fuzz-work/<target>/ that starts from the
# committed tests/fuzz/corpus/<target>/ and keeps what earlier runs found. A crash stops that
# target, leaves its input in DIR/fuzz-work/artifacts/ and makes the script exit 1 (add the input
# to tests/fuzz/corpus/<target>/ with the fix: it then runs in every CI replay). Every run adds
# a line "date target seconds runs cov ft status" to DIR/fuzz-work/fuzz-log.tsv, from which the
# hours per target (README's reliability table) are summed; its 8th column is the CPU seconds
# the run took, the fuzzer and the processes it started (fuzz_diff's GNU sort) together:
#   awk '{s[$2]+=$3; r[$2]+=$4; c[$2]+=$8} END {for (t in s) print t, s[t]/3600 " h",
#        c[t]/3600 " CPU h", r[t] " runs"}' LOG
# --cpu S fuzzes each target until it has had S seconds of CPU, not of wall time: on a loaded
# machine a niced fuzzer gets a fraction of a core, so wall time overstates the work done. It
# runs the target in pieces whose wall limit is the CPU time still owed (CPU time never exceeds
# wall time for one fuzzer process), so a target ends within one piece's overshoot of S.
# --coverage fuzzes nothing: it builds the targets with clang's source-based coverage and the
# replay driver in DIR-cov, replays each working corpus (DIR/fuzz-work/<target>, else the
# committed one) and prints llvm-cov's line and branch coverage of src/ and tools/ per target
# and for all of them together.
# To fold what a campaign found into the committed corpus (only the inputs that add coverage):
#   build-fuzz/tests/fuzz_T -merge=1 tests/fuzz/corpus/T build-fuzz/fuzz-work/T
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
secs=60 cpu=0 jobs=2 dir=build-fuzz targets=() coverage=0
while [ $# -gt 0 ]; do
  case $1 in
    --time) secs=$2; shift 2;;
    --cpu) cpu=$2; shift 2;;
    --jobs) jobs=$2; shift 2;;
    --build) dir=$2; shift 2;;
    --coverage) coverage=1; shift;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
    *) targets+=("$1"); shift;;
  esac
done
if [ ${#targets[@]} = 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do t=${f##*/fuzz_}; targets+=("${t%.c}"); done
fi
if ! command -v clang >/dev/null 2>&1; then
  echo "skipped: fuzzing needs clang (apt-get install clang)"; exit 77
fi
if [ "$coverage" = 1 ]; then
  cdir=$dir-cov
  echo "== [fuzz] coverage build ($cdir)"
  CC=clang CXX=clang++ cmake -S . -B "$cdir" -G Ninja -DGPUSORT_CUDA=OFF -DGPUSORT_OPENCL=OFF \
    -DGPUSORT_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS=-fprofile-instr-generate -fcoverage-mapping" \
    "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate" >/dev/null || exit 2
  cmake --build "$cdir" -j"$jobs" --target "${targets[@]/#/fuzz_}" >"$cdir/build.log" 2>&1 \
    || { tail -30 "$cdir/build.log"; exit 2; }
  export LC_ALL=C ASAN_OPTIONS=detect_leaks=0
  rm -f "$cdir"/*.profraw
  objs=()
  for t in "${targets[@]}"; do
    corpus=$dir/fuzz-work/$t; [ -d "$corpus" ] || corpus=tests/fuzz/corpus/$t
    LLVM_PROFILE_FILE="$cdir/$t.profraw" "$cdir/tests/fuzz_$t" --random 0 "$corpus" >/dev/null 2>&1
    llvm-profdata merge -o "$cdir/$t.profdata" "$cdir/$t.profraw"
    printf '%-11s %6s inputs  ' "$t" "$(ls "$corpus" | wc -l)"
    llvm-cov report "$cdir/tests/fuzz_$t" -instr-profile="$cdir/$t.profdata" \
      "$PWD/src" "$PWD/tools" |
      awk '/^TOTAL/ {print "lines " $10 " of " $8 ", regions " $4 ", branches " $13}'
    objs+=(-object "$cdir/tests/fuzz_$t")
  done
  llvm-profdata merge -o "$cdir/all.profdata" "$cdir"/*.profraw
  echo "all targets together, per file:"
  llvm-cov report "${objs[@]:1}" -instr-profile="$cdir/all.profdata" "$PWD/src" "$PWD/tools"
  exit 0
fi
echo "== [fuzz] configure and build ($dir)"
CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DGPUSORT_FUZZ=ON -DGPUSORT_CUDA=OFF \
  -DGPUSORT_OPENCL=OFF -DGPUSORT_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null \
  || exit 2
cmake --build "$dir" -j"$jobs" --target "${targets[@]/#/fuzz_}" >"$dir/fuzz-build.log" 2>&1 \
  || { tail -30 "$dir/fuzz-build.log"; exit 2; }

work=$dir/fuzz-work
mkdir -p "$work/artifacts"
# The CLI targets longjmp out of refused command lines, leaving what those had allocated
# (tests/fuzz/fuzz.h): leak checks off there. LC_ALL=C: text mode refuses other collations.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} LC_ALL=C

# CPU seconds (user + system) of the finished children of this (sub)shell, from bash's `times`,
# into the variable cpu_used. `times` runs in this shell, not in a $(...) subshell, whose
# counts would start from zero.
children_cpu() {
  local f=$work/.times.$BASHPID
  times >"$f"
  cpu_used=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
                            printf "%d\n", s }' "$f")
  rm -f "$f"
}

fuzz_piece() {  # target wall-seconds: one libFuzzer run, logged; returns its status
  local t=$1 wall=$2 log=$work/$1.log c0 c1 cpu_used t0=$SECONDS
  children_cpu; c0=$cpu_used
  nice -n 19 "$dir/tests/fuzz_$t" -max_total_time="$wall" -close_fd_mask=3 -timeout=25 \
    -rss_limit_mb=4096 -artifact_prefix="$work/artifacts/$t-" "$work/$t" >"$log" 2>&1
  local st=$? runs cov ft s
  children_cpu; c1=$cpu_used
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  s=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  # A run that stopped early (a crash) prints no "Done" line: its elapsed time, and the count
  # of its last status line ("#N ...").
  [ -n "$s" ] || s=$((SECONDS - t0))
  [ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -1)
  local status=ok; [ "$st" = 0 ] || status=crash
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$s" "${runs:-0}" \
    "${cov:-0}" "${ft:-0}" "$status" "$((c1 - c0))" >> "$work/fuzz-log.tsv"
  echo "[fuzz] $t: ${runs:-0} runs in $s s ($((c1 - c0)) CPU s), cov ${cov:-?} ft ${ft:-?}: $status"
  if [ "$st" != 0 ]; then
    grep -B2 -A25 "ERROR\|property failed\|deadly signal" "$log" | head -60
  fi
  return "$st"
}

fuzz_one() {  # target
  local t=$1
  mkdir -p "$work/$t"
  cp -n tests/fuzz/corpus/"$t"/* "$work/$t"/ 2>/dev/null
  if [ "$cpu" = 0 ]; then fuzz_piece "$t" "$secs"; return; fi
  local owed=$cpu cpu_used
  while [ "$owed" -gt 0 ]; do
    fuzz_piece "$t" "$(( owed > 60 ? owed : 60 ))" || return 1
    children_cpu; owed=$(( cpu - cpu_used ))
  done
}

rc=0 running=0
pids=()
for t in "${targets[@]}"; do
  fuzz_one "$t" & pids+=($!)
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || rc=1; running=$((running - 1)); fi
done
while [ "$running" -gt 0 ]; do wait -n || rc=1; running=$((running - 1)); done
exit $rc
