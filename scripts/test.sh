#!/usr/bin/env bash
# test.sh -- build gpusort and run the whole test suite:
#   1. a Release build with every backend whose toolchain is present, and all its tests (ctest):
#      among them the replay of every fuzz corpus (tests/fuzz/) and the fault-injection and
#      thread tests (tests/fault/);
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer: detect_leaks=1) build
#      of the CPU and OpenCL code, and its tests;
#   3. a ThreadSanitizer build of the CPU and OpenCL code and its thread tests (ctest -L threads);
#   4. the Python package (python/, built into build-python/) and its pytest suite
#      (tests/python/: CPU and OpenCL backends here, torch and CuPy where a CUDA device is);
#   5. with clang: the fuzz targets built with libFuzzer, 60 s each, two at a time
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
#   GPUSORT_TEST_NO_PYTHON=1 ./scripts/test.sh   skip the Python suite
#   GPUSORT_PY_SEED=N ./scripts/test.sh          replay the Python suite's random inputs
#   GPUSORT_FUZZ_SECONDS=S ./scripts/test.sh     fuzz each target S seconds (default 60)
#   GPUSORT_BIG_TESTS=1 ./scripts/test.sh        also the n = 2^32 + 1234 tests (GPU machine)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ -n "${GPUSORT_TEST_NO_FUZZ:-}" ] || export GPUSORT_SETUP_FUZZ=1
[ -n "${GPUSORT_TEST_NO_PYTHON:-}" ] || export GPUSORT_SETUP_PYTHON=1
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

# The Python suite: `pip install ./python` into the venv scripts/setup.sh made (the library
# compiled into the extension, CUDA for the same architectures as the release build), then
# pytest. Its counts join the totals: "N passed, N failed, N skipped" of pytest's summary.
run_python_suite() {
  local py=$PWD/build-python/venv/bin/python t0=$SECONDS st n
  echo "== [python] pip install ./python (build-python/) and pytest tests/python"
  if ! "$py" -c "import nanobind, scikit_build_core, numpy, pytest" >/dev/null 2>&1; then
    echo "skipped: python suite (no venv with nanobind, scikit-build-core, numpy and pytest; scripts/setup.sh makes build-python/venv)"
    skipped=$((skipped + 1)); return
  fi
  if ! CMAKE_BUILD_PARALLEL_LEVEL=$jobs "$py" -m pip install -q --disable-pip-version-check \
       --no-build-isolation --no-deps ./python -C build-dir="$PWD/build-python/pkg" \
       -C cmake.define.GPUSORT_CUDA_ARCHS="${GPUSORT_TEST_CUDA_ARCHS:-90}" >"$log" 2>&1; then
    tail -30 "$log"; echo "[python] package build failed"; failed=$((failed + 1)); rc=1; return
  fi
  echo "[python] package built in $((SECONDS - t0)) s"
  (cd tests/python && "$py" -m pytest -q -rs -p no:cacheprovider) 2>&1 | tee "$log"
  st=${PIPESTATUS[0]}
  [ "$st" = 0 ] || rc=1
  for w in passed failed skipped error; do
    n=$(tail -3 "$log" | grep -o "[0-9]* $w" | tail -1 | cut -d' ' -f1)
    case $w in passed) passed=$((passed + ${n:-0}));; skipped) skipped=$((skipped + ${n:-0}));;
               *) failed=$((failed + ${n:-0}));; esac
  done
  if [ "$st" != 0 ] && ! tail -3 "$log" | grep -q "failed\|error"; then failed=$((failed + 1)); fi
  echo "== [python] done in $((SECONDS - t0)) s"
}

# CUDA: machine code for sm_90 only (GPUSORT_TEST_CUDA_ARCHS overrides): the default list of
# seven architectures compiles for about 3.5 times as long (README.md, "GPU architectures"), and
# CI has no GPU to run any of them; the ctest test cuda_multiarch_compile compiles radix.cu for
# one architecture of each other code generation the sources tell apart (sm_75, sm_120 and its
# PTX: tests/port/tests.cmake), so a kernel that does not build for one of them still fails here.
run_suite release build -DCMAKE_BUILD_TYPE=Release -DGPUSORT_CUDA_ARCHS="${GPUSORT_TEST_CUDA_ARCHS:-90}"
[ -n "${GPUSORT_TEST_NO_PYTHON:-}" ] || run_python_suite
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
