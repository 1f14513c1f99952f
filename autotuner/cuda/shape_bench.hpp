// Measures candidates of one shape on one GPU (design.md section 5): random inputs, a cuBLAS
// reference result, NaN-poisoned output (and split-K workspace) before every checked run,
// relative Frobenius error plus an element-wise bound against the magnitude of each element's
// dot-product terms (autotuner/core/element_bound.hpp), warm-up, CUDA-event samples with L2
// flushed before each, SM clock from NVML. The operands are
// stored as the layout says (op(A) = T: A is K x M), with tight leading dimensions, and the
// GEMM is C = 1 * op(A) op(B) + 0 * C, so C's poison must be overwritten.
#pragma once

#include <cstdint>
#include <memory>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/candidate.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/layout.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/cuda/workload.hpp"

namespace occtune::cuda {

class ShapeBench final : public Workload {
 public:
  // Checks the memory need against the device's free memory before allocating anything
  // (Error kUsage naming the shape when it cannot fit).
  ShapeBench(const DeviceInfo& device, Shape shape, const TimingPolicy& policy,
             Layout layout = Layout::kNN);
  ~ShapeBench() override;
  ShapeBench(const ShapeBench&) = delete;
  ShapeBench& operator=(const ShapeBench&) = delete;

  // cuBLAS SGEMM (fp32, no TF32) timed with the same protocol; measured once, on first call.
  const Timing& reference();
  // check() then warm-up and policy.samples timed samples: the whole protocol for one candidate.
  Measurement measure(const Candidate& candidate);

  // The pieces the tuning engine drives itself (see MeasurementBackend).
  SampleBatch reference_samples(int count) override;
  Measurement check(const Candidate& candidate) override;
  SampleBatch samples(const Candidate& candidate, int count) override;
  // True after a sticky error (illegal address, trap): this process's context is unusable.
  bool context_lost() const;
  // The warm-up until clocks settle that the constructor ran (policy.settle_ms and
  // settle_timeout_ms): the last SM clock read (0 without NVML) and how long it took.
  int settled_clock_mhz() const;
  double settle_seconds() const;

  // A, B, C, reference C, its element bounds, the L2 flush buffer and a margin.
  static std::uint64_t bytes_needed(const DeviceInfo& device, Shape shape);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace occtune::cuda
