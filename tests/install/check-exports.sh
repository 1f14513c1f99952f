#!/usr/bin/env bash
# Checks libocctune.so's dynamic symbol table (cmake/libocctune.map): every defined symbol is
# occtune's own (occtune::..., or its typeinfo, vtable, thunks, guard variables), the public API is
# there, and the SONAME is the expected one. Usage: check-exports.sh LIBOCCTUNE_SO SONAME
set -euo pipefail
lib=$1 soname=$2
fail() { echo "check-exports: $*" >&2; exit 1; }
[ -f "$lib" ] || fail "no library at $lib; build the occtune_shared target"

symbols=$(nm -D --defined-only "$lib" | awk '{ $1 = ""; $2 = ""; sub(/^ +/, ""); print }' | c++filt)
[ -n "$symbols" ] || fail "$lib exports nothing"
allowed='^((typeinfo name|typeinfo|vtable|VTT|construction vtable|virtual thunk|non-virtual thunk|guard variable) (for|to) )?occtune::'
leaked=$(grep -Ev "$allowed" <<<"$symbols" || true)
[ -z "$leaked" ] || fail "$lib exports symbols that are not occtune's (third-party code must stay \
local: cmake/libocctune.map):
$(head -20 <<<"$leaked")
($(wc -l <<<"$leaked") in all)"

for api in 'occtune::version()' 'occtune::kernel_build_id()' 'occtune::cuda_runtime_version()' \
           'occtune::git_commit()' 'occtune::cli::run(int, char**)'; do
  grep -qxF "$api" <<<"$symbols" || fail "$lib does not export $api"
done

actual=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$actual" = "$soname" ] || fail "$lib has SONAME '$actual', expected '$soname'"
echo "check-exports: $(wc -l <<<"$symbols") symbols, all occtune's; SONAME $actual"
