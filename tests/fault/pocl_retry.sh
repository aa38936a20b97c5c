#!/usr/bin/env bash
# pocl_retry.sh CMD ARGS... -- run an OpenCL test once more, and say so, when it died on the
# one PoCL assertion below; any other failure (a wrong result, a crash or assertion of ours, a
# sanitizer report) is returned as it is.
#
# PoCL 3.1 (Debian 12) can abort a process whose threads run OpenCL queues at once in
#   lib/CL/devices/common.c: pocl_release_dlhandle_cache: Assertion `found->ref_count > 0'
# (a reference count of its kernel-library cache, which only PoCL touches). It is rare; how
# often it was seen: tests/fault/README.md.
set -u
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" > "$log" 2>&1
rc=$?
cat "$log"
if [ "$rc" != 0 ] && grep -q "pocl_release_dlhandle_cache: Assertion" "$log"; then
    echo "pocl_retry.sh: PoCL's own assertion (a PoCL 3.1 race, not gpusort): running once more"
    "$@"
    rc=$?
fi
exit "$rc"
