// Measures the candidates of a user kernel family (occtune/kernel.hpp) on one problem: the
// family's buffers allocated, its inputs filled with seeded random values, its reference run
// once (on host copies of them, or on the device into copies of the outputs), every output
// NaN-poisoned before each checked launch and compared with the family's norm and tolerance;
// samples timed like a GEMM's (LaunchSampler).
#pragma once

#include <memory>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/cuda/workload.hpp"

namespace occtune::cuda {

class UserBench final : public Workload {
 public:
  // Throws Error(kUsage) naming the family when its buffers are not usable (none, no output, an
  // empty one), do not fit in the device's free memory, or its reference leaves an output NaN;
  // Error(kRuntime) when its device reference fails.
  UserBench(const DeviceInfo& device, const UserFamily& family, Shape problem,
            const TimingPolicy& policy);
  ~UserBench() override;
  UserBench(const UserBench&) = delete;
  UserBench& operator=(const UserBench&) = delete;

  Measurement check(const Candidate& candidate) override;
  SampleBatch samples(const Candidate& candidate, int count) override;
  // A user family has no speed reference: Error(kRuntime), which the engine never triggers.
  SampleBatch reference_samples(int count) override;
  const UserFamily& family() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The relative Frobenius error (or the largest absolute difference) of `out` against `ref`;
// NaN when `out` holds a NaN. Host-side, shared with the unit tests.
double compare_outputs(const std::vector<float>& out, const std::vector<float>& ref,
                       Comparison::Norm norm);

}  // namespace occtune::cuda
