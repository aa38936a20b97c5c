#!/usr/bin/env bash
# device_run.sh -- issue 16's rows on a GPU machine in one call, each step bounded and logged
# to $OUT at once:
#   1. test_backends: the CUDA radix sort, every type and mode (the argsort paths among them)
#   2. test_alloc: a workspace of exactly the queried size (cuda), every tuning row (tuning)
#   3. bench_cuda: argsort with u32 and u64 indices against CUB, and u32/u32 pairs, at 2^24 / 2^28
#   4. the Python package built for this machine's python3 with plain CMake (the library as its
#      subproject, sm_90) and put on PYTHONPATH
#   5. its pytest suite (numpy on every backend, torch and CuPy arrays, streams)
#   6. bench/python/bench_py.py: torch.sort with indices, cupy.sort, the 2^10 rows, numpy
#
#   OUT=/tmp/out BIN=build-dev bash bench/python/device_run.sh
# BIN holds tests/test_backends, tests/test_alloc and bench/bench_cuda built with sm_90, or is
# a .tar.xz of them.
set -u
OUT=${OUT:-/tmp/py-out}
BIN=${BIN:-build-dev}
mkdir -p "$OUT"
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*" | tee -a "$OUT/steps.log"; }
if [ -f "$BIN" ]; then mkdir -p /tmp/py-bin && tar -xJf "$BIN" -C /tmp/py-bin && BIN=/tmp/py-bin; fi

step "1. test_backends, CUDA radix"
timeout 150 "$BIN/tests/test_backends" --backend cuda --algorithm radix --seed 21 2>&1 | tail -8 | tee "$OUT/test_radix.log"
step "2. test_alloc cuda, tuning"
for part in cuda tuning; do
  timeout 120 "$BIN/tests/test_alloc" --part $part 2>&1 | tail -2 | tee -a "$OUT/test_alloc.log"
done
step "3. bench_cuda argsort rows"
for o in argsort:i32:28 argsort:f32:28 argsort:i64:28 pairs32:u32:28 argsort:i32:24; do
  timeout 60 "$BIN/bench/bench_cuda" --only $o 2>&1 | grep -E "^\| radix|argsort|pairs" | tee -a "$OUT/bench_cuda.log"
done
step "4. python package (cmake)"
nb=$(python3 -m nanobind --cmake_dir)
{ cmake -S python -B /tmp/py-cm -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUSORT_CUDA_ARCHS=90 -Dnanobind_DIR="$nb" &&
  cmake --build /tmp/py-cm -j"$(nproc)"; } >"$OUT/py_build.log" 2>&1; echo "build exit $?" | tee -a "$OUT/py_build.log"
rm -rf /tmp/pyp && mkdir -p /tmp/pyp && cp -r python/gpusort /tmp/pyp/ && cp /tmp/py-cm/_core*.so /tmp/pyp/gpusort/
export PYTHONPATH=/tmp/pyp
step "5. pytest"
(cd tests/python && timeout 240 python3 -m pytest -q -rs -p no:cacheprovider 2>&1 | tail -6) | tee "$OUT/pytest.log"
step "6. bench_py"
timeout 240 python3 bench/python/bench_py.py --runs 9 --sizes 24,28 --csv "$OUT/bench_py.csv" 2>&1 | tee "$OUT/bench_py.log"
step done
