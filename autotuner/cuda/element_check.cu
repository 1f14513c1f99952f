#include <algorithm>

#include "autotuner/core/element_bound.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "autotuner/cuda/element_check.cuh"

namespace occtune::cuda {
namespace {

// One atomic per offending element: a correct result has none, a wrong one ends the candidate.
__global__ void count_out_of_bound(const float* c, const float* ref, const float* magnitude,
                                   size_t count, double tolerance, unsigned long long* counters) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    if (within_element_bound(c[i], ref[i], magnitude[i], tolerance)) continue;
    atomicAdd(&counters[0], 1ull);
    atomicMin(&counters[1], static_cast<unsigned long long>(i));
  }
}

}  // namespace

ElementChecker::ElementChecker() {
  OCCTUNE_CUDA_CHECK(cudaMalloc(&counters_, 2 * sizeof(unsigned long long)));
}

ElementChecker::~ElementChecker() {
  if (counters_) OCCTUNE_CUDA_CHECK_NOTHROW(cudaFree(counters_));
}

ElementCheckReport ElementChecker::run(const float* c, const float* ref, const float* magnitude,
                                       std::size_t count, double tolerance, cudaStream_t stream,
                                       int max_blocks) {
  const unsigned long long init[2] = {0ull, ~0ull};
  OCCTUNE_CUDA_CHECK(cudaMemcpyAsync(counters_, init, sizeof init, cudaMemcpyHostToDevice, stream));
  const int blocks = int(std::min<size_t>((count + 255) / 256, size_t(std::max(max_blocks, 1))));
  if (count > 0)
    count_out_of_bound<<<std::max(blocks, 1), 256, 0, stream>>>(c, ref, magnitude, count, tolerance,
                                                                counters_);
  OCCTUNE_CUDA_CHECK(cudaGetLastError());
  unsigned long long host[2] = {0, 0};
  OCCTUNE_CUDA_CHECK(cudaMemcpyAsync(host, counters_, sizeof host, cudaMemcpyDeviceToHost, stream));
  OCCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  ElementCheckReport r;
  r.violations = size_t(host[0]);
  if (r.violations == 0) return r;
  r.first = size_t(host[1]);
  OCCTUNE_CUDA_CHECK(cudaMemcpy(&r.c, c + r.first, sizeof(float), cudaMemcpyDeviceToHost));
  OCCTUNE_CUDA_CHECK(cudaMemcpy(&r.ref, ref + r.first, sizeof(float), cudaMemcpyDeviceToHost));
  OCCTUNE_CUDA_CHECK(
      cudaMemcpy(&r.magnitude, magnitude + r.first, sizeof(float), cudaMemcpyDeviceToHost));
  return r;
}

}  // namespace occtune::cuda
