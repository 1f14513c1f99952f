// The tuning engine: for each shape and kernel family, plan on the backend, verify every
// candidate, race them in interleaved rounds under the chosen strategy, decide the winner with
// its tie band, and store each measurement when it leaves the race. It runs in the parent
// process and never touches CUDA itself (all GPU work goes through MeasurementBackend).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/search_strategy.hpp"
#include "autotuner/engine/tune_result.hpp"
#include "autotuner/core/measurement_sink.hpp"

namespace occtune {

struct TuneRequest {
  std::vector<std::string> kernels;
  std::vector<Shape> shapes;
  Layout layout = Layout::kNN;  // of every shape: variants of this layout only
  int min_tile = 0;
  TimingPolicy policy;
  SearchSettings search;
  bool force = false;             // measure again even what the store already has
  // Time cuBLAS a second time after each shape's races (occtune bench): one reference set can
  // catch the GPU or the library in a slow state, which would flatter every ratio of that shape.
  bool reference_after = false;
  int reference_clock_mhz = 0;    // throttle reference (NVML default SM clock); 0 = unknown
  std::vector<std::string> argv;  // provenance
  std::string tool_version;
  std::string build_id;
  // Monotonic seconds; empty = std::chrono::steady_clock. Tests inject a simulated clock.
  std::function<double()> clock;
};

struct TuneProgress {
  Shape shape;
  std::string kernel;
  std::string phase;  // "check", "screen", "round 2", "final", "confirm", "reference"
  int done = 0;       // candidates settled, over the whole tune
  int total = 0;
  std::string best;  // best so far in this family ("tile=32"), "" for none yet
  double best_ms = 0;
  double elapsed_s = 0;
  double eta_s = -1;  // < 0: unknown
};

struct TuneEvents {
  std::function<void(const TuneProgress&)> on_progress;
  std::function<void(const ShapeResult&)> on_shape;
};

struct TuneOutcome {
  std::vector<ShapeResult> shapes;
  bool interrupted = false;
  bool budget_exhausted = false;
  bool context_lost = false;  // in-process only: a sticky CUDA error ended the run
  double wall_s = 0;          // tuning wall time: planning to the last decision
};

TuneOutcome run_tune(MeasurementBackend& backend, MeasurementSink& sink, const TuneRequest& request,
                     const TuneEvents& events, const std::atomic<bool>& interrupted);

}  // namespace occtune
