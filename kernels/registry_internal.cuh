// The registry's internals, shared by the .cu files of the families: an entry (metadata, kernel
// function, launch), the launch of one gemm_entry instantiation, and the Registry. Each family
// file builds its family through the registration API (kernels/gemm_family.cuh); register_all()
// in registry.cu adds them, one line each.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/gemm_entry.cuh"
#include "kernels/registry.hpp"

namespace occtune::kernels {

using LaunchFn = cudaError_t (*)(const GemmArgs&, dim3 grid, dim3 block, size_t smem,
                                 cudaStream_t stream);

struct Entry {
  VariantInfo info;
  const void* function = nullptr;
  LaunchFn launch = nullptr;
  std::vector<const void*> twin_functions;  // GemmConfig::twin_functions
};

// The layout of a variant: kLayout where it declares one (every GEMM family), else nn.
template <class Variant, class = void>
struct LayoutOf : std::integral_constant<Layout, Layout::kNN> {};
template <class Variant>
struct LayoutOf<Variant, std::void_t<decltype(Variant::kLayout)>>
    : std::integral_constant<Layout, Variant::kLayout> {};

template <class Variant>
cudaError_t launch_entry(const GemmArgs& args, dim3 grid, dim3 block, size_t smem,
                         cudaStream_t stream) {
  gemm_entry<Variant><<<grid, block, smem, stream>>>(args);
  return cudaGetLastError();
}

// The registry the engine reads: every family's metadata and every variant, an Entry each (infos
// parallel to entries). Built once by register_all() (kernels/registry.cu).
struct Registry {
  std::vector<FamilyInfo> families;
  std::vector<Entry> entries;
  std::vector<VariantInfo> infos;
};

}  // namespace occtune::kernels
