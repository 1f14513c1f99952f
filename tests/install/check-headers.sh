#!/usr/bin/env bash
# Every public header (include/occtune/*.hpp) compiles on its own as C++17 with the host compiler
# and with nvcc -std=c++17, without warnings, and includes no third-party header (spdlog, fmt,
# nlohmann-json, toml++, httplib, CLI11, SQLite).
# Usage: check-headers.sh SOURCE_DIR CXX NVCC CUDA_INCLUDE_DIR. Exit 77 (skip) without CXX or NVCC.
set -euo pipefail
source=$1 cxx=$2 nvcc=$3 cuda_include=$4
fail() { echo "check-headers: $*" >&2; exit 1; }
# A GPU machine running a packed build may have no compilers: skip there (exit 77), nowhere else.
for tool in "$cxx" "$nvcc"; do
  command -v "$tool" >/dev/null || { echo "check-headers: no $tool here; skipped"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
headers=("$source"/include/occtune/*.hpp)
[ -e "${headers[0]}" ] || fail "no headers in $source/include/occtune"
for header in "${headers[@]}"; do
  name=occtune/$(basename "$header")
  if grep -nE '^\s*#\s*include\s*[<"](spdlog|fmt|nlohmann|toml\+\+|httplib|CLI|SQLiteCpp|sqlite3)' \
       "$header"; then
    fail "$name includes a third-party header (public headers must not)"
  fi
  printf '#include <%s>\n#include <%s>\nint main() { return 0; }\n' "$name" "$name" >"$work/t.cpp"
  cp "$work/t.cpp" "$work/t.cu"
  "$cxx" -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$source/include" \
    -isystem "$cuda_include" "$work/t.cpp" || fail "$name does not compile as C++17"
  "$nvcc" -std=c++17 --Werror all-warnings -I"$source/include" -c "$work/t.cu" -o "$work/t.o" \
    || fail "$name does not compile with nvcc -std=c++17"
done
# The CUDA headers (occtune/launch.cuh) are for .cu files: nvcc alone.
cuda_headers=("$source"/include/occtune/*.cuh)
for header in "${cuda_headers[@]}"; do
  [ -e "$header" ] || continue
  name=occtune/$(basename "$header")
  printf '#include <%s>\n#include <%s>\nint main() { return 0; }\n' "$name" "$name" >"$work/t.cu"
  "$nvcc" -std=c++17 --Werror all-warnings -I"$source/include" -c "$work/t.cu" -o "$work/t.o" \
    || fail "$name does not compile with nvcc -std=c++17"
done
echo "check-headers: ${#headers[@]} header(s) compile alone (C++17, nvcc -std=c++17)"
