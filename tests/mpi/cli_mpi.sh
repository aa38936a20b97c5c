#!/usr/bin/env bash
# cli_mpi.sh GPUSORT -- `gpusort sort --mpi` on files against the single-process sort (cmp),
# on 1 to 4 ranks, every type, both orders; and its failures: an input whose size is
# not a multiple of the type (exit 2 on every rank, no output file, no temporary file left).
# Exit 77 (skipped) without mpirun.
set -u
g=$1
here=$(cd "$(dirname "$0")" && pwd)
run() { bash "$here/run_mpi.sh" "$@"; }
command -v mpirun >/dev/null 2>&1 || { echo "skipped: no mpirun on the PATH"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
# Each type: 100003 keys on 3 ranks both orders, 3 keys on 4 ranks (an empty rank), an empty
# file on 2 ranks; u32 also on 1 rank. (Each mpirun costs about a second: the list is short.)
for t in u32 i32 f32 u64 i64 f64; do
  cases="100003:3: 100003:3:--desc 3:4:--desc 0:2:"
  [ $t = u32 ] && cases="$cases 100003:1:"
  for c in $cases; do
    IFS=: read -r n np o <<<"$c"
    if [ $n = 0 ]; then : > "$d/in.$t"
    else "$g" gen --type $t --n $n --dist few --seed $n -o "$d/in.$t" -q; fi
    "$g" sort "$d/in.$t" --type $t $o -o "$d/ref" -q --backend cpu
    if run $np "$g" sort "$d/in.$t" --type $t $o -o "$d/out" -q --backend cpu --threads 1 --mpi; then
      cmp -s "$d/ref" "$d/out" && ok || bad "$t n=$n np=$np $o: output differs"
    else
      bad "$t n=$n np=$np $o: exit $?"
    fi
  done
done
# -o naming the input sorts it in place
cp "$d/in.u32" "$d/inplace"
"$g" sort "$d/in.u32" --type u32 -o "$d/ref" -q --backend cpu
run 3 "$g" sort "$d/inplace" --type u32 -o "$d/inplace" -q --backend cpu --threads 1 --mpi &&
  cmp -s "$d/ref" "$d/inplace" && ok || bad "in place"
# A bad input: 7 bytes of u32. Every rank exits 2, no output, no temporary file.
printf 'abcdefg' > "$d/odd"
run 3 "$g" sort "$d/odd" --type u32 -o "$d/never" -q --mpi 2>"$d/err"
st=$?
if [ $st != 2 ] || [ -e "$d/never" ] || ls "$d"/.never* "$d"/*tmp* >/dev/null 2>&1; then
  bad "bad input: exit $st, $(ls "$d")"; cat "$d/err"
else ok; fi
# A missing input
run 2 "$g" sort "$d/missing" --type u32 -o "$d/never" -q --mpi 2>/dev/null
st=$?; { [ $st = 2 ] && [ ! -e "$d/never" ]; } && ok || bad "missing input: exit $st"
# Standard output is refused with --mpi
run 2 "$g" sort "$d/in.u32" --type u32 -q --mpi >/dev/null 2>&1
st=$?; [ $st = 2 ] && ok || bad "stdout with --mpi: exit $st"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
