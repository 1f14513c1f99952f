// A stand-in for `occtune __worker` with no GPU, for the isolation tests: it speaks the real
// protocol through isolation::serve() over a backend that fakes the device (the h100 profile)
// and acts out each planted fault (kernels/planted_faults.cu) the way the real worker meets it:
// fault=4 reports a sticky error and leaves, fault=5 dies without an answer (abort), fault=6
// never answers. Environment: FAKE_WORKER_NO_GPU=1 fails the start-up like a machine without
// a GPU; FAKE_WORKER_LOG=FILE appends one line per request it serves; FAKE_WORKER_HANG_SAMPLES=1
// makes every samples request hang; FAKE_WORKER_DEVICES=h100,h100,a100 makes it a machine with
// these GPUs (profile names, UUIDs GPU-fa4e000<index>-...) and selects one by --device's rules.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/device_selector.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/isolation/worker_process.hpp"
#include "autotuner/isolation/worker_server.hpp"

namespace occtune {
namespace {

void log_line(const std::string& what) {
  if (const char* path = std::getenv("FAKE_WORKER_LOG"))
    std::ofstream(path, std::ios::app) << ::getpid() << ' ' << what << '\n';
}

[[noreturn]] void hang() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

class FakeBackend final : public MeasurementBackend {
 public:
  explicit FakeBackend(const std::string& selector) : device_(select(selector)), oracle_(device_) {}

  static DeviceInfo make_device(const std::string& profile, int index) {
    DeviceInfo d = load_device_profile(profile);
    d.index = index;
    d.uuid = "GPU-fa4e000" + std::to_string(index) + "-1111-2222-3333-444455556666";
    d.source = "fake worker";
    d.driver_version = 13000;
    d.runtime_version = 13000;
    return d;
  }
  // Without FAKE_WORKER_DEVICES: one H100, whatever the selector says.
  static DeviceInfo select(const std::string& selector) {
    const char* list = std::getenv("FAKE_WORKER_DEVICES");
    if (!list) return make_device("h100", 0);
    std::vector<DeviceInfo> devices;
    std::string text = list;
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      devices.push_back(make_device(text.substr(start, comma - start), int(devices.size())));
      start = comma + 1;
    }
    return match_device(devices, parse_device_selector(selector));
  }

  const DeviceInfo& device() const override { return device_; }
  Plan plan(const kernels::FamilyInfo& family, Shape shape, int min_tile,
            Layout layout) override {
    log_line("plan " + family.name + (layout == Layout::kNN ? "" : std::string(" ") +
                                                                       layout_name(layout)));
    return plan_family(family, device_, shape, oracle_, min_tile, layout);
  }
  void open_shape(Shape shape, Layout layout, const TimingPolicy&) override {
    if (shape.m == 99999)
      fail(ExitCode::kUsage, "shape " + shape.str() + " does not fit; choose a smaller shape");
    log_line("open_shape " + shape.str() +
             (layout == Layout::kNN ? "" : std::string(" ") + layout_name(layout)));
    layout_ = layout;
    open_ = true;
  }
  SampleBatch reference_samples(int count) override {
    SampleBatch b;
    b.samples_ms.assign(std::size_t(count), 1.0);
    return b;
  }
  Measurement check(const Candidate& c) override {
    log_line("check " + c.variant->symbol);
    if (!open_) fail(ExitCode::kRuntime, "fake worker: check before open_shape");
    if (c.variant->layout != layout_)
      fail(ExitCode::kRuntime, "fake worker: a " + std::string(layout_name(c.variant->layout)) +
                                   " candidate on a shape open as " + layout_name(layout_));
    Measurement m;
    m.candidate = c;
    m.rel_error = 1e-7;
    if (!c.rejection.empty()) {
      m.outcome = Outcome::kExceedsLimits;
      m.error = c.rejection;
      return m;
    }
    switch (c.variant->family == "planted_faults" ? c.variant->param("fault") : 0) {
      case 1:
        m.outcome = Outcome::kWrongResult;
        m.rel_error = 1e-3;
        m.error = "relative Frobenius error 0.001 exceeds the tolerance 1e-05";
        break;
      case 3:
        m.outcome = Outcome::kInvalidConfig;
        m.error = "cudaErrorInvalidConfiguration: invalid configuration argument";
        break;
      case 4:
        m.outcome = Outcome::kCrashed;
        m.error = "cudaErrorIllegalAddress: an illegal memory access was encountered";
        break;
      case 5:
        std::abort();
      case 6:
        hang();
      default:
        break;
    }
    return m;
  }
  SampleBatch samples(const Candidate& c, int count) override {
    log_line("samples " + c.variant->symbol);
    if (std::getenv("FAKE_WORKER_HANG_SAMPLES")) hang();
    SampleBatch b;
    const double ms = c.variant->family == "planted_faults" ? 0.5 : 2.0 + c.threads * 1e-3;
    b.samples_ms.assign(std::size_t(count), ms);
    return b;
  }
  std::string description() const override { return "fake"; }

 private:
  DeviceInfo device_;
  OfflineOccupancy oracle_;
  bool open_ = false;
  Layout layout_ = Layout::kNN;
};

}  // namespace
}  // namespace occtune

int main() {
  ::signal(SIGINT, SIG_IGN);
  const int code =
      occtune::isolation::serve(occtune::isolation::kWorkerFd, [](const std::string& selector) {
        if (std::getenv("FAKE_WORKER_NO_GPU"))
          occtune::fail(occtune::ExitCode::kRuntime,
                        "no CUDA device is visible (fake); run `occtune plan --profile h100`");
        return std::unique_ptr<occtune::MeasurementBackend>(new occtune::FakeBackend(selector));
      });
  if (code != occtune::isolation::kWorkerDone) ::_exit(code);
  return code;
}
