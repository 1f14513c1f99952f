// Order statistics of timing samples. Quartiles use linear interpolation between order
// statistics (Hyndman-Fan type 7, the default of R and NumPy) so results are comparable.
#pragma once

#include <cstddef>
#include <vector>

namespace occtune {

struct Summary {
  std::size_t count = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0, mean = 0;
  double relative_iqr() const { return median > 0 ? (q3 - q1) / median : 0.0; }
};

double quantile_sorted(const std::vector<double>& sorted, double p);
Summary summarize(std::vector<double> samples);

// Distribution-free confidence interval of the median: the order statistics x(j), x(k) whose
// binomial(n, 1/2) coverage is at least `level` (exact binomial sums, no normality assumed).
// With too few samples for the level, the interval is [min, max].
struct Interval {
  double low = 0, high = 0;
  bool overlaps(const Interval& o) const { return low <= o.high && o.low <= high; }
};
Interval median_interval(std::vector<double> samples, double level = 0.95);

// Two-sided Mann-Whitney U test (normal approximation with tie and continuity correction):
// the probability of a rank separation at least this large if both sets came from the same
// distribution. Returns 1 when either set is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace occtune
