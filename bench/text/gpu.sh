#!/usr/bin/env bash
# bench/text/gpu.sh -- the text-mode rows of issues 13 and 15 on a GPU machine, in one call:
# gpusort against GNU sort --parallel=$(nproc) on the same files, same locale, same run.
#
# Usage (from the repository root): bash bench/text/gpu.sh [OUT_DIR]
#   Builds gpusort with CUDA (Release, CUDA_ARCH, default 90) in build-tgpu/
#   (tests off), generating the inputs meanwhile in DATA (default /tmp/textgpu); a CUDA build
#   not done by BUILD_LIMIT seconds (default 240) is replaced by a CPU-only one (the rows that
#   need CUDA then say so). Environment: RUNS (gpusort, default 7), PEER_RUNS (GNU sort,
#   default 3), N_WORDS (default 10000000), N_INTS (default 20000000), TIME_LIMIT (seconds from
#   the start after which the remaining rows are skipped, default 380).
# Rows (wall clock, median, each after one warm-up run, through stdout into a new file (the
# last run's output removed and synced first, untimed): no fsync for either program, as GNU
# sort writes; "same" = cmp of the two outputs):
#   en_US words     locale.sh's UTF-8 words (seed 44), LC_ALL=en_US.UTF-8, plain and -f
#   -n ints         N_INTS integers (run.sh's generator, seed 42), LC_ALL=C: --backend auto,
#                   cpu and cuda
#   C words         N_WORDS alphanumeric words of 5-40 bytes (run.sh's alphabet), LC_ALL=C
# then the phase split of each (GPUSORT_TIMING=1, one run). Markdown to OUT_DIR/text-gpu.md
# and stdout.
set -u
OUT=${1:-${OUT:-/tmp/textgpu-out}}
mkdir -p "$OUT"
REPORT=$OUT/text-gpu.md
D=${DATA:-/tmp/textgpu}
RUNS=${RUNS:-7}
PEER_RUNS=${PEER_RUNS:-3}
NW=${N_WORDS:-10000000}
NI=${N_INTS:-20000000}
LIMIT=${TIME_LIMIT:-380}
ARCH=${CUDA_ARCH:-90}
P=$(nproc)
T0=$(date +%s)
SRC=$(pwd)
mkdir -p "$D"
say() { echo "$*" | tee -a "$REPORT"; }
elapsed() { echo $(( $(date +%s) - T0 )); }
: > "$REPORT"

# ---- build (CUDA) while the inputs are generated; GPUSORT_BIN=DIR (a build folder holding
# tools/gpusort, CUDA inside) skips the build ----
if [ -n "${GPUSORT_BIN:-}" ]; then
  (exit 0) &
else
(cmake -S "$SRC" -B "$SRC/build-tgpu" -G Ninja -DCMAKE_BUILD_TYPE=Release \
   -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DGPUSORT_BUILD_TESTS=OFF &&
 ninja -C "$SRC/build-tgpu" gpusort_cli) > "$OUT/build.log" 2>&1 &
fi
BUILD=$!
gen_words_utf8() {   # locale.sh's generator (seed 44)
  LC_ALL=C awk -v n="$NW" 'BEGIN { srand(44)
    nl = split("a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \303\251 \303\244 \303\266 \303\274 \303\237 \303\261 \303\247 \303\245 \303\211 \303\204", L, " ")
    for (i = 0; i < n; i++) { l = 3 + int(rand() * 10); w = ""
      for (j = 0; j < l; j++) { r = rand()
        w = w (r < 0.08 ? L[53 + int(rand() * 10)] : (r < 0.2 ? L[27 + int(rand() * 26)] : L[1 + int(rand() * 26)])) }
      print w } }' > "$D/uwords.txt"
}
gen_ints() {         # run.sh's generator (seed 42)
  LC_ALL=C awk -v n="$NI" 'BEGIN { srand(42); for (i = 0; i < n; i++)
         printf "%d\n", int(rand() * 2147483647) - (rand() < 0.1 ? 1073741823 : 0) }' > "$D/ints.txt"
}
gen_cwords_part() {  # run.sh's alphabet and lengths, in 8 parts (seeds 43 + part) for speed
  LC_ALL=C awk -v n="$((NW / 8))" -v s="$((43 + $1))" 'BEGIN { srand(s); a = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
         for (i = 0; i < n; i++) { l = 5 + int(rand() * 36); w = ""
           for (j = 0; j < l; j++) w = w substr(a, 1 + int(rand() * 62), 1); print w } }' > "$D/cw.$1"
}
[ -s "$D/uwords.txt" ] || gen_words_utf8 &
[ -s "$D/ints.txt" ] || gen_ints &
if [ ! -s "$D/cwords.txt" ]; then
  for p in 0 1 2 3 4 5 6 7; do gen_cwords_part $p & done
fi
wait_gen() { for j in $(jobs -p); do [ "$j" = "$BUILD" ] || wait "$j"; done; }
wait_gen
[ -s "$D/cwords.txt" ] || { cat "$D"/cw.? > "$D/cwords.txt" && rm -f "$D"/cw.?; }
echo "inputs ready at $(elapsed) s" >&2

CUDA=1
while kill -0 "$BUILD" 2>/dev/null; do
  if [ "$(elapsed)" -ge "${BUILD_LIMIT:-240}" ]; then
    kill "$BUILD" 2>/dev/null; sleep 1
    echo "CUDA build not done at $(elapsed) s: building without CUDA" >&2
    CUDA=0
    break
  fi
  sleep 2
done
wait "$BUILD" 2>/dev/null
if [ -n "${GPUSORT_BIN:-}" ]; then
  B=$(cd "$GPUSORT_BIN" && pwd)
elif [ "$CUDA" = 1 ] && [ ! -x build-tgpu/tools/gpusort ]; then CUDA=0; fi
if [ -n "${GPUSORT_BIN:-}" ]; then :
elif [ "$CUDA" = 0 ]; then
  (cmake -S "$SRC" -B "$SRC/build-tcpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUSORT_CUDA=OFF \
     -DGPUSORT_BUILD_TESTS=OFF && ninja -C "$SRC/build-tcpu" gpusort_cli) >> "$OUT/build.log" 2>&1
  B=$SRC/build-tcpu
else
  B=$SRC/build-tgpu
fi
G=$B/tools/gpusort
# CUDA only when the binary can sort on it (the build may have found no CUDA at all)
if [ "$CUDA" = 1 ] && ! printf '2\n1\n' | "$G" -n --backend cuda > /dev/null 2>&1; then CUDA=0; fi
echo "build ready at $(elapsed) s (CUDA=$CUDA)" >&2
tail -3 "$OUT/build.log" >&2

say "# gpusort text mode vs GNU sort on the GPU machine -- $(date -u +%Y-%m-%d)"
say ""
say "- Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $P cores, $(free -g | awk '/Mem:/ { print $2 }') GiB RAM;" \
    "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say "- GNU sort: $(sort --version | head -1), \`--parallel=$P -S 50%\`; gpusort: $("$G" --version | head -1)" \
    "(built with CUDA: $CUDA); glibc $(ldd --version | head -1 | awk '{ print $NF }')"
say "- Command: \`bash bench/text/gpu.sh\` (median of $RUNS gpusort runs and $PEER_RUNS GNU sort runs," \
    "each after one warm-up; stdout into a new file, the old one removed and synced untimed; no fsync for either)"
say "- Locales present: $(locale -a 2>/dev/null | grep -i -c utf) UTF-8 ones; en_US: $(locale -a | grep -i '^en_US.utf' | head -1)"
say ""
say "| workload | lines, MB | gpusort | GNU sort | speed-up | same bytes |"
say "|---|---|---|---|---|---|"

# med RUNS OUTFILE CMD...: one warm-up, then RUNS runs, each after removing OUTFILE and a sync
# (untimed, as bench/pipeline/run.sh does: truncating the last run's output in place cost
# ~0.1 s for 200 MB on the GPU machine's ext4, before the program even started); prints the
# median wall time from the start of the process to its end.
med() {
  local n=$1 out=$2 i t0 t1 times=""
  shift 2
  rm -f "$out"; sync
  "$@" > "$out" 2>>"$OUT/errors.log" || { echo FAIL; return; }
  for i in $(seq "$n"); do
    rm -f "$out"; sync
    t0=$(date +%s.%N)
    "$@" > "$out" 2>>"$OUT/errors.log" || { echo FAIL; return; }
    t1=$(date +%s.%N)
    times="$times $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')"
  done
  echo $times | tr ' ' '\n' | sort -g |
    awk '{ a[NR] = $1 } END { if (NR % 2) printf "%.3f\n", a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
row() {   # row LABEL LOCALE FILE "GPUSORT OPTS" "GNU OPTS"
  local label=$1 loc=$2 f=$3 gopts=$4 sopts=$5
  if [ "$(elapsed)" -ge "$LIMIT" ]; then say "| $label | skipped: the call's time ran out | | | | |"; return; fi
  local t1 t2 same r
  t1=$(LC_ALL=$loc med "$RUNS" "$D/g.out" "$G" $gopts "$f")
  t2=$(LC_ALL=$loc med "$PEER_RUNS" "$D/s.out" sort --parallel="$P" -S 50% $sopts "$f")
  same=$(cmp -s "$D/g.out" "$D/s.out" && echo yes || echo NO)
  r=$(awk -v a="$t2" -v b="$t1" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else print "-" }')
  say "| $label | $(wc -l < "$f" | awk '{ printf "%dM", $1 / 1e6 }'), $(du -m "$f" | cut -f1) | $t1 s | $t2 s | $r | $same |"
}
gonly() { # gonly LABEL LOCALE FILE "GPUSORT OPTS": gpusort alone (the same GNU row above)
  local label=$1 loc=$2 f=$3 gopts=$4
  if [ "$(elapsed)" -ge "$LIMIT" ]; then say "| $label | skipped: the call's time ran out | | | | |"; return; fi
  local t1 same
  t1=$(LC_ALL=$loc med "$RUNS" "$D/g.out" ${GENV:-} "$G" $gopts "$f")
  same=$(cmp -s "$D/g.out" "$D/s.out" && echo yes || echo NO)
  say "| $label | | $t1 s | (above) | | $same |"
}
row "en_US.UTF-8 words, plain (auto)" en_US.UTF-8 "$D/uwords.txt" "" ""
GENV="env GPUSORT_TEXT_WEIGHTS=0" gonly "en_US.UTF-8 words, keys by strxfrm (GPUSORT_TEXT_WEIGHTS=0)" en_US.UTF-8 "$D/uwords.txt" ""
GENV="env GPUSORT_SYNC=1" gonly "en_US.UTF-8 words, durable (\`-o\`, GPUSORT_SYNC=1: fsync, rename)" en_US.UTF-8 "$D/uwords.txt" "-o $D/g.out"
row "en_US.UTF-8 words, \`-f\` (auto)" en_US.UTF-8 "$D/uwords.txt" "-f" "-f"
row "C, \`-n\` integers (auto)" C "$D/ints.txt" "-n" "-n"
gonly "C, \`-n\` integers, \`--backend cpu\`" C "$D/ints.txt" "-n --backend cpu"
GENV="env GPUSORT_SYNC=1" gonly "C, \`-n\` integers, durable (\`-o\`, GPUSORT_SYNC=1: fsync, rename)" C "$D/ints.txt" "-n -o $D/g.out"
[ "$CUDA" = 1 ] && gonly "C, \`-n\` integers, \`--backend cuda\`" C "$D/ints.txt" "-n --backend cuda"
row "C, alphanumeric words 5-40 B (auto)" C "$D/cwords.txt" "" ""
[ "$CUDA" = 1 ] && gonly "C, alphanumeric words, \`--backend cuda\`" C "$D/cwords.txt" "--backend cuda"
say ""
say "Phases (GPUSORT_TIMING=1, one run each; wall and CPU seconds):"
say ""
say '```'
phase() { # phase LABEL LOCALE ARGS...
  local label=$1 loc=$2; shift 2
  [ "$(elapsed)" -ge $((LIMIT + 20)) ] && return
  say "$label:"
  LC_ALL=$loc GPUSORT_TIMING=1 "$G" "$@" 2>&1 >/dev/null | sed 's/^gpusort: timing: /  /' | tee -a "$REPORT"
}
phase "en_US words" en_US.UTF-8 "$D/uwords.txt"
phase "en_US words -f" en_US.UTF-8 -f "$D/uwords.txt"
phase "-n ints (auto)" C -n "$D/ints.txt"
[ "$CUDA" = 1 ] && phase "-n ints --backend cuda" C -n --backend cuda "$D/ints.txt"
phase "C words (auto)" C "$D/cwords.txt"
[ "$CUDA" = 1 ] && phase "C words --backend cuda" C --backend cuda "$D/cwords.txt"
say '```'
echo "done at $(elapsed) s" >&2
