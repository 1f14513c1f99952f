// The verdict rule: a practical threshold on the median (is the change big enough to matter?)
// and a statistical separation (is it real?), both required before anything is called SLOW.
#include "autotuner/core/verdict.hpp"

#include <algorithm>

namespace occtune {

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kWrong:
      return "WRONG";
    case Verdict::kSlow:
      return "SLOW";
    case Verdict::kDrift:
      return "DRIFT";
    case Verdict::kMissing:
      return "MISSING";
    case Verdict::kIncompatible:
      return "INCOMPATIBLE";
    case Verdict::kAmbiguous:
      return "AMBIGUOUS";
    case Verdict::kFast:
      return "FAST";
    case Verdict::kSame:
      return "SAME";
  }
  return "AMBIGUOUS";
}

SampleComparison compare_samples(const std::vector<double>& base,
                                 const std::vector<double>& current, const VerdictPolicy& policy) {
  SampleComparison c;
  c.base_count = base.size();
  c.current_count = current.size();
  if (base.empty() || current.empty()) return c;  // nothing to judge: AMBIGUOUS
  c.base_median = summarize(base).median;
  c.current_median = summarize(current).median;
  c.base_interval = median_interval(base, policy.interval_level);
  c.current_interval = median_interval(current, policy.interval_level);
  c.p_value = mann_whitney_p(base, current);
  c.intervals_apart = !c.base_interval.overlaps(c.current_interval);
  c.rank_test_applies =
      std::min(base.size(), current.size()) >= std::max<std::size_t>(policy.rank_min_samples, 1);
  c.clearly_separated = c.intervals_apart || (c.rank_test_applies && c.p_value < policy.rank_alpha);
  if (!(c.base_median > 0) || !(c.current_median > 0)) return c;
  c.ratio = c.current_median / c.base_median;
  // Symmetric in log space: 5% slower is current > 1.05 base, 5% faster is base > 1.05 current,
  // so "a runner-up clearly beats the winner" (DRIFT) is the same rule read the other way.
  const double limit = 1.0 + policy.threshold;
  if (c.ratio > limit) {
    c.verdict = c.clearly_separated ? Verdict::kSlow : Verdict::kAmbiguous;
  } else if (1.0 / c.ratio > limit) {
    c.verdict = c.clearly_separated ? Verdict::kFast : Verdict::kAmbiguous;
  } else {
    c.verdict = Verdict::kSame;
  }
  return c;
}

Verdict confirm_slow(const SampleComparison& first, const SampleComparison& second) {
  if (first.verdict != Verdict::kSlow) return first.verdict;
  return second.verdict == Verdict::kSlow ? Verdict::kSlow : Verdict::kAmbiguous;
}

}  // namespace occtune
