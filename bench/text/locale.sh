#!/usr/bin/env bash
# bench/text/locale.sh -- gpusort's text mode in a locale (issue 15) vs GNU sort, same files,
# same run, same locale.
#
# Usage: bench/text/locale.sh PATH/TO/gpusort [DATA_DIR] [RUNS] [PEER_RUNS] > bench/results/...
#   DATA_DIR (default /tmp/gpusort-bench-locale): the generated inputs (made once, reused).
#   RUNS (default 7): timed runs of gpusort per workload after one warm-up; the median is
#   reported. PEER_RUNS (default 3): the same for GNU sort, which takes 10-60 s a run in a
#   locale on 2 cores (fewer runs for the slow peer, said in the output).
#   Environment: LOCALE (default en_US.UTF-8; LOCPATH is passed on to both programs when set),
#   BACKEND (default cpu: gpusort --backend), PEER_PARALLEL (GNU sort --parallel; default: its
#   own default, min(cores, 8)), N (lines per workload, default 10000000), WORKLOADS (default
#   "words words-f human versions"), PEER_WARMUP (GNU sort's untimed runs before its timed ones,
#   default 1; 0 on a machine so loaded that a GNU run takes minutes).
# Workloads, N lines each:
#   words     UTF-8 words of 3-12 letters: a-z, 12% A-Z, 8% accented (é ä ö ü ß ñ ç å É Ä),
#             plain and -f (the collation of the locale: glibc strcoll vs strxfrm keys)
#   human     -h sizes: 30% bare integers, 50% "123.4K" with K..E, 20% "512M"
#   versions  -V names: pkgN-N.N[.N][a|b|rc|alpha|betaN](.tar.gz|.deb|.rpm|.tar.xz)
# Both programs write through stdout to a file on the same disk (bench_exec --out), no fsync.
# The outputs of the last timed runs are compared (same bytes). Markdown out.
set -eu
G=${1:?usage: locale.sh PATH/TO/gpusort [DATA_DIR] [RUNS] [PEER_RUNS]}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
BENCH_EXEC=${BENCH_EXEC:-$(dirname "$G")/../bench/bench_exec}
if [ ! -x "$BENCH_EXEC" ]; then
  echo "locale.sh: no bench_exec at $BENCH_EXEC: build its target or set BENCH_EXEC" >&2
  exit 2
fi
BENCH_EXEC=$(cd "$(dirname "$BENCH_EXEC")" && pwd)/$(basename "$BENCH_EXEC")
D=${2:-/tmp/gpusort-bench-locale}
RUNS=${3:-7}
PEER_RUNS=${4:-3}
N=${N:-10000000}
LOC=${LOCALE:-en_US.UTF-8}
BACKEND=${BACKEND:-cpu}
PP=${PEER_PARALLEL:+--parallel=$PEER_PARALLEL}
mkdir -p "$D"
cd "$D"
log() { echo "$*" >&2; }

export LC_ALL=C      # generation: bytes
if [ ! -s words.txt ]; then
  log "generating words.txt"
  awk -v n="$N" 'BEGIN { srand(44)
    nl = split("a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \303\251 \303\244 \303\266 \303\274 \303\237 \303\261 \303\247 \303\245 \303\211 \303\204", L, " ")
    for (i = 0; i < n; i++) { l = 3 + int(rand() * 10); w = ""
      for (j = 0; j < l; j++) { r = rand()
        w = w (r < 0.08 ? L[53 + int(rand() * 10)] : (r < 0.2 ? L[27 + int(rand() * 26)] : L[1 + int(rand() * 26)])) }
      print w } }' > words.txt
fi
if [ ! -s human.txt ]; then
  log "generating human.txt"
  awk -v n="$N" 'BEGIN { srand(45); split("K M G T P E", U, " ")
    for (i = 0; i < n; i++) { r = rand(); if (r < 0.3) printf "%d\n", int(rand() * 100000)
      else if (r < 0.8) printf "%.1f%s\n", rand() * 1000, U[1 + int(rand() * 6)]
      else printf "%d%s\n", int(rand() * 1024), U[1 + int(rand() * 6)] } }' > human.txt
fi
if [ ! -s versions.txt ]; then
  log "generating versions.txt"
  awk -v n="$N" 'BEGIN { srand(46); split("a b rc alpha beta", S, " "); split(".tar.gz .deb .rpm .tar.xz", X, " ")
    for (i = 0; i < n; i++) { l = "pkg" int(rand() * 1000) "-" int(rand() * 20) "." int(rand() * 50)
      if (rand() < 0.5) l = l "." int(rand() * 300)
      if (rand() < 0.2) l = l S[1 + int(rand() * 5)] int(rand() * 5)
      print l X[1 + int(rand() * 4)] } }' > versions.txt
fi
export LC_ALL=$LOC

median() {   # median N OUTFILE WARMUP cmd...
    local n=$1 out=$2 w=$3; shift 3
    "$BENCH_EXEC" --runs "$n" --warmup "$w" --out "$out" -- "$@"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

echo "# gpusort text mode in a locale vs GNU sort -- $(date -u +%Y-%m-%d)"
echo
echo "- Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores," \
     "$(free -g | awk '/Mem:/ { print $2 }') GiB RAM, $(uname -sr)"
echo "- GNU sort: $(sort --version | head -1) ${PP:-(default --parallel)}; gpusort:" \
     "$("$G" --version | head -1), --backend $BACKEND; glibc $(ldd --version | head -1 | awk '{ print $NF }')"
echo "- Locale: LC_ALL=$LOC${LOCPATH:+ (LOCPATH=$LOCPATH)}"
echo "- Load before: $(uptime | sed 's/.*load average/load average/')"
echo "- Command: \`bench/text/locale.sh $G $D $RUNS $PEER_RUNS\` (wall clock; median of $RUNS runs" \
     "of gpusort after one warm-up run and $PEER_RUNS of GNU sort after ${PEER_WARMUP:-1};" \
     "output to a file through stdout, no fsync)"
echo
echo "| workload | lines, size | gpusort | GNU sort | speed-up | same bytes |"
echo "|---|---|---|---|---|---|"
row() {   # row "label" file opts...
    local label=$1 f=$2; shift 2
    local ok t1 t2
    t1=$(median "$RUNS" a.tmp 1 "$G" --backend "$BACKEND" "$@" "$f")
    t2=$(median "$PEER_RUNS" b.tmp "${PEER_WARMUP:-1}" sort $PP "$@" "$f")
    if cmp -s a.tmp b.tmp; then ok=yes; else ok=NO; fi
    rm -f a.tmp b.tmp
    echo "| $label | $((N / 1000000))M, $(du -m "$f" | cut -f1) MB | $t1 s | $t2 s | $(ratio "$t2" "$t1")x | $ok |"
}
for w in ${WORKLOADS:-words words-f human versions}; do
  case $w in
    words) row "UTF-8 words, plain" words.txt ;;
    words-f) row "UTF-8 words, \`-f\`" words.txt -f ;;
    human) row "sizes, \`-h\`" human.txt -h ;;
    versions) row "versions, \`-V\`" versions.txt -V ;;
  esac
done
echo
echo "Where gpusort's time goes (one run each, GPUSORT_TIMING=1: wall and CPU seconds per phase):"
echo
echo '```'
for w in "words.txt" "-f words.txt" "-h human.txt" "-V versions.txt"; do
  echo "$w:"
  GPUSORT_TIMING=1 "$G" --backend "$BACKEND" $w 2>&1 > /dev/null | sed 's/^gpusort: timing: /  /'
done
echo '```'
echo
echo "- Load after: $(uptime | sed 's/.*load average/load average/')"
rm -f out.tmp
