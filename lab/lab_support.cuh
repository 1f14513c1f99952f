// What the lab programs (lab/*.cu, scratch programs whose output docs/PERFORMANCE.md quotes)
// share: a CUDA error check that exits, a deterministic operand fill, and a sample timed as
// occtune times one (with occtune's own L2 flush, compiled in: build the labs with -I. from
// the repository root). Not part of occtune.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "autotuner/cuda/l2_flush.cu"

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// p[i] in [-1, 1) from a hash of i and the seed: 16 random mantissa bits, or with `full` every
// bit of the mantissa (as occtune's generator; docs/results/2026-11-29-h200-wave12/, call N).
__global__ void fill(float* p, std::size_t n, unsigned seed, bool full = false) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = full ? float(h >> 8) / 8388608.0f - 1.0f : float(h & 0xffff) / 32768.0f - 1.0f;
  }
}

// One timed sample as `occtune bench` takes it: the L2 flushed before the sample (since wave 22
// a read of a zeroed buffer of twice its size, which leaves only clean lines; until then a
// memset, whose dirty lines the timed launch wrote back: docs/PERFORMANCE.md, "The L2 flush"),
// events around `launch`, the milliseconds between them. `round` is kept for the callers.
struct FlushTimer {
  cudaEvent_t start, stop;
  void* flush;
  std::size_t flush_bytes;
  cudaStream_t stream;
  int blocks;
  explicit FlushTimer(cudaStream_t s = nullptr) : stream(s) {
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    int l2 = 0, sms = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    blocks = 4 * sms;
    flush_bytes = (std::size_t(l2) * 2 + 15) / 16 * 16;
    CK(cudaMalloc(&flush, flush_bytes + 16));
    CK(cudaMemset(flush, 0, flush_bytes + 16));
  }
  template <class F>
  float sample_ms(F&& launch, int /*round*/) {
    CK(occtune::cuda::read_to_evict_l2(
        flush, flush_bytes, reinterpret_cast<float*>(static_cast<char*>(flush) + flush_bytes),
        blocks, stream));
    CK(cudaEventRecord(start, stream));
    launch();
    CK(cudaEventRecord(stop, stream));
    CK(cudaEventSynchronize(stop));
    float ms;
    CK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

inline float median_of(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The largest |got - want| over the outputs, 1e30 where got is NaN (C is NaN-poisoned before
// the launch, so an output never written shows).
inline double worst_abs_error(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(double(got[i]) - want[i]);
    worst = std::isnan(got[i]) ? 1e30 : std::max(worst, d);
  }
  return worst;
}
