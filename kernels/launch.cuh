// The CUDA side of the registry: the kernel function of a variant (for the Occupancy API and
// cudaFuncGetAttributes) and its launch. Only .cu files include this.
#pragma once

#include <cuda_runtime.h>

#include <string_view>

#include "kernels/gemm_entry.cuh"
#include "kernels/registry.hpp"

namespace occtune::kernels {

// The __global__ function registered under a manifest symbol ("TiledDynamic<16>"), or nullptr.
const void* kernel_function(std::string_view symbol);

dim3 grid_for(const VariantInfo& variant, int m, int n);

// Launches asynchronously; returns the launch error (cudaGetLastError) without synchronising.
// Opts in to more than 48 KiB of dynamic shared memory when the variant needs it.
cudaError_t launch_variant(const VariantInfo& variant, const GemmArgs& args, cudaStream_t stream);

}  // namespace occtune::kernels
