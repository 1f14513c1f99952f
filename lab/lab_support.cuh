// What the lab programs (lab/*.cu, scratch programs whose output docs/PERFORMANCE.md quotes)
// share: a CUDA error check that exits, and a deterministic operand fill. Not part of occtune.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
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
