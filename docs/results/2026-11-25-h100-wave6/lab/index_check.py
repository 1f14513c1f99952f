# Index check for tma_sgemm_lab.cu (its formulas transcribed, so it checks their logic, not the .cu
# itself): every fragment read returns the A/B element its epilogue row/column expects, the tile is
# covered once, and the LDS.128 wavefronts per warp instruction. Run: python3 index_check.py
import random
def swz(off, bits):
    return off if bits == 0 else off ^ (((off >> 7) & ((1 << bits) - 1)) << 4)
def wavefronts(addrs):  # byte addresses of 16-byte accesses of one warp instruction
    chunks = set(a // 16 for a in addrs)
    per_group = {}
    for c in chunks: per_group.setdefault(c % 8, set()).add(c)
    return max(len(v) for v in per_group.values()), (len(chunks) * 16 + 127) // 128

def check(BM, BN, BK, TM, TN, WM, WN, direct, bits):
    kLanesM, kLanesN, kWarpsN = WM // TM, WN // TN, BN // WN
    consumers = (BM // TM) * (BN // TN)
    A = {(m, k): random.random() for m in range(BM) for k in range(BK)}
    B = {(k, n): random.random() for k in range(BK) for n in range(BN)}
    raw = [None] * (BM * BK)
    for m in range(BM):
        for k in range(BK):
            raw[swz((m * BK + k) * 4, bits) // 4] = A[(m, k)]
    Bs = [B[(k, n)] for k in range(BK) for n in range(BN)]
    worst = {}
    def note(name, addrs):
        w, best = wavefronts(addrs)
        worst[name] = max(worst.get(name, (0, 0)), (w, best))
    if not direct:
        As = [None] * (BK * BM)
        for pw in range(4):
            for p in range(pw, BM // 32, 4):
                for q in range(BK // 4):
                    addrs = []
                    for lane in range(32):
                        m = p * 32 + lane
                        off = swz(m * BK * 4 + q * 16, bits)
                        addrs.append(off)
                        for j in range(4): As[(4 * q + j) * BM + m] = raw[off // 4 + j]
                    note("producer LDS.128 raw", addrs)
        assert None not in As
    covered = {}
    for w in range(consumers // 32):
        for kk in range(BK):
            ia = {}; ib = {}
            for lane in range(32):
                bn = (w % kWarpsN) * WN + (lane % kLanesN) * 4
                if direct:
                    arow = (w // kWarpsN) * WM + lane // kLanesN
                    rows = [arow + i * kLanesM for i in range(TM)]
                    g, jj = kk // 4, kk % 4
                    for i in range(TM):
                        off = swz(rows[i] * BK * 4 + g * 16, bits)
                        ia.setdefault(i, []).append(off)
                        assert raw[off // 4 + jj] == A[(rows[i], kk)]
                else:
                    am = (w // kWarpsN) * WM + (lane // kLanesN) * 4
                    rows = [am + (r // 4) * kLanesM * 4 + r % 4 for r in range(TM)]
                    for i in range(TM // 4):
                        base = kk * BM + am + i * kLanesM * 4
                        ia.setdefault(i, []).append(base * 4 + 16 * 0 + 0)
                        for e in range(4): assert As[base + e] == A[(rows[4 * i + e], kk)]
                cols = [bn + (c // 4) * kLanesN * 4 + c % 4 for c in range(TN)]
                for j in range(TN // 4):
                    base = kk * BN + bn + j * kLanesN * 4
                    ib.setdefault(j, []).append(base * 4)
                    for e in range(4): assert Bs[base + e] == B[(kk, cols[4 * j + e])]
                if kk == 0:
                    for r in rows:
                        for c in cols: covered[(r, c)] = covered.get((r, c), 0) + 1
            for v in ia.values(): note("consumer LDS.128 A", v)
            for v in ib.values(): note("consumer LDS.128 B", v)
    assert len(covered) == BM * BN and all(v == 1 for v in covered.values())
    print(("direct " if direct else "") + f"{BM}x{BN}x{BK} {TM}x{TN} w{WM}x{WN} swizzle bits {bits}: ok;",
          ", ".join(f"{k} {w} wavefronts (best {b})" for k, (w, b) in sorted(worst.items())))

random.seed(1)
check(128, 256, 32, 16, 8, 64, 64, False, 3)
check(128, 256, 32, 16, 8, 64, 64, False, 0)
check(128, 256, 16, 16, 8, 64, 64, False, 2)
check(128, 256, 8, 16, 8, 64, 64, False, 1)
check(256, 128, 32, 16, 8, 64, 64, False, 3)
check(128, 256, 16, 8, 16, 32, 128, False, 2)
check(128, 256, 32, 16, 8, 64, 64, True, 3)
check(128, 256, 32, 8, 16, 32, 128, True, 3)
check(128, 256, 16, 16, 8, 64, 64, True, 2)
