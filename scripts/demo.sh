#!/usr/bin/env bash
# demo.sh -- the main job: build gpusort, make an example data set, sort it with the best backend
# present (CUDA, then OpenCL, then the CPU), verify the result and print keys/s and the backend.
#
#   ./scripts/demo.sh [N] [TYPE]        (default N = 2^26 keys, TYPE = u32)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

n=${1:-67108864}
type=${2:-u32}
build=${GPUSORT_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target gpusort_cli -j"$(nproc)"
bin="$build/tools/gpusort"

mkdir -p example
echo "== devices"
"$bin" devices
echo "== making $n random $type keys: example/keys.$type"
"$bin" gen --type "$type" --n "$n" --dist uniform --seed 42 -o "example/keys.$type"
# The library's AUTO backend (the "auto:" line of `gpusort devices`: CUDA, then an OpenCL GPU,
# then the CPU), named explicitly: the command's own auto would give a file this small to the
# CPU on a machine with many cores (it sorts it before a GPU has started; see sort --help).
backend=$("$bin" devices | sed -n 's/^auto: \([a-z]*\).*/\1/p')
echo "== sorting with the best backend present: ${backend:-auto}"
"$bin" sort "example/keys.$type" -o "example/sorted.$type" --type "$type" --backend "${backend:-auto}" --stats
echo "== verifying"
"$bin" check "example/sorted.$type" --type "$type" && echo "example/sorted.$type is sorted"
