#!/usr/bin/env bash
# The install as a user meets it: `cmake --install` into a temporary prefix (or, in a build packed
# by scripts/pack-device-build.sh, the install tree packed with it), the installed CLI and its
# shared objects resolved inside the prefix, then every project under examples/ configured and
# built against the prefix alone and run (`ctest` in its build directory). An example with a
# NEEDS_GPU file is only built where no GPU is visible. Then a one-file program built with
# `pkg-config --cflags --libs occtune`.
# Usage: check-install.sh BUILD_DIR SOURCE_DIR. Exit 77 (skip) only on a machine without a C++
# compiler (a GPU machine that runs a packed build).
set -euo pipefail
build=$(realpath "$1") source=$(realpath "$2")
fail() { echo "check-install: $*" >&2; exit 1; }
cxx=${CXX:-$(command -v c++ || command -v g++ || true)}
[ -n "$cxx" ] || { echo "check-install: no C++ compiler here; skipped"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
packed=0
if [ -f "$build/packed-install/lib/cmake/occtune/occtuneConfig.cmake" ]; then
  packed=1
  cp -a "$build/packed-install" "$prefix"
else
  cmake --install "$build" --prefix "$prefix" >"$work/install.log" \
    || { cat "$work/install.log"; fail "cmake --install $build failed"; }
fi

for f in bin/occtune include/occtune/version.hpp lib/libocctune.a lib/pkgconfig/occtune.pc \
         lib/cmake/occtune/occtuneConfig.cmake lib/cmake/occtune/occtuneConfigVersion.cmake \
         share/occtune/profiles/h100.toml; do
  [ -e "$prefix/$f" ] || fail "the install has no $f"
done
so=$(find "$prefix/lib" -maxdepth 1 -name 'libocctune.so.*' -type f | head -1)
[ -n "$so" ] || fail "the install has no libocctune.so.<version>"
[ "$(readlink -f "$prefix/lib/libocctune.so")" = "$(readlink -f "$so")" ] \
  || fail "lib/libocctune.so does not link to $so"

# The installed CLI runs from the prefix: libocctune and the carried libcpp-httplib come from it.
ldd "$prefix/bin/occtune" >"$work/ldd.txt"
! grep -q 'not found' "$work/ldd.txt" || { cat "$work/ldd.txt"; fail "unresolved shared objects"; }
for lib in libocctune.so libcpp-httplib.so; do
  where=$(awk -v l="$lib" 'index($1, l) == 1 {print $3}' "$work/ldd.txt")
  case "$(readlink -f "$where")" in
    "$(readlink -f "$prefix")"/lib/*) ;;
    *) cat "$work/ldd.txt"; fail "$lib resolved to '$where', not inside $prefix/lib" ;;
  esac
done
"$prefix/bin/occtune" --version >"$work/version.txt" || fail "installed occtune --version failed"
grep -q "^occtune $(sed -n 's/^#define OCCTUNE_VERSION_STRING "\(.*\)"/\1/p' \
  "$source/include/occtune/version.hpp")\$" "$work/version.txt" \
  || { cat "$work/version.txt"; fail "installed occtune --version names another version"; }
"$prefix/bin/occtune" plan --profile h100 --shape 512x512x512 >/dev/null \
  || fail "installed occtune plan --profile h100 failed"

gpu=0
"$prefix/bin/occtune" devices >/dev/null 2>&1 && gpu=1
for dir in "$source"/examples/*/; do
  name=$(basename "$dir")
  [ -f "$dir/CMakeLists.txt" ] || continue
  out=$work/examples/$name
  # The prefix only: no path into the source or build tree.
  cmake -S "$dir" -B "$out" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    >"$work/$name.log" 2>&1 || { cat "$work/$name.log"; fail "example $name: configure failed"; }
  cmake --build "$out" -j2 >>"$work/$name.log" 2>&1 \
    || { cat "$work/$name.log"; fail "example $name: build failed"; }
  if [ -f "$dir/NEEDS_GPU" ] && [ $gpu = 0 ]; then
    echo "check-install: example $name built (not run: it needs a GPU)"
    continue
  fi
  ctest --test-dir "$out" --output-on-failure >>"$work/$name.log" 2>&1 \
    || { cat "$work/$name.log"; fail "example $name: its run failed"; }
  echo "check-install: example $name built and ran ($(grep -c '^ *[0-9]*/[0-9]* Test' "$work/$name.log") runs)"
done

# Where the build was made, the static library's dependencies are present, so its target must be.
if [ $packed = 0 ] && [ ! -x "$work/examples/version_app/app_static" ]; then
  cat "$work/version_app.log"
  fail "occtune::occtune_static was not defined for examples/version_app (see its log above)"
fi

# A consumer without CMake: the flags from occtune.pc alone.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
pc_libdir=$(pkg-config --variable=libdir occtune)
# shellcheck disable=SC2046
"$cxx" -std=c++17 -o "$work/pc_app" "$source/examples/version_app/main.cpp" \
  $(pkg-config --cflags --libs occtune) -Wl,-rpath,"$pc_libdir" \
  || fail "a program built with pkg-config --cflags --libs occtune did not compile or link"
"$work/pc_app" || fail "the program built with pkg-config failed"
echo "check-install: pkg-config consumer built and ran"
