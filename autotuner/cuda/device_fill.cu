// fill_uniform (autotuner/cuda/device_fill.cuh). Written here rather than taken from cuRAND: it
// is a few lines, deterministic per seed on every GPU, and keeps the 90 MB static cuRAND out of
// the binary.
#include "autotuner/cuda/device_fill.cuh"

namespace occtune::cuda {
namespace {

__global__ void fill_uniform_kernel(float* data, size_t count, unsigned long long seed, float low,
                                    float high, bool absolute) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    // 24 random bits; for [-1, 1) this is exactly k * 2^-23 - 1.
    const float v = float(z >> 40) * ((high - low) / 16777216.0f) + low;
    data[i] = absolute ? fabsf(v) : v;
  }
}

}  // namespace

cudaError_t fill_uniform(float* data, std::size_t count, unsigned long long seed, float low,
                         float high, int blocks, cudaStream_t stream, bool absolute) {
  fill_uniform_kernel<<<blocks > 0 ? blocks : 1, 256, 0, stream>>>(data, count, seed, low, high,
                                                                  absolute);
  return cudaGetLastError();
}

}  // namespace occtune::cuda
