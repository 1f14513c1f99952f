#include "autotuner/cuda/in_process_backend.hpp"

#include "autotuner/core/error.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/cuda/nvml_clock.hpp"
#include "autotuner/cuda/runtime_occupancy.hpp"
#include "autotuner/cuda/shape_bench.hpp"
#include "autotuner/cuda/user_bench.hpp"

namespace occtune::cuda {
namespace {

class InProcessBackend final : public MeasurementBackend {
 public:
  explicit InProcessBackend(DeviceInfo device) : device_(std::move(device)), oracle_(device_) {}

  const DeviceInfo& device() const override { return device_; }

  Plan plan(const kernels::FamilyInfo& family, Shape shape, int min_tile,
            Layout layout) override {
    return plan_family(family, device_, shape, oracle_, min_tile, layout);
  }

  void open_shape(Shape shape, Layout layout, const TimingPolicy& policy) override {
    workload_.reset();  // free the previous problem's buffers first
    workload_ = std::make_unique<ShapeBench>(device_, shape, policy, layout);
  }

  void open_user_problem(const std::string& family, Shape problem,
                         const TimingPolicy& policy) override {
    workload_.reset();
    const UserFamily* f = find_user_family(family);
    if (!f) throw Error(ExitCode::kRuntime, "internal: '" + family + "' is no user kernel family");
    workload_ = std::make_unique<UserBench>(device_, *f, problem, policy);
  }

  SampleBatch reference_samples(int count) override { return open().reference_samples(count); }
  Measurement check(const Candidate& c) override { return open().check(c); }
  SampleBatch samples(const Candidate& c, int count) override { return open().samples(c, count); }

  std::string description() const override { return "in-process on " + device_.uuid; }
  int throttle_reference_clock_mhz() const override {
    const int mhz = NvmlClock::instance().default_sm_clock_mhz(device_.uuid);
    return mhz > 0 ? mhz : device_.clock_khz / 1000;
  }

 private:
  Workload& open() {
    if (!workload_) throw Error(ExitCode::kRuntime, "internal: no problem is open in the backend");
    return *workload_;
  }
  DeviceInfo device_;
  RuntimeOccupancy oracle_;
  std::unique_ptr<Workload> workload_;  // the open GEMM shape's or user family problem's bench
};

}  // namespace

std::unique_ptr<MeasurementBackend> make_in_process_backend(const std::string& device_selector) {
  return std::make_unique<InProcessBackend>(select_device(device_selector));
}

}  // namespace occtune::cuda
