// Tuning on several GPUs at once (issue #17): one thread per device runs the single-device engine
// (run_tune) on that device's own backend, so each GPU is measured exactly as it would be alone,
// while the parent process stays the only writer of the store. GPUs of one model split the shapes
// between them (Spread::kShapes) or each tunes every shape (Spread::kNone).
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/engine/tuner.hpp"

namespace occtune {

enum class Spread { kShapes, kNone };

// "shapes" or "none"; anything else is Error(kUsage) naming the value.
Spread parse_spread(std::string_view text);

// The shapes each device tunes, in the order of `devices`. kNone: all of them everywhere.
// kShapes: devices of one model (the same name) split the shapes so that each is measured once
// per model and the expected tuning time (expected_tuning_s) is balanced: the longest first,
// each to the device with the least so far; every device keeps the order the shapes were named.
std::vector<std::vector<Shape>> assign_shapes(const std::vector<DeviceInfo>& devices,
                                              const std::vector<Shape>& shapes, Spread spread);

// The tuning time a shape is expected to take on `device`, for balancing the split only.
double expected_tuning_s(const DeviceInfo& device, Shape shape);

struct DeviceTune {
  std::vector<Shape> shapes;  // assigned to this device
  TuneOutcome outcome;
  // A device whose tune stopped on an error (its worker could not start, a shape did not fit):
  // the message and code; the other devices went on.
  std::string error;
  ExitCode error_code = ExitCode::kOk;
};

// Events from the device threads, one at a time (the engine serialises them), with the index of
// the device in `backends`.
struct MultiTuneEvents {
  std::function<void(std::size_t device, const TuneProgress&)> on_progress;
  std::function<void(std::size_t device, const ShapeResult&)> on_shape;
};

// Runs run_tune on every backend at once, each on its own thread with its own sink from
// `make_sink`. Each device gets the request with its assigned shapes, its own throttle reference
// clock and the whole time budget (the devices run side by side). A device with no shape
// assigned does not run. One device runs on the calling thread. Returns when every device has
// finished, stopped or failed.
std::vector<DeviceTune> run_tune_on_devices(const std::vector<MeasurementBackend*>& backends,
                                            const SinkFactory& make_sink,
                                            const TuneRequest& request, Spread spread,
                                            const MultiTuneEvents& events,
                                            const std::atomic<bool>& interrupted);

}  // namespace occtune
