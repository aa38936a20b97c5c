#!/usr/bin/env bash
# topk_test.sh -- `gpusort topk`: the streamed top-k of a file equals the head of the file's
# stable sort (keys and positions), for every type, both orders, pieces smaller and larger
# than K (-S), and its error paths (exit 2, one line, no output file left).
#
#   bash tests/cli/topk_test.sh path/to/gpusort [--backend B]
#
# The library's top-k itself is checked against an independent reference by tests/test_topk.c;
# here the reference is `gpusort sort --values` with the positions 0..n-1 as payload (stable),
# so what is tested is the command: its pieces, the mapping of positions across pieces, the
# outputs. Data from `gpusort gen` with fixed seeds.
set -u
G=$(readlink -f "$1")
shift
B=("$@")
W=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-topk-test.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 2
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; [ -s err ] && sed 's/^/    stderr: /' err | head -3; }

n=100003
"$G" gen --type u64 --n $n --dist index -o pos.u64 || exit 2
for t in u32 i32 f32 u64 i64 f64; do
  for dist in uniform few special; do
    "$G" gen --type $t --n $n --dist $dist --seed 7 -o in.$t || exit 2
    for dir in "" --desc; do
      "$G" sort in.$t --type $t $dir --values pos.u64 --values-out spos.u64 -o s.$t "${B[@]}" 2>err \
        || { bad "reference sort $t $dist $dir"; continue; }
      es=$(( ${t:1} / 8 ))
      for k in 1 7 1000 $n; do
        for S in "" "-S 40000" "-S 2000"; do
          name="topk $t $dist $dir k=$k $S"
          if ! "$G" topk in.$t --type $t -k $k $dir $S -o top --indices idx "${B[@]}" 2>err; then
            bad "$name: exit $?"; continue
          fi
          if ! head -c $((k * es)) s.$t | cmp -s - top; then bad "$name: keys"; continue; fi
          if ! head -c $((k * 8)) spos.u64 | cmp -s - idx; then bad "$name: indices"; continue; fi
          ok
        done
      done
      # u32 indices: the same positions, narrowed.
      "$G" topk in.$t --type $t -k 1000 $dir --index-type u32 -o top --indices idx32 "${B[@]}" 2>err \
        && "$G" topk in.$t --type $t -k 1000 $dir -o top --indices idx64 "${B[@]}" 2>>err \
        && python3 -c "
import struct,sys
a=open('idx32','rb').read(); b=open('idx64','rb').read()
sys.exit(0 if struct.unpack('<1000I',a)==struct.unpack('<1000Q',b) else 1)" && ok || bad "u32 indices $t $dist $dir"
    done
  done
done

# Error paths: exit 2, one line "gpusort: ...", no output file created.
expect_error() {  # NAME -- COMMAND...
  local name=$1; shift 2
  rm -f out.bin
  "$@" -o out.bin 2>err >/dev/null
  local rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < err)" -ne 1 ] || ! grep -q '^gpusort: ' err || [ -e out.bin ] ||
     ls -A | grep -q '\.gpusort-'; then bad "$name (exit $rc)"; else ok; fi
}
"$G" gen --type u32 --n 10 -o ten.u32
printf 'abc' > odd.bin
expect_error "k larger than n" -- "$G" topk ten.u32 --type u32 -k 11
expect_error "k missing" -- "$G" topk ten.u32 --type u32
expect_error "k zero" -- "$G" topk ten.u32 --type u32 -k 0
expect_error "k malformed" -- "$G" topk ten.u32 --type u32 -k 1x
expect_error "type missing" -- "$G" topk ten.u32 -k 1
expect_error "size not a multiple" -- "$G" topk odd.bin --type u32 -k 1
expect_error "missing file" -- "$G" topk nosuch.u32 --type u32 -k 1
expect_error "bad index type" -- "$G" topk ten.u32 --type u32 -k 1 --index-type u16 --indices i
# k larger than n on standard input (size unknown until the end)
cat ten.u32 | "$G" topk --type u32 -k 11 -o out.bin 2>err; rc=$?
if [ $rc -eq 2 ] && [ ! -e out.bin ]; then ok; else bad "k > n on stdin (exit $rc)"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
