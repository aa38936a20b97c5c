#!/usr/bin/env bash
# test.sh -- build gpusort and run the whole test suite:
#   1. a Release build with every backend whose toolchain is present, and all its tests (ctest);
#      backends without a device (CUDA on a machine with no GPU) are reported as skipped;
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build of the CPU and OpenCL code, and its tests.
# Ends with one line "N passed, N failed, N skipped" over both runs; exits non-zero on a failure.
#
#   ./scripts/test.sh            everything
#   GPUSORT_TEST_NO_ASAN=1 ./scripts/test.sh     skip the sanitizer build
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
set +e
jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0 failed=0 skipped=0 rc=0

run_suite() {  # name build-dir cmake-args...
  local name=$1 dir=$2; shift 2
  echo "== [$name] configure and build ($dir)"
  if ! cmake -S . -B "$dir" -G Ninja "$@" >"$log" 2>&1; then cat "$log"; echo "[$name] configure failed"; failed=$((failed+1)); rc=1; return; fi
  grep "gpusort:" "$log"
  if ! cmake --build "$dir" -j"$jobs" >"$log" 2>&1; then tail -50 "$log"; echo "[$name] build failed"; failed=$((failed+1)); rc=1; return; fi
  echo "== [$name] tests"
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" 2>&1 | tee "$log"
  local st=${PIPESTATUS[0]}
  [ "$st" = 0 ] || rc=1
  local total fail skip
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  fail=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -1)
  skip=$(grep -c "\*\*\*Skipped\|Not Run (Disabled)" "$log")
  total=${total:-0}; fail=${fail:-0}
  if [ "$total" = 0 ] && [ "$st" != 0 ]; then fail=1; fi
  passed=$((passed + total - fail - skip)); failed=$((failed + fail)); skipped=$((skipped + skip))
}

run_suite release build -DCMAKE_BUILD_TYPE=Release
if [ -z "${GPUSORT_TEST_NO_ASAN:-}" ]; then
  # The sanitizer build leaves CUDA out: nvcc objects gain nothing from ASan, and no GPU runs here.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    run_suite asan+ubsan build-asan -DCMAKE_BUILD_TYPE=Debug -DGPUSORT_SANITIZE=ON -DGPUSORT_CUDA=OFF -DGPUSORT_BUILD_BENCH=OFF
fi
echo
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
