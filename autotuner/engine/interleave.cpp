#include "autotuner/engine/interleave.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace occtune {
namespace {

void add_batch(Timing& t, const SampleBatch& batch) {
  t.samples_ms.insert(t.samples_ms.end(), batch.samples_ms.begin(), batch.samples_ms.end());
  if (batch.sm_clock_mhz <= 0) return;
  t.sm_clock_mhz = batch.sm_clock_mhz;
  t.sm_clock_min_mhz = t.sm_clock_min_mhz > 0 ? std::min(t.sm_clock_min_mhz, batch.sm_clock_mhz)
                                              : batch.sm_clock_mhz;
  t.sm_clock_max_mhz = std::max(t.sm_clock_max_mhz, batch.sm_clock_mhz);
}

void finish(Timing& t) {
  t.summary = summarize(t.samples_ms);
  t.noise = t.summary.count >= 2 ? t.summary.relative_iqr() : 0.0;
  t.median_ci = median_interval(t.samples_ms);
  t.measured_s = std::accumulate(t.samples_ms.begin(), t.samples_ms.end(), 0.0) / 1000.0;
}

}  // namespace

int interleaved_pairs(double reference_ms, double candidate_ms) {
  const double pair_ms = reference_ms + candidate_ms;
  if (!(pair_ms > 0)) return 30;
  return int(std::clamp(std::ceil(500.0 / pair_ms), 30.0, 200.0));
}

PairedTiming interleave(MeasurementBackend& backend, const Candidate& candidate, int pairs,
                        const std::atomic<bool>& interrupted) {
  PairedTiming p;
  for (int i = 0; i < pairs && !interrupted; ++i) {
    const SampleBatch a = backend.reference_samples(1);
    const SampleBatch b = backend.samples(candidate, 1);
    if (b.outcome != Outcome::kOk || a.samples_ms.size() != 1 || b.samples_ms.size() != 1) {
      p.outcome = b.outcome != Outcome::kOk ? b.outcome : Outcome::kLaunchFailed;
      p.error = b.error.empty() ? "a pair came back without its two samples" : b.error;
      break;
    }
    add_batch(p.reference, a);
    add_batch(p.candidate, b);
    if (b.samples_ms[0] > 0) p.ratios.push_back(a.samples_ms[0] / b.samples_ms[0]);
  }
  finish(p.reference);
  finish(p.candidate);
  if (!p.ratios.empty()) {
    p.ratio = summarize(p.ratios).median;
    p.ratio_ci = median_interval(p.ratios);
  }
  return p;
}

}  // namespace occtune
