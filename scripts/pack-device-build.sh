#!/usr/bin/env bash
# Packs a build directory for the GPU machine: executables, libocctune.so and CTest files only,
# stripped, plus the install tree (`cmake --install --strip`) as packed-install/, which the
# install test (tests/install/check-install.sh) builds the examples against there, as one .tar.xz
# (the device tool carries at most 64 MiB: pack an sm_90-only build such as build-h100; a build
# for four architectures packs to about 83 MB, of which the install tree is about 8 MB).
# Usage: scripts/pack-device-build.sh [BUILD_DIR] [OUT.tar.xz]
# On the GPU machine: tar -xJf OUT.tar.xz -C /tmp && rm -rf BUILD_DIR && mv /tmp/pack BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-h100}
out=${2:-carry/build.tar.xz}
[ -d "$build" ] || { echo "pack-device-build.sh: no build directory '$build'; build first" >&2; exit 2; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -a "$build" "$stage/pack"
find "$stage/pack" \( -name '*.o' -o -name '*.a' -o -name CMakeFiles -o -name Testing \) -prune \
  -exec rm -rf {} +
find "$stage/pack" -type f -perm -u+x -exec sh -c \
  'file "$1" | grep -q "ELF.*not stripped" && strip --strip-unneeded "$1" || true' _ {} \;
cmake --install "$build" --prefix "$stage/pack/packed-install" --strip >/dev/null \
  || { echo "pack-device-build.sh: cannot install '$build'; build all of it first" \
            "(cmake --build $build)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
tar -cJf "$out" -C "$stage" pack
echo "packed $build into $out ($(du -h "$out" | cut -f1))"
