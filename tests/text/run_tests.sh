#!/usr/bin/env bash
# run_tests.sh -- differential tests of gpusort's text mode against GNU sort (LC_ALL=C sort).
#
# Usage: tests/text/run_tests.sh PATH/TO/gpusort [SEED]
# Every case runs `gpusort OPTIONS` and `sort OPTIONS` on the same generated input and compares
# stdout byte for byte and the exit code (and, for -c, the message with "sort:" read as
# "gpusort:"). Also: the external path (small -S: many runs, multi-level merges), cleanup of
# temporary files after SIGTERM, unwritable -T, errors (exit 2, one line, no output file), and
# fixed-size records (gen / sort / check) against `sort -s` on the same bytes.
# Inputs are generated with awk from SEED (printed; pass it to replay). Prints "N passed, N failed".
set -u
G=${1:?usage: run_tests.sh PATH/TO/gpusort [SEED]}
SEED=${2:-$(( $(date +%s) % 100000 ))}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
export LC_ALL=C
unset LANG LC_COLLATE
# coreutils 9.2 changed two orders, kept through 9.11 (README, "Known limits"): -g orders two
# NaNs by their printed form ("-nan" < "nan"; 9.1 memcmp'd the long doubles: "nan" < "-nan";
# coreutils commit 2f56f5a42), and -V no longer takes a whole name as its file suffix (".0" <
# ".A"; 9.1: ".A" < ".0"; gnulib commit 1ba2b66ea4). gpusort follows 9.2+; with
# GPUSORT_TEXT_COREUTILS=9.1 it follows 9.1, so against a 9.1 sort the differential cases ask
# for that and still compare every byte. "Fixed expectations" below check the 9.2+ orders
# without the installed sort.
SORT_VERSION=$(sort --version 2> /dev/null | sed -n '1s/.* //p')
if [ "$SORT_VERSION" = 9.1 ]; then export GPUSORT_TEXT_COREUTILS=9.1; else unset GPUSORT_TEXT_COREUTILS; fi
W=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-text-test.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"
echo "text CLI tests: seed $SEED (replay: run_tests.sh $G $SEED), work dir $W, GNU sort ${SORT_VERSION:-?}${GPUSORT_TEXT_COREUTILS:+ (gpusort in its 9.1 mode)}"
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }

# ---- inputs ----
gen() { awk -v seed="$SEED" -v kind="$1" -v n="$2" '
function rnd(k) { return int(rand() * k) }
function word(maxlen,   s, l, i) {
  l = rnd(maxlen + 1); s = ""
  for (i = 0; i < l; i++) s = s substr("abcXYZ019 _-.,", rnd(14) + 1, 1)
  return s }
function num(   r, s, i) {
  r = rnd(20)
  if (r == 0) return ""
  if (r == 1) return "-0"
  if (r == 2) return "  " rnd(100)
  if (r == 3) return "-" rnd(1000) "." rnd(1000)
  if (r == 4) return "." rnd(100)
  if (r == 5) return "-." rnd(100)
  if (r == 6) return "+" rnd(10)
  if (r == 7) return "0000" rnd(50)
  if (r == 8) { s = ""; for (i = 0; i < 25; i++) s = s rnd(10); return s }
  if (r == 9) return "1" "." "0000000000000000000000" rnd(10)
  if (r == 10) return "abc"
  if (r == 11) return rnd(10) "e" rnd(3)
  if (r == 12) return "\t-" rnd(30)
  if (r == 13) return rnd(5) "." rnd(5) "0"
  if (r == 14) return "-" rnd(100000000) rnd(100000000) rnd(10000000)
  return (rnd(2) ? "-" : "") rnd(100000)
}
function gnum(   r) {
  r = rnd(16)
  if (r == 0) return "inf"
  if (r == 1) return "-inf"
  if (r == 2) return "nan"
  if (r == 3) return "-nan"
  if (r == 4) return "0x1p" rnd(8)
  if (r == 5) return "xyz"
  if (r == 6) return rnd(10) "e" (rnd(2) ? "-" : "") rnd(400)
  if (r == 7) return "  " rnd(100) ".5"
  if (r == 8) return "INF"
  if (r == 9) return ""
  if (r == 10) return "-0.0"
  if (r == 11) return "1e4000"
  return (rnd(2) ? "-" : "") rnd(1000) "." rnd(1000)
}
BEGIN {
  srand(seed + length(kind) * 7919)
  for (i = 0; i < n; i++) {
    if (kind == "words") print word(12)
    else if (kind == "nums") print num()
    else if (kind == "gnums") print gnum()
    else if (kind == "fields") {
      printf "%s%s%s\t%s  %s\n", (rnd(4) ? "" : "  "), word(5), (rnd(2) ? " " : "  "), num(), word(4) }
    else if (kind == "csv") printf "%s,%s,%s\n", word(4), num(), (rnd(3) ? word(3) : "")
    else if (kind == "big") printf "%d %s %d\n", rnd(1000000), word(10), rnd(100)
    else if (kind == "ints") {
      r = rnd(10)
      if (r == 0) print "-" rnd(1000000) rnd(1000000) rnd(1000000)     # up to 18 digits
      else if (r == 1) print rnd(1000000) rnd(1000000) rnd(1000000) rnd(10)  # 19 digits
      else if (r == 2) print "  " rnd(100)
      else print (rnd(2) ? "-" : "") rnd(1000000000) }
  } }'; }

gen words 3000 > words
gen nums 3000 > nums
gen gnums 2000 > gnums
gen fields 3000 > fields
gen csv 3000 > csv
gen big 60000 > big
gen ints 20000 > ints
: > empty
printf 'no\ntrailing\nnewline' > nonl
printf 'b\r\na\r\nc\n\r\n' > crlf
printf 'a\0b\nb\0a\na\0a\n\0\n' > nul
printf '\n\n  \n\t\n \t \n' > blanks
printf 'x\ny\n' > two
{ head -c 3000000 /dev/zero | tr '\0' 'x'; echo; echo b; head -c 3000000 /dev/zero | tr '\0' 'x'; echo y; echo a; } > longline
awk -v seed="$SEED" 'BEGIN { srand(seed); for (i = 0; i < 500; i++) printf "%d\n%s%c", int(rand()*100), (rand() < .5 ? "line" : "Line"), 0 }' > zrec

# ---- differential cases: run OPTIONS on FILE(s) with both programs ----
diffcase() {   # diffcase "options" files...
    local opts=$1; shift
    local eo er go gr
    sort $opts "$@" > exp.out 2> exp.err; er=$?
    "$G" $opts "$@" > got.out 2> got.err; gr=$?
    if [ $er -ne $gr ]; then bad "exit $gr, expected $er: gpusort $opts $*"; return; fi
    if ! cmp -s exp.out got.out; then bad "output differs: gpusort $opts $*"; return; fi
    ok
}

for f in words nums fields csv; do
  for o in "" "-r" "-u" "-f" "-fu" "-b" "-d" "-i" "-s" "-n" "-nr" "-nu" "-g" "-rf" "-br" "-dfr"; do
    diffcase "$o" $f
  done
done
for o in "-k2" "-k2,2" "-k2,2n" "-k2n,2" "-k2,2nr" "-k1,1 -k2,2n" "-k3,3 -k1,1r" "-k2.2,2.3" \
         "-k1.2" "-k1.3b,1.5" "-bk2,2" "-k2,2b" "-s -k1,1" "-s -k3,3" "-u -k1,1" "-u -k2,2n" \
         "-k2,2 -r" "-r -k2,2n" "-k2,2g" "-k4,4" "-k1,1f -k2,2" "-k1d,1" "-k3,3n -k1,1 -s" \
         "-k1.1,1.1" "-k2.1b,2.3n" "-k5,5n" "-k1,2" "-nk2" "-k2,2 -n" "-b -k2,2"; do
  diffcase "$o" fields
done
for o in "-t, -k2,2n" "-t, -k1,1" "-t, -k3,3r -k1,1" "-t, -k2n" "-t, -k2,2n -u" "-t, -k1.2,1.3" \
         "-t, -s -k3,3" "-t, -k3" "-t , -k2,2g"; do
  diffcase "$o" csv
done
for o in "-g" "-gr" "-g -s" "-k1,1g" "-gf" "-n"; do diffcase "$o" gnums; done
# GNU 9.1's -g -u compares two NaNs by memcmp of long doubles including their uninitialised
# padding bytes, so which NaN lines it keeps is not reproducible there: -u without NaNs. 9.2+
# compares their printed form, so there -u is compared with NaNs too.
grep -iv nan gnums > gnums.nonan
diffcase "-gu" gnums.nonan
[ "$SORT_VERSION" != 9.1 ] && diffcase "-gu" gnums

# ---- fixed expectations: the -g, -V and -h orders of coreutils 9.2 and later (written here, not
# taken from the installed sort, which may be 9.1) ----
fixcase() {   # fixcase "options" file expected-lines...
    local opts=$1 f=$2; shift 2
    printf '%s\n' "$@" > fix.exp
    env -u GPUSORT_TEXT_COREUTILS "$G" $opts "$f" > fix.out 2> fix.err
    if [ $? -ne 0 ] || ! cmp -s fix.exp fix.out; then
        bad "fixed: gpusort $opts $f: got $(tr '\n' '|' < fix.out), expected $(tr '\n' '|' < fix.exp)"
    else ok; fi
}
# -g (coreutils src/sort.c nan_compare since 2f56f5a42, bug#55212): conversion errors, then
# NaNs by their "%Lf" text ("-nan" < "nan", payloads ignored: "nan(123)" ties with "nan"),
# then numbers; ties go to the last-resort byte comparison (not with -s or -u).
printf '%s\n' nan -nan 1 x NaN -NAN 'nan(123)' -inf '' inf > gnan
fixcase "-g" gnan '' x -NAN -nan NaN nan 'nan(123)' -inf 1 inf
fixcase "-g -s" gnan x '' -nan -NAN nan NaN 'nan(123)' -inf 1 inf
fixcase "-gu" gnan x -nan nan -inf 1 inf
fixcase "-gr" gnan inf 1 -inf 'nan(123)' nan NaN -nan -NAN x ''
fixcase "-k1,1gr -s" gnan inf 1 -inf nan NaN 'nan(123)' -nan -NAN x ''
yes nan | head -n 20000 > manynan     # coreutils tests/misc/sort-NaN-infloop.sh's idea
"$G" -g manynan | cmp -s - manynan && ok || bad "-g on 20000 NaNs"
# -V (gnulib lib/filevercmp.c since 1ba2b66ea4): a file suffix (\.[A-Za-z~][A-Za-z0-9~]*)*$ is
# never the whole name, so ".0" < ".A" (9.1: ".A" < ".0"). The order of gnulib's
# tests/test-filevercmp.c examples (those without control bytes), given shuffled.
printf '%s\n' .zz.0 .A a.bc~ .9 . .a zz.0.txt a.b~ .zz~ '' .Z .. .b~ a~ .zz.~1~ b~ .a~ 9 .0 \
  a.b .zz z 0 zz~ .b .z A a.+ zz a a. a..a Z a.bc a+ zz.~1~ zz.0 b '#.b#' > vsuf
fixcase "-V" vsuf '' . .. .0 .9 .A .Z .a~ .a .b~ .b .z .zz~ .zz .zz.~1~ .zz.0 0 9 A Z a~ a \
  a.b~ a.b a.bc~ a.bc a+ a. a..a a.+ b~ b z zz~ zz zz.~1~ zz.0 zz.0.txt '#.b#'
printf '%s\n' .A .x0 .0 .tar.gz .a.b '~' .5 > vsuf2
fixcase "-V" vsuf2 .0 .5 .A .a.b .tar.gz .x0 '~'
fixcase "-Vr" vsuf2 '~' .x0 .tar.gz .a.b .A .5 .0
printf '%s\n' 'k .A' 'k .0' 'j .Z' > vsuf3
fixcase "-k2bV,2" vsuf3 'k .0' 'k .A' 'j .Z'
# -h (coreutils 9.2 NEWS: the SI prefixes R and Q of 2022, src/sort.c unit_order): R is 10^27,
# Q 10^30, above Y; in 9.1 they are no unit (the differential case checks the installed one).
printf '%s\n' 1Q 1R 1Y 2K 1 -1Q -1R 0Q 1.5R > hrq
fixcase "-h" hrq -1Q -1R 0Q 1 2K 1Y 1R 1.5R 1Q
fixcase "-hr" hrq 1Q 1.5R 1R 1Y 2K 1 0Q -1R -1Q
diffcase "-h" hrq
for f in empty nonl crlf nul blanks two longline; do
  for o in "" "-r" "-n" "-u" "-b" "-f" "-k1,1" "-s -k1,1" "-g"; do diffcase "$o" $f; done
done
diffcase "" words nums fields
sort -n nums - < nums > exp.out; "$G" -n nums - < nums > got.out
cmp -s exp.out got.out && ok || bad "-n nums - (stdin)"
diffcase "-u" words words
diffcase "-z" zrec
diffcase "-zr" zrec
diffcase "-z -k1,1n" zrec
diffcase "-zu -f" zrec
diffcase "-z -n" zrec
diffcase "-z -b -k1,1" zrec
diffcase "-t \\0 -k1,1" nul
# GNU's obsolete +POS1 [-POS2] keys (0-based), still accepted by GNU sort 9
for o in "+1" "+0 -1" "+1 -2" "+2n" "+1n -2 -r" "+0.1 -0.3" "+1 -1.2" "+1b -2b" "-s +2 -3 +0 -1"; do
  diffcase "$o" fields
done
diffcase "--parallel=1" words
diffcase "-n --parallel 2" nums
diffcase "--numeric-sort --reverse" nums
diffcase "--key=2,2 --field-separator=," csv
diffcase "--ignore-case --unique" words
diffcase "-n" big
for o in "-n" "-nr" "-nu" "-nru" "-n -s" "-k1,1n -r"; do diffcase "$o" ints; done
diffcase "-k2,2 -k1,1n" big
diffcase "" big
# --backend auto with its cost model overruled (GPUSORT_TEXT_AUTO=gpu, text_sort.c): a GPU
# context when there is one (there the GPU sorts, the rest is the same), else the CPU again
for o in "" "-n" "-k2,2 -k1,1n"; do GPUSORT_TEXT_AUTO=gpu diffcase "$o" big; done

# ---- random combinations of options and keys (bash RANDOM seeded with SEED) ----
RANDOM=$SEED
awk -v seed="$SEED" 'BEGIN { srand(seed); for (i = 0; i < 300; i++) { n = int(rand() * 5); l = ""
  for (f = 0; f < n; f++) { r = int(rand() * 6)
    if (r == 0) w = int(rand() * 100) - 50; else if (r == 1) w = rand() * 10 - 5; else if (r == 2) w = ""
    else { w = ""; m = int(rand() * 4); for (j = 0; j < m; j++) w = w substr("aAbB. -_\t,x9", int(rand() * 12) + 1, 1) }
    l = l (f ? (rand() < .3 ? "  " : (rand() < .5 ? "," : " ")) : (rand() < .2 ? " " : "")) w }
  print l } }' > mixed
mods=(n g r b f d i h V M R "" "" "" "")
for t in $(seq 150); do
  o=""
  for g in b d f g i n r s u h V M R; do [ $((RANDOM % 8)) -eq 0 ] && o="$o -$g"; done
  o="$o --random-source=randsrc"
  [ $((RANDOM % 3)) -eq 0 ] && o="$o -t,"
  for k in $(seq $((RANDOM % 3))); do
    s=$((RANDOM % 3 + 1)); e=$((s + RANDOM % 2)); spec="$s"
    [ $((RANDOM % 3)) -eq 0 ] && spec="$s.$((RANDOM % 3 + 1))"
    spec="$spec${mods[$((RANDOM % 15))]}"
    [ $((RANDOM % 2)) -eq 0 ] && spec="$spec,$e" && [ $((RANDOM % 3)) -eq 0 ] && spec="$spec.$((RANDOM % 3))"
    o="$o -k$spec${mods[$((RANDOM % 15))]}"
  done
  diffcase "$o" mixed
done

# ---- -h, -V, -M, -R in the C locale (tests/text/locale_tests.sh runs them in other locales) ----
head -c 64 /dev/zero | tr '\0' 'r' > randsrc
for o in "-h" "-V" "-M" "-R --random-source=randsrc" "-k2,2h" "-k2,2V -k1,1" "-k1,1M -r" \
         "--sort=human-numeric" "--sort=month -s" "--sort=ran --random-source=randsrc" \
         "-Ru --random-source=randsrc" "-hu" "-Vu" "-Mu" "-h -t, -k2,2"; do
  diffcase "$o" fields
  diffcase "$o" nums
done

# ---- -m over sorted parts ----
for o in "" "-n" "-r" "-u" "-k2,2n -t," "-f"; do
  split -n l/3 csv part.
  for p in part.*; do sort $o "$p" > "$p.s"; done
  diffcase "-m $o" part.aa.s part.ab.s part.ac.s
  rm -f part.*
done
split -n l/5 words wpart.
for p in wpart.*; do sort "$p" > "$p.s"; done
diffcase "-m --batch-size=2" wpart.aa.s wpart.ab.s wpart.ac.s wpart.ad.s wpart.ae.s
diffcase "-mu --batch-size=3" wpart.aa.s wpart.ab.s wpart.ac.s wpart.ad.s wpart.ae.s
rm -f wpart.*
diffcase "-m" words empty
diffcase "-m" nonl two

# ---- -c / -C ----
checkcase() {   # checkcase "options" file
    local er gr
    sort $1 "$2" > /dev/null 2> exp.err; er=$?
    "$G" $1 "$2" > /dev/null 2> got.err; gr=$?
    sed 's/^sort:/gpusort:/' exp.err > exp2.err
    if [ $er -ne $gr ] || ! cmp -s exp2.err got.err; then
        bad "check differs ($gr vs $er): gpusort $1 $2: $(head -c 200 got.err) / $(head -c 200 exp2.err)"
    else ok; fi
}
sort -n nums > nums.sorted
sort -u words > words.usorted
for o in "-c" "-C" "-cn" "-Cn" "-cu" "-c -k2,2n" "--check=quiet" "--check" "-c -r"; do
  checkcase "$o" nums; checkcase "$o" nums.sorted; checkcase "$o" words.usorted; checkcase "$o" empty
done
printf 'a\na\n' > dup; checkcase "-cu" dup; checkcase "-c" dup
tr '\n' '\0' < words.usorted > zsorted
checkcase "-cz" zsorted; checkcase "-cz" zrec; checkcase "-Cz" zrec
"$G" -c nums.sorted words > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "-c with two files should exit 2"
"$G" check nums.sorted -n > /dev/null 2>&1 ; [ $? -eq 0 ] && ok || bad "gpusort check FILE -n (sorted) should exit 0"

# ---- -o, including an input ----
cp words w2; "$G" -o w2 w2; sort words > w2.exp; cmp -s w2 w2.exp && ok || bad "-o onto the input"
cp nums n2; "$G" -n n2 -o n2 -m; sort -n -m nums -o n2.exp; cmp -s n2 n2.exp && ok || bad "-m -o onto the input"

# ---- errors: exit 2, one line on stderr, no output file ----
errcase() {   # errcase "description" command...
    local d=$1; shift
    rm -f err.out
    "$@" > /dev/null 2> err.txt; local rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l < err.txt)" -ne 1 ] || [ -e err.out ]; then
        bad "$d: exit $rc, stderr: $(head -c 300 err.txt)"
    else ok; fi
}
errcase "-k0" "$G" -k0 words -o err.out
errcase "-k1.0" "$G" -k1.0 words -o err.out
errcase "-k1,x" "$G" -k1,x words -o err.out
errcase "-kx" "$G" -kx words -o err.out
errcase "-t ab" "$G" -t ab words -o err.out
errcase "-t a -t b" "$G" -t a -t b words -o err.out
errcase "-S x" "$G" -S x words -o err.out
errcase "--parallel=0" "$G" --parallel=0 words -o err.out
errcase "-hn" "$G" -hn words -o err.out
errcase "-k1,1MV" "$G" -k1,1MV words -o err.out
errcase "--sort=bogus" "$G" --sort=bogus words -o err.out
errcase "--bogus" "$G" --bogus words -o err.out
errcase "missing file" "$G" words no-such-file -o err.out
errcase "directory" "$G" . -o err.out
errcase "-nd" "$G" -nd words -o err.out
errcase "-ng" "$G" -ng words -o err.out
errcase "-co" "$G" -c words -o err.out
errcase "full disk" "$G" words -o /dev/full
errcase "unwritable -T" "$G" -S 64K -T /nonexistent/dir big -o err.out

# ---- external sort: small -S forces many runs and multi-level merges ----
mkdir -p tmpd
extcase() {   # extcase "options" file
    sort $1 "$2" > exp.out
    "$G" $1 -S 200K -T tmpd --batch-size=3 "$2" > got.out 2> got.err; local rc=$?
    if [ $rc -ne 0 ] || ! cmp -s exp.out got.out; then bad "external: gpusort $1 -S 200K $2 (rc $rc) $(head -c 200 got.err)"
    elif [ -n "$(ls -A tmpd)" ]; then bad "external: temporary files left: $(ls tmpd | head -3)"
    else ok; fi
}
for o in "" "-n" "-r" "-u" "-k2,2 -k1,1n" "-s -k3,3n" "-nu -k3,3"; do extcase "$o" big; done
cat big big > big2
extcase "-u" big2
extcase "" longline
extcase "-r" longline
cat big | "$G" -S 100K -T tmpd > got.out && sort big | cmp -s - got.out && ok || bad "external from a pipe"
[ -z "$(ls -A tmpd)" ] && ok || bad "pipe: temporary files left"

for i in 1 2 3 4 5 6 7 8; do cat big; done > big8
# ---- a write error on the temporary files (file size limit: EFBIG, like a full disk) ----
( trap '' XFSZ; ulimit -f 400; exec "$G" -S 100K -T tmpd big8 -o efbig.out ) > /dev/null 2> err.txt
rc=$?
if [ $rc -ne 2 ] || [ "$(wc -l < err.txt)" -ne 1 ]; then bad "EFBIG: exit $rc: $(head -c 300 err.txt)"
elif [ -n "$(ls -A tmpd)" ] || [ -e efbig.out ] || ls -A | grep -q '^\.efbig'; then bad "EFBIG: files left"
else ok; fi

# ---- SIGTERM mid-run: temporary files and the output temp file are removed ----
# Wait until run files exist (the sort is mid-way), then kill.
"$G" -S 64K -T tmpd --batch-size=2 big8 -o killed.out 2> /dev/null &
pid=$!
for i in $(seq 500); do [ -n "$(ls -A tmpd)" ] && break; sleep 0.01; done
kill -TERM $pid 2> /dev/null
wait $pid 2> /dev/null
rc=$?
if [ $rc -eq 0 ]; then bad "SIGTERM: the sort finished before it could be killed (make big8 larger)"
elif [ $rc -ne 143 ]; then bad "SIGTERM: exit status $rc, expected 143 (killed by SIGTERM)"
elif [ -n "$(ls -A tmpd)" ]; then bad "SIGTERM: temporary files left: $(ls -A tmpd | head -3)"
elif ls -A | grep -q '^\.killed\.out\.gpusort'; then bad "SIGTERM: output temp file left"
elif [ -e killed.out ]; then bad "SIGTERM: partial output created"
else ok; fi
# The same with SIGINT (job control on: a background job of a script otherwise starts with
# SIGINT ignored, and gpusort, like POSIX utilities, keeps an ignored SIGINT ignored).
set -m
"$G" -S 64K -T tmpd --batch-size=2 big8 -o killed.out 2> /dev/null &
pid=$!
set +m
for i in $(seq 500); do [ -n "$(ls -A tmpd)" ] && break; sleep 0.01; done
kill -INT $pid 2> /dev/null
wait $pid 2> /dev/null
rc=$?
if [ $rc -ne 130 ] || [ -n "$(ls -A tmpd)" ] || [ -e killed.out ]; then
  bad "SIGINT: exit $rc, left: $(ls -A tmpd | head -3) $(ls killed.out 2> /dev/null)"
else ok; fi

# ---- records ----
"$G" gen --record-size 100 --n 20000 --ascii --seed "$SEED" -o rec && ok || bad "gen records"
[ "$(stat -c %s rec)" -eq 2000000 ] && ok || bad "gen: wrong size"
"$G" check --record-size 100 --key-size 10 rec > /dev/null 2>&1; [ $? -eq 1 ] && ok || bad "check of random records should be 1"
for s in "" "-S 300K -T tmpd"; do
  "$G" --record-size 100 --key-size 10 $s rec -o rec.sorted && ok || bad "record sort $s"
  sort -s -t $'\a' -k1.1,1.10 rec | cmp -s - rec.sorted && ok || bad "record sort $s differs from sort -s -k1.1,1.10"
  "$G" check --record-size 100 --key-size 10 rec.sorted; [ $? -eq 0 ] && ok || bad "check of sorted records"
  "$G" --record-size 100 --key-size 4 --key-offset 3 -r $s rec -o rec.r && ok || bad "record sort -r $s"
  sort -s -r -t $'\a' -k1.4,1.7 rec | cmp -s - rec.r && ok || bad "record sort -r offset 3 $s differs"
done
[ -z "$(ls -A tmpd)" ] && ok || bad "records: temporary files left"
head -c 1050 rec > rec.bad
errcase "record size mismatch" "$G" --record-size 100 --key-size 10 rec.bad -o err.out

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
