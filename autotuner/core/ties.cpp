// Tie detection and the tie-break rule.
#include "autotuner/core/ties.hpp"

#include <algorithm>

namespace occtune {

bool better(const Contestant& a, const Contestant& b) {
  if (a.median != b.median) return a.median < b.median;
  if (a.occupancy != b.occupancy) return a.occupancy > b.occupancy;
  if (a.threads != b.threads) return a.threads < b.threads;
  return a.order < b.order;
}

TieResult find_ties(const std::vector<Contestant>& cs) {
  TieResult r;
  for (int i = 0; i < int(cs.size()); ++i)
    if (r.best < 0 || better(cs[size_t(i)], cs[size_t(r.best)])) r.best = i;
  if (r.best < 0) return r;
  for (int i = 0; i < int(cs.size()); ++i)
    if (i == r.best || cs[size_t(i)].ci.overlaps(cs[size_t(r.best)].ci)) r.tied.push_back(i);
  std::sort(r.tied.begin(), r.tied.end(),
            [&](int a, int b) { return better(cs[size_t(a)], cs[size_t(b)]); });
  return r;
}

Contestant contestant(const std::vector<double>& samples_ms, double level, double occupancy,
                      int threads, int order) {
  Contestant c;
  c.median = summarize(samples_ms).median;
  c.ci = median_interval(samples_ms, level);
  c.occupancy = occupancy;
  c.threads = threads;
  c.order = order;
  return c;
}

}  // namespace occtune
