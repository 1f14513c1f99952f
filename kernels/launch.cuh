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

// For a launcher that resolves a variant once and launches it many times (occtune::sgemm):
// prepare_variant opts in to its dynamic shared memory (on the current device) and checks that
// it is registered; launch_prepared then launches with no lookup by name and no attribute call,
// so its host cost is the launch itself. `variant` must be an element of variants().
cudaError_t prepare_variant(const VariantInfo& variant);
cudaError_t launch_prepared(const VariantInfo& variant, const GemmArgs& args, cudaStream_t stream);

}  // namespace occtune::kernels
