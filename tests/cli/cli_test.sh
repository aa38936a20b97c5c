#!/usr/bin/env bash
# cli_test.sh -- tests of the gpusort program's binary mode, its error paths and its routing.
#
#   bash tests/cli/cli_test.sh path/to/gpusort path/to/clitool [-v]
#
# Results are judged by clitool (tests/cli/clitool.c), which shares no code with gpusort: order,
# permutation (bit patterns), pair integrity and stability, reduce results. Every error path
# checks: exit status 2, exactly one line on stderr starting "gpusort: ", no output file (or the
# old one unchanged) and no temporary file left behind, and the input unchanged (cksum).
# Data come from `gpusort gen` with fixed seeds, printed on failure, so a failure replays.
# Prints "N passed, N failed"; exits 1 if anything failed; -v also prints every passing test.
# Takes ~12 s (release, CPU only, 2 cores), ~50-60 s with ASan or with PoCL's OpenCL backend
# (each process compiles or loads kernels), ~30 s on the H200 machine (CUDA compared too).
set -u
G=$(readlink -f "$1")
T=$(readlink -f "$2")
VERBOSE=${3:-}
W=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-cli-test.XXXXXX")
MNT=""
cleanup() {
    if [ -n "$MNT" ]; then umount "$MNT" 2>/dev/null; fi
    rm -rf "$W"
}
trap cleanup EXIT
cd "$W" || exit 2

passed=0
failed=0
ok() { passed=$((passed + 1)); [ -n "$VERBOSE" ] && echo "ok: $1"; return 0; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; [ -s err ] && sed 's/^/    stderr: /' err | head -5; return 0; }
# check NAME COMMAND...: passes when the command exits 0.
check() { local name=$1; shift; if "$@" 2>err; then ok "$name"; else bad "$name"; fi; }
sum_of() { if [ -f "$1" ]; then cksum < "$1"; else echo "not a file"; fi; }
# no_temp DIR: no temporary output file left in DIR.
no_temp() { ! ls -A "$1" | grep -q '\.gpusort-'; }

# snapshot: name and checksum of every file in the work folder but the test's own err file.
snapshot() { for f in *; do [ -f "$f" ] && [ -r "$f" ] && [ "$f" != err ] && echo "$f $(cksum < "$f")"; done; }

# expect_error NAME WANT_IN_MESSAGE OUTPUT_FILE -- COMMAND...
#   exit 2, one stderr line "gpusort: ..." containing WANT, OUTPUT_FILE unchanged (or still absent),
#   every file in the work folder unchanged, no temp file.
expect_error() {
    local name=$1 want=$2 outf=$3
    shift 4
    local before after out_before="absent"
    before=$(snapshot)
    [ -e "$outf" ] && out_before=$(sum_of "$outf")
    "$@" >stdout.txt 2>err
    local rc=$? why=""
    rm -f stdout.txt
    [ $rc -eq 2 ] || why="exit status $rc, not 2"
    [ -z "$why" ] && [ "$(wc -l < err)" -ne 1 ] && why="$(wc -l < err) lines on stderr, not 1"
    [ -z "$why" ] && ! grep -q '^gpusort: ' err && why="stderr does not start with 'gpusort: '"
    [ -z "$why" ] && [ -n "$want" ] && ! grep -qi -- "$want" err && why="stderr lacks '$want'"
    if [ -z "$why" ]; then
        if [ "$out_before" = absent ]; then
            [ -e "$outf" ] && why="output $outf was created"
        elif [ "$(sum_of "$outf")" != "$out_before" ]; then
            why="output $outf changed"
        fi
    fi
    after=$(snapshot)
    [ -z "$why" ] && [ "$before" != "$after" ] && why="files in the work folder changed"
    [ -z "$why" ] && ! no_temp . && why="a temporary file was left behind"
    if [ -z "$why" ]; then ok "$name"; else bad "$name: $why"; fi
}

TYPES="u32 i32 f32 u64 i64 f64"
# The bulk of the tests runs on the CPU backend (starting a GPU backend costs ~0.3 s per
# process); the default backend (auto) is used by a few, and every other backend with a device
# is compared with the CPU backend below.
CPU="--backend cpu"

# ---- help, version, devices, bench ----
check "--help" bash -c "'$G' --help | grep -q '^Usage: gpusort'"
check "--version" bash -c "'$G' --version | grep -q '^gpusort '"
for c in sort gen check reduce devices bench; do
    check "help $c" bash -c "'$G' help $c > /dev/null"
    if "$G" "$c" --help >h.txt 2>err && grep -q "^Usage: gpusort $c" h.txt; then ok "$c --help"; else bad "$c --help"; fi
done
if "$G" devices >devices.txt 2>err && grep -q '^cpu: ' devices.txt && grep -q '^auto: ' devices.txt; then
    ok "devices"
else
    bad "devices"
fi
if "$G" bench --n 5000 --runs 3 --backend cpu >bench.txt 2>err && grep -q '^cpu ' bench.txt; then
    ok "bench"
else
    bad "bench"
fi
rm -f h.txt bench.txt

# ---- gen: deterministic, seeds matter, index ----
"$G" gen --type u64 --n 1000 --dist zipf --seed 7 -o g1 && "$G" gen --type u64 --n 1000 --dist zipf --seed 7 -o g2
check "gen is deterministic" cmp -s g1 g2
"$G" gen --type u64 --n 1000 --dist zipf --seed 8 -o g2
check "gen seed changes the data" bash -c "! cmp -s g1 g2"
"$G" gen --type u32 --n 2^10 --dist index -o g1
check "gen --n 2^10 size" test "$(stat -c %s g1)" -eq 4096
"$G" gen --type u32 --n 3 --dist index | od -An -tu4 | xargs > g2
check "gen index to stdout" test "$(cat g2)" = "0 1 2"
"$G" gen --type u32 --n 1000 --dist bit-entropy --entropy-k 5 -o g1 2>err
check "gen bit-entropy" test "$(stat -c %s g1)" -eq 4000
rm -f g1 g2

# ---- sort round trips: every type x distribution x order, several sizes ----
seed=11
for t in $TYPES; do
    for dist in uniform special few sorted reversed zipf; do
        sizes=5000
        [ $dist = uniform ] && sizes="0 1 33 5000"
        for n in $sizes; do
            seed=$((seed + 1))
            "$G" gen --type "$t" --n "$n" --dist "$dist" --seed "$seed" -o in 2>err || { bad "gen $t $dist"; continue; }
            for order in asc desc; do
                flag=""
                [ $order = desc ] && flag=--desc
                name="sort $t $dist n=$n $order seed=$seed"
                if ! "$G" sort in --type "$t" $flag $CPU -o out 2>err; then bad "$name: exit $?"; continue; fi
                if ! "$T" sorted "$t" $order out 2>err; then bad "$name: not sorted"; continue; fi
                if ! "$T" perm "$t" in out 2>err; then bad "$name: not a permutation"; continue; fi
                if ! "$G" check out --type "$t" $flag 2>err; then bad "$name: gpusort check says unsorted"; continue; fi
                ok "$name"
            done
        done
    done
done
rm -f in out

# ---- check: exit codes and messages ----
"$T" write u32 1 2 5 3 4 > c.u32
"$G" check c.u32 --type u32 2>err
rc=$?
if [ $rc -eq 1 ] && [ "$(cat err)" = "gpusort: c.u32: disorder at index 3: 5 then 3" ]; then ok "check disorder message"; else bad "check disorder message (rc=$rc)"; fi
"$G" check c.u32 --type u32 --quiet 2>err
rc=$?
if [ $rc -eq 1 ] && [ ! -s err ]; then ok "check --quiet"; else bad "check --quiet (rc=$rc)"; fi
"$T" write f32 -inf -1 -0 0 -0 1 inf nan bits:0xffc00001 > c.f32
check "check f32 specials ascending" "$G" check c.f32 --type f32
"$G" check c.f32 --type f32 --desc 2>err
[ $? -eq 1 ] && ok "check f32 specials not descending" || bad "check f32 specials not descending"
"$T" write f64 nan 1e300 0 -0 -inf > c.f64
check "check f64 NaN first descending" "$G" check c.f64 --type f64 --desc
"$T" write i64 -9223372036854775808 -1 0 9223372036854775807 > c.i64
check "check i64 extremes" "$G" check c.i64 --type i64
"$T" write i32 5 -3 > c.i32
"$G" check c.i32 --type i32 2>err
[ $? -eq 1 ] && grep -q 'disorder at index 1: 5 then -3' err && ok "check i32 signed" || bad "check i32 signed"
: > empty
check "check empty file" "$G" check empty --type f64
"$T" write u32 1 2 3 | "$G" check - --type u32 2>err
[ $? -eq 0 ] && ok "check stdin" || bad "check stdin"
rm -f c.u32 c.f32 c.f64 c.i64 c.i32

# ---- sort: specials keep their bits; NaN last; stable -0.0/+0.0 ----
"$T" write f32 nan 1 -0 0 -inf bits:0xffc00001 -0 > s.f32
"$G" sort s.f32 --type f32 -o s.out 2>err
od -An -tx4 s.out | xargs > s.hex
check "f32 specials sorted bit-exact and stable" test "$(cat s.hex)" = "ff800000 80000000 00000000 80000000 3f800000 7fc00000 ffc00001"
rm -f s.f32 s.out s.hex

# ---- stdin to stdout ----
"$G" gen --type i32 --n 3000 --seed 3 -o in
cat in | "$G" sort - --type i32 > out 2>err
check "sort stdin to stdout" "$T" sorted i32 asc out
check "sort stdin to stdout permutation" "$T" perm i32 in out

"$G" gen --type f32 --n 2000 --dist special --seed 4 | "$G" sort --type f32 $CPU | "$G" check --type f32 2>err
check "gen | sort | check without file names" test $? -eq 0
res=$("$G" reduce --type i32 --op min $CPU < in)
check "reduce from standard input" "$T" reduce i32 min in "$res"

# ---- -o equal to the input (in place) ----
cp in keep
"$G" sort in --type i32 --desc -o in 2>err
check "sort -o IN: sorted" "$T" sorted i32 desc in
check "sort -o IN: permutation" "$T" perm i32 keep in
rm -f in keep out

# ---- every CPU algorithm and thread count gives the same bytes (stable sorts, one order) ----
"$G" gen --type f64 --n 50000 --dist special --seed 41 -o in
"$G" sort in --type f64 --desc $CPU -o want 2>err
for args in "--algorithm radix" "--algorithm merge" "--threads 1" "--threads 3"; do
    if "$G" sort in --type f64 --desc $CPU $args -o got 2>err && cmp -s want got; then ok "cpu $args"; else bad "cpu $args"; fi
done
rm -f in want got

# ---- external sort (input larger than -S): byte-identical to the in-memory (stable) sort ----
mkdir -p runs
for t in $TYPES; do
    "$G" gen --type "$t" --n 30000 --dist special --seed 21 -o in
    for order in asc desc; do
        flag=""
        [ $order = desc ] && flag=--desc
        "$G" sort in --type "$t" $flag $CPU -o mem 2>err
        if "$G" sort in --type "$t" $flag $CPU -S 40K -T runs -o ext --stats 2>err && grep -q 'external: [0-9]* runs' err &&
           cmp -s mem ext && [ -z "$(ls -A runs)" ]; then ok "external $t $order"; else bad "external $t $order"; fi
    done
done
# Hundreds of runs: merged in groups of 64 first, then together.
for t in u32 f64; do
    "$G" gen --type "$t" --n 30000 --dist special --seed 23 -o in
    "$G" sort in --type "$t" --desc $CPU -o mem 2>err
    if "$G" sort in --type "$t" --desc $CPU -S 1K -T runs -o ext --stats 2>err && grep -q 'external: [0-9][0-9][0-9] runs' err &&
       cmp -s mem ext && [ -z "$(ls -A runs)" ]; then ok "external $t, hundreds of runs"; else bad "external $t, hundreds of runs"; fi
done
"$G" gen --type u64 --n 30000 --dist zipf --seed 22 -o in
"$G" sort in --type u64 $CPU -o mem
cat in | "$G" sort - --type u64 $CPU -S 16K -T runs > ext 2>err
check "external from stdin" cmp -s mem ext
cp in keep
"$G" sort in --type u64 -S 64K -T runs -o in 2>err
check "external -o IN" cmp -s mem in
check "external: run files removed" test -z "$(ls -A runs)"
rm -f in keep mem ext

# ---- --values: permutation integrity and stability ----
seed=100
for t in u32 f32 i64 f64; do
    for vt in u32 u64; do
        for order in asc desc; do
            seed=$((seed + 1))
            flag=""
            [ $order = desc ] && flag=--desc
            name="pairs $t+$vt $order seed=$seed"
            "$G" gen --type "$t" --n 20000 --dist few --seed $seed -o k
            "$G" gen --type "$vt" --n 20000 --dist index -o v
            if "$G" sort k --type "$t" $flag $CPU --values v --value-type "$vt" --values-out vo -o ko 2>err &&
               "$T" pairs "$t" $order k ko vo "$vt" 2>err; then ok "$name"; else bad "$name"; fi
        done
    done
done
# Value type inferred from the file size; -o IN sorts both files in place.
"$G" gen --type u64 --n 5000 --dist special --seed 5 -o k
"$G" gen --type u32 --n 5000 --dist index -o v
cp k k0
cp v v0
if "$G" sort k --type u64 --values v -o k 2>err && "$T" pairs u64 asc k0 k v u32 2>err; then
    ok "pairs in place, value type inferred"
else
    bad "pairs in place, value type inferred"
fi
rm -f k k0 v v0 ko vo

# ---- every other backend with a device gives byte-identical results to the CPU backend ----
# (sorts are stable and the order is one total order, so there is exactly one right answer)
for b in cuda opencl; do
    grep -q "^$b: [0-9]* device" devices.txt || continue
    for t in $TYPES; do
        "$G" gen --type "$t" --n 33 --dist special --seed 30 -o in
        "$G" sort in --type "$t" --backend cpu -o want 2>err
        if "$G" sort in --type "$t" --backend $b -o got 2>err && cmp -s want got; then ok "$b = cpu: sort $t n=33"; else bad "$b = cpu: sort $t n=33"; fi
        for dist in uniform special; do
            "$G" gen --type "$t" --n 100003 --dist "$dist" --seed 31 -o in
            for flag in "" --desc; do
                name="$b = cpu: sort $t $dist $flag"
                "$G" sort in --type "$t" $flag --backend cpu -o want 2>err
                if "$G" sort in --type "$t" $flag --backend $b -o got 2>err && cmp -s want got; then ok "$name"; else bad "$name"; fi
            done
        done
        # "special" data: many ties (stability), NaN, -0.0, inf, extremes.
        "$G" gen --type u32 --n 100003 --dist index -o v
        "$G" sort in --type "$t" --desc --backend $b --values v --values-out vo -o ko 2>err
        check "$b pairs $t special desc" "$T" pairs "$t" desc in ko vo u32
        for op in sum min max; do
            res=$("$G" reduce in --type "$t" --op $op --backend $b 2>err)
            if [ $? -eq 0 ] && "$T" reduce "$t" $op in "$res" 2>err; then ok "$b reduce $t special $op"; else bad "$b reduce $t special $op: $res"; fi
        done
    done
    rm -f in want got v vo ko
done

# ---- --backend auto: a file of at most 16 MiB per CPU thread goes to the CPU (tools/cmd_opts.c,
# cmd_auto_small_files); with one thread, one key more goes to the library's AUTO backend ----
"$G" gen --type u32 --n 4194304 --seed 40 -o in
if "$G" sort in --type u32 -o got --threads 1 --stats 2>err && grep -q '^sorted 4194304 u32 keys with cpu ' err
then ok "auto: 16 MiB, 1 thread, on the cpu"; else bad "auto: 16 MiB, 1 thread, on the cpu: $(head -1 err)"; fi
"$G" gen --type u32 --n 4194305 --seed 41 -o in
want_b=$(grep '^auto: ' devices.txt | cut -d' ' -f2)
if "$G" sort in --type u32 -o got --threads 1 --stats 2>err && grep -q "^sorted 4194305 u32 keys with $want_b " err
then ok "auto: 16 MiB + 4 B, 1 thread, on $want_b"; else bad "auto: 16 MiB + 4 B, 1 thread, on $want_b: $(head -1 err)"; fi
# the values file counts too: 8 MiB of keys + 8 MiB + 4 B of values is over one thread's share
"$G" gen --type u32 --n 2097152 --seed 42 -o k
"$G" gen --type u32 --n 2097152 --dist index -o v
if "$G" sort k --type u32 --values v --values-out vo -o ko --threads 1 --stats 2>err &&
   grep -q '^sorted 2097152 u32 keys with u32 values with cpu ' err
then ok "auto: pairs of 16 MiB, 1 thread, on the cpu"; else bad "auto: pairs of 16 MiB, 1 thread: $(head -1 err)"; fi
"$G" gen --type u32 --n 2097153 --seed 43 -o k
"$G" gen --type u32 --n 2097153 --dist index -o v
if "$G" sort k --type u32 --values v --values-out vo -o ko --threads 1 --stats 2>err &&
   grep -q "^sorted 2097153 u32 keys with u32 values with $want_b " err
then ok "auto: pairs of 16 MiB + 8 B, 1 thread, on $want_b"; else bad "auto: pairs of 16 MiB + 8 B, 1 thread, on $want_b: $(head -1 err)"; fi
# reduce takes the CPU at any size, topk up to its cost model's size (tools/cmd_topk.c: about
# 45M u32 keys on one thread), both beyond the 16 MiB per thread of sort's rule
if "$G" topk in --type u32 -k 3 -o got --threads 1 --stats 2>err && grep -q "^top 3 of 4194305 u32 keys with cpu " err
then ok "auto: topk of 16 MiB + 4 B, 1 thread, on the cpu"; else bad "auto: topk, 1 thread, on the cpu: $(head -1 err)"; fi
if "$G" reduce in --type u32 --op sum --threads 1 --stats >/dev/null 2>err && grep -q "^reduced 4194305 u32 keys with cpu " err
then ok "auto: reduce of 16 MiB + 4 B, 1 thread, on the cpu"; else bad "auto: reduce, 1 thread, on the cpu: $(head -1 err)"; fi
"$G" gen --type u32 --n 1000 --seed 44 -o in
if "$G" reduce in --type u32 --op max --stats >/dev/null 2>err && grep -q '^reduced 1000 u32 keys with cpu ' err &&
   "$G" topk in --type u32 -k 5 -o got --stats 2>err && grep -q '^top 5 of 1000 u32 keys with cpu ' err
then ok "auto: reduce and topk of a small file on the cpu"; else bad "auto: reduce/topk of a small file: $(head -1 err)"; fi
rm -f in got k v ko vo

# ---- the streamed path (regular files: pread/pwrite through src/hoststream.h) ----
# Sizes around the stream's 8 MiB piece (2^21 u32, 2^20 u64) and at 0 and 1 key; each result is
# byte-identical to the in-memory path (standard input to -o: no stream), which the round trips
# above check against clitool. Then every backend with a device, pairs across pieces, outputs
# that are devices, a file already holding data (standard output at an offset, and >>), --sync,
# and the --stats phase line.
backends="cpu"
for b in cuda opencl; do grep -q "^$b: [0-9]* device" devices.txt && backends="$backends $b"; done
for spec in u32:0 u32:1 u32:2097151 u32:2097153 u64:1048577 f64:1048577; do
    t=${spec%%:*} n=${spec#*:}
    "$G" gen --type "$t" --n "$n" --dist special --seed $((n % 1000)) -o in
    "$G" sort --type "$t" --desc $CPU -o want < in 2>err
    for b in $backends; do
        name="streamed $t n=$n --desc --backend $b"
        if "$G" sort in --type "$t" --desc --backend $b -o got --stats 2>err && cmp -s want got &&
           grep -q '^gpusort: sort phases (s): start-up [0-9.]* (waited [0-9.]*[^)]*) read .* write .* sync .* | total ' err
        then ok "$name"; else bad "$name"; fi
    done
done
"$G" gen --type u32 --n 2097155 --dist few --seed 51 -o k
"$G" gen --type u32 --n 2097155 --dist index -o v
for b in $backends; do
    if "$G" sort k --type u32 --backend $b --values v --values-out vo -o ko 2>err &&
       "$T" pairs u32 asc k ko vo u32 2>err; then ok "streamed pairs across pieces --backend $b"; else bad "streamed pairs across pieces --backend $b"; fi
done
"$G" gen --type f64 --n 1048579 --dist special --seed 52 -o k
"$G" gen --type u64 --n 1048579 --dist index -o v
if "$G" sort k --type f64 --desc $CPU --values v --values-out vo -o ko --sync 2>err &&
   "$T" pairs f64 desc k ko vo u64 2>err; then ok "streamed pairs f64+u64 --sync"; else bad "streamed pairs f64+u64 --sync"; fi
"$G" gen --type u32 --n 2097153 --seed 53 -o in
"$G" sort --type u32 $CPU -o want < in
check "streamed to /dev/null" "$G" sort in --type u32 $CPU -o /dev/null
{ printf 'head'; "$G" sort in --type u32 $CPU; } > got 2>err
{ printf 'head'; cat want; } > want2
check "streamed to standard output after other data" cmp -s got want2
printf 'head' > got
"$G" sort in --type u32 $CPU >> got 2>err
check "streamed to standard output opened with >>" cmp -s got want2
"$G" sort in --type u32 $CPU 2>err | cmp -s - want
check "streamed input to a pipe" test $? -eq 0
cp in got
check "streamed -o IN --sync" bash -c "'$G' sort got --type u32 $CPU -o got --sync && cmp -s got want"
GPUSORT_SYNC=1 "$G" sort in --type u32 $CPU -o got --stats 2>err
check "GPUSORT_SYNC=1" cmp -s got want
expect_error "GPUSORT_TEST_FAIL_WRITE malformed" "GPUSORT_TEST_FAIL_WRITE" got -- env GPUSORT_TEST_FAIL_WRITE=2:later "$G" sort in --type u32 -o got
# The outputs pre-written while a device starts (cmd_sort.c, prefill_threads), forced on every
# backend over the whole outputs by the test knob: the sorted data must replace every zero, the
# stats line says how much was pre-written, and a write that fails afterwards leaves nothing.
rm -f got
for b in $backends; do
    if GPUSORT_TEST_PREFILL=3 "$G" sort in --type u32 --backend $b -o got --stats 2>err &&
       cmp -s got want && grep -q 'output pre-written 8 MiB' err
    then ok "streamed, outputs pre-written --backend $b"; else bad "streamed, outputs pre-written --backend $b"; fi
done
"$G" gen --type u64 --n 1048583 --dist few --seed 54 -o k
"$G" gen --type u32 --n 1048583 --dist index -o v
if GPUSORT_TEST_PREFILL=2 "$G" sort k --type u64 --desc $CPU --values v --values-out vo -o ko 2>err &&
   "$T" pairs u64 desc k ko vo u32 2>err; then ok "streamed pairs, outputs pre-written"; else bad "streamed pairs, outputs pre-written"; fi
expect_error "streamed, outputs pre-written, write fails" "write error" got -- env GPUSORT_TEST_PREFILL=2 GPUSORT_TEST_FAIL_WRITE=2 "$G" sort in --type u32 $CPU -o got
rm -f in want want2 got k v ko vo

# ---- reduce against the independent reference ----
for t in $TYPES; do
    case $t in f*) dists="unit zipf special few" ;; *) dists="uniform special huge few" ;; esac
    for dist in $dists; do
        "$G" gen --type "$t" --n 10007 --dist "$dist" --seed 9 -o r
        for op in sum min max; do
            res=$("$G" reduce r --type "$t" --op $op $CPU 2>err)
            if [ $? -eq 0 ] && "$T" reduce "$t" $op r "$res" 2>err; then ok "reduce $t $dist $op"; else bad "reduce $t $dist $op: $res"; fi
            # In 4 KiB pieces (results combined by the CLI), from standard input.
            res=$(cat r | "$G" reduce - --type "$t" --op $op $CPU -S 4K 2>err)
            if [ $? -eq 0 ] && "$T" reduce "$t" $op r "$res" 2>err; then ok "reduce -S 4K $t $dist $op"; else bad "reduce -S 4K $t $dist $op: $res"; fi
        done
    done
done
# Pieces of a regular file read by parallel preads at their offsets (bin_read_piece: pieces of
# 1 MiB and more, several threads): 5000011 u64 (38 MiB) in 1 MiB pieces against the reference,
# and topk in 1 MiB pieces against the whole file's.
"$G" gen --type u64 --n 5000011 --seed 12 -o r
for op in sum min max; do
    res=$("$G" reduce r --type u64 --op $op $CPU -S 1M --threads 4 2>err)
    if [ $? -eq 0 ] && "$T" reduce u64 $op r "$res" 2>err; then ok "reduce -S 1M of a file, u64 $op"; else bad "reduce -S 1M of a file, u64 $op: $res"; fi
done
if "$G" topk r --type u64 -k 1000 $CPU -S 1M --threads 4 -o got 2>err && "$G" topk r --type u64 -k 1000 $CPU -S 1G --threads 1 -o want 2>>err &&
   cmp -s got want; then ok "topk -S 1M of a file = topk in one piece"; else bad "topk -S 1M of a file: $(head -1 err)"; fi
: > r
check "reduce sum of empty is 0" test "$("$G" reduce r --type f64 --op sum)" = 0
expect_error "reduce min of empty" "empty" nothing -- "$G" reduce r --type u32 --op min
rm -f r

# ---- error paths ----
"$G" gen --type u32 --n 10000 --seed 1 -o in
"$G" gen --type u32 --n 100 --seed 2 -o other
printf 'abcdefg' > seven
expect_error "size not a multiple" "not a multiple" out -- "$G" sort seven --type u32 -o out
expect_error "size not a multiple (stdin)" "not a multiple" out -- bash -c "cat seven | '$G' sort - --type u64 -o out"
expect_error "check size not a multiple" "not a multiple" out -- "$G" check seven --type u32
expect_error "reduce size not a multiple" "not a multiple" out -- "$G" reduce seven --type f64 --op sum
expect_error "missing input" "no such file" out -- "$G" sort missing --type u32 -o out
expect_error "missing input, existing output kept" "no such file" other -- "$G" sort missing --type u32 -o other
mkdir adir
expect_error "directory as input" "directory" out -- "$G" sort adir --type u32 -o out
if [ "$(id -u)" -ne 0 ]; then
    cp in unreadable && chmod 000 unreadable
    expect_error "unreadable input" "permission denied" out -- "$G" sort unreadable --type u32 -o out
    rm -f unreadable
fi
expect_error "unknown type" "unknown type" out -- "$G" sort in --type u16 -o out
expect_error "unknown option" "unknown option" out -- "$G" sort in --type u32 --fast -o out
expect_error "unknown backend" "unknown backend" out -- "$G" sort in --type u32 --backend metal -o out
expect_error "unknown algorithm" "unknown algorithm" out -- "$G" sort in --type u32 --algorithm quick -o out
expect_error "missing option value" "needs a value" out -- "$G" sort in -o out --type
expect_error "bad count" "invalid count" out -- "$G" gen --type u32 --n 12x -o out
expect_error "unknown distribution" "unknown distribution" out -- "$G" gen --type u32 --n 10 --dist gauss -o out
expect_error "unknown reduce op" "unknown operation" out -- "$G" reduce in --type u32 --op avg
expect_error "output folder missing" "no such file" nodir/out -- "$G" sort in --type u32 -o nodir/out
expect_error "output is a directory" "directory" adir -- "$G" sort in --type u32 -o adir
expect_error "values count mismatch" "values" vo -- "$G" sort in --type u32 --values other --value-type u32 --values-out vo -o out
expect_error "values without --values-out" "values-out" out -- "$G" sort in --type u32 --values other -o out
expect_error "-o and --values-out the same" "same file" out -- "$G" sort in --type u32 --values in2 --values-out out -o out
expect_error "bad -S" "memory budget" out -- "$G" sort in --type u32 -S 12Q -o out
expect_error "-T folder missing" "temporary" out -- "$G" sort in --type u32 -S 8K -T nodir -o out
# A backend that is not built, or has no device.
for b in cuda opencl; do
    if grep -q "^$b: not built" devices.txt; then
        expect_error "backend $b not built" "not built" out -- "$G" sort in --type u32 --backend $b -o out
    elif grep -q "^$b: built; no device" devices.txt; then
        expect_error "backend $b without a device" "no device" out -- "$G" sort in --type u32 --backend $b -o out
    fi
done
expect_error "device index out of range" "device" out -- "$G" sort in --type u32 --backend cpu --device 7 -o out
# A library error: an algorithm the CPU backend does not offer.
if ! "$G" sort in --type u32 --backend cpu --algorithm rank -o out 2>/dev/null; then
    rm -f out
    expect_error "library error (cpu rank sort)" "" out -- "$G" sort in --type u32 --backend cpu --algorithm rank -o out
fi
rm -f out
# Full disk: /dev/full (written directly, as it is not a regular file).
if [ -c /dev/full ]; then
    expect_error "full disk (/dev/full)" "no space" out -- "$G" sort in --type u32 -o /dev/full
    expect_error "gen to a full disk" "no space" out -- "$G" gen --type u64 --n 100000 -o /dev/full
    expect_error "full stdout" "no space" out -- bash -c "'$G' sort in --type u32 > /dev/full"
else
    echo "note: no /dev/full here: those full-disk tests are skipped"
fi
# Full disk: a small tmpfs (needs root); the old output and the input survive, no temp file.
MNT=$W/tiny
mkdir -p "$MNT"
if mount -t tmpfs -o size=64k tmpfs "$MNT" 2>/dev/null; then
    "$G" gen --type u32 --n 12000 --seed 4 -o "$MNT/small"     # 48000 bytes: a second copy does not fit
    "$G" gen --type u32 --n 100 --seed 5 -o "$MNT/old"
    s_small=$(sum_of "$MNT/small")
    s_old=$(sum_of "$MNT/old")
    expect_error "full tmpfs, new output" "no space" "$MNT/new" -- "$G" sort in --type u32 -o "$MNT/new"
    expect_error "full tmpfs, existing output" "no space" "$MNT/old" -- "$G" sort in --type u32 -o "$MNT/old"
    expect_error "full tmpfs, -o IN" "no space" "$MNT/small" -- "$G" sort "$MNT/small" --type u32 -o "$MNT/small"
    expect_error "full tmpfs as -T" "no space" out -- "$G" sort in --type u32 -S 16K -T "$MNT" -o out

    if [ "$(sum_of "$MNT/small")" = "$s_small" ] && [ "$(sum_of "$MNT/old")" = "$s_old" ] &&
       no_temp "$MNT"; then ok "full tmpfs: files intact, no temp"; else bad "full tmpfs: files intact, no temp"; fi
    umount "$MNT"
    MNT=""
else
    echo "note: cannot mount a tmpfs (not root?): the tmpfs full-disk tests are skipped"
    MNT=""
fi

# Out of memory: limits on the address space, relative to the smallest one gpusort starts in
# (skipped where no limit works, e.g. under AddressSanitizer, which reserves terabytes).
"$G" gen --type u32 --n 4M --seed 6 -o big      # 16 MiB
base=""
for kb in $(seq 4000 4000 400000); do
    if { (ulimit -v $kb; "$G" --version); } >/dev/null 2>&1; then base=$kb; break; fi
done
if [ -n "$base" ]; then
    lim=$((base + 8192))            # less than the file
    expect_error "out of memory (reading)" "out of memory" out -- bash -c "ulimit -v $lim; '$G' sort big --type u32 --backend cpu -o out"
    lim=$((base + 16384 + 8192))    # the file, but not the sort's scratch of the same size
    expect_error "out of memory (sort scratch)" "out of" out -- bash -c "ulimit -v $lim; '$G' sort big --type u32 --backend cpu -o out"
else
    echo "note: gpusort does not start under any address-space limit (ASan build?): the out-of-memory tests are skipped"
fi
rm -f big

# ---- signals: a killed sort leaves no temporary file and no output ----
# The input is a FIFO with no writer yet, so gpusort waits while its temp output exists.
for sig in TERM HUP INT; do
    rm -f fifo
    mkfifo fifo
    set -m    # job control: a background job does not ignore SIGINT
    "$G" sort fifo --type u32 -o sig.out 2>err &
    pid=$!
    set +m
    for _ in $(seq 100); do ls -A | grep -q '\.sig\.out\.gpusort-' && break; sleep 0.05; done
    if ! ls -A | grep -q '\.sig\.out\.gpusort-'; then bad "SIG$sig: no temp file appeared"; kill -9 $pid; wait $pid 2>/dev/null; continue; fi
    kill -$sig $pid
    wait $pid 2>/dev/null
    rc=$?
    if [ $rc -gt 128 ] && [ ! -e sig.out ] && no_temp .; then ok "SIG$sig cleanup"; else bad "SIG$sig cleanup (rc=$rc)"; fi
    rm -f fifo
done

# A killed external sort removes its run files: the input FIFO delivers part of the data and
# then stalls, after runs have been written.
mkdir -p killruns
rm -f fifo
mkfifo fifo
"$G" gen --type u32 --n 20000 --seed 8 -o part
(cat part; exec sleep 10) > fifo &
feeder=$!
"$G" sort fifo --type u32 -S 16K -T killruns -o kill.out 2>err &
pid=$!
for _ in $(seq 100); do [ "$(ls -A killruns | wc -l)" -ge 2 ] && break; sleep 0.05; done
nruns=$(ls -A killruns | wc -l)
kill -TERM $pid
wait $pid 2>/dev/null
rc=$?
kill $feeder 2>/dev/null
wait $feeder 2>/dev/null
if [ "$nruns" -ge 2 ] && [ $rc -gt 128 ] && [ -z "$(ls -A killruns)" ] && [ ! -e kill.out ] && no_temp .; then
    ok "SIGTERM during external sort: runs removed"
else
    bad "SIGTERM during external sort: runs removed (runs seen $nruns, rc=$rc)"
fi
rm -f fifo part

# ---- routing: check without --type is text mode (gpusort -c) ----
printf 'b\na\n' > lines.txt
"$G" check lines.txt >r1 2>e1; rc1=$?
"$G" -c lines.txt >r2 2>e2; rc2=$?
if [ $rc1 -eq $rc2 ] && cmp -s r1 r2 && cmp -s e1 e2; then ok "check FILE routes to text mode"; else bad "check FILE routes to text mode"; fi
rm -f lines.txt r1 r2 e1 e2

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
