// The interleaved re-measurement of a winner against cuBLAS (issue #18): cuBLAS, candidate,
// cuBLAS, candidate, ... one sample each, every sample after the policy's L2 flush, so both see
// the same clocks and heat. The bench's headline ratio is the median of the pairs' ratios, taken
// from these samples and not from the ones that picked the winner.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/measurement.hpp"

namespace occtune {

struct PairedTiming {
  Timing reference;            // cuBLAS's samples of the pairs, in order
  Timing candidate;            // the candidate's
  std::vector<double> ratios;  // reference_i / candidate_i, per pair
  double ratio = 0;            // median of the ratios (0 when no pair was taken)
  Interval ratio_ci;           // its distribution-free 95% interval
  Outcome outcome = Outcome::kOk;
  std::string error;  // why sampling stopped, when outcome is not ok
};

// Pairs enough for a stable median: about 0.5 s of timed launches, at least 30 and at most 200
// (from the race's medians of both, in ms).
int interleaved_pairs(double reference_ms, double candidate_ms);

// Takes `pairs` A/B pairs on the shape open in `backend`. Stops early on a failed batch or
// when `interrupted` is set; the ratio is then that of the pairs taken.
PairedTiming interleave(MeasurementBackend& backend, const Candidate& candidate, int pairs,
                        const std::atomic<bool>& interrupted);

}  // namespace occtune
