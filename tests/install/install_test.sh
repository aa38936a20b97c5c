#!/usr/bin/env bash
# install_test.sh BUILD_DIR README VERSION [CFLAGS] -- install gpusort from BUILD_DIR into a
# temporary prefix and build the README's C example against it, with pkg-config and with
# find_package (CFLAGS: extra compiler and linker flags, e.g. the sanitizers of the build).
# Prints "N passed, N failed"; exit 0 when all passed, 1 otherwise, 77 (skipped) when
# pkg-config or a C compiler is missing.
set -uo pipefail
build=$1 readme=$2 version=$3 extra=${4:-}
command -v pkg-config >/dev/null || { echo "skipped: pkg-config is not installed"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "skipped: no C compiler ($cc)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok()   { echo "ok: $*"; passed=$((passed + 1)); }
bad()  { echo "FAIL: $*"; failed=$((failed + 1)); }

if cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then
  ok "cmake --install"
else
  cat "$tmp/install.log"; bad "cmake --install"; echo "$passed passed, $failed failed"; exit 1
fi
libdir=$(dirname "$(find "$tmp/prefix" -name gpusort.pc | head -1)")/..
libdir=$(cd "$libdir" && pwd)

# The SONAME follows the ABI policy: libgpusort.so.MAJOR.MINOR before 1.0, .MAJOR after.
major=${version%%.*} rest=${version#*.} minor=${rest%%.*}
if [ "$major" = 0 ]; then want="libgpusort.so.0.$minor"; else want="libgpusort.so.$major"; fi
soname=$(readelf -d "$libdir/libgpusort.so" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p')
[ "$soname" = "$want" ] && ok "SONAME $soname" || bad "SONAME '$soname', want '$want'"
[ -e "$libdir/$want" ] && ok "$want installed" || bad "$want not installed"

# The README's C example: the first ```c block.
awk '/^```c$/ {on = 1; next} /^```$/ && on {exit} on' "$readme" >"$tmp/demo.c"
grep -q gpusort_ctx_create "$tmp/demo.c" && ok "README example extracted" \
  || bad "no C example with gpusort_ctx_create in $readme"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion gpusort)" = "$version" ] && ok "pkg-config --modversion $version" \
  || bad "pkg-config --modversion: '$(pkg-config --modversion gpusort)', want $version"
# shellcheck disable=SC2046
# shellcheck disable=SC2086
if $cc -std=c11 -Wall -Werror $extra "$tmp/demo.c" -o "$tmp/demo_pc" $(pkg-config --cflags --libs gpusort) \
     >"$tmp/cc.log" 2>&1; then
  ok "README example builds with pkg-config"
  if LD_LIBRARY_PATH="$libdir" "$tmp/demo_pc" >"$tmp/run.log" 2>&1; then
    ok "README example runs (shared library)"
  else
    cat "$tmp/run.log"; bad "README example failed to run"
  fi
else
  cat "$tmp/cc.log"; bad "README example does not build with pkg-config"
fi

# find_package(gpusort) from a CMake project, linked to the static library, so no library path
# is needed at run time.
mkdir -p "$tmp/cm"
cp "$tmp/demo.c" "$tmp/cm/demo.c"
cat >"$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.22)
project(demo C)
find_package(gpusort REQUIRED)
add_executable(demo demo.c)
target_link_libraries(demo PRIVATE gpusort::gpusort_static)
CM
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
if cmake -S "$tmp/cm" -B "$tmp/cm/build" "${gen[@]}" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
     -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" \
     >"$tmp/cm.log" 2>&1 && cmake --build "$tmp/cm/build" >>"$tmp/cm.log" 2>&1; then
  ok "README example builds with find_package(gpusort)"
  if "$tmp/cm/build/demo" >"$tmp/run2.log" 2>&1; then ok "README example runs (static library)"
  else cat "$tmp/run2.log"; bad "README example (static) failed to run"; fi
else
  tail -30 "$tmp/cm.log"; bad "README example does not build with find_package"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
