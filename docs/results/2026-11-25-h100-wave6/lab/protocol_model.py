# Random-schedule model of tma_sgemm_lab.cu's barrier protocol: full/empty mbarriers per TMA stage,
# ready per transposed-A slot, the producer warpgroup (4 warps, warp 0 issues the copies) and the
# consumer warps, with assertions on stale reads and early overwrites. Run: python3 protocol_model.py
import random

class Bar:
    def __init__(s, count): s.count=count; s.pending=count; s.tx=0; s.phase=0
    def _check(s):
        if s.pending==0 and s.tx==0:
            s.phase+=1; s.pending=s.count
    def arrive(s):
        s.pending-=1; assert s.pending>=0; s._check()
    def expect_tx_arrive(s,b):
        s.tx+=b; s.arrive()
    def complete_tx(s,b):
        s.tx-=b; s._check()
    def try_wait(s,parity):  # true once the phase with this parity completed
        return (s.phase & 1) != parity

# The consumers follow the fb2 order (fragments of k + 1 read before k's FMAs, the release right
# after the last read of a slab, then the wait for the next); fb1's order is a special case.
def run(S, slabs, nprod=4, ncons=8, BK=4, seed=0):
    rng=random.Random(seed)
    full=[Bar(1) for _ in range(S)]; empty=[Bar(ncons) for _ in range(S)]; ready=[Bar(nprod) for _ in range(2)]
    raw=[None]*S; B=[None]*S; As=[[None]*nprod for _ in range(2)]
    cons_done=[-1]*ncons   # last slab each consumer released
    prod_read_done=[-1]*nprod  # last slab each producer finished reading raw
    tma=[]  # pending (stage, slab)
    def issue(t):
        s=t%S
        full[s].expect_tx_arrive(2)
        tma.append((s,t,'A')); tma.append((s,t,'B'))
    def wait(bar,par):
        while not bar.try_wait(par): yield
    def producer(pw):
        leader = pw==0
        if leader:
            for t in range(min(S,slabs)): issue(t)
        yield
        for t in range(slabs):
            s=t%S
            yield from wait(full[s], (t//S)&1)
            assert raw[s]==t, ("raw", s, raw[s], t)
            # As slot t&1 must be free: every consumer released slab t-2
            assert t<2 or min(cons_done)>=t-2, ("As overwrite", t, cons_done)
            As[t&1][pw]=t; yield
            prod_read_done[pw]=t
            ready[t&1].arrive(); yield
            if t>=1:
                u=t-1
                yield from wait(empty[u%S], (u//S)&1)
                if leader and u+S<slabs: issue(u+S)
                yield
    def consumer(c):
        def wait_slab(t):
            yield from wait(full[t%S], (t//S)&1)
            yield from wait(ready[t&1], (t>>1)&1)
        def read(t, kk):
            assert B[t%S]==t, ("B stale", c, t, B[t%S])
            assert all(x==t for x in As[t&1]), ("As stale", c, t, As[t&1])
        if slabs>0:
            yield from wait_slab(0); read(0,0)
        for t in range(slabs):
            for kk in range(BK):
                if kk+1<BK:
                    read(t,kk+1); yield
                else:
                    cons_done[c]=t
                    empty[t%S].arrive(); yield
                    if t+1<slabs:
                        yield from wait_slab(t+1); read(t+1,0)
                yield
    actors=[producer(p) for p in range(nprod)]+[consumer(c) for c in range(ncons)]
    alive=list(range(len(actors)))
    steps=0
    while alive or tma:
        steps+=1
        if steps>2_000_000: raise SystemExit("no progress (deadlock?) S=%d slabs=%d seed=%d"%(S,slabs,seed))
        if tma and (not alive or rng.random()<0.15):
            i=rng.randrange(len(tma)); s,t,w=tma.pop(i)
            # nobody may still read the previous content of stage s: slab t-S released by all
            # consumers and read by all producers
            assert t<S or (min(cons_done)>=t-S and min(prod_read_done)>=t-S), ("TMA overwrite", s, t)
            if w=='A': raw[s]=t
            else: B[s]=t
            full[s].complete_tx(1)
            continue
        if not alive:
            continue
        a=rng.choice(alive)
        try: next(actors[a])
        except StopIteration: alive.remove(a)
    assert not tma
    return steps

n=0
for S in (2,3,4,6):
    for slabs in (0,1,2,3,5,8,13):
        for seed in range(40):
            run(S,slabs,seed=seed); n+=1
print("ok", n, "runs")
