#!/usr/bin/env bash
# cli_fault.sh GPUSORT -- the gpusort program under injected faults:
#   1. every host allocation of a run fails in turn (GPUSORT_TEST_FAIL_ALLOC=k, src/alloc.c), for
#      text mode in memory and spilling runs to -T, -o INPUT, -m, -c, records, and the binary
#      sort, check, reduce and gen commands: each run either succeeds with the right output or
#      exits 2 with one line on stderr, leaving no output, no temporary file and its input intact;
#   2. full disks: /dev/full as the output (ENOSPC) and files over RLIMIT_FSIZE (a short write,
#      then EFBIG) for the output's temporary and for the run files of -T; the same outcome;
#   3. SIGKILL in the middle of `gpusort BIG -o BIG`: BIG intact; the next run names the stale
#      temporary and says how to remove it (util.c's note_stale_temps).
#   4. failing writes (GPUSORT_TEST_FAIL_WRITE=k:eio|enospc|short, util.c's cli_write_fault):
#      the k-th write or fsync of an output or temporary file fails, for every k of small jobs
#      (binary keys and pairs streamed across 8 MiB pieces, -o INPUT, standard input, external
#      runs, records, text in memory and spilling; with and without GPUSORT_SYNC=1; EIO on all,
#      a short write on one job per kind of write call, ENOSPC on the fsyncs): the same outcome
#      as 1.
#   5. SIGINT and SIGTERM at spread-out moments of a streamed sort (start-up, read, sort, write,
#      rename): killed by the signal, or done with the right output; never a partial output or
#      a temporary file left, the input intact.
# Prints "N passed, N failed" and exits 1 on a failure. Under ASan the program's own reports
# (a leak, a bad access) make a run exit with another code, which counts as a failure.
set -u
gs=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-fault-XXXXXX")
# Only this shell removes it: a background job signalled before its exec is still a fork of
# this shell, and bash would run this EXIT trap there too (part 5 signals at delay 0).
trap '[ "$BASHPID" = "$$" ] && rm -rf "$work"' EXIT
export LC_ALL=C
passed=0 failed=0 faults=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# ---- inputs ----
awk 'BEGIN { srand(7); for (i = 0; i < 30000; i++) printf "%d,%c%c%d\n", int(rand() * 1e6), 97 + int(rand() * 26), 97 + int(rand() * 26), i }' > "$work/in.txt"
sort "$work/in.txt" > "$work/sorted.txt"
head -c 40000 "$work/in.txt" | sort > "$work/a.txt"
tail -c 40000 "$work/in.txt" | sort > "$work/b.txt"
"$gs" gen --type u32 --n 100000 --dist uniform --seed 3 -o "$work/u32.bin" || { echo "gen failed"; exit 1; }
"$gs" gen --record-size 100 --n 5000 -o "$work/rec.bin" 2>/dev/null ||
  head -c 500000 /dev/urandom > "$work/rec.bin"
mkdir -p "$work/tmp"

# Files that a failed run may not leave: temporaries beside the outputs and run files in -T.
strays() { find "$work" -name '.*gpusort-*' -o -name 'gpusort-*' -type f | grep -v '^$'; }

# check_failed LABEL RC ERRFILE: a refused run: exit 2, one line "gpusort: ...", nothing left.
check_failed() {
  local label=$1 rc=$2 err=$3
  if [ "$rc" != 2 ]; then fail "$label: exit $rc, not 2: $(head -c 600 "$err")"; return 1; fi
  if [ "$(wc -l < "$err")" != 1 ] || ! grep -q '^gpusort: ' "$err"; then
    fail "$label: stderr is not one 'gpusort: ' line: $(head -c 600 "$err")"; return 1; fi
  if [ -e "$work/out" ]; then fail "$label: an output was left"; rm -f "$work/out"; return 1; fi
  local s; s=$(strays)
  if [ -n "$s" ]; then fail "$label: temporaries left: $s"; rm -f $s; return 1; fi
  return 0
}

# sweep LABEL EXPECTED-OUTPUT-FILE|- CMD...: run CMD with the k-th allocation failing for
# k = 1, 2, ... until a run succeeds; "out" in $work is the output (compared with EXPECTED).
sweep() {
  local label=$1 want=$2; shift 2
  local k rc n_oom=0 err=$work/err
  for ((k = 1; k <= 400; k++)); do
    cp "$work/in.txt" "$work/inplace.txt"
    GPUSORT_TEST_FAIL_ALLOC=$k "$@" > "$work/stdout" 2> "$err"
    rc=$?
    if [ "$rc" = 0 ] || { [ "$rc" = 1 ] && [ "$want" = "-" ]; }; then break; fi
    n_oom=$((n_oom + 1))
    check_failed "$label k=$k" "$rc" "$err" || return
    cmp -s "$work/in.txt" "$work/inplace.txt" || { fail "$label k=$k: the input changed"; return; }
  done
  if [ "$k" -gt 400 ]; then fail "$label: still failing at k=400"; return; fi
  if [ "$want" != - ]; then
    if ! cmp -s "$want" "$work/out"; then fail "$label: wrong output after k=$k"; return; fi
  fi
  rm -f "$work/out"
  faults=$((faults + n_oom))
  echo "ok: $label: $n_oom runs with a failed allocation ended cleanly, then k=$k ran whole"
  pass
}

echo "== 1. failing allocations"
sweep "text" "$work/sorted.txt" "$gs" --backend=cpu "$work/in.txt" -o "$work/out"
sort -t, -k2,2 -k1,1n "$work/in.txt" > "$work/keys.txt"
sweep "text -t, -k2,2 -k1,1n" "$work/keys.txt" "$gs" --backend=cpu -t, -k2,2 -k1,1n "$work/in.txt" -o "$work/out"
# ~4 runs of ~30 KB written to -T and merged (about 250 allocations: every one fails in turn)
head -c 120000 "$work/in.txt" > "$work/spill.txt"
sort "$work/spill.txt" > "$work/spill.sorted"
sweep "text spilling (-S 64K -T)" "$work/spill.sorted" "$gs" --backend=cpu -S 64K -T "$work/tmp" "$work/spill.txt" -o "$work/out"
sort -m "$work/a.txt" "$work/b.txt" > "$work/merged.txt"
sweep "text -m" "$work/merged.txt" "$gs" -m "$work/a.txt" "$work/b.txt" -o "$work/out"
sweep "text -c" - "$gs" -c "$work/sorted.txt"
sweep "text -o INPUT" - "$gs" --backend=cpu "$work/inplace.txt" -o "$work/inplace.txt"
cmp -s "$work/inplace.txt" "$work/sorted.txt" && pass || fail "-o INPUT: wrong result after the sweep"
"$gs" sort "$work/u32.bin" --type u32 --backend cpu -o "$work/u32.sorted" 2>/dev/null
sweep "sort --type u32" "$work/u32.sorted" "$gs" sort "$work/u32.bin" --type u32 --backend cpu -o "$work/out"
sweep "sort --type u32 -S (external)" "$work/u32.sorted" "$gs" sort "$work/u32.bin" --type u32 --backend cpu -S 64K -T "$work/tmp" -o "$work/out"
sweep "check --type u32" - "$gs" check "$work/u32.sorted" --type u32
sweep "reduce --type u32" - "$gs" reduce "$work/u32.bin" --type u32 --op sum --backend cpu
"$gs" gen --type f64 --n 5000 --dist uniform --seed 9 -o "$work/f64.bin" 2>/dev/null
sweep "gen --type f64" "$work/f64.bin" "$gs" gen --type f64 --n 5000 --dist uniform --seed 9 -o "$work/out"
"$gs" --record-size 100 --key-size 10 --backend cpu "$work/rec.bin" -o "$work/rec.sorted" 2>/dev/null
sweep "records" "$work/rec.sorted" "$gs" --record-size 100 --key-size 10 --backend cpu "$work/rec.bin" -o "$work/out"

echo "== 2. full disks and short writes"
# expect_fail LABEL CMD...: the run must be refused cleanly (exit 2, one line, nothing left).
expect_fail() {
  local label=$1; shift
  cp "$work/in.txt" "$work/inplace.txt"
  "$@" > /dev/null 2> "$work/err"
  if check_failed "$label" "$?" "$work/err"; then
    if ! cmp -s "$work/in.txt" "$work/inplace.txt"; then fail "$label: the input changed"; return; fi
    faults=$((faults + 1)); echo "ok: $label: $(cat "$work/err")"; pass
  fi
}
expect_fail "text -o /dev/full" "$gs" "$work/in.txt" -o /dev/full
expect_fail "text > /dev/full" sh -c '"$0" "$1" > /dev/full' "$gs" "$work/in.txt"
expect_fail "sort --type u32 -o /dev/full" "$gs" sort "$work/u32.bin" --type u32 --backend cpu -o /dev/full
# RLIMIT_FSIZE (ulimit -f, KiB) with SIGXFSZ ignored: the write that crosses the limit is
# short, the next fails with EFBIG.
limited() { (trap '' XFSZ; ulimit -f "$1"; shift; exec "$@"); }
expect_fail "text, output over RLIMIT_FSIZE" limited 64 "$gs" "$work/in.txt" -o "$work/out"
expect_fail "text -o INPUT over RLIMIT_FSIZE" limited 64 "$gs" "$work/inplace.txt" -o "$work/inplace.txt"
expect_fail "text, run files over RLIMIT_FSIZE" limited 8 "$gs" -S 64K -T "$work/tmp" "$work/in.txt" -o "$work/out"
expect_fail "sort --type u32, output over RLIMIT_FSIZE" limited 64 "$gs" sort "$work/u32.bin" --type u32 --backend cpu -o "$work/out"
expect_fail "records, output over RLIMIT_FSIZE" limited 64 "$gs" --record-size 100 --key-size 10 --backend cpu "$work/rec.bin" -o "$work/out"

echo "== 3. SIGKILL during -o INPUT"
# Several inputs concatenated: a 30 MB file whose output takes long enough to be caught.
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do cat "$work/in.txt"; done | head -c 8000000 > "$work/big.txt"
cp "$work/big.txt" "$work/big.orig"
caught=0
for try in 1 2 3 4 5 6 7 8; do
  "$gs" --backend=cpu -S 1M -T "$work/tmp" "$work/big.txt" -o "$work/big.txt" 2>/dev/null &
  pid=$!
  for ((i = 0; i < 4000; i++)); do
    if compgen -G "$work/.big.txt.gpusort-*" >/dev/null; then kill -9 "$pid"; caught=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.005
  done
  wait "$pid" 2>/dev/null
  [ "$caught" = 1 ] && break
done
if [ "$caught" = 0 ]; then
  echo "note: the run ended before its temporary could be caught (8 tries): part 3 not run"
else
  if cmp -s "$work/big.txt" "$work/big.orig"; then pass; echo "ok: SIGKILL during -o INPUT: input intact"
  else fail "SIGKILL during -o INPUT: the input changed"; fi
  faults=$((faults + 1))
  # The next run says what was left and how to remove it, and succeeds.
  "$gs" --backend=cpu "$work/big.txt" -o "$work/big.txt" 2> "$work/err"
  rc=$?
  if [ "$rc" = 0 ] && grep -q "left by an interrupted gpusort.*rm -f" "$work/err"; then
    pass; echo "ok: the next run: $(cat "$work/err")"
    cmd=$(sed -n "s/.*remove it: \(rm -f .*\)/\1/p" "$work/err")
    eval "$cmd"
    if compgen -G "$work/.big.txt.gpusort-*" >/dev/null; then fail "the advised rm left the file"; else pass; fi
  else
    fail "the next run (exit $rc) did not name the stale temporary: $(cat "$work/err")"
  fi
  rm -f "$work"/tmp/gpusort-*   # run files of the killed run (-T): README says how
fi

echo "== 4. failing writes and fsyncs"
# wsweep LABEL KIND EXPECTED CMD...: CMD with GPUSORT_TEST_FAIL_WRITE=k:KIND for k = 1, 2, ...
# until a run succeeds (k past the job's last write); "out" in $work is the output. The
# input of -o INPUT jobs is $work/inplace.* (copied afresh each run, compared after a failure).
wsweep() {
  local label=$1 kind=$2 want=$3; shift 3
  local k rc n_fail=0 err=$work/err
  for ((k = 1; k <= 300; k++)); do
    cp "$work/in.txt" "$work/inplace.txt"; cp "$work/w.u32" "$work/inplace.u32"; cp "$work/wv.u64" "$work/inplace.u64"
    GPUSORT_TEST_FAIL_WRITE=$k:$kind "$@" > "$work/stdout" 2> "$err"
    rc=$?
    [ "$rc" = 0 ] && break
    n_fail=$((n_fail + 1))
    check_failed "$label ($kind) k=$k" "$rc" "$err" || return
    cmp -s "$work/in.txt" "$work/inplace.txt" && cmp -s "$work/w.u32" "$work/inplace.u32" &&
      cmp -s "$work/wv.u64" "$work/inplace.u64" || { fail "$label ($kind) k=$k: an input changed"; return; }
  done
  if [ "$k" -gt 300 ]; then fail "$label ($kind): still failing at k=300"; return; fi
  if [ "$n_fail" = 0 ]; then fail "$label ($kind): no write failed: the knob missed this job"; return; fi
  if [ "$want" != - ] && ! cmp -s "$want" "$work/out"; then fail "$label ($kind): wrong output after k=$k"; return; fi
  rm -f "$work/out" "$work/out.v"
  faults=$((faults + n_fail))
  echo "ok: $label ($kind): $n_fail runs with a failed write ended cleanly, then k=$k ran whole"
  pass
}
# 20 MiB of u32 keys: three of the stream's 8 MiB pieces, the last one partial.
"$gs" gen --type u32 --n 5000000 --seed 11 -o "$work/w.u32" 2>/dev/null
"$gs" gen --type u64 --n 5000000 --seed 12 -o "$work/wv.u64" 2>/dev/null
"$gs" sort "$work/w.u32" --type u32 --backend cpu -o "$work/w.sorted" 2>/dev/null
"$gs" sort "$work/w.u32" --type u32 --backend cpu --values "$work/wv.u64" --values-out "$work/wv.sorted" -o "$work/w.sorted2" 2>/dev/null
cmp -s "$work/w.sorted" "$work/w.sorted2" || fail "pairs: keys differ from the keys-only sort"
"$gs" --backend=cpu -S 64K -T "$work/tmp" "$work/spill.txt" -o "$work/spill.sorted2" 2>/dev/null
# Every job with EIO; a short write (then ENOSPC) on each kind of write call (pwrite of the
# stream, fwrite of cli_out_write, write(2) of the run files) and ENOSPC on the fsyncs: the
# errno only changes the message, so the rest would repeat the same paths (CI's time).
for job in "eio all" "short some" "enospc fsync"; do
  set -- $job; kind=$1 which=$2
  wsweep "sort u32 streamed" $kind "$work/w.sorted" "$gs" sort "$work/w.u32" --type u32 --backend cpu -o "$work/out"
  wsweep "sort u32 streamed, GPUSORT_SYNC=1" $kind "$work/w.sorted" env GPUSORT_SYNC=1 "$gs" sort "$work/w.u32" --type u32 --backend cpu -o "$work/out"
  [ "$which" = fsync ] && continue
  wsweep "sort u32 < stdin (in memory)" $kind "$work/u32.sorted" sh -c '"$0" sort --type u32 --backend cpu -o "$2" < "$1"' "$gs" "$work/u32.bin" "$work/out"
  wsweep "sort u32 external (-S 64K)" $kind "$work/u32.sorted" "$gs" sort "$work/u32.bin" --type u32 --backend cpu -S 64K -T "$work/tmp" -o "$work/out"
  wsweep "text" $kind "$work/sorted.txt" "$gs" --backend=cpu "$work/in.txt" -o "$work/out"
  [ "$which" = some ] && continue
  wsweep "sort u32 -o INPUT --values INPUT2" $kind - "$gs" sort "$work/inplace.u32" --type u32 --backend cpu --values "$work/inplace.u64" -o "$work/inplace.u32" --sync
  cmp -s "$work/inplace.u32" "$work/w.sorted" && cmp -s "$work/inplace.u64" "$work/wv.sorted" && pass ||
    fail "-o INPUT --values ($kind): wrong result after the sweep"
  wsweep "sort u32 pairs" $kind "$work/wv.sorted" "$gs" sort "$work/w.u32" --type u32 --backend cpu --values "$work/wv.u64" --values-out "$work/out" -o "$work/out.v"
  wsweep "records" $kind "$work/rec.sorted" "$gs" --record-size 100 --key-size 10 --backend cpu "$work/rec.bin" -o "$work/out"
  wsweep "text -o INPUT, GPUSORT_SYNC=1" $kind - env GPUSORT_SYNC=1 "$gs" --backend=cpu "$work/inplace.txt" -o "$work/inplace.txt"
  cmp -s "$work/inplace.txt" "$work/sorted.txt" && pass || fail "text -o INPUT ($kind): wrong result after the sweep"
  wsweep "text spilling (-S 64K -T)" $kind "$work/spill.sorted" "$gs" --backend=cpu -S 64K -T "$work/tmp" "$work/spill.txt" -o "$work/out"
done

# Nothing in this script removes the work folder before the EXIT trap: if it is gone, something
# outside did it; say so once instead of failing every signal case on missing files.
[ -d "$work" ] || { echo "FAIL: the work folder $work is gone (removed from outside this test)"; exit 1; }
echo "== 5. SIGINT and SIGTERM at every phase of a streamed sort"
# 2^23 keys (32 MiB): a few tenths of a second on 2 cores, so that delays from 0 to 0.6 s land
# in the start-up, the reads, the sort, the writes, the rename, or after the end.
"$gs" gen --type u32 --n 2^23 --seed 13 -o "$work/sig.u32" 2>/dev/null
"$gs" sort "$work/sig.u32" --type u32 --backend cpu -o "$work/sig.sorted" 2>/dev/null
cp "$work/sig.u32" "$work/sig.orig"
n_killed=0 n_done=0
for sig in INT TERM; do
  for delay in 0 0.01 0.03 0.05 0.08 0.12 0.16 0.2 0.25 0.3 0.4 0.6; do
    set -m        # job control: a background job does not ignore SIGINT
    "$gs" sort "$work/sig.u32" --type u32 --backend cpu -o "$work/out" 2> "$work/err" &
    pid=$!
    set +m
    sleep "$delay"
    kill -$sig "$pid" 2>/dev/null
    wait "$pid"; rc=$?
    s=$(strays)
    if [ -n "$s" ]; then fail "SIG$sig after $delay s: temporaries left: $s"; rm -f $s; continue; fi
    cmp -s "$work/sig.u32" "$work/sig.orig" || { fail "SIG$sig after $delay s: the input changed"; cp "$work/sig.orig" "$work/sig.u32"; continue; }
    if [ "$rc" = 0 ]; then
      cmp -s "$work/out" "$work/sig.sorted" && n_done=$((n_done + 1)) || fail "SIG$sig after $delay s: exit 0 with a wrong output"
    elif [ "$rc" -gt 128 ]; then
      # Killed after the rename (the output is whole) or before it (no output at all).
      if [ -e "$work/out" ] && ! cmp -s "$work/out" "$work/sig.sorted"; then
        fail "SIG$sig after $delay s: killed, and a partial output was left"
      else n_killed=$((n_killed + 1)); fi
    else
      fail "SIG$sig after $delay s: exit $rc: $(head -c 300 "$work/err")"
    fi
    rm -f "$work/out"
  done
done
faults=$((faults + n_killed))
echo "ok: signals: $n_killed runs killed cleanly, $n_done finished whole before the signal"
pass

echo "faults injected and survived: $faults"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
