#!/usr/bin/env python3
# Issue #18, "tuning within 2 s" (docs/architecture.md): replays the H100 exhaustive runs'
# recorded samples (docs/results/2026-11-25-h100-wave6/callC/bench-search.tgz) through halving's
# arithmetic (core/search_strategy.cpp: probe, screen, cut, final, abandon) and prices every
# launch (check, warm-up, samples, each plus the L2 flush) to estimate the races' time per shape
# under a set of rules. estimates.txt holds the cost model's estimate and prune verdict of each
# candidate of the default job on the H100 profile (prune_by_cost, as run_tune calls it).
#   python3 replay.py [path/to/bench-search.tgz]
import json, math, statistics as st, sys, tarfile, os, tempfile, collections

HERE = os.path.dirname(os.path.abspath(__file__))
FLUSH_MS, BATCH_MS = 0.04, 0.05  # per launch (2xL2 memset), per batch (host synchronisation)


def median_interval(s, level=0.95):  # core/stats.cpp median_interval
    s = sorted(s); n = len(s); out = (s[0], s[-1]); cum = 0; best = 0
    for j in range(1, n // 2 + 1):
        cum += math.exp(math.lgamma(n + 1) - math.lgamma(j) - math.lgamma(n - j + 2) - n * math.log(2))
        if 1 - 2 * cum >= level: best = j
        else: break
    return (s[best - 1], s[n - best]) if best else out


def rel_iqr(s):
    q = st.quantiles(s, n=4, method='inclusive'); return (q[2] - q[0]) / st.median(s)


def load(root, shape, estimates, extra_tma=()):
    d = json.load(open(os.path.join(root, 'bs', shape + '.exhaustive.json')))
    fams = collections.OrderedDict()
    for k in d['shapes'][0]['kernels']:
        for c in k['candidates']:
            if c['outcome'] != 'ok' or not c['samples_ms']: continue
            e, pruned = estimates[(shape, c['family'], c['label'])]
            fams.setdefault(c['family'], []).append(dict(samples=c['samples_ms'], est=e, pruned=pruned,
                                                         med=st.median(c['samples_ms'])))
    if extra_tma:  # made-up tma candidates at the given medians, 0.1-0.2% noise
        fams['tma'] = [dict(samples=[m * (1 + 0.001 * ((i * 7) % 3)) for i in range(60)], est=0,
                            pruned=0, med=m) for m in extra_tma]
    return fams


def race_shape(fams, rule):
    clock = 0.0; launches = 0
    def launch(ms):
        nonlocal clock, launches; clock += ms + FLUSH_MS; launches += 1
    est = lambda f: min([c['est'] for c in fams[f] if not c['pruned'] and c['est'] > 0] or [0 if f == 'tma' else 1e9])
    shape_best = 0; winners = []
    for f in sorted(fams, key=est):  # measure_order: best estimate first
        cs = [dict(c, s=[], state='active', warm=False) for c in fams[f] if not c['pruned']]
        for c in cs: launch(c['med'])  # the check
        def take(c, k):
            nonlocal clock
            if not c['warm']:
                c['warm'] = True
                for _ in range(rule['warmup']): launch(c['med'])
            for _ in range(k):
                v = c['samples'][len(c['s']) % len(c['samples'])]; c['s'].append(v); launch(v)
            clock += BATCH_MS
        def incumbent():
            b = shape_best
            for c in cs:
                if c['state'] == 'final':
                    m = st.median(c['s']); b = m if b == 0 or m < b else b
            return b
        def abandon():
            inc = incumbent()
            if inc <= 0: return
            for c in cs:
                if c['state'] != 'active' or not c['s']: continue
                lo = min(c['s'])
                if (len(c['s']) >= rule['abandon_n'] and lo >= rule['abandon'] * inc) or \
                   (rule['behind'] and len(c['s']) >= 3 and lo >= rule['behind'] * inc):
                    c['state'] = 'abandoned'
        probe = rule['probe'] and shape_best > 0
        target = 1 if probe else 3; final = False
        while True:
            abandon()
            act = [c for c in cs if c['state'] == 'active']
            if not act: break
            if final:
                for c in act:
                    s = c['s']
                    if (len(s) >= 20 and sum(s) >= 5 and rel_iqr(s) <= 0.02) or len(s) >= 200: c['state'] = 'final'
                    else: take(c, 5 if len(s) >= 20 else min(5, 20 - len(s)))
                continue
            turns = [c for c in act if len(c['s']) < target]
            if turns:
                for c in turns: take(c, min(5, target - len(c['s'])))
                continue
            if probe: probe = False; target = 3; continue
            live = [c for c in cs if c['state'] in ('active', 'final') and c['s']]
            best = min(live, key=lambda c: st.median(c['s'])); bci = median_interval(best['s'])
            left = 0; alive = []
            for c in act:
                if st.median(c['s']) > 2.0 * st.median(best['s']): c['state'] = 'dropped'; left += 1
                else: alive.append(c)
            alive.sort(key=lambda c: st.median(c['s']))
            keep = min(len(alive), max(3, (len(alive) + 1) // 2))
            for c in alive[keep:]:
                ci = median_interval(c['s'])
                if c is not best and not (ci[0] <= bci[1] and bci[0] <= ci[1]): c['state'] = 'elim'; left += 1
            if sum(c['state'] == 'active' for c in cs) <= 3 or (left == 0 and target >= 20): final = True
            else: target = max(target, min(20, 2 * target))
        done = [c for c in cs if c['state'] == 'final']
        if done:
            w = min(done, key=lambda c: st.median(c['s'])); m = st.median(w['s'])
            wci = median_interval(w['s'])
            ties = [c for c in done if c is not w and (lambda ci: ci[0] <= wci[1] and wci[0] <= ci[1])(median_interval(c['s']))]
            for c in ([w] + ties) if ties else []: take(c, 20)  # tie confirmation
            winners.append((m, w['med']))
            shape_best = m if shape_best == 0 or m < shape_best else shape_best
    truth = min(c['med'] for f in fams for c in fams[f])
    return clock / 1000, launches, min(winners)[1] / truth - 1


RULES = {
    'before (warm-up 3, abandon 1.5x after 3)': dict(warmup=3, probe=False, abandon=1.5, abandon_n=3, behind=0),
    'probe 1.25x, behind 1.05x, warm-up 3': dict(warmup=3, probe=True, abandon=1.25, abandon_n=1, behind=1.05),
    'probe 1.25x, behind 1.05x, warm-up 1': dict(warmup=1, probe=True, abandon=1.25, abandon_n=1, behind=1.05),
}
TMA = [2.6856, 2.8002, 2.8678, 2.70, 2.75, 2.90, 3.00]  # callE's three, then made-up ones

if __name__ == '__main__':
    tgz = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '../../2026-11-25-h100-wave6/callC/bench-search.tgz')
    root = tempfile.mkdtemp(); tarfile.open(tgz).extractall(root)
    estimates = {}
    for line in open(os.path.join(HERE, 'estimates.txt')):
        if line.startswith('#'): continue
        shape, fam, label, e, _, p = line.rstrip('\n').split(';')
        estimates[(shape, fam, label)] = (float(e), int(p))
    for name, rule in RULES.items():
        cells = []
        for shape in ['1024x1024x1024', '4096x4096x4096', '3001x1000x4097']:
            t, n, loss = race_shape(load(root, shape, estimates), rule)
            cells.append('%s %.2f s %d launches %+.2f%%' % (shape, t, n, 100 * loss))
        for k in (3, 5, 7):
            t, n, loss = race_shape(load(root, '4096x4096x4096', estimates, TMA[:k]), rule)
            cells.append('4096^3+%d tma %.2f s %+.2f%%' % (k, t, 100 * loss))
        print(name + ':\n  ' + '\n  '.join(cells))
