#!/usr/bin/env bash
# device_final.sh -- the lead's one combined run on the GPU machine (budget-bound: every step has
# a time limit). Binaries are built elsewhere (same nvcc 13.0, sm_90) and carried in
# .device-carry/bin.tgz: test_backends, test_big, test_api, gpusort.
#
#   steps (in order): cuda tests (6 types, AUTO, default sizes; all algorithms quick on u32/f64;
#   OpenCL on the NVIDIA driver, quick) + compute-sanitizer memcheck/racecheck/synccheck on all
#   algorithms (small) -- in parallel; then text: 100M integer lines `-n` vs GNU sort --parallel=16;
#   then test_big on the CPU backend (2^32 + 1234 keys, keys only).
# Logs under $OUT; a summary last.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/fb
cd "$(dirname "$0")/.."
S=$OUT/summary.txt
note() { echo "$*" | tee -a "$S"; }
tar xzf .device-carry/bin.tgz -C /tmp/fb
B=/tmp/fb
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/device.txt" 2>&1
note "device: $(cat "$OUT/device.txt"); $(nproc) cores; $(date -u +%FT%TZ)"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd

# ---- A: correctness on the GPU, sanitizers, and the text data, in parallel ----
t0=$(date +%s)
for t in u32 i32 f32 u64 i64 f64; do
  timeout 140 "$B/test_backends" --backend cuda --filter "$t/" > "$OUT/cuda_$t.log" 2>&1 &
done
for t in u32 f64; do
  timeout 140 "$B/test_backends" --backend cuda --algorithm all --quick --filter "$t/" \
      > "$OUT/cuda_all_$t.log" 2>&1 &
done
timeout 140 "$B/test_backends" --backend opencl --algorithm all --quick --max-n 65537 \
    --filter special > "$OUT/opencl_nv.log" 2>&1 &
for tool in memcheck racecheck synccheck; do
  timeout 140 compute-sanitizer --tool $tool --error-exitcode 3 "$B/test_backends" --backend cuda \
      --algorithm all --quick --max-n 5000 --filter u32/uniform > "$OUT/san_$tool.log" 2>&1 &
done
timeout 140 "$B/test_api" > "$OUT/api.log" 2>&1 &
# 100M random integer lines (some negative), made by 16 awk processes
( mkdir -p /tmp/tx && cd /tmp/tx && seq 16 | xargs -P16 -I{} awk -v s={} 'BEGIN { srand(s);
    for (i = 0; i < 6250000; i++) printf "%d\n", int(rand() * 2147483647) - (rand() < 0.1 ? 1073741823 : 0) }' \
    > ints.txt ) &
wait
note "A (tests, sanitizers, data) took $(( $(date +%s) - t0 )) s"
for f in "$OUT"/cuda_*.log "$OUT"/opencl_nv.log "$OUT"/api.log; do
  note "$(basename "$f"): $(grep -E '^[0-9]+ passed' "$f" | tail -1) $(grep -c '^FAIL' "$f") FAIL lines"
done
for tool in memcheck racecheck synccheck; do
  note "compute-sanitizer $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$tool.log" | tail -1) / $(grep -E '^[0-9]+ passed' "$OUT/san_$tool.log" | tail -1)"
done

# ---- B: text, 100M lines, -n, GPU (auto) vs GNU sort --parallel=16 ----
cd /tmp/tx
note "text input: $(wc -l < ints.txt) lines, $(du -m ints.txt | cut -f1) MB"
export LC_ALL=C
cat ints.txt > /dev/null
t=$(date +%s.%N); timeout 90 sort -n --parallel=16 -S 50% ints.txt -o gnu.txt; rc=$?
g=$(awk -v a="$(date +%s.%N)" -v b="$t" 'BEGIN { printf "%.2f", a - b }')
t=$(date +%s.%N); GPUSORT_TIMING=1 timeout 30 "$B/gpusort" -n ints.txt -o ours.txt 2> "$OUT/text_timing.log"; rc2=$?
o=$(awk -v a="$(date +%s.%N)" -v b="$t" 'BEGIN { printf "%.2f", a - b }')
t=$(date +%s.%N); timeout 40 "$B/gpusort" -n --backend cpu ints.txt -o ours_cpu.txt; rc3=$?
c=$(awk -v a="$(date +%s.%N)" -v b="$t" 'BEGIN { printf "%.2f", a - b }')
same=$(cmp -s gnu.txt ours.txt && echo identical || echo DIFFERENT)
same_cpu=$(cmp -s gnu.txt ours_cpu.txt && echo identical || echo DIFFERENT)
note "text -n 100M lines: GNU sort --parallel=16 ${g}s (rc $rc); gpusort auto ${o}s (rc $rc2, $same); gpusort --backend cpu ${c}s (rc $rc3, $same_cpu); ratio GNU/auto $(awk -v a="$g" -v b="$o" 'BEGIN { printf "%.1f", a / b }')"
cat "$OUT/text_timing.log" | tail -15 | tee -a "$S"
rm -f gnu.txt ours.txt ours_cpu.txt
cd - > /dev/null

# ---- C: n above 2^32 on the CPU backend (keys only) ----
t0=$(date +%s)
GPUSORT_BIG_TESTS=1 timeout 80 "$B/test_big" --backend cpu --no-argsort > "$OUT/big_cpu.log" 2>&1
note "test_big --backend cpu --no-argsort: rc=$? in $(( $(date +%s) - t0 )) s"
tail -6 "$OUT/big_cpu.log" | tee -a "$S"
echo; echo "==== summary"; cat "$S"
