#!/usr/bin/env bash
# locale_tests.sh -- differential tests of gpusort's text mode in the user's locale, and of -h,
# -V, -M and -R, against the system's GNU sort in the same locale.
#
# Usage: tests/text/locale_tests.sh PATH/TO/gpusort [SEED]
# For each locale of LOCALES (default: C, C.UTF-8, en_US.UTF-8, de_DE.UTF-8, sv_SE.UTF-8,
# tr_TR.UTF-8, fr_FR.UTF-8, cs_CZ.UTF-8 and sv_SE, the ISO-8859-1 one whose thousands separator is a
# blank) that is installed (scripts/setup.sh generates them), every case runs
# `gpusort OPTIONS` and `sort OPTIONS` with LC_ALL set to it on the same generated input and
# compares stdout byte for byte and the exit code. A locale that is not installed is skipped
# with a line that says so; when none but C is there the script exits 77 (skipped).
# Inputs (awk, from SEED: printed; pass it to replay): lines of UTF-8 words with mixed case,
# accents, ligatures, dotted and dotless i, contractions (cs_CZ's "ch"; "l" + U+00B7 and
# Cyrillic I + breve, in every iso14651_t1 locale), punctuation, digits, blanks, invalid UTF-8 bytes and
# empty lines; numbers in the locale's own format (decimal comma, thousands separators); -h
# sizes, -V versions and -M month names (the locale's, `locale abmon`), with the cases of GNU's
# own tests (coreutils tests/sort/sort.pl h1-h10, sort-version.sh, sort-month.sh,
# sort-h-thousands-sep.sh: their inputs, checked against the sort on this machine).
# --debug: the marks on standard output and the notes on standard error (name prefix aside).
# Also: a locale that does not exist (GNU falls back to C silently, exit 0), the external path
# (small -S: runs merged with strcoll), -m, -c, -R with --random-source, errors.
set -u
G=${1:?usage: locale_tests.sh PATH/TO/gpusort [SEED]}
SEED=${2:-$(( $(date +%s) % 100000 ))}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
unset LANG LANGUAGE LC_COLLATE LC_CTYPE LC_NUMERIC LC_TIME LC_MESSAGES
# gpusort orders -V, -g's NaNs and -h's units as coreutils 9.2+ do; against a 9.1 sort it is
# asked for 9.1's orders (GPUSORT_TEXT_COREUTILS=9.1: tests/text/run_tests.sh says what differs).
SORT_VERSION=$(LC_ALL=C sort --version 2> /dev/null | sed -n '1s/.* //p')
if [ "$SORT_VERSION" = 9.1 ]; then export GPUSORT_TEXT_COREUTILS=9.1; else unset GPUSORT_TEXT_COREUTILS; fi
W=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-locale-test.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"
echo "locale tests: seed $SEED (replay: locale_tests.sh $G $SEED), work dir $W, GNU sort ${SORT_VERSION:-?}${GPUSORT_TEXT_COREUTILS:+ (gpusort in its 9.1 mode)}"
PASS=0
FAIL=0
SKIP=0
ok() { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }

# A locale is installed when `locale -a` lists it (names normalised: en_US.utf8).
installed() {
  local want
  want=$(printf '%s' "$1" | sed 's/UTF-8$/utf8/')
  [ "$1" = C ] && return 0
  locale -a 2> /dev/null | grep -qx -e "$1" -e "$want"
}

# ---- inputs (LC_ALL=C awk: bytes stay bytes) ----
export LC_ALL=C
gen() { awk -v seed="$SEED" -v kind="$1" -v n="$2" '
function rnd(k) { return int(rand() * k) }
BEGIN {
  srand(seed + length(kind) * 7919)
  # words: accents (NFC), upper/lower, ligatures, Turkish i, Scandinavian letters, emoji,
  # punctuation, digits; invalid UTF-8 (lone continuation, truncated sequence, 0xff)
  nw = split("a|A|b|B|z|Z|e|E|\303\251clair|\303\211clair|eclair|Eclair|\303\244rger|\303\204rger|" \
    "arger|Zurich|Z\303\274rich|zurich|\303\245ngstr\303\266m|\303\205ngstr\303\266m|angstrom|" \
    "\303\270re|\303\230re|ore|\304\261sparta|Isparta|\304\260stanbul|istanbul|Istanbul|" \
    "stra\303\237e|strasse|Stra\303\237e|STRASSE|co-op|coop|co op|Co-Op|na\303\257ve|naive|" \
    "r\303\251sum\303\251|resume|R\303\251sum\303\251|\305\223uvre|oeuvre|\303\274ber|uber|" \
    "vw|w|v|y|\303\274|u|\303\246ble|\303\206ble|aeble|\303\261|n|ch|cz|\360\237\230\200|" \
    "-|_|.|,|;|!|?|(x)|[y]|#1|~tilde|10|9|010|1,000|1.000|1,5|1.5|-2,5|x\200y|\377|\303|" \
    "caf\303\251|cafe|CAFE|Caf\303\251|\342\202\254|$|&|\t|l\303\266we|lowe|loewe|" \
    "i\314\207|\304\261i|II|\304\260I|" \
    "chata|Chata|CHATA|cHata|hrad|hlava|cizi|c\302\267h|l\302\267l|L\302\267la|lla|l|" \
    "\320\230\314\206|\320\231|\320\270\314\206x|\320\270x", w, "|")
  for (i = 0; i < n; i++) {
    if (kind == "text") {
      r = rnd(20)
      if (r == 0) { print ""; continue }
      m = 1 + rnd(3); l = (rnd(6) ? "" : " ")
      for (j = 0; j < m; j++) l = l (j ? (rnd(4) ? " " : (rnd(2) ? "  " : "\t")) : "") w[1 + rnd(nw)]
      print l
    } else if (kind == "fields") {
      printf "%s,%s,%s %s\n", w[1 + rnd(nw)], w[1 + rnd(nw)], rnd(2000) - 1000, w[1 + rnd(nw)]
    } else if (kind == "nums") {
      r = rnd(14)
      if (r == 0) print rnd(10) "," rnd(1000)
      else if (r == 1) print rnd(10) "." rnd(1000)
      else if (r == 2) print rnd(100) "," sprintf("%03d", rnd(1000)) "," sprintf("%03d", rnd(1000))
      else if (r == 3) print rnd(100) "." sprintf("%03d", rnd(1000)) "." sprintf("%03d", rnd(1000))
      else if (r == 4) print "-" rnd(100) "," rnd(100)
      else if (r == 5) print "-" rnd(10) "." rnd(10)
      else if (r == 6) print "  " rnd(1000)
      else if (r == 7) print "," rnd(10)
      else if (r == 8) print rnd(10) ",," rnd(10)
      else if (r == 9) print rnd(10) "e" rnd(3)
      else if (r == 10) print w[1 + rnd(nw)]
      else if (r == 11) print rnd(1000) " " rnd(1000)
      else print (rnd(2) ? "-" : "") rnd(100000)
    } else if (kind == "human") {
      r = rnd(12)
      split("K k M G T P E Z Y Ki Mi GiB X", u, " ")
      if (r == 0) print rnd(10) "." rnd(10) u[1 + rnd(13)]
      else if (r == 1) print "-" rnd(1000) u[1 + rnd(13)]
      else if (r == 2) print "0" u[1 + rnd(13)]
      else if (r == 3) print rnd(10) "," rnd(1000) u[1 + rnd(13)]
      else if (r == 4) print rnd(10) ".." rnd(10) u[1 + rnd(13)]
      else if (r == 5) print "  " rnd(100) u[1 + rnd(13)]
      else if (r == 6) print u[1 + rnd(13)]
      else if (r == 7) print rnd(10) "." u[1 + rnd(13)]
      else if (r == 8) print rnd(5) " " u[1 + rnd(13)]
      else print rnd(100000) (rnd(3) ? u[1 + rnd(13)] : "")
    } else if (kind == "wide") {
      # CJK ideographs U+4E00..U+51FF (E4 B8 80 ..): more than 256 distinct first-level
      # weights, so the collation keys stay uncompressed (text_coll_code_init says no)
      m = 1 + rnd(4); l = ""
      for (j = 0; j < m; j++) { c = rnd(1024); l = l sprintf("%c%c%c", 228 + int(c / 4096), 184 + int(c / 64) % 4, 128 + c % 64) }
      print l (rnd(3) ? "" : " " w[1 + rnd(nw)])
    } else if (kind == "vtiny") {
      # short strings over the bytes verrevcmp treats differently (tilde, end, digits, zeros,
      # letters, others, dot suffixes): the -V projection edge cases
      m = rnd(7); l = ""
      for (j = 0; j < m; j++) l = l substr("00a~.1-Zz9.~0b", 1 + rnd(14), 1)
      print l
    } else if (kind == "dups") {
      # few distinct lines, many copies: long tie runs mixing identical lines with lines that
      # are equal only under the options (case, accents, -d punctuation, -n zeros, -V zeros);
      # text_sort.c groups identical lines before its full comparisons
      nd = split("abc|ABC|Abc|abC|ab\303\247|a-bc|ab c|x1|x01|1|01|1.0|a0.b|a.b|b 2|B 2", dd, "|")
      print dd[1 + rnd(rnd(2) ? 4 : nd)] (rnd(4) ? "" : " " rnd(3))
    } else if (kind == "versions") {
      split("a b rc alpha beta ~ ~rc - _ . .tar.gz .deb .fc9 .tar .rpm ~~ .a1 +", s, " ")
      r = rnd(10)
      if (r == 0) { print (rnd(2) ? "." : "..") (rnd(2) ? "x" rnd(10) : ""); continue }
      if (r == 1) { print ""; continue }
      l = (rnd(3) ? "pkg" : "Pkg") (rnd(2) ? "-" : "")
      m = 1 + rnd(4)
      for (j = 0; j < m; j++) l = l (rnd(4) ? "" : "0") rnd(30) (rnd(2) ? "." : s[1 + rnd(18)])
      print l (rnd(2) ? s[1 + rnd(18)] : "")
    }
  } }'; }

gen text 3000 > text
gen fields 2000 > fields
gen nums 2000 > nums
gen human 2000 > human
gen versions 2000 > versions
gen wide 3000 > wide
gen vtiny 4000 > vtiny
gen dups 3000 > dups
# -V names whose prefixes tie while one ends in a zero digit run and the other in a non-digit
# (rule 3 of text_version.c's projection: ".0.Z" < "..~" though ".Z" > ".~"), and names that
# are all suffix (".a"), which coreutils 9.2+ order otherwise than 9.1 (".0" < ".A" there)
printf '%s\n' .0.Z ..~ .0 . .00.a x0.a x.a x0 x x00.b~ x.~a a0.b a.b a0 a a0~ a~ \
  a0.~ a.~ b01.c b1.c b1 b.c b .a .A .x0 .a.b .tar.gz .~ .a~ .9 > vsuffix
: > empty
printf 'a\0b\nb\0a\na\0a\n\0\n\303\251\0x\n' > nul
head -c 64 /dev/zero | tr '\0' 'x' > randsrc
# GNU's own cases (coreutils tests/sort: their inputs)
printf '1Q\n1R\n1Y\n1Z\n1E\n1P\n1T\n1G\n1M\n1K\n02\n1\nY\n-1k\n-1M\n-1G\n-1T\n-1P\n-1E\n-1Z\n-1Y\n-1Q\n-1R\n' > gnu_h1
printf '1M\n-2G\n-3K\na 1G\nb 1023M\n1.E\n2.M\n1..2E\n2..2M\n1GiB\n1030MiB\n1 1E\n2 2M\n1M 1Mi\n2M 1Mi\n' > gnu_h2
printf '%s\n' gcc-c++-10.fc9.tar.gz gcc-c++-10.8.12-0.7rc2.fc9.tar.bz2 \
  glibc-2-0.1.beta1.fc10.rpm glibc-common-5-0.2.beta2.fc9.ebuild glibc-common-5-0.2b.deb \
  glibc-common-11b.ebuild glibc-common-11-0.6rc2.ebuild libstdc++-0.5.8.11-0.7rc2.fc10.tar.gz \
  libstdc++-4a.fc8.tar.gz libstdc++-4.10.4.20040204svn.rpm libstdc++-devel-3.fc8.ebuild \
  libstdc++-devel-3a.fc9.tar.gz libstdc++-devel-8.fc8.deb libstdc++-devel-8.6.2-0.4b.fc8 \
  nss_ldap-1-0.2b.fc9.tar.bz2 nss_ldap-1-0.6rc2.fc8.tar.gz nss_ldap-1.0-0.1a.tar.gz \
  nss_ldap-10beta1.fc8.tar.gz nss_ldap-10.11.8.6.20040204cvs.fc10.ebuild \
  "string start 5.0.0 end of str" "string start 5.10.0 end of str" \
  "string start 5.2.0 end of str" "string start 5.04.0 end of str" \
  a a. a+ a+. a~ a~~ a.b a.b~ .a .. . "" 1.2.3 1.2.3~rc1 1.2.3a 1.02.3 1.2.03 a1b2 a01b2 \
  "a.tar.gz" "a.tar" "a-1.tar.gz" "a-1.0.tar.gz" "~" "~~a" "b~" "#!" "a%" "0" "00" > gnu_v

# ---- differential cases ----
diffcase() {   # diffcase LOCALE "options" files...
    local loc=$1 opts=$2; shift 2
    local er gr
    LC_ALL=$loc sort $opts "$@" > exp.out 2> exp.err; er=$?
    LC_ALL=$loc "$G" $opts "$@" > got.out 2> got.err; gr=$?
    if [ $er -ne $gr ]; then bad "[$loc] exit $gr, expected $er: gpusort $opts $* ($(head -c 200 got.err))"; return; fi
    if ! cmp -s exp.out got.out; then bad "[$loc] output differs: gpusort $opts $*"; return; fi
    ok
}

LOCALES=${LOCALES:-"C C.UTF-8 en_US.UTF-8 de_DE.UTF-8 sv_SE.UTF-8 tr_TR.UTF-8 fr_FR.UTF-8 cs_CZ.UTF-8 sv_SE"}
ran=0
for loc in $LOCALES; do
  if ! installed "$loc"; then
    echo "SKIP locale $loc: not installed (scripts/setup.sh generates it)"
    SKIP=$((SKIP + 1))
    continue
  fi
  [ "$loc" != C ] && [ "$loc" != C.UTF-8 ] && ran=$((ran + 1))
  # the locale's month names, shuffled, with case changes, leading blanks and junk
  LC_ALL=$loc locale abmon 2> /dev/null | tr ';' '\n' > "abmon"
  awk -v seed="$SEED" 'BEGIN { srand(seed) } { m[NR] = $0 } END {
      for (i = 0; i < 600; i++) { x = m[1 + int(rand() * NR)]; r = int(rand() * 6)
        if (r == 0) x = "  " x; else if (r == 1) x = toupper(x) " " i; else if (r == 2) x = tolower(x) "x"
        else if (r == 3) x = substr(x, 1, 2); else if (r == 4) x = "Jan"
        print x } }' abmon > months
  for o in "" "-r" "-u" "-ru" "-s" "-f" "-fu" "-fr" "-d" "-df" "-i" "-if" "-b" "-bf" "-n" "-nr" \
           "-nu" "-g" "-h" "-V" "-Vf" "-M" "-Mr" "-Mu" "-R --random-source=randsrc" \
           "-Rf --random-source=randsrc" "-Ru --random-source=randsrc" "-c" "-C" "-cu" \
           "-k2" "-k2,2" "-k2,2f" "-k2,2 -s" "-k2,2 -u" "-k2,2r -k1,1" "-k1,1d -k2,2f" \
           "-k1.2,1.4" "-bk2,2" "-k2,2V" "-k2,2R --random-source=randsrc" "-k2,2M" "-z"; do
    diffcase "$loc" "$o" text
  done
  for o in "-t, -k2,2" "-t, -k2,2f" "-t, -k1,1 -k2,2r" "-t, -k3,3n" "-t, -k3,3g" "-t, -k3,3h" \
           "-t, -k2,2 -s" "-t, -k2,2 -u" "-t, -k2,2d -k1,1" "-t, -k3n -k1,1f" "-t, -k2b,2"; do
    diffcase "$loc" "$o" fields
  done
  for o in "" "-r" "-u" "-f" "-k2,2" "-s -k1,1"; do diffcase "$loc" "$o" wide; done
  for o in "-n" "-nr" "-nu" "-ns" "-g" "-gu" "-h" "-hr" "-k1,1n" "-n -k1.2" "-c -n"; do
    diffcase "$loc" "$o" nums
  done
  for o in "-h" "-hr" "-hu" "-hs" "-k1,1h" "-h -k2,2" "-n"; do diffcase "$loc" "$o" human; done
  for o in "-h" "-hs" "-k2,2h -k1,1" "-h -k1,1 -k2,2" "-n -k2,2h"; do diffcase "$loc" "$o" gnu_h1 gnu_h2; done
  for o in "-V" "-Vr" "-Vu" "-Vs" "-Vf" "-Vd" "-k1,1V" "--sort=version"; do
    diffcase "$loc" "$o" versions gnu_v
  done
  for o in "-V" "-Vr" "-Vs" "-Vu" "-k1,1V -k1,1r"; do diffcase "$loc" "$o" vtiny vsuffix; done
  for o in "" "-f" "-u" "-fu" "-fs" "-s -k1,1f" "-k2,2 -s" "-r" "-d" "-n" "-V" "-Vu"; do
    diffcase "$loc" "$o" dups
  done
  for o in "-M" "-Mr" "-Mu" "-Ms" "-k1,1M -k2,2n" "--sort=month" "-bM"; do diffcase "$loc" "$o" months; done
  for o in "" "-u" "-f" "-n" "-k1,1" "-R --random-source=randsrc" "-V" "-M" "-h"; do
    diffcase "$loc" "$o" nul
    diffcase "$loc" "$o" empty
  done
  # first-level keys from the per-character weight table (tools/text_weights.c): with the
  # table off (strxfrm for every key) and with one weight spoiled (the check against strxfrm
  # must turn the table off and build the keys again), the output stays GNU's
  for w in 0 corrupt; do
    for o in "" "-f" "-u" "-k2,2"; do
      LC_ALL=$loc sort $o text wide > exp.out
      GPUSORT_TEXT_WEIGHTS=$w LC_ALL=$loc "$G" $o text wide > got.out 2> got.err
      cmp -s exp.out got.out && ok || bad "[$loc] GPUSORT_TEXT_WEIGHTS=$w gpusort $o ($(head -c 200 got.err))"
    done
  done
  # --debug: the marks under each key (display columns of the locale: wide and combining
  # characters, tabs, invalid bytes), on every path that writes to standard output
  for o in "" "-k2" "-k2,2n" "-k1b" "-b -k2" "-n" "-h" "-M" "-g" "-V" "-f" "-u" "-s -k2,2" \
           "-r -k2,2" "-t, -k2,2" "-t, -k3,3n -k1,1" "+1 -2" "-z"; do
    diffcase "$loc" "--debug $o" text
  done
  for o in "-n" "-h" "-g" "-k1,1n -k2" "-hs"; do diffcase "$loc" "--debug $o" nums human; done
  for o in "-M" "-k1,1M -k2,2n"; do diffcase "$loc" "--debug $o" months; done
  diffcase "$loc" "--debug -V" versions
  LC_ALL=$loc sort --debug -k2,2 text fields > exp.out 2> /dev/null
  LC_ALL=$loc "$G" --debug -k2,2 -S 40K --batch-size=3 text fields > got.out 2> got.err
  cmp -s exp.out got.out && ok || bad "[$loc] external: gpusort --debug -k2,2 -S 40K"
  # --debug's notes on standard error: GNU's words (in the locale's language), after the
  # program's name
  for o in "-k2 -n" "+1 -2 -r" "-t, -k2n -f" "-k2,1" "-k1.2b,1.3n" "-s -r -k1" "-u -r -k2,2" \
           "-t. -k1,2g" "-t- -k1,2n" "-t+ -k1,2g" "-b -d -k2" "-k2,2h -k1,1M" "-g -k1.3,1.2"; do
    LC_ALL=$loc sort --debug $o text 2>&1 > /dev/null | sed 's/^sort: //' > exp.err
    LC_ALL=$loc "$G" --debug $o text 2>&1 > /dev/null | sed 's/^gpusort: //' > got.err
    cmp -s exp.err got.err && ok || bad "[$loc] gpusort --debug $o: notes differ ($(diff exp.err got.err | head -c 200))"
  done
  LC_ALL=$loc sort -k2,2 text > exp.out
  LC_ALL=$loc "$G" --debug -k2,2 -o got.out text 2> got.err
  cmp -s exp.out got.out && ok || bad "[$loc] gpusort --debug -o: the file has no marks"
  # the external path: runs written under -S and merged with the locale's comparison
  for o in "" "-f" "-u" "-k2,2 -t, -s" "-n"; do
    LC_ALL=$loc sort $o text fields nums > exp.out
    LC_ALL=$loc "$G" $o -S 40K --batch-size=3 text fields nums > got.out 2> got.err
    cmp -s exp.out got.out && ok || bad "[$loc] external: gpusort $o -S 40K ($(head -c 200 got.err))"
  done
  # -m of sorted parts
  for o in "" "-f" "-u" "-V" "-h"; do
    for f in text versions; do LC_ALL=$loc sort $o $f > $f.s; done
    diffcase "$loc" "-m $o" text.s versions.s
    diffcase "$loc" "--debug -m $o" text.s versions.s
  done
done

# A locale that does not exist: GNU sort falls back to C silently (exit 0).
for o in "" "-f" "-n" "-M"; do
  for v in LC_ALL LANG LC_COLLATE; do
    sort $o text > exp.out 2> exp.err; er=$?    # LC_ALL=C here
    env -u LC_ALL $v=xx_YY.UTF-8 "$G" $o text > got.out 2> got.err; gr=$?
    if [ $gr -ne $er ] || ! cmp -s exp.out got.out || [ -s got.err ]; then
      bad "missing locale via $v: gpusort $o (exit $gr, $(head -c 200 got.err))"
    else ok; fi
  done
done

# Errors: exit 2 and one line, as GNU.
errcase() {   # errcase "description" command...
    local d=$1; shift
    "$@" > /dev/null 2> err.txt; local rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l < err.txt)" -ne 1 ]; then bad "$d: exit $rc, stderr: $(head -c 300 err.txt)"
    else ok; fi
}
errcase "-hn" "$G" -hn text
errcase "-Mn" "$G" -Mn text
errcase "-Vg" "$G" -Vg text
errcase "-Md" "$G" -Md text
errcase "-k1,1hM" "$G" -k1,1hM text
errcase "--sort=bogus" "$G" --sort=bogus text
errcase "--random-source missing" "$G" -R --random-source=/nonexistent text
head -c 5 randsrc > short
errcase "--random-source short" "$G" -R --random-source=short text

echo "$PASS passed, $FAIL failed, $SKIP locales skipped"
if [ $FAIL -eq 0 ] && [ $ran -eq 0 ]; then
  echo "SKIP: no locale but C and C.UTF-8 is installed (run scripts/setup.sh as root)"
  exit 77
fi
[ $FAIL -eq 0 ]
