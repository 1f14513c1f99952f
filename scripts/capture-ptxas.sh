#!/usr/bin/env bash
# Compiler launcher for the kernel library: runs nvcc (built with --resource-usage) and keeps
# ptxas's per-kernel resource report next to the object as <object>.ptxas, which
# cmake/generate-kernel-manifest.cmake turns into the offline occupancy twin's register table.
# Everything that is not the resource report still goes to stderr.
out=""
prev=""
for arg in "$@"; do
  [ "$prev" = "-o" ] && out="$arg"
  prev="$arg"
done
if [ -z "$out" ]; then exec "$@"; fi
tmp="$out.ptxas.tmp"
"$@" 2>"$tmp"
rc=$?
grep -v -e '^ptxas info' -e 'bytes stack frame' "$tmp" >&2
grep -e '^ptxas info' -e 'bytes stack frame' "$tmp" >"$out.ptxas"
rm -f "$tmp"
exit $rc
