// LaunchSampler (autotuner/cuda/launch_sampler.cuh).
#include "autotuner/cuda/launch_sampler.cuh"

#include <algorithm>

#include "autotuner/cuda/cuda_check.cuh"
#include "autotuner/cuda/l2_flush.cuh"
#include "autotuner/cuda/nvml_clock.hpp"

namespace occtune::cuda {
namespace {

// The lowest of two nonzero clock readings (0 when neither is known).
int lower_clock(int a, int b) {
  if (a <= 0) return b;
  if (b <= 0) return a;
  return std::min(a, b);
}

}  // namespace

Outcome classify_launch_error(cudaError_t err) {
  switch (err) {
    case cudaErrorInvalidValue:
    case cudaErrorInvalidConfiguration:
      return Outcome::kInvalidConfig;
    case cudaErrorLaunchOutOfResources:
      return Outcome::kExceedsLimits;
    default:
      return Outcome::kLaunchFailed;
  }
}

LaunchSampler::LaunchSampler(const DeviceInfo& device, const TimingPolicy& policy)
    : device_(device), policy_(policy) {
  OCCTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  if (policy.flush_l2) {
    // 2x L2 evicts everything resident. Zeros (read_to_evict_l2 writes its sink, the float past
    // the buffer, only when they are not), set once: the flush itself only reads.
    flush_bytes_ = (2 * std::size_t(device.l2_bytes) + 15) / 16 * 16;
    OCCTUNE_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_ + sizeof(float)));
    OCCTUNE_CUDA_CHECK(cudaMemsetAsync(flush_, 0, flush_bytes_ + sizeof(float), stream_));
  }
}

LaunchSampler::~LaunchSampler() {
  for (auto e : events_) OCCTUNE_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
  if (flush_) OCCTUNE_CUDA_CHECK_NOTHROW(cudaFree(flush_));
  if (stream_) OCCTUNE_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
}

int LaunchSampler::read_clock() const { return NvmlClock::instance().sm_clock_mhz(device_.uuid); }

void LaunchSampler::flush_l2() {
  if (!policy_.flush_l2 || !flush_bytes_) return;
  auto* sink = reinterpret_cast<float*>(static_cast<char*>(flush_) + flush_bytes_);
  OCCTUNE_CUDA_CHECK(
      read_to_evict_l2(flush_, flush_bytes_, sink, 4 * std::max(device_.sm_count, 1), stream_));
}

cudaError_t LaunchSampler::sample_launches(const Launch& launch, int count, SampleBatch& batch) {
  count = std::max(count, 0);
  while (int(events_.size()) < 2 * count) {
    cudaEvent_t e = nullptr;
    OCCTUNE_CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
  }
  const int clock_before = read_clock();
  for (int i = 0; i < count; ++i) {
    flush_l2();
    OCCTUNE_CUDA_CHECK(cudaEventRecord(events_[size_t(2 * i)], stream_));
    if (auto err = launch(); err != cudaSuccess) return err;
    OCCTUNE_CUDA_CHECK(cudaEventRecord(events_[size_t(2 * i + 1)], stream_));
  }
  if (count > 0) {
    if (auto err = cudaEventSynchronize(events_[size_t(2 * count - 1)]); err != cudaSuccess)
      return err;
  }
  for (int i = 0; i < count; ++i) {
    float ms = 0;
    OCCTUNE_CUDA_CHECK(
        cudaEventElapsedTime(&ms, events_[size_t(2 * i)], events_[size_t(2 * i + 1)]));
    batch.samples_ms.push_back(double(ms));
  }
  batch.sm_clock_mhz = lower_clock(clock_before, read_clock());
  return cudaSuccess;
}

cudaError_t LaunchSampler::warm_up(const Launch& launch) {
  for (int i = 0; i < policy_.warmup; ++i) {
    flush_l2();
    if (auto err = launch(); err != cudaSuccess) return err;
  }
  return cudaStreamSynchronize(stream_);
}

void LaunchSampler::fail_batch(cudaError_t err, SampleBatch& batch) {
  lost = cudaStreamSynchronize(stream_) != cudaSuccess;
  batch.outcome = lost ? Outcome::kCrashed : classify_launch_error(err);
  batch.error = describe(err);
}

std::optional<SampleBatch> LaunchSampler::refused_batch() const {
  if (!lost) return std::nullopt;
  SampleBatch batch;
  batch.outcome = Outcome::kCrashed;
  batch.error = kNotRun;
  return batch;
}

bool LaunchSampler::refuse_check(const Candidate& candidate, Measurement& m) const {
  if (lost) {
    m.outcome = Outcome::kCrashed;
    m.error = kNotRun;
  } else if (!candidate.rejection.empty()) {
    m.outcome = Outcome::kExceedsLimits;
    m.error = candidate.rejection;
  }
  return lost || !candidate.rejection.empty();
}

SampleBatch LaunchSampler::candidate_samples(const std::string& key, const Launch& launch,
                                             int count) {
  SampleBatch batch;
  if (std::find(warmed_.begin(), warmed_.end(), key) == warmed_.end()) {
    if (auto err = warm_up(launch); err != cudaSuccess) {
      fail_batch(err, batch);
      return batch;
    }
    warmed_.push_back(key);
  }
  if (auto err = sample_launches(launch, count, batch); err != cudaSuccess) fail_batch(err, batch);
  return batch;
}

}  // namespace occtune::cuda
