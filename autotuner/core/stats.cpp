#include "autotuner/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace occtune {

double quantile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return NAN;
  const double h = (double(sorted.size()) - 1.0) * p;
  const auto lo = std::size_t(std::floor(h));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]);
}

Summary summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.q1 = quantile_sorted(samples, 0.25);
  s.median = quantile_sorted(samples, 0.5);
  s.q3 = quantile_sorted(samples, 0.75);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(s.count);
  return s;
}

}  // namespace occtune
