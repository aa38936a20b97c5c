#!/usr/bin/env bash
# setup.sh -- install what gpusort needs to build and test, if it is missing (Debian/Ubuntu).
# Sourced by demo.sh and test.sh; safe to run again (installs nothing when all is present).
# Needs: a C/C++ compiler, cmake, ninja; optional: clang (GPUSORT_SETUP_FUZZ=1: the fuzz run),
# python3 with venv (GPUSORT_SETUP_PYTHON=1: the Python suite, whose venv build-python/venv gets
# nanobind, scikit-build-core, numpy and pytest from PyPI),
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
# The Python suite's venv needs python3 with venv and ensurepip (Debian splits them off).
if [ -n "${GPUSORT_SETUP_PYTHON:-}" ]; then
  command -v python3 >/dev/null 2>&1 || need+=(python3)
  python3 -c "import venv, ensurepip" >/dev/null 2>&1 || need+=(python3-venv python3-pip)
fi

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
# Locales of the text mode's locale tests (tests/text/locale_tests.sh): Debian's `locales`,
# their lines enabled in /etc/locale.gen, locale-gen (about 20 s, once). en_US and de_DE
# (decimal comma, '.' thousands), sv_SE (other collation, å ä ö after z), tr_TR (dotted and
# dotless i), fr_FR, cs_CZ ("ch" is one letter after h: a contraction), and the ISO-8859-1
# sv_SE whose thousands separator is one blank byte.
# Without root or apt the tests skip the missing locales and say so.
gpusort_locales="en_US.UTF-8:UTF-8 de_DE.UTF-8:UTF-8 sv_SE.UTF-8:UTF-8 tr_TR.UTF-8:UTF-8 fr_FR.UTF-8:UTF-8 cs_CZ.UTF-8:UTF-8 sv_SE:ISO-8859-1"
missing_locales=()
for l in $gpusort_locales; do
  name=${l%%:*}
  norm=$(printf '%s' "$name" | sed 's/UTF-8$/utf8/')
  locale -a 2>/dev/null | grep -qx -e "$name" -e "$norm" || missing_locales+=("$l")
done
if [ ${#missing_locales[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: generating locales ${missing_locales[*]%%:*}"
  export DEBIAN_FRONTEND=noninteractive
  if ! command -v locale-gen >/dev/null 2>&1 || [ ! -f /etc/locale.gen ]; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends locales >/dev/null
  fi
  if [ -f /etc/locale.gen ]; then
    for l in "${missing_locales[@]}"; do
      line="${l%%:*} ${l#*:}"
      grep -qx "$line" /etc/locale.gen || sed -i "s/^# *\($line\)\$/\1/" /etc/locale.gen
      grep -qx "$line" /etc/locale.gen || echo "$line" >> /etc/locale.gen
    done
    locale-gen >/dev/null || echo "setup: locale-gen failed; the locale tests will skip" >&2
  fi
fi

# The Python suite (test.sh): a venv in build-python/venv with what `pip install ./python`
# --no-build-isolation and the tests need. A failure (no network) leaves the suite skipped.
if [ -n "${GPUSORT_SETUP_PYTHON:-}" ] && command -v python3 >/dev/null 2>&1; then
  py=build-python/venv/bin/python
  if ! "$py" -c "import nanobind, scikit_build_core, numpy, pytest" >/dev/null 2>&1; then
    echo "setup: making $py (pip install nanobind scikit-build-core numpy pytest)"
    { python3 -m venv build-python/venv &&
      "$py" -m pip install -q --disable-pip-version-check nanobind scikit-build-core numpy pytest; } ||
      echo "setup: the Python venv could not be made; the Python suite will skip" >&2
  fi
fi

# nvcc is found on PATH or at /usr/local/cuda/bin; without it the CUDA backend is left out.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
