# shellcheck shell=bash
# common.sh -- shell functions shared by test.sh and gpu_check.sh (sourced, not run):
#   build_progress NAME LOG       condense a ninja build's output into progress lines
#   ctest_counts LOG              the counts of a ctest run: sets ct_total, ct_passed, ct_failed,
#                                 ct_skipped
#   ctest_skip_reasons LOG DIR    list the skipped tests of a ctest run with their reasons

# build_progress NAME LOG: reads ninja's output on stdin, keeps all of it in LOG, and prints
# "[NAME] build 40% (123/307 steps, 85 s)": one updating line on a terminal, else one line
# each time another 10% of the steps is done (CI logs read top to bottom). A bash loop, not
# awk: mawk reads a pipe in blocks, which would hold the lines back until the build ends.
build_progress() {
  local name=$1 log=$2 line step total pct next=0 last=0 t0=$SECONDS msg=
  : > "$log"
  while IFS= read -r line; do
    printf '%s\n' "$line" >> "$log"
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]] || continue
    step=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
    [ "$step" != 0 ] || continue
    [ "$total" = "$last" ] || { last=$total next=0; }  # ninja's first line counts its own steps
    pct=$((100 * step / total))
    printf -v msg '[%s] build %3d%% (%d/%d steps, %d s)' "$name" "$pct" "$step" "$total" $((SECONDS - t0))
    if [ -t 1 ]; then printf '\r%s' "$msg"
    elif [ "$pct" -ge "$next" ]; then echo "$msg"; next=$(( (pct / 10 + 1) * 10 )); fi
  done
  if [ -t 1 ] && [ -n "$msg" ]; then echo; fi
}

# ctest_counts LOG: from ctest's own output in LOG. Tests that exit 77 (SKIP_RETURN_CODE, see
# tests/CMakeLists.txt) show as "***Skipped"; ctest counts them among the passed.
# shellcheck disable=SC2034  # the ct_* variables are read by the callers
ctest_counts() {
  local log=$1 pass
  ct_total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  ct_failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -1)
  ct_skipped=$(grep -c "\*\*\*Skipped\|Not Run (Disabled)" "$log")
  ct_total=${ct_total:-0} ct_failed=${ct_failed:-0}
  pass=$((ct_total - ct_failed - ct_skipped))
  ct_passed=$((pass < 0 ? 0 : pass))
}

# ctest_skip_reasons LOG DIR: the tests that ctest (output in LOG, build folder DIR) lists as
# not run, each with the first line its program printed that starts "skipped: " (tests exit
# 77 after printing why, e.g. "skipped: no CUDA device"), grouped by reason. ctest keeps
# every test's output of its last run in DIR/Testing/Temporary/LastTest.log.
ctest_skip_reasons() {
  local log=$1 last=$2/Testing/Temporary/LastTest.log names
  names=$(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (\(Skipped\|Disabled\))$/\1 \2/p' "$log")
  [ -n "$names" ] || return 0
  echo "skipped tests, by reason:"
  echo "$names" | awk -v last="$last" '
    BEGIN {  # test name -> the first "skipped: ..." line of its output
      while ((getline line < last) > 0) {
        if (line ~ /^[0-9]+\/[0-9]+ Test: /) { cur = line; sub(/^[0-9]+\/[0-9]+ Test: /, "", cur) }
        else if (cur != "" && !(cur in why) && line ~ /^skipped: /) why[cur] = substr(line, 10)
      }
    }
    { name = $1; kind = $2
      r = kind == "Disabled" ? "disabled in CMake" : (name in why) ? why[name] : "no reason printed"
      if (!(r in list)) order[++nr] = r
      list[r] = list[r] " " name }
    END { for (i = 1; i <= nr; i++) printf "  %s:%s\n", order[i], list[order[i]] }'
}
