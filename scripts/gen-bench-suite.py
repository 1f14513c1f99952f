#!/usr/bin/env python3
"""Writes configs/bench/suite.txt, the shape suite of `occtune bench --suite` (issue #18).

The suite is the 12 default bench shapes, every weak and strong category the issue names, and
20 shapes drawn log-uniformly from [1, 16384] per dimension with a fixed seed, skipping those
whose A, B and C exceed 8 GiB. Usage: python3 scripts/gen-bench-suite.py [OUTPUT]
(default configs/bench/suite.txt). Rerunning it reproduces the committed file byte for byte.
"""
import math
import random
import sys

SEED = 18          # the number; fixed so the suite never changes under a benchmark
RANDOM_SHAPES = 20
MAX_BYTES = 8 << 30

DEFAULTS = ["1024x1024x1024", "2048x2048x2048", "4096x4096x4096", "8192x8192x8192",
            "4096x1024x2048", "3001x1000x4097", "1000x1000x1000", "4096x64x4096",
            "64x4096x4096", "4096x4096x64", "256x256x16384", "17x4097x1023"]

# (category, why, shapes)
CATEGORIES = [
    ("gemv", "M = 1: a matrix-vector product in disguise",
     ["1x4096x4096", "1x8192x8192", "1x16384x16384"]),
    ("small_odd", "all three a few hundred, none a multiple of 4",
     ["211x307x389", "333x255x401", "501x373x299"]),
    ("past_pow2", "squares just past a power of two",
     ["1025x1025x1025", "2049x2049x2049", "4097x4097x4097"]),
    ("long_k", "a small output with a very long K",
     ["128x128x32768", "96x96x65536"]),
    ("tall_n128", "a tall output with N = 128",
     ["16384x128x4096", "32768x128x2048", "65536x128x1024"]),
    ("wave_1_09", "12 x 12 = 144 tiles of 128 x 128 on 132 SMs: 1.09 waves",
     ["1536x1536x1536", "1536x1536x4096"]),
    ("m8", "M = 8 with large N and K",
     ["8x4096x4096", "8x8192x8192", "8x16384x16384"]),
    ("k256", "a large output with K = 256",
     ["8192x8192x256", "16384x16384x256"]),
]


def dims(shape):
    return tuple(int(x) for x in shape.split("x"))


def buffer_bytes(m, n, k):
    return 4 * (m * k + k * n + m * n)


def random_shapes(taken):
    rng = random.Random(SEED)
    out = []
    while len(out) < RANDOM_SHAPES:
        m, n, k = (min(16384, max(1, round(math.exp(rng.uniform(0, math.log(16384))))))
                   for _ in range(3))
        shape = f"{m}x{n}x{k}"
        if buffer_bytes(m, n, k) > MAX_BYTES or shape in taken:
            continue
        taken.add(shape)
        out.append(shape)
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "configs/bench/suite.txt"
    lines = ["# The shape suite of `occtune bench --suite` (issue #18); written by",
             "# scripts/gen-bench-suite.py, do not edit by hand. One `MxNxK category` per line.",
             "", "# The 12 default bench shapes."]
    taken = set()
    for s in DEFAULTS:
        lines.append(f"{s:<18} default")
        taken.add(s)
    for name, why, shapes in CATEGORIES:
        lines += ["", f"# {why}."]
        for s in shapes:
            assert s not in taken and buffer_bytes(*dims(s)) <= MAX_BYTES, s
            lines.append(f"{s:<18} {name}")
            taken.add(s)
    lines += ["", f"# {RANDOM_SHAPES} shapes log-uniform in [1, 16384] per dimension, seed {SEED},",
              "# those whose A, B and C exceed 8 GiB skipped."]
    for s in random_shapes(taken):
        lines.append(f"{s:<18} random")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
