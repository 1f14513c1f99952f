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

}  // namespace occtune
