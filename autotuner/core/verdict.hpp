// The regression verdict shared by `occtune check` (fresh GPU samples against the cache) and
// `occtune compare` (two exports): pure functions from two sample sets to FAST, SAME, SLOW or
// AMBIGUOUS with the numbers behind it. The rule is in docs/ci.md ("How a verdict is reached").
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "autotuner/core/stats.hpp"

namespace occtune {

// Per key. Only SLOW and WRONG fail a gate (DRIFT too with --strict); MISSING and INCOMPATIBLE
// are "could not judge" (exit 3); the order here is the order of severity in reports.
enum class Verdict { kWrong, kSlow, kDrift, kMissing, kIncompatible, kAmbiguous, kFast, kSame };

std::string_view to_string(Verdict verdict);  // "WRONG", "SLOW", ...

struct VerdictPolicy {
  double threshold = 0.05;       // a median change smaller than this is SAME, whatever the test
  double interval_level = 0.99;  // coverage of each distribution-free median interval
  double rank_alpha = 0.001;     // two-sided Mann-Whitney level...
  std::size_t rank_min_samples = 10;  // ...used only with at least this many samples on each side
};

// Baseline against current samples of one configuration.
struct SampleComparison {
  Verdict verdict = Verdict::kAmbiguous;  // kFast, kSame, kSlow or kAmbiguous
  std::size_t base_count = 0, current_count = 0;
  double base_median = 0, current_median = 0;
  double ratio = 0;                          // current / base median: 1.10 = 10% slower
  Interval base_interval, current_interval;  // at policy.interval_level
  double p_value = 1;                        // Mann-Whitney, two-sided
  bool intervals_apart = false;              // the two median intervals do not overlap
  bool rank_test_applies = false;            // both sides have rank_min_samples
  bool clearly_separated = false;  // intervals_apart, or the rank test applies and p < alpha
};

// SLOW when the median grew by more than the threshold and the sets are clearly separated;
// FAST the same way downwards (base/current > 1 + threshold); SAME when the change is within
// the threshold; AMBIGUOUS when it is beyond the threshold but the sets are not separated, or a
// side has no samples.
SampleComparison compare_samples(const std::vector<double>& base,
                                 const std::vector<double>& current, const VerdictPolicy& policy);

// A suspected SLOW is measured again once: it stands only when the second comparison is SLOW
// too; otherwise the evidence disagrees and the key is AMBIGUOUS.
Verdict confirm_slow(const SampleComparison& first, const SampleComparison& second);

}  // namespace occtune
