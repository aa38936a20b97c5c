#!/usr/bin/env bash
# device_run.sh -- gpusort_multi_sort on a GPU machine in one call, the most telling steps
# first (each bounded, each logging to $OUT at once, so a call cut short still reports):
#   1. test_multi on device pieces, one context per GPU: the default exchange with 3 chunks
#      (the pipeline at test sizes), then one chunk (in place), then NCCL with 3 chunks (quick)
#   2. bench_multi: 2^30 u32 keys on 1 and 2 (and 4) GPUs: the default (pipelined), one chunk
#      (the phase split), NCCL (its exchange bandwidth); with more than 2 GPUs step 1 also
#      tests all of them in one call
#   3. compute-sanitizer memcheck of test_multi on device pieces (u32, quick, 3 chunks; NCCL's
#      own probing CUDA API errors not reported)
#   4. test_multi with NCCL and one chunk (quick)
#   5. bench_multi: 2^30 u64 keys, pipelined and one chunk
#   6. bench_multi: 2^32 u32 and 2^32 u64 keys (where they fit), the default
#   7. `gpusort sort --gpus all` against the one-GPU sort (2^27 u32), byte for byte
#   8. test_multi on host pieces (each GPU sorts its piece through its host pipeline)
# With one GPU the contexts share it (bench_multi --share): the code paths, not the speed-up.
#
#   OUT=/tmp/out BIN=build-dev bash bench/multi/device_run.sh
# BIN holds tests/test_multi, tools/gpusort and bench/bench_multi built with sm_90 (on the
# development machine, carried), or is a .tar.xz of them. NCCL: the nvidia-nccl-cu* wheel's
# libnccl.so.2, found through python3, is passed as GPUSORT_NCCL_LIBRARY. STEPS=1,2,... runs
# only those steps.
set -u
OUT=${OUT:-/tmp/multi-out}
BIN=${BIN:-build-dev}
STEPS=${STEPS:-1,2,3,4,5,6,7,8}
mkdir -p "$OUT"
T0=$(date +%s)
want() { case ",$STEPS," in *",$1,"*) return 0 ;; esac; return 1; }
step() { echo "== [$(( $(date +%s) - T0 )) s] $*" | tee -a "$OUT/steps.log"; }
if [ -f "$BIN" ]; then mkdir -p /tmp/multi-bin && tar -xJf "$BIN" -C /tmp/multi-bin && BIN=/tmp/multi-bin; fi
nccl=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))" 2>/dev/null)
[ -n "$nccl" ] && [ -f "$nccl" ] && export GPUSORT_NCCL_LIBRARY=$nccl
{ nvidia-smi -L; nvidia-smi topo -m; nproc; echo "NCCL: ${GPUSORT_NCCL_LIBRARY:-none}"; env | grep ^NCCL; } >"$OUT/env.txt" 2>&1
head -8 "$OUT/env.txt"
G=$(nvidia-smi -L | wc -l)
SHARE=; [ "$G" -gt 1 ] || SHARE=--share
GL=1,2; [ "$G" -ge 4 ] && GL=1,2,4
B="$BIN/bench/bench_multi"

if want 1; then
  step "1. test_multi, device pieces: 3 chunks; 1 chunk (quick); NCCL with 3 chunks (quick)"
  GPUSORT_MULTI_CHUNKS=3 timeout 90 "$BIN/tests/test_multi" --backend cuda --device-data 2>&1 | tail -4 | tee "$OUT/test_device.log"
  GPUSORT_MULTI_CHUNKS=1 timeout 40 "$BIN/tests/test_multi" --backend cuda --device-data --quick --seed 2 2>&1 | tail -3 | tee -a "$OUT/test_device.log"
  GPUSORT_MULTI_CHUNKS=3 GPUSORT_MULTI_EXCHANGE=nccl timeout 40 "$BIN/tests/test_multi" --backend cuda --device-data --quick --seed 4 2>&1 | tail -3 | tee -a "$OUT/test_device.log"
  if [ "$G" -gt 2 ]; then
    GPUSORT_MULTI_CHUNKS=3 timeout 60 "$BIN/tests/test_multi" --backend cuda --device-data --contexts "$G" --seed 6 2>&1 | tail -3 | tee -a "$OUT/test_device.log"
    GPUSORT_MULTI_CHUNKS=3 GPUSORT_MULTI_EXCHANGE=nccl timeout 40 "$BIN/tests/test_multi" --backend cuda --device-data --contexts "$G" --quick --seed 8 2>&1 | tail -3 | tee -a "$OUT/test_device.log"
  fi
fi
if want 2; then
  step "2. bench_multi 2^30 u32: default, one chunk, nccl"
  timeout 60 "$B" $SHARE --n 1073741824 --type u32 --gpus $GL 2>&1 | tee "$OUT/bench_u32.csv"
  GPUSORT_MULTI_CHUNKS=1 timeout 60 "$B" $SHARE --n 1073741824 --type u32 --gpus $GL 2>&1 | tee "$OUT/bench_u32_1chunk.csv"
  GPUSORT_MULTI_EXCHANGE=nccl timeout 60 "$B" $SHARE --n 1073741824 --type u32 --gpus $GL 2>&1 | tee "$OUT/bench_u32_nccl.csv"
fi
if want 3; then
  step "3. memcheck (3 chunks)"
  GPUSORT_MULTI_CHUNKS=3 timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
    "$BIN/tests/test_multi" --backend cuda --device-data --quick --type u32 --seed 5 >"$OUT/memcheck.log" 2>&1
  echo "memcheck exit $?" | tee -a "$OUT/memcheck.log"; grep -E "ERROR SUMMARY|passed" "$OUT/memcheck.log" | tail -2
fi
if want 4; then
  step "4. test_multi, NCCL, one chunk, quick"
  GPUSORT_MULTI_CHUNKS=1 GPUSORT_MULTI_EXCHANGE=nccl timeout 30 "$BIN/tests/test_multi" --backend cuda --device-data --quick --seed 7 2>&1 | tail -3 | tee "$OUT/test_nccl.log"
fi
if want 5; then
  step "5. bench_multi 2^30 u64: default, one chunk"
  timeout 60 "$B" $SHARE --n 1073741824 --type u64 --gpus $GL 2>&1 | tee "$OUT/bench_u64.csv"
  GPUSORT_MULTI_CHUNKS=1 timeout 60 "$B" $SHARE --n 1073741824 --type u64 --gpus $GL 2>&1 | tee "$OUT/bench_u64_1chunk.csv"
fi
if want 6; then
  step "6. bench_multi 2^32 u32 and u64"
  timeout 90 "$B" $SHARE --n 4294967296 --type u32 --gpus $GL 2>&1 | tee "$OUT/bench_u32_2p32.csv"
  timeout 120 "$B" $SHARE --n 4294967296 --type u64 --gpus $GL 2>&1 | tee "$OUT/bench_u64_2p32.csv"
fi
if want 7; then
  step "7. CLI --gpus all"
  C="$BIN/tools/gpusort"
  $C gen --type u32 --n 134217728 --seed 9 -o /tmp/in.u32 -q
  timeout 20 $C sort /tmp/in.u32 --type u32 -o /tmp/one.u32 --stats -q 2>&1 | tail -12 | tee "$OUT/cli.log"
  timeout 20 $C sort /tmp/in.u32 --type u32 --gpus all -o /tmp/all.u32 --stats -q 2>&1 | tail -8 | tee -a "$OUT/cli.log"
  cmp /tmp/one.u32 /tmp/all.u32 && echo "CLI --gpus all: byte-identical" | tee -a "$OUT/cli.log"
  $C sort /tmp/in.u32 --type u32 --gpus 99 -o /tmp/x.u32 2>&1 | tee -a "$OUT/cli.log"; echo "--gpus 99: exit ${PIPESTATUS[0]} (want 2)" | tee -a "$OUT/cli.log"
fi
if want 8; then
  step "8. test_multi, host pieces, quick"
  timeout 30 "$BIN/tests/test_multi" --backend cuda --quick --seed 3 2>&1 | tail -2 | tee "$OUT/test_host.log"
fi
step done
