// The stopping rule of the measurement protocol and the throttle test: pure functions of the
// samples taken so far, so the rule is tested on synthetic samples with known answers and the
// engine only executes what they decide.
#pragma once

#include <vector>

#include "autotuner/core/measurement.hpp"

namespace occtune {

struct StoppingRule {
  int min_samples = 20;        // N
  double min_time_s = 0.005;   // T, seconds of timed execution (the sum of the samples)
  double target_noise = 0.02;  // relative IQR, (q3 - q1) / median
  double timeout_s = 2.0;      // give up after this much timed execution...
  int max_samples = 200;       // ...or this many samples

  static StoppingRule from(const TimingPolicy& policy);
};

// A candidate that times out still gets this many samples (fewer when N is smaller), so a very
// slow kernel is never judged on one or two launches.
inline constexpr int kTimeoutFloorSamples = 5;

struct StopCheck {
  bool stop = false;
  StopReason reason = StopReason::kNone;
  double noise = 0;       // relative IQR of the samples (0 with fewer than 2)
  double measured_s = 0;  // their sum, in seconds
};

StopCheck evaluate(const StoppingRule& rule, const std::vector<double>& samples_ms);

// How many samples the next turn of a candidate should take: what the minimum still needs,
// else one `batch`, never beyond max_samples, and no more than the timeout can still afford at
// the candidate's mean sample time (at least 1).
int next_batch(const StoppingRule& rule, const std::vector<double>& samples_ms, int batch);

// True when a batch ran below ratio x the reference clock. Unknown clocks (0: no NVML, or no
// reference) are never called throttled.
bool is_throttled(int clock_mhz, int reference_mhz, double ratio);

}  // namespace occtune
