#!/usr/bin/env bash
# nccl_run.sh -- the MPI sort's GPU ranks over NCCL on a machine with several GPUs, one rank
# per GPU, in one call (each step bounded, logs to $OUT):
#   1. test_mpi, 2 ranks, device data (the exchange over NCCL; the last call's transport is
#      printed), then with GPUSORT_MPI_NCCL=0 (MPI), then 4 ranks on 2 GPUs (shared: MPI)
#   2. bench_mpi, 2 ranks vs one rank sorting everything, 2^28 and 2^30 u32 keys in device
#      memory, NCCL (and MPI through host memory at 2^28)
#   3. compute-sanitizer memcheck of test_mpi over NCCL
#   OUT=/tmp/out BIN=dir-or-tar.xz bash bench/mpi/nccl_run.sh
# BIN holds tests/test_mpi and bench/bench_mpi built with CUDA (sm_90) and MPI (Open MPI 4.1,
# as the GPU machine's image has). NCCL: the nvidia-nccl-cu* wheel's libnccl.so.2 through python3.
# NP=4 on a 4-GPU machine: the benchmark on 4 ranks as well.
set -u
NP=${NP:-2}
OUT=${OUT:-/tmp/nccl-out}
BIN=${BIN:-build-mpidev}
mkdir -p "$OUT"
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
if [ -f "$BIN" ]; then mkdir -p /tmp/nccl-bin && tar -xJf "$BIN" -C /tmp/nccl-bin && BIN=/tmp/nccl-bin; fi
nccl=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))" 2>/dev/null)
[ -n "$nccl" ] && [ -f "$nccl" ] && export GPUSORT_NCCL_LIBRARY=$nccl
mpirun --version | head -1
R="bash tests/mpi/run_mpi.sh"

step "1. test_mpi: 2 ranks device data (NCCL); GPUSORT_MPI_NCCL=0; 4 ranks on 2 GPUs; host data"
timeout 150 $R 2 "$BIN/tests/test_mpi" --backend cuda --device-data --seed 11 2>&1 | tail -2
GPUSORT_MPI_NCCL=0 timeout 90 $R 2 "$BIN/tests/test_mpi" --backend cuda --device-data --quick --seed 12 2>&1 | tail -2
timeout 90 $R 4 "$BIN/tests/test_mpi" --backend cuda --device-data --quick --seed 13 2>&1 | tail -2
timeout 90 $R 2 "$BIN/tests/test_mpi" --backend cuda --quick --seed 14 2>&1 | tail -2
for n in 268435456 1073741824; do
  step "2. bench_mpi 2 ranks, device data, n=$n: NCCL (then MPI at 2^28)"
  timeout 120 $R 2 "$BIN/bench/bench_mpi" --n $n --backend cuda --device-data --threads 8 --csv "$OUT/bench_mpi.csv" 2>&1 | tail -4
  [ "$NP" != 2 ] && timeout 120 $R "$NP" "$BIN/bench/bench_mpi" --n $n --backend cuda --device-data --threads 8 --csv "$OUT/bench_mpi.csv" 2>&1 | tail -4
  [ "$n" = 268435456 ] && GPUSORT_MPI_NCCL=0 timeout 120 $R 2 "$BIN/bench/bench_mpi" --n $n --backend cuda --device-data --threads 8 --csv "$OUT/bench_mpi.csv" 2>&1 | tail -4
done
step "3. compute-sanitizer memcheck of test_mpi, 2 ranks over NCCL (quick)"
timeout 200 $R 2 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
  "$BIN/tests/test_mpi" --backend cuda --device-data --quick --seed 15 >"$OUT/memcheck.log" 2>&1
echo "memcheck exit $?"; grep -E "ERROR SUMMARY|checks on" "$OUT/memcheck.log" | tail -3
step done
