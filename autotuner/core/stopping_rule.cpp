// The stopping rule (docs/architecture.md "Measurement protocol") and the stop-reason spellings.
#include "autotuner/core/stopping_rule.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <utility>

namespace occtune {
namespace {

constexpr std::array<std::pair<StopReason, std::string_view>, 10> kStopNames = {{
    {StopReason::kNone, ""},
    {StopReason::kConverged, "converged"},
    {StopReason::kTimeout, "timeout"},
    {StopReason::kMaxSamples, "max_samples"},
    {StopReason::kEliminated, "eliminated"},
    {StopReason::kDropped, "dropped"},
    {StopReason::kBudget, "budget"},
    {StopReason::kInterrupted, "interrupted"},
    {StopReason::kPruned, "pruned"},
    {StopReason::kAbandoned, "abandoned"},
}};

}  // namespace

std::string_view to_string(StopReason reason) {
  for (auto& [r, name] : kStopNames)
    if (r == reason) return name;
  return "";
}

std::optional<StopReason> stop_reason_from_string(std::string_view text) {
  for (auto& [r, name] : kStopNames)
    if (name == text) return r;
  return std::nullopt;
}

StoppingRule StoppingRule::from(const TimingPolicy& p) {
  return {p.samples, p.min_time_s, p.target_noise, p.max_seconds_per_candidate, p.max_samples};
}

StopCheck evaluate(const StoppingRule& rule, const std::vector<double>& samples_ms) {
  StopCheck c;
  const int n = int(samples_ms.size());
  c.measured_s = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / 1000.0;
  if (n >= 2) c.noise = summarize(samples_ms).relative_iqr();
  if (n == 0) return c;
  if (n >= rule.max_samples) {
    c.stop = true;
    c.reason = StopReason::kMaxSamples;
  } else if (n >= rule.min_samples && c.measured_s >= rule.min_time_s &&
             c.noise <= rule.target_noise) {
    c.stop = true;
    c.reason = StopReason::kConverged;
  } else if (c.measured_s >= rule.timeout_s &&
             n >= std::min(rule.min_samples, kTimeoutFloorSamples)) {
    c.stop = true;
    c.reason = StopReason::kTimeout;
  }
  return c;
}

int next_batch(const StoppingRule& rule, const std::vector<double>& samples_ms, int batch) {
  const int n = int(samples_ms.size());
  int want = std::max(1, batch);
  if (n < rule.min_samples) want = std::min(want, rule.min_samples - n);
  want = std::min(want, std::max(1, rule.max_samples - n));
  if (n > 0) {
    const double spent = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / 1000.0;
    const double mean = spent / n;
    if (mean > 0) {
      // Slow candidates: stop asking once the timeout is spent, but let the floor be reached.
      const int floor_left = std::min(rule.min_samples, kTimeoutFloorSamples) - n;
      const int affordable = int(std::ceil((rule.timeout_s - spent) / mean));
      want = std::min(want, std::max({1, affordable, floor_left}));
    }
  }
  return want;
}

bool is_throttled(int clock_mhz, int reference_mhz, double ratio) {
  return clock_mhz > 0 && reference_mhz > 0 && double(clock_mhz) < ratio * double(reference_mhz);
}

}  // namespace occtune
