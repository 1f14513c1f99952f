// run_tune_on_devices: a thread per GPU around the unchanged single-device engine. The threads
// share nothing but the store file (one connection each) and the event sink (one mutex).
#include "autotuner/engine/multi_tune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

#include "autotuner/core/device_peaks.hpp"

namespace occtune {

Spread parse_spread(std::string_view text) {
  if (text == "shapes") return Spread::kShapes;
  if (text == "none") return Spread::kNone;
  fail(ExitCode::kUsage, fmt::format("--spread '{}' is not known; use 'shapes' (GPUs of one model "
                                     "split the shapes) or 'none' (every GPU tunes every shape)",
                                     text));
}

double expected_tuning_s(const DeviceInfo& device, Shape shape) {
  // Measured on four H200s (docs/results/2026-11-28-h200-wave8, call G, regblocked): a shape
  // after the first took 0.10-0.13 s when small and 0.667 s at 4096^3, whose FMA work at the
  // peak rate is 2.05 ms: about 0.1 s plus 250 launches' worth of FMA time. Without a peak
  // (a device info with no clock or SM count) every shape counts the same.
  constexpr double kFixedS = 0.1, kLaunches = 250;
  const double peak = fma_peak_flops(device);
  return kFixedS + (peak > 0 ? kLaunches * shape.flops() / peak : 0.0);
}

std::vector<std::vector<Shape>> assign_shapes(const std::vector<DeviceInfo>& devices,
                                              const std::vector<Shape>& shapes, Spread spread) {
  std::vector<std::vector<Shape>> out(devices.size());
  if (spread == Spread::kNone) {
    for (auto& list : out) list = shapes;
    return out;
  }
  std::map<std::string, std::vector<std::size_t>> by_model;
  for (std::size_t d = 0; d < devices.size(); ++d) by_model[devices[d].name].push_back(d);
  for (auto& [model, members] : by_model) {
    // Longest expected first, each to the member with the least expected work so far (the
    // first such member on a tie): deterministic, and it keeps one costly shape from sharing
    // a GPU with a round-robin share of the rest. Each GPU then tunes its shapes in the order
    // they were named.
    std::vector<double> expected;
    for (const Shape& shape : shapes)
      expected.push_back(expected_tuning_s(devices[members.front()], shape));
    std::vector<std::size_t> order(shapes.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return expected[a] > expected[b]; });
    std::vector<double> load(members.size(), 0.0);
    std::vector<std::vector<std::size_t>> picked(members.size());
    for (std::size_t s : order) {
      const std::size_t m = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
      load[m] += expected[s];
      picked[m].push_back(s);
    }
    for (std::size_t m = 0; m < members.size(); ++m) {
      std::sort(picked[m].begin(), picked[m].end());
      for (std::size_t s : picked[m]) out[members[m]].push_back(shapes[s]);
    }
  }
  return out;
}

std::vector<DeviceTune> run_tune_on_devices(const std::vector<MeasurementBackend*>& backends,
                                            const SinkFactory& make_sink,
                                            const TuneRequest& request, Spread spread,
                                            const MultiTuneEvents& events,
                                            const std::atomic<bool>& interrupted) {
  std::vector<DeviceInfo> devices;
  for (auto* b : backends) devices.push_back(b->device());
  const auto assigned = assign_shapes(devices, request.shapes, spread);
  std::vector<DeviceTune> results(backends.size());
  std::mutex events_mutex;

  auto tune_one = [&](std::size_t d) {
    DeviceTune& r = results[d];
    r.shapes = assigned[d];
    if (r.shapes.empty()) return;
    TuneRequest mine = request;
    mine.shapes = r.shapes;
    mine.reference_clock_mhz = backends[d]->throttle_reference_clock_mhz();
    TuneEvents ev;
    if (events.on_progress)
      ev.on_progress = [&, d](const TuneProgress& p) {
        std::lock_guard lock(events_mutex);
        events.on_progress(d, p);
      };
    if (events.on_shape)
      ev.on_shape = [&, d](const ShapeResult& s) {
        std::lock_guard lock(events_mutex);
        events.on_shape(d, s);
      };
    try {
      const std::unique_ptr<MeasurementSink> sink = make_sink();  // this thread's own
      r.outcome = run_tune(*backends[d], *sink, mine, ev, interrupted);
    } catch (const Error& e) {
      r.error = e.what();
      r.error_code = e.code();
    } catch (const std::exception& e) {
      r.error = e.what();
      r.error_code = ExitCode::kRuntime;
    }
  };

  // One device runs on the calling thread, as a tune always did: an in-process backend's CUDA
  // context is current on the thread that made it.
  if (backends.size() == 1) {
    tune_one(0);
    return results;
  }
  std::vector<std::thread> threads;
  threads.reserve(backends.size());
  for (std::size_t d = 0; d < backends.size(); ++d) threads.emplace_back(tune_one, d);
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace occtune
