#!/usr/bin/env bash
# run_mpi.sh NP PROGRAM ARGS... -- start PROGRAM on NP ranks with the mpirun on the PATH.
# Exit 77 (skipped) when there is no mpirun. Open MPI needs --oversubscribe for more ranks than
# cores (CI has 2) and --allow-run-as-root as root; every rank's environment is passed on
# (Open MPI forwards the caller's environment to local ranks).
np=$1; shift
if ! command -v mpirun >/dev/null 2>&1; then
  echo "skipped: no mpirun on the PATH (apt-get install openmpi-bin)"
  exit 77
fi
args=(-np "$np")
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  args+=(--oversubscribe --bind-to none)
  [ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
  # No network interfaces are needed on one host (and containers often lack the usual ones).
  args+=(--mca btl self,vader)
fi
exec mpirun "${args[@]}" "$@"
