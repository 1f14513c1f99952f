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

Interval median_interval(std::vector<double> samples, double level) {
  Interval out;
  if (samples.empty()) return out;
  std::sort(samples.begin(), samples.end());
  const int n = int(samples.size());
  out = {samples.front(), samples.back()};
  // P(X < j) for X ~ Binomial(n, 1/2), accumulated in log space to stay exact for large n.
  // The interval [x(j), x(n-j+1)] (1-based) covers the median with 1 - 2 P(X < j).
  double cumulative = 0;
  int best_j = 0;
  for (int j = 1; j <= n / 2; ++j) {
    const double log_pmf = std::lgamma(n + 1) - std::lgamma(j) - std::lgamma(n - j + 2) -
                           n * std::log(2.0);  // P(X = j - 1)
    cumulative += std::exp(log_pmf);
    if (1.0 - 2.0 * cumulative >= level) best_j = j;
    else break;
  }
  if (best_j > 0) out = {samples[size_t(best_j - 1)], samples[size_t(n - best_j)]};
  return out;
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1.0;
  struct Item {
    double value;
    int group;
  };
  std::vector<Item> all;
  for (double v : a) all.push_back({v, 0});
  for (double v : b) all.push_back({v, 1});
  std::sort(all.begin(), all.end(), [](const Item& x, const Item& y) { return x.value < y.value; });
  const double n1 = double(a.size()), n2 = double(b.size()), n = n1 + n2;
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].value == all[i].value) ++j;
    const double average_rank = (double(i) + double(j) + 1.0) / 2.0;  // ranks i+1..j
    for (size_t t = i; t < j; ++t)
      if (all[t].group == 0) rank_sum_a += average_rank;
    const double ties = double(j - i);
    tie_term += ties * ties * ties - ties;
    i = j;
  }
  const double u = rank_sum_a - n1 * (n1 + 1) / 2.0;
  const double mean = n1 * n2 / 2.0;
  const double variance = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return 1.0;
  const double z = (std::abs(u - mean) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

}  // namespace occtune
