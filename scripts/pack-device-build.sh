#!/usr/bin/env bash
# Packs a build directory for the GPU machine: executables, libocctune.so and CTest files only,
# without debug information, plus the install tree (`cmake --install --strip`) as packed-install/, which the
# install test (tests/install/check-install.sh) builds the examples against there, as one .tar.xz
# (the device tool carries at most 64 MiB with the working tree: a four-architecture build
# packed with --gpu-only is about 22 MB with xz -9, see below).
# Usage: scripts/pack-device-build.sh [--gpu-only] [BUILD_DIR] [OUT.tar.xz]
#   --gpu-only: leave out the CPU-only test executables (emptied, so CTest still lists them but
#   `ctest -L gpu` needs none of them).
# On the GPU machine: tar -xJf OUT.tar.xz -C /tmp && rm -rf BUILD_DIR && mv /tmp/pack BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
gpu_only=0
if [ "${1:-}" = "--gpu-only" ]; then gpu_only=1; shift; fi
build=${1:-build-h100}
out=${2:-carry/build.tar.xz}
[ -d "$build" ] || { echo "pack-device-build.sh: no build directory '$build'; build first" >&2; exit 2; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -a "$build" "$stage/pack"
find "$stage/pack" \( -name '*.o' -o -name '*.a' -o -name CMakeFiles -o -name Testing \) -prune \
  -exec rm -rf {} +
if [ "$gpu_only" = 1 ]; then
  gpu_tests=" $(cd tests/gpu && ls test_*.c* | sed 's/\.[^.]*$//' | tr '\n' ' ') "
  for f in "$stage"/pack/tests/test_*; do
    name=$(basename "$f")
    [ -x "$f" ] && [ -f "$f" ] && [[ "$gpu_tests" != *" $name "* ]] && : >"$f"
  done
fi
# Debug information only: the symbol table stays, because a user-kernel harness reads its own
# (`plan --profile` maps each kernel's address to its name to find its registers in the
# program's cubin; docs/user-kernels.md), and the tests of that run on the GPU machine too.
find "$stage/pack" -type f -perm -u+x -exec sh -c \
  'file "$1" | grep -q "ELF.*not stripped" && strip --strip-debug "$1" || true' _ {} \;
cmake --install "$build" --prefix "$stage/pack/packed-install" --strip >/dev/null \
  || { echo "pack-device-build.sh: cannot install '$build'; build all of it first" \
            "(cmake --build $build)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
# xz -9 (a 64 MiB dictionary) finds the kernel images every test executable repeats: a
# four-architecture --gpu-only build packs to about 22 MB instead of 66 MB with the default -6.
XZ_OPT=${XZ_OPT:-"-9 -T0"} tar -cJf "$out" -C "$stage" pack
echo "packed $build into $out ($(du -h "$out" | cut -f1))"
