// run_tune_on_devices: a thread per GPU around the unchanged single-device engine. The threads
// share nothing but the store file (one connection each) and the event sink (one mutex).
#include "autotuner/engine/multi_tune.hpp"

#include <fmt/format.h>

#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace occtune {

Spread parse_spread(std::string_view text) {
  if (text == "shapes") return Spread::kShapes;
  if (text == "none") return Spread::kNone;
  fail(ExitCode::kUsage, fmt::format("--spread '{}' is not known; use 'shapes' (GPUs of one model "
                                     "split the shapes) or 'none' (every GPU tunes every shape)",
                                     text));
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
  for (auto& [model, members] : by_model)
    for (std::size_t s = 0; s < shapes.size(); ++s)
      out[members[s % members.size()]].push_back(shapes[s]);
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
