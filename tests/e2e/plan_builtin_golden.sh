#!/usr/bin/env bash
# Issue #13, moving the built-in families onto the registration API: `plan --profile h100` of every
# migrated family must stay byte for byte what the private registry printed (golden files taken
# from the build before the move, tests/e2e/data/plan_builtin/FAMILY_SHAPE.{txt,json}).
set -euo pipefail
occtune=$1
data=$2/tests/e2e/data/plan_builtin
status=0
for kernel in tiled_dynamic tiled_static naive; do
  for shape in 4096x4096x4096 17x1000x4097; do
    for format in table json; do
      ext=$([ "$format" = table ] && echo txt || echo json)
      golden=$data/${kernel}_${shape}.$ext
      if ! "$occtune" plan --profile h100 --shape "$shape" --kernel "$kernel" --format "$format" |
          diff -u "$golden" -; then
        echo "FAIL: plan --kernel $kernel --shape $shape --format $format differs from $golden"
        status=1
      fi
    done
  done
done
[ "$status" = 0 ] && echo "plan output of the textbook families equals the golden files"
exit $status
