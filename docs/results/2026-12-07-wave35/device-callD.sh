#!/usr/bin/env bash
# Device call D of wave 35: compute-sanitizer's memcheck and synccheck over the skinny family
# (every candidate, exhaustive, one sample each) at shapes where the new 32-row workspace-split
# rings on 8 columns run: one row tile through A's windows with B dense (25x6x200001), two tiles
# of even height with A aligned (45x8x100000), and 19 rows with K odd and N = 7 (19x7x300003);
# then the planted-fault control (the sanitizer must see it). Run from the device tool's command
# line (the same lines, limits cut to the device time left after refused starts):
#   set -u; . scripts/device-call-setup.sh callD; trap summary EXIT; sanitize memcheck 110
#   25x6x200001 45x8x100000 19x7x300003; arch; sanitize synccheck 45 25x6x200001; arch;
#   sanitize_control; arch
set -u
. scripts/device-call-setup.sh callD
trap summary EXIT
sanitize memcheck 110 25x6x200001 45x8x100000 19x7x300003
arch
sanitize synccheck 45 25x6x200001
arch
sanitize_control
arch
