#!/usr/bin/env bash
# test.sh -- build gpusort and run the whole test suite:
#   1. a Release build with every backend whose toolchain is present, and all its tests (ctest):
#      among them the replay of every fuzz corpus (tests/fuzz/) and the fault-injection and
#      thread tests (tests/fault/);
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer: detect_leaks=1) build
#      of the CPU and OpenCL code, and its tests;
#   3. a ThreadSanitizer build of the CPU and OpenCL code and its thread tests (ctest -L threads);
#   4. with clang: the fuzz targets built with libFuzzer, 60 s each, two at a time
#      (scripts/fuzz.sh; a crash fails the suite and leaves its input in build-fuzz/fuzz-work/).
# Builds report their progress (a line per 10% of the build steps; one updating line on a
# terminal). A test that cannot run here exits 77 and is counted as skipped; after each suite
# the skipped tests are listed with the reason they printed ("skipped: no CUDA device",
# "skipped: set GPUSORT_BIG_TESTS=1 to run ..."). Ends with one line
# "N passed, N failed, N skipped" over both suites; exits non-zero on a failure.
#
#   ./scripts/test.sh            everything
#   GPUSORT_TEST_NO_ASAN=1 ./scripts/test.sh     skip the ASan/UBSan build
#   GPUSORT_TEST_NO_TSAN=1, GPUSORT_TEST_NO_FUZZ=1   skip the TSan build, the fuzz run
#   GPUSORT_FUZZ_SECONDS=S ./scripts/test.sh     fuzz each target S seconds (default 60)
#   GPUSORT_BIG_TESTS=1 ./scripts/test.sh        also the n = 2^32 + 1234 tests (GPU machine)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ -n "${GPUSORT_TEST_NO_FUZZ:-}" ] || export GPUSORT_SETUP_FUZZ=1
source scripts/setup.sh
source scripts/common.sh
set +e
jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0 failed=0 skipped=0 rc=0

run_suite() {  # name build-dir [--target T --label L] cmake-args...
  local name=$1 dir=$2 target=() label=() t0=$SECONDS; shift 2
  if [ "${1:-}" = --target ]; then target=(--target "$2"); label=(-L "$4"); shift 4; fi
  echo "== [$name] configure and build ($dir)"
  if ! cmake -S . -B "$dir" -G Ninja "$@" >"$log" 2>&1; then cat "$log"; echo "[$name] configure failed"; failed=$((failed+1)); rc=1; return; fi
  grep "gpusort:" "$log"
  cmake --build "$dir" -j"$jobs" "${target[@]}" 2>&1 | build_progress "$name" "$log"
  if [ "${PIPESTATUS[0]}" != 0 ]; then tail -50 "$log"; echo "[$name] build failed"; failed=$((failed+1)); rc=1; return; fi
  echo "== [$name] tests"
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" "${label[@]}" 2>&1 | tee "$log"
  local st=${PIPESTATUS[0]}
  [ "$st" = 0 ] || rc=1
  ctest_counts "$log"
  if [ "$ct_total" = 0 ] && [ "$st" != 0 ]; then ct_failed=1; fi
  passed=$((passed + ct_passed)); failed=$((failed + ct_failed)); skipped=$((skipped + ct_skipped))
  ctest_skip_reasons "$log" "$dir"
  echo "== [$name] done in $((SECONDS - t0)) s"
}

# CUDA: machine code for sm_90 only (GPUSORT_TEST_CUDA_ARCHS overrides): the default list of
# seven architectures compiles for about 3.5 times as long (README.md, "GPU architectures"), and
# CI has no GPU to run any of them; the ctest test cuda_multiarch_compile compiles radix.cu for
# the whole list, so a kernel that does not build for some architecture still fails here.
run_suite release build -DCMAKE_BUILD_TYPE=Release -DGPUSORT_CUDA_ARCHS="${GPUSORT_TEST_CUDA_ARCHS:-90}"
if [ -z "${GPUSORT_TEST_NO_ASAN:-}" ]; then
  # The sanitizer build leaves CUDA out: nvcc objects gain nothing from ASan, and no GPU runs here.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    run_suite asan+ubsan build-asan -DCMAKE_BUILD_TYPE=Debug -DGPUSORT_SANITIZE=ON -DGPUSORT_CUDA=OFF -DGPUSORT_BUILD_BENCH=OFF
fi
if [ -z "${GPUSORT_TEST_NO_TSAN:-}" ]; then
  # Only the thread tests: ThreadSanitizer makes the rest 5-15x slower for nothing to find.
  TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1} \
    run_suite tsan build-tsan --target test_threads --label threads \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSORT_TSAN=ON -DGPUSORT_CUDA=OFF -DGPUSORT_BUILD_BENCH=OFF
fi
if [ -z "${GPUSORT_TEST_NO_FUZZ:-}" ]; then
  echo "== [fuzz] ${GPUSORT_FUZZ_SECONDS:-60} s per target"
  t0=$SECONDS
  bash scripts/fuzz.sh --time "${GPUSORT_FUZZ_SECONDS:-60}" --jobs 2 --build build-fuzz
  st=$?
  echo "== [fuzz] done in $((SECONDS - t0)) s"
  if [ "$st" = 0 ]; then passed=$((passed + 1))
  elif [ "$st" = 77 ]; then skipped=$((skipped + 1)); echo "skipped: fuzz run (no clang)"
  else failed=$((failed + 1)); rc=1; fi
fi
echo
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
