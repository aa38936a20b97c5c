#!/usr/bin/env bash
# bench/pipeline/run.sh -- issue 13's rows: the gpusort CLI from file to sorted file beside the
# floors for the same bytes (dd with and without conv=fsync), a warm torch script, and GNU sort
# for the text rows; same files, same run.
#
# Usage: bench/pipeline/run.sh PATH/TO/gpusort [DATA_DIR] [SECTION...] > results.md
#   DATA_DIR (default /tmp/gpusort-bench-pipeline) holds the inputs (made once, reused) and the
#   outputs. SECTIONs (default: all of them, in this order):
#     u32      1 GiB of u32 keys (2^28): CLI durable (--sync) and not, --backend cpu both ways,
#              dd conv=fsync and plain dd, and the warm torch script (when torch sees a GPU)
#     f64      1 GiB of f64 keys: CLI both ways, dd both ways
#     pairs    1 GiB of u64 keys + their u32 values (2^27 each, 1.5 GiB): CLI both ways, dd of
#              both files both ways
#     records  10M gensort-style records (100 B, 10-byte key, 1 GB): CLI both ways, dd both ways
#     text     20M integer lines (-n) and 10M words of 5-40 bytes (bench/text/run.sh's): gpusort (AUTO and --backend cpu; durable
#              by GPUSORT_SYNC=1 too) vs GNU sort LC_ALL=C -S 50% --parallel=$(nproc)
#     cold     u32.bin with a cold page cache (dropped before each run, `dd iflag=nocache
#              count=0`): dd and the CLI not durable, CUDA and --backend cpu; the start-up then
#              overlaps a read from the disk
#     small    the 2-core machine's row: 2^26 u32 through the CLI (durable and not) beside the
#              library sort's own time (--stats) + cp + sync of the same file
# Environment: RUNS (default 7) timed runs per row after one untimed warm-up, the median
# reported; SLOW_RUNS (default 3) for GNU sort's rows; SIZE_SHIFT (default 0) divides every
# size by 2^SIZE_SHIFT (a dry run of the script: SIZE_SHIFT=8).
# Every run starts with the page cache warm (the warm-up read the input), the previous output
# removed and `sync` done (untimed), so that no run pays for the last one's writeback; a run
# is timed from the process's start to its end (the output renamed into place). The binary
# rows run with --stats and the records rows with GPUSORT_TIMING=1; the last run's phase line
# (seconds; start-up overlaps the rest) follows the row.
set -u
G=${1:?usage: run.sh PATH/TO/gpusort [DATA_DIR] [SECTION...]}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
D=${2:-/tmp/gpusort-bench-pipeline}
shift $(( $# >= 2 ? 2 : 1 ))
SECTIONS=${*:-u32 f64 pairs records text cold small}
RUNS=${RUNS:-7}
SLOW_RUNS=${SLOW_RUNS:-3}
S=${SIZE_SHIFT:-0}
THREADS=$(nproc)
export LC_ALL=C
mkdir -p "$D"
cd "$D" || exit 2
log() { echo "$*" >&2; }
now() { date +%s.%N; }

# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# timed NAME NRUNS OUTPUTS -- CMD...: one warm-up, then NRUNS runs of CMD (a shell command
# string), each after removing OUTPUTS and a sync; prints the row "| NAME | median | min-max |"
# and keeps the median in $last. CMD's stderr of the last run is kept in $D/last.err.
timed() {
  local name=$1 n=$2 outs=$3
  shift 4
  local cmd=$*
  rm -f $outs; sync
  if ! bash -c "$cmd" > /dev/null 2> last.err; then
    log "FAILED: $name: $cmd: $(head -c 300 last.err)"
    echo "| $name | failed | $(head -c 200 last.err | tr '\n|' '  ') |"
    last=nan
    return 1
  fi
  local times=() i t0 t1
  for ((i = 0; i < n; i++)); do
    rm -f $outs; sync
    [ -z "${PRE:-}" ] || bash -c "$PRE"
    t0=$(now)
    bash -c "$cmd" > /dev/null 2> last.err
    t1=$(now)
    times+=("$(calc "$t1 - $t0")")
  done
  last=$(printf '%s\n' "${times[@]}" | median)
  local lo hi
  lo=$(printf '%s\n' "${times[@]}" | sort -g | head -1)
  hi=$(printf '%s\n' "${times[@]}" | sort -g | tail -1)
  printf '| %s | %.3f | %.3f-%.3f | %d |\n' "$name" "$last" "$lo" "$hi" "$n"
  log "$name: median $last s"
}
# phases: the phase line of the last run (--stats, GPUSORT_TIMING=1), as a table note.
phases() { grep -h 'phases (s)' last.err | tail -1 | sed 's/^gpusort: /|   | /; s/$/ | | |/'; }
# calc EXPR: awk's arithmetic, 3 decimals (no bc on every machine); ratio A B: A / B, 2 decimals.
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "nan") printf "%.2f", a / b; else printf "nan" }'; }

header() {
  echo
  echo "### $1"
  echo
  echo "| row | median s | min-max s | runs |"
  echo "|---|---|---|---|"
}

# bin_rows LABEL TYPE FILE [VALUES-FILE VALUE-TYPE]: the CLI both ways and dd both ways.
bin_rows() {
  local label=$1 t=$2 f=$3 v=${4:-} vt=${5:-}
  local pairs="" outs="out" ddv=""
  if [ -n "$v" ]; then
    pairs="--values $v --value-type $vt --values-out out.v"
    outs="out out.v"
    ddv="&& dd if=$v of=out.v bs=64M"
  fi
  header "$label"
  timed "dd conv=fsync" "$RUNS" "$outs" -- "dd if=$f of=out bs=64M conv=fsync status=none ${ddv:+$ddv conv=fsync status=none}"
  local ddsync=$last
  timed "dd" "$RUNS" "$outs" -- "dd if=$f of=out bs=64M status=none ${ddv:+$ddv status=none}"
  local dd=$last
  timed "gpusort sort --sync (durable)" "$RUNS" "$outs" -- "$G sort $f --type $t $pairs -o out --sync --stats"
  phases
  local dur=$last
  timed "gpusort sort (not durable)" "$RUNS" "$outs" -- "$G sort $f --type $t $pairs -o out --stats"
  phases
  local nd=$last
  echo
  echo "durable / dd conv=fsync: **$(ratio "$dur" "$ddsync")x**; not durable / dd: **$(ratio "$nd" "$dd")x**"
  if [ "$t" = u32 ] && [ -z "$v" ]; then
    header "$label, --backend cpu ($THREADS threads)"
    timed "gpusort sort --backend cpu --sync" "$RUNS" "$outs" -- "$G sort $f --type $t --backend cpu -o out --sync --stats"
    phases
    local cdur=$last
    timed "gpusort sort --backend cpu" "$RUNS" "$outs" -- "$G sort $f --type $t --backend cpu -o out --stats"
    phases
    echo
    echo "CPU durable / dd conv=fsync: **$(ratio "$cdur" "$ddsync")x**; CPU not durable / dd: **$(ratio "$last" "$dd")x**"
    torch_row "$f" "$nd"
  fi
}

# The warm torch script: torch imported and CUDA initialised before the timing; each run is
# np.fromfile, .cuda(), torch.sort, .cpu(), tofile (no fsync), timed inside one process.
torch_row() {
  local f=$1 ours=$2
  python3 - "$f" "$RUNS" > torch.out 2> torch.err <<'EOF'
import sys, time, os, statistics, subprocess
import numpy as np
import torch
if not torch.cuda.is_available():
    print("no-gpu"); sys.exit(0)
f, runs = sys.argv[1], int(sys.argv[2])
torch.zeros(1).cuda(); torch.cuda.synchronize()
# u32 as int32 with the top bit flipped on the GPU (same order as unsigned; torch's sort of
# unsigned types is not everywhere), flipped back before the copy home.
m = -2**31
def once():
    a = np.fromfile(f, dtype=np.uint32)
    t = torch.from_numpy(a.view(np.int32)).cuda() ^ m
    s = (torch.sort(t).values ^ m).cpu().numpy()
    s.view(np.uint32).tofile("out")
once()
ts = []
for _ in range(runs):
    if os.path.exists("out"): os.remove("out")
    subprocess.run(["sync"])
    t0 = time.perf_counter(); once(); ts.append(time.perf_counter() - t0)
print("%.3f %.3f %.3f %d %s" % (statistics.median(ts), min(ts), max(ts), runs, torch.__version__))
EOF
  local r; r=$(cat torch.out)
  if [ -z "$r" ] || [ "$r" = no-gpu ]; then
    echo; echo "torch row: not run ($(tail -1 torch.err 2>/dev/null) ${r})"; return
  fi
  set -- $r
  printf '| warm torch script (torch %s: fromfile, .cuda(), sort, .cpu(), tofile) | %.3f | %.3f-%.3f | %d |\n' "$5" "$1" "$2" "$3" "$4"
  echo
  echo "warm torch / gpusort not durable: **$(ratio "$1" "$ours")x**"
}

echo "## gpusort pipeline benchmark: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo none)"
echo "- gpusort: $("$G" --version | head -1); data in $D ($(df -h "$D" | awk 'NR == 2 { print $1 }'), $(stat -f -c %T "$D"))"
echo "- RUNS=$RUNS (SLOW_RUNS=$SLOW_RUNS for GNU sort), SIZE_SHIFT=$S; command: bench/pipeline/run.sh $G $D $SECTIONS"

for sec in $SECTIONS; do
  case $sec in
  u32)
    [ -s u32.bin ] || "$G" gen --type u32 --n $((1 << (28 - S))) --seed 1 -o u32.bin
    bin_rows "$((1024 >> S)) MiB u32 keys (2^$((28 - S)))" u32 u32.bin ;;
  f64)
    [ -s f64.bin ] || "$G" gen --type f64 --n $((1 << (27 - S))) --seed 2 -o f64.bin
    bin_rows "$((1024 >> S)) MiB f64 keys (2^$((27 - S)))" f64 f64.bin ;;
  pairs)
    [ -s k64.bin ] || "$G" gen --type u64 --n $((1 << (27 - S))) --seed 3 -o k64.bin
    [ -s v32.bin ] || "$G" gen --type u32 --n $((1 << (27 - S))) --dist index -o v32.bin
    bin_rows "$((1024 >> S)) MiB u64 keys + u32 values (2^$((27 - S)) pairs)" u64 k64.bin v32.bin u32 ;;
  records)
    [ -s rec.bin ] || "$G" gen --record-size 100 --n $((10000000 >> S)) --seed 4 -o rec.bin
    header "$((10000000 >> S)) gensort-style records (100 B, 10-byte key)"
    timed "dd conv=fsync" "$RUNS" out -- "dd if=rec.bin of=out bs=64M conv=fsync status=none"
    ddsync=$last
    timed "dd" "$RUNS" out -- "dd if=rec.bin of=out bs=64M status=none"
    dd=$last
    timed "gpusort --record-size 100 --key-size 10 (durable, GPUSORT_SYNC=1)" "$RUNS" out -- "GPUSORT_SYNC=1 GPUSORT_TIMING=1 $G --record-size 100 --key-size 10 rec.bin -o out"
    dur=$last
    phases
    timed "gpusort --record-size 100 --key-size 10" "$RUNS" out -- "GPUSORT_TIMING=1 $G --record-size 100 --key-size 10 rec.bin -o out"
    phases
    echo
    echo "durable / dd conv=fsync: **$(ratio "$dur" "$ddsync")x**; not durable / dd: **$(ratio "$last" "$dd")x**" ;;
  text)
    # The inputs of bench/text/run.sh's workloads (same distributions), made with numpy.
    [ -s ints.txt ] && [ -s words.txt ] || python3 - $((20000000 >> S)) $((10000000 >> S)) <<'EOF'
import sys, numpy as np
ni, nw = int(sys.argv[1]), int(sys.argv[2])
r = np.random.default_rng(42)
v = r.integers(0, 2147483647, ni) - np.where(r.random(ni) < 0.1, 1073741823, 0)
open("ints.txt", "w").write("\n".join(map(str, v.tolist())) + "\n")
alpha = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", np.uint8)
lens = r.integers(5, 41, nw)
ends = np.cumsum(lens + 1) - 1                  # where each word's newline goes
buf = alpha[r.integers(0, 62, int(ends[-1]) + 1)]
buf[ends] = ord("\n")
buf.tofile("words.txt")
EOF
    for w in "ints.txt -n" "words.txt"; do
      set -- $w
      header "text: $1 $(wc -l < "$1") lines, ${2:-no options}"
      timed "GNU sort ${2:-} -S 50% --parallel=$THREADS" "$SLOW_RUNS" out -- "sort ${2:-} -S 50% --parallel=$THREADS $1 -o out"
      gnu=$last
      timed "gpusort ${2:-} (AUTO)" "$RUNS" out -- "$G ${2:-} $1 -o out"
      auto=$last
      timed "gpusort ${2:-} --backend cpu" "$RUNS" out -- "$G ${2:-} --backend cpu $1 -o out"
      cpu=$last
      timed "gpusort ${2:-} (AUTO), durable (GPUSORT_SYNC=1)" "$RUNS" out -- "GPUSORT_SYNC=1 $G ${2:-} $1 -o out"
      echo
      echo "GNU / gpusort AUTO: **$(ratio "$gnu" "$auto")x**; GNU / gpusort --backend cpu: **$(ratio "$gnu" "$cpu")x**; the fsync costs $(calc "$last - $auto") s"
    done ;;
  cold)
    [ -s u32.bin ] || "$G" gen --type u32 --n $((1 << (28 - S))) --seed 1 -o u32.bin
    header "$((1024 >> S)) MiB u32 keys (2^$((28 - S))), input not in the page cache"
    export PRE="dd if=u32.bin iflag=nocache count=0 status=none"
    timed "dd (cold input)" "$RUNS" out -- "dd if=u32.bin of=out bs=64M status=none"
    dd=$last
    timed "gpusort sort (not durable, cold input)" "$RUNS" out -- "$G sort u32.bin --type u32 -o out --stats"
    phases
    nd=$last
    timed "gpusort sort --backend cpu (cold input)" "$RUNS" out -- "$G sort u32.bin --type u32 --backend cpu -o out --stats"
    phases
    unset PRE
    echo
    echo "cold: CUDA not durable / dd: **$(ratio "$nd" "$dd")x**; CPU / dd: **$(ratio "$last" "$dd")x**" ;;
  small)
    [ -s u32s.bin ] || "$G" gen --type u32 --n $((1 << (26 - S))) --seed 5 -o u32s.bin
    header "2^$((26 - S)) u32 keys, this machine's default backend"
    timed "cp + sync" "$RUNS" out -- "cp u32s.bin out && sync"
    cpsync=$last
    timed "cp" "$RUNS" out -- "cp u32s.bin out"
    cp=$last
    timed "gpusort sort --sync (durable)" "$RUNS" out -- "$G sort u32s.bin --type u32 -o out --sync --stats"
    phases
    dur=$last
    timed "gpusort sort (not durable)" "$RUNS" out -- "$G sort u32s.bin --type u32 -o out --stats"
    phases
    nd=$last
    # The library sort's own time: the median of the same number of runs' --stats.
    sorts=()
    for ((i = 0; i < RUNS; i++)); do
      sorts+=("$("$G" sort u32s.bin --type u32 -o out --stats 2>&1 | sed -n 's/.* in \([0-9.]*\) s:.*/\1/p')")
    done
    st=$(printf '%s\n' "${sorts[@]}" | median)
    echo
    echo "library sort alone (median of $RUNS --stats): $st s; durable / (sort + cp + sync): **$(ratio "$dur" "$(calc "$st + $cpsync")")x**; not durable / (sort + cp): **$(ratio "$nd" "$(calc "$st + $cp")")x**" ;;
  *) log "unknown section $sec"; exit 2 ;;
  esac
done
rm -f out out.v
