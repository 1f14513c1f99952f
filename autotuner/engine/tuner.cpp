#include "autotuner/engine/tuner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

namespace occtune {
namespace {

Timing to_timing(SampleBatch batch) {
  Timing t;
  t.samples_ms = std::move(batch.samples_ms);
  t.summary = summarize(t.samples_ms);
  t.sm_clock_mhz = batch.sm_clock_mhz;
  return t;
}

// Check, then time: one sample first to size the rest, so a very slow candidate gets fewer
// samples (never fewer than 5) instead of eating the run; the count taken is stored.
Measurement measure_candidate(MeasurementBackend& backend, const Candidate& candidate,
                              const TimingPolicy& policy) {
  Measurement m = backend.check(candidate);
  if (m.outcome != Outcome::kOk) return m;
  SampleBatch first = backend.samples(candidate, 1);
  if (first.outcome == Outcome::kOk && policy.samples > 1) {
    const double ms = std::max(first.samples_ms.front(), 1e-3);
    const int affordable = int(policy.max_seconds_per_candidate * 1000.0 / ms);
    const int more = std::clamp(affordable, std::min(5, policy.samples), policy.samples) - 1;
    SampleBatch rest = backend.samples(candidate, more);
    first.samples_ms.insert(first.samples_ms.end(), rest.samples_ms.begin(), rest.samples_ms.end());
    first.sm_clock_mhz = rest.sm_clock_mhz;
    first.outcome = rest.outcome;
    first.error = rest.error;
  }
  if (first.outcome != Outcome::kOk) {
    m.outcome = first.outcome;
    m.error = first.error;
    return m;
  }
  m.timing = to_timing(std::move(first));
  return m;
}

}  // namespace

int pick_winner(const std::vector<Measurement>& ms) {
  int best = -1;
  for (int i = 0; i < int(ms.size()); ++i) {
    if (ms[size_t(i)].outcome != Outcome::kOk) continue;
    if (best < 0 || ms[size_t(i)].timing.summary.median < ms[size_t(best)].timing.summary.median)
      best = i;
  }
  return best;
}

TuneOutcome run_tune(MeasurementBackend& backend, db::Store& store, const TuneRequest& request,
                     const TuneEvents& events, const std::atomic<bool>& interrupted) {
  const DeviceInfo& device = backend.device();
  std::vector<std::vector<Plan>> plans;
  int total = 0;
  for (auto& shape : request.shapes) {
    plans.emplace_back();
    for (auto& name : request.kernels) {
      plans.back().push_back(backend.plan(*kernels::find_family(name), shape, request.min_tile));
      total += int(plans.back().back().candidates.size());
    }
  }
  TuneOutcome outcome;
  int done = 0;
  for (size_t si = 0; si < request.shapes.size(); ++si) {
    if (interrupted || outcome.context_lost) break;
    const Shape shape = request.shapes[si];
    backend.open_shape(shape, request.policy);
    ShapeResult result{shape, to_timing(backend.reference_samples(request.policy.samples)), {}};
    for (auto& plan : plans[si]) {
      if (interrupted || outcome.context_lost) break;
      KernelResult kr;
      kr.kernel = plan.family;
      kr.run_id = store.begin_run({device, plan.family, request.build_id, "f32", shape,
                                   request.tool_version, request.argv, request.policy});
      store.set_reference(kr.run_id, result.cublas);
      for (auto& candidate : plan.candidates) {
        if (interrupted) break;
        Measurement m = measure_candidate(backend, candidate, request.policy);
        store.add_measurement(kr.run_id, m);  // committed at once: an interrupt loses nothing
        if (m.outcome == Outcome::kCrashed) outcome.context_lost = true;
        if (events.on_measurement) events.on_measurement(shape, plan.family, m, ++done, total);
        kr.measurements.push_back(std::move(m));
        if (outcome.context_lost) break;
      }
      const auto status = interrupted            ? db::RunStatus::kInterrupted
                          : outcome.context_lost ? db::RunStatus::kFailed
                                                 : db::RunStatus::kComplete;
      store.finish_run(kr.run_id, status);
      kr.winner = pick_winner(kr.measurements);
      if (kr.winner < 0 && status == db::RunStatus::kComplete)
        spdlog::warn("{} at {}: no candidate passed; nothing is cached for this key", plan.family,
                     shape.str());
      result.kernels.push_back(std::move(kr));
    }
    if (events.on_shape) events.on_shape(result);
    outcome.shapes.push_back(std::move(result));
  }
  outcome.interrupted = interrupted;
  return outcome;
}

}  // namespace occtune
