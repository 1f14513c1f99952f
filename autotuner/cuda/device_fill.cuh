// Seeded random inputs on the device, the same on every GPU: the GEMM operands (ShapeBench) and
// the inputs of user kernels (UserBench).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace occtune::cuda {

// Fills `count` floats with uniform values in [low, high) from a counter-based generator
// (splitmix64 of seed and index); asynchronous on `stream`, `blocks` blocks of 256 threads.
// With `absolute`, the same values without their signs (ShapeBench: |A| |B| gives the magnitude
// of every element's dot-product terms for the element-wise check). Returns the launch error.
cudaError_t fill_uniform(float* data, std::size_t count, unsigned long long seed, float low,
                         float high, int blocks, cudaStream_t stream, bool absolute = false);

}  // namespace occtune::cuda
