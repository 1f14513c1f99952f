#!/usr/bin/env bash
# Wave 35's bench-search call (call B's bench-search ran past its 90 s limit): run from the
# device tool's command line on the machine call B left warm, the same build:
#   set -u; . scripts/device-call-setup.sh callC; trap summary EXIT
#   bench_search search 240 62x6x1368603 22x5x7349357; arch
set -u
. scripts/device-call-setup.sh callC
trap summary EXIT
bench_search search 240 62x6x1368603 22x5x7349357
arch
