#!/usr/bin/env bash
# device_last.sh -- the closing check of 2026-11-24 on the GPU machine: AUTO tests of the six
# types, bitonic tests, the host pipeline at test size, and memcheck/racecheck/synccheck of
# bitonic CLI sorts at 3e5 and 3e6 keys. Binaries (test_backends, gpusort) in .device-carry/bin.txz.
B=/tmp/fb; mkdir -p $B && xz -dc .device-carry/bin.txz | tar xf - -C $B; G=$B/gpusort; D=/tmp/s; mkdir -p $D; L=170
$G gen --type u32 --n 300000 --seed 1 -o $D/a; $G gen --type u32 --n 3000000 --seed 2 -o $D/b; $G gen --type f32 --n 300000 --dist special --seed 3 -o $D/c
san() { n=$1; t=$2; shift 2; timeout $L compute-sanitizer --tool $t --error-exitcode 3 "$@" > $OUT/s_${n}_$t.log 2>&1; echo "rc=$?" >> $OUT/s_${n}_$t.log; }
for t in memcheck racecheck synccheck; do
  san a $t $G sort $D/a --type u32 -o $D/a.$t --backend cuda --algorithm bitonic -q &
  san b $t $G sort $D/b --type u32 -o $D/b.$t --backend cuda --algorithm bitonic -q &
  san c $t $G sort $D/c --type f32 -r -o $D/c.$t --backend cuda --algorithm bitonic -q &
done
for ty in u32 i32 f32 u64 i64 f64; do timeout $L $B/test_backends --backend cuda --quick --filter $ty/ > $OUT/t_auto_$ty.log 2>&1 & done
for ty in u32 f32; do timeout $L $B/test_backends --backend cuda --algorithm bitonic --filter $ty/ > $OUT/t_bit_$ty.log 2>&1 & done
GPUSORT_CUDA_HOST_CHUNK_KEYS=5000 timeout $L $B/test_backends --backend cuda --quick --max-n 70000 --host-only --pinned --filter u32/ > $OUT/t_pipe_u32.log 2>&1 &
wait
for f in $OUT/t_*.log; do echo "$(basename $f .log): $(grep -E '^[0-9]+ passed' $f)"; done
for f in $OUT/s_*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) $(tail -1 $f)"; done
for f in a b; do for t in memcheck racecheck synccheck; do echo "check $f.$t: $($G check $D/$f.$t --type u32 2>&1 && echo sorted)"; done; done
for t in memcheck racecheck synccheck; do echo "check c.$t: $($G check $D/c.$t --type f32 --desc 2>&1 && echo sorted)"; done
cd $OUT && tar czf logs.tgz *.log && rm -f *.log
