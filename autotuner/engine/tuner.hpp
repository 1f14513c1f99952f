// The tuning engine: for each shape and kernel family, plan on the backend, check and time every
// candidate, and store each measurement the moment it exists. It runs in the parent process and
// never touches CUDA itself (all GPU work goes through MeasurementBackend).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/engine/tune_result.hpp"
#include "db/store.hpp"

namespace occtune {

struct TuneRequest {
  std::vector<std::string> kernels;
  std::vector<Shape> shapes;
  int min_tile = 0;
  TimingPolicy policy;
  std::vector<std::string> argv;  // provenance
  std::string tool_version;
  std::string build_id;
};

struct TuneEvents {
  // A candidate finished (measured or failed): for progress reporting.
  std::function<void(const Shape&, const std::string& kernel, const Measurement&, int done,
                     int total)>
      on_measurement;
  std::function<void(const ShapeResult&)> on_shape;
};

struct TuneOutcome {
  std::vector<ShapeResult> shapes;
  bool interrupted = false;
  bool context_lost = false;  // in-process only: a sticky CUDA error ended the run
};

TuneOutcome run_tune(MeasurementBackend& backend, db::Store& store, const TuneRequest& request,
                     const TuneEvents& events, const std::atomic<bool>& interrupted);

}  // namespace occtune
