// `occtune check` on the GPU: for each key of a job, re-check and re-time the cached winner and
// its nearest runners-up against the stored baseline, re-measure a suspected SLOW once, and judge
// with the gate (gate.hpp). It only reads the store; nothing it measures is written back, so a
// check never changes what the cache serves.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/engine/gate.hpp"
#include "autotuner/core/measurement_sink.hpp"

namespace occtune::gate {

struct CheckRequest {
  std::vector<std::string> kernels;
  std::vector<Shape> shapes;
  Layout layout = Layout::kNN;  // of every shape (part of the key)
  int min_tile = 0;
  // Re-measurement protocol: per configuration policy.samples timed samples (fewer, at least 5,
  // when that would exceed max_seconds_per_candidate), taken in interleaved batches of
  // kCheckBatch so slow drifts of the machine hit the winner and its runners-up alike.
  TimingPolicy policy;
  GateOptions gate;
  std::string build_id;  // of this binary's kernels
  // Testing the gate: family -> family launched in its place with the same parameters
  // (e.g. tiled_dynamic -> tiled_dynamic_slow, a deliberately slowed copy).
  std::map<std::string, std::string> kernel_override;
};

inline constexpr int kCheckBatch = 5;

struct CheckEvents {
  std::function<void(const std::string& what)> on_progress;
  std::function<void(const KeyVerdict&)> on_key;
};

GateReport run_check(MeasurementBackend& backend, RunHistory& store, const CheckRequest& request,
                     const CheckEvents& events);

}  // namespace occtune::gate
