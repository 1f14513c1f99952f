// The timing half of a bench, shared by the GEMM ShapeBench and the user kernels' UserBench:
// a stream, the L2 flush buffer, CUDA-event samples of any launch (design.md section 5), the
// warm-up of a candidate's first batch, and the classification of launch failures.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"

namespace occtune::cuda {

// invalid_config, exceeds_limits or launch_failed for an error returned at launch.
Outcome classify_launch_error(cudaError_t err);

class LaunchSampler {
 public:
  using Launch = std::function<cudaError_t()>;

  // Creates the stream and, when the policy flushes L2, a flush buffer of 2x L2.
  LaunchSampler(const DeviceInfo& device, const TimingPolicy& policy);
  ~LaunchSampler();
  LaunchSampler(const LaunchSampler&) = delete;
  LaunchSampler& operator=(const LaunchSampler&) = delete;

  cudaStream_t stream() const { return stream_; }
  int read_clock() const;  // the SM clock (NVML), 0 when unknown

  // `count` timed launches, each after an L2 flush, a pair of CUDA events around the launch
  // alone. The whole batch is queued and synchronised once: no host round trip per sample, and
  // no idle gap between samples for the clocks to drop in. The batch's clock is the lower of the
  // readings before and after it. Returns the first launch or synchronisation error.
  cudaError_t sample_launches(const Launch& launch, int count, SampleBatch& batch);
  // policy.warmup untimed launches (each after a flush), then a synchronisation.
  cudaError_t warm_up(const Launch& launch);
  // A candidate's batch: its warm-up the first time `key` is sampled, then `count` samples;
  // a failure is recorded in the batch (and a sticky one marks the context lost).
  SampleBatch candidate_samples(const std::string& key, const Launch& launch, int count);
  // Records a failure while sampling: a launch-time refusal leaves the stream healthy, an error
  // at synchronisation (illegal address, trap) is sticky and ends this context.
  void fail_batch(cudaError_t err, SampleBatch& batch);

  // True after a sticky error (illegal address, trap): this process's context is unusable.
  bool lost = false;
  // Why a candidate after that is not run (its check's error, or its batch's).
  static constexpr const char* kNotRun =
      "not run: an earlier candidate left the CUDA context unusable";
  // A `crashed` batch saying so when the context is lost; nullopt while it is usable.
  std::optional<SampleBatch> refused_batch() const;
  // True, with `m`'s outcome and error set, when a candidate's check cannot run: the context
  // is lost (crashed) or the device cannot run it (exceeds_limits, its rejection).
  bool refuse_check(const Candidate& candidate, Measurement& m) const;

 private:
  void flush_l2();
  DeviceInfo device_;
  TimingPolicy policy_;
  cudaStream_t stream_ = nullptr;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  std::vector<cudaEvent_t> events_;  // start/stop pairs of one batch, created on demand
  std::vector<std::string> warmed_;  // candidates whose warm-up has run
};

}  // namespace occtune::cuda
