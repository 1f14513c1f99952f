// read_to_evict_l2 (autotuner/cuda/l2_flush.cuh).
#include "autotuner/cuda/l2_flush.cuh"

namespace occtune::cuda {
namespace {

// Four 16-byte loads in flight a thread: the flush is a stretch of each sample's wall time, so
// it reads at about the HBM's speed rather than one load at a time.
__global__ void read_to_evict_kernel(const float4* __restrict__ in, std::size_t n4, float* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  float s = 0.0f;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    float4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < 4; ++u) s += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n4; i += stride) s += in[i].x + in[i].y + in[i].z + in[i].w;
  if (s != 0.0f) *sink = s;  // never for a buffer of zeros: no line is left dirty
}

}  // namespace

cudaError_t read_to_evict_l2(const void* buffer, std::size_t bytes, float* sink, int blocks,
                             cudaStream_t stream) {
  const int grid = blocks > 0 ? blocks : 1;
  read_to_evict_kernel<<<grid, 256, 0, stream>>>(static_cast<const float4*>(buffer), bytes / 16,
                                                 sink);
  return cudaGetLastError();
}

}  // namespace occtune::cuda
