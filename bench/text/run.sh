#!/usr/bin/env bash
# bench/text/run.sh -- gpusort text mode and records vs GNU sort, same files, same run.
#
# Usage: bench/text/run.sh PATH/TO/gpusort [DATA_DIR] [RUNS] [PEER_RUNS] > bench/results/text-DATE.md
#   DATA_DIR (default /tmp/gpusort-bench-text) holds the generated inputs (made once, reused).
#   RUNS (default 7): timed runs of gpusort per workload after one warm-up; the median is
#   reported. PEER_RUNS (default RUNS): the same for GNU sort (which takes 10-60 s a run here);
#   GNU sort on the 1 GB records file runs min(PEER_RUNS, 3) times.
# Workloads (issue 6):
#   ints     10M random integers, one per line (~105 MB), -n
#   words    5M random alphanumeric words of 5-40 bytes (~117 MB), no options
#   records  10M gensort-format records (100 B, 10-byte key; 1 GB): records/s and MB/s;
#            GNU peer: the same records in ASCII (gen --ascii, lines ending "\r\n") sorted by
#            `sort -s -t '\a' -k1.1,1.10` (the same order)
#   external the words file with -S a quarter of its size (spills to runs under -T): time and
#            peak RSS (/usr/bin/time -v) for both with the same -S
# Both programs write to a file on the same disk through stdout (no fsync for either), with
# LC_ALL=C, on the CPU backend (--backend cpu). Output is markdown.
# The timings are taken by bench_exec (bench/bench_exec.c, on the benchmark harness
# bench/timing.h): built in the same build tree as gpusort (BUILD/bench/bench_exec next to
# BUILD/tools/gpusort), or named by BENCH_EXEC=PATH.
set -eu
G=${1:?usage: run.sh PATH/TO/gpusort [DATA_DIR] [RUNS]}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
BENCH_EXEC=${BENCH_EXEC:-$(dirname "$G")/../bench/bench_exec}
if [ ! -x "$BENCH_EXEC" ]; then
  echo "run.sh: no bench_exec at $BENCH_EXEC: build its target or set BENCH_EXEC" >&2
  exit 2
fi
BENCH_EXEC=$(cd "$(dirname "$BENCH_EXEC")" && pwd)/$(basename "$BENCH_EXEC")
D=${2:-/tmp/gpusort-bench-text}
RUNS=${3:-7}
PEER_RUNS=${4:-$RUNS}
# Smaller sizes for a dry run of the script: N_INTS=1000 N_WORDS=1000 N_RECS=1000 run.sh ...
N_INTS=${N_INTS:-10000000}
N_WORDS=${N_WORDS:-5000000}
N_RECS=${N_RECS:-10000000}
export LC_ALL=C
mkdir -p "$D"
cd "$D"
log() { echo "$*" >&2; }

if [ ! -s ints.txt ]; then
  log "generating ints.txt"
  awk -v n="$N_INTS" 'BEGIN { srand(42); for (i = 0; i < n; i++)
         printf "%d\n", int(rand() * 2147483647) - (rand() < 0.1 ? 1073741823 : 0) }' > ints.txt
fi
if [ ! -s words.txt ]; then
  log "generating words.txt"
  awk -v n="$N_WORDS" 'BEGIN { srand(43); s = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
         for (i = 0; i < n; i++) { l = 5 + int(rand() * 36); w = ""
           for (j = 0; j < l; j++) w = w substr(s, 1 + int(rand() * 62), 1); print w } }' > words.txt
fi
[ -s recs.bin ] || "$G" gen --record-size 100 --n "$N_RECS" --seed 7 -o recs.bin
[ -s recs.txt ] || "$G" gen --record-size 100 --n "$N_RECS" --seed 7 --ascii -o recs.txt
mkdir -p tmp

# median wall time in seconds ("%.3f") of N runs of a command after one warm-up run, its
# stdout to out.tmp
median() {   # median N cmd...
    local n=$1; shift
    "$BENCH_EXEC" --runs "$n" --out out.tmp -- "$@"
}
peak() {     # peak RSS (MB) and wall time of one run
    /usr/bin/time -f "%M %e" "$@" > out.tmp 2> time.tmp || true
    tail -1 time.tmp | awk '{ printf "%.1f MB, %.2f s", $1 / 1024, $2 }'
}
ratio() { echo "scale=1; $1 / $2" | bc; }

echo "# gpusort text mode vs GNU sort -- $(date -u +%Y-%m-%d)"
echo
echo "- Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores," \
     "$(free -g | awk '/Mem:/ { print $2 }') GiB RAM, $(uname -sr)"
echo "- GNU sort: $(sort --version | head -1); gpusort: $("$G" --version | head -1)"
echo "- Load before: $(uptime | sed 's/.*load average/load average/')"
echo "- Command: \`bench/text/run.sh $G $D $RUNS $PEER_RUNS\` (wall clock, median of $RUNS runs" \
     "of gpusort and $PEER_RUNS of GNU sort, each after a warm-up run; LC_ALL=C; output to a" \
     "file through stdout for both, no fsync; gpusort --backend cpu)"
echo
echo "| workload | size | gpusort | GNU sort | speed-up |"
echo "|---|---|---|---|---|"
t1=$(median "$RUNS" "$G" --backend cpu -n ints.txt); t2=$(median "$PEER_RUNS" sort -n ints.txt)
echo "| $((N_INTS / 1000000))M integers, \`-n\` | $(du -m ints.txt | cut -f1) MB | $t1 s | $t2 s | $(ratio "$t2" "$t1")x |"
t1=$(median "$RUNS" "$G" --backend cpu words.txt); t2=$(median "$PEER_RUNS" sort words.txt)
echo "| $((N_WORDS / 1000000))M words 5-40 B, plain | $(du -m words.txt | cut -f1) MB | $t1 s | $t2 s | $(ratio "$t2" "$t1")x |"
t1=$(median "$RUNS" "$G" --backend cpu --record-size 100 --key-size 10 recs.bin)
RR=$((PEER_RUNS < 3 ? PEER_RUNS : 3))
t2=$(median "$RR" sort -s -t $'\a' -k1.1,1.10 recs.txt)
rps=$(echo "$N_RECS / $t1 / 1000000" | bc -l | xargs printf '%.1f')
mbs=$(echo "$N_RECS / 10000 / $t1" | bc -l | xargs printf '%.0f')
echo "| $((N_RECS / 1000000))M gensort records, key 10 B | $((N_RECS / 10000)) MB | $t1 s ($rps M records/s, $mbs MB/s) | $t2 s (ASCII records as lines, \`-s -k1.1,1.10\`, $RR runs) | $(ratio "$t2" "$t1")x |"
SZ=$(stat -c %s words.txt)
S=$((SZ / 4 / 1024))K
p1=$(peak "$G" --backend cpu -S "$S" -T tmp words.txt)
p2=$(peak sort -S "$S" -T tmp words.txt)
echo
echo "External sort (input 4x the memory budget): words.txt ($((SZ / 1048576)) MiB) with \`-S $S -T $D/tmp\`:"
echo
echo "| program | peak RSS, wall time |"
echo "|---|---|"
echo "| gpusort | $p1 |"
echo "| GNU sort | $p2 |"
# Same bytes out? (checked once, untimed)
same() { if cmp -s "$1" "$2"; then echo yes; else echo NO; fi; }
"$G" --backend cpu -n ints.txt > a.tmp; sort -n ints.txt > b.tmp; v1=$(same a.tmp b.tmp)
"$G" --backend cpu words.txt > a.tmp; sort words.txt > b.tmp; v2=$(same a.tmp b.tmp)
"$G" --backend cpu --record-size 100 --key-size 10 recs.txt > a.tmp
sort -s -t $'\a' -k1.1,1.10 recs.txt > b.tmp; v3=$(same a.tmp b.tmp)
rm -f a.tmp b.tmp
echo
echo "Output identical to GNU sort's: ints $v1, words $v2, records (ASCII file) $v3."
echo
echo "Where gpusort's time goes (one run each, GPUSORT_TIMING=1: wall and CPU seconds per phase):"
echo
echo '```'
echo "-n ints.txt:"; GPUSORT_TIMING=1 "$G" --backend cpu -n ints.txt 2>&1 > /dev/null | sed 's/^gpusort: timing: /  /'
echo "words.txt:";   GPUSORT_TIMING=1 "$G" --backend cpu words.txt 2>&1 > /dev/null | sed 's/^gpusort: timing: /  /'
echo '```'
echo
echo "- Load after: $(uptime | sed 's/.*load average/load average/')"
rm -f out.tmp time.tmp
