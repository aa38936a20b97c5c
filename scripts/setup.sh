#!/usr/bin/env bash
# setup.sh -- install what gpusort needs to build and test, if it is missing (Debian/Ubuntu).
# Sourced by demo.sh and test.sh; safe to run again (installs nothing when all is present).
# Needs: a C/C++ compiler, cmake, ninja; optional: clang (GPUSORT_SETUP_FUZZ=1: the fuzz run),
# the OpenCL headers + ICD loader + PoCL (for the OpenCL backend on the CPU), Open MPI
# (openmpi-bin, libopenmpi-dev: libgpusort_mpi and its tests), nvcc (the CUDA toolkit, for
# the CUDA backend; not installed here).
set -euo pipefail

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v c++ >/dev/null 2>&1 || need+=(g++)
[ -f /usr/include/CL/cl.h ] || need+=(opencl-headers)
{ [ -e /usr/lib/x86_64-linux-gnu/libOpenCL.so ] || ls /usr/lib/*/libOpenCL.so >/dev/null 2>&1; } || need+=(ocl-icd-opencl-dev)
ls /etc/OpenCL/vendors/*pocl* >/dev/null 2>&1 || need+=(pocl-opencl-icd)
command -v clinfo >/dev/null 2>&1 || need+=(clinfo)
# MPI, for libgpusort_mpi and its tests (mpirun with several ranks on one machine).
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin)
{ [ -e /usr/include/x86_64-linux-gnu/mpi/mpi.h ] || ls /usr/lib/*/openmpi/include/mpi.h >/dev/null 2>&1 || command -v mpicc >/dev/null 2>&1; } || need+=(libopenmpi-dev)
# test.sh's fuzz run (scripts/fuzz.sh) needs clang with libFuzzer (Debian's clang package has it);
# GNU sort (coreutils) is fuzz_diff's reference and is always there on Debian.
if [ -n "${GPUSORT_SETUP_FUZZ:-}" ]; then command -v clang >/dev/null 2>&1 || need+=(clang); fi

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "setup: missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root" >&2
    case " ${need[*]} " in *" cmake "*|*" gcc "*|*" g++ "*|*" ninja-build "*) exit 2;; esac
  fi
fi
# nvcc is found on PATH or at /usr/local/cuda/bin; without it the CUDA backend is left out.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
