// The registry's internals, shared by the .cu files that register variants: an entry (metadata,
// kernel function, launch), the Registry they are added to, and each family file's register
// function. register_all() in registry.cu is the one place that calls them, one line each.
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

struct Registry {
  std::vector<FamilyInfo> families;
  std::vector<Entry> entries;
  std::vector<VariantInfo> infos;

  // Registers the instantiation gemm_entry<Variant> under `symbol`, the trait type as written,
  // which is also how the build-time manifest names it.
  template <class Variant>
  void add(std::string symbol, std::string family, std::vector<Param> params, int block_x,
           int block_y, int tile_m, int tile_n, size_t dynamic_smem) {
    add<Variant>(VariantInfo{std::move(family), std::move(symbol), std::move(params), block_x,
                             block_y, tile_m, tile_n, dynamic_smem});
  }

  // The same with the full metadata and, for variants that launch more than their kernel
  // (split-K's reduction), their own launch function.
  template <class Variant>
  void add(VariantInfo info, LaunchFn launch = &launch_entry<Variant>) {
    Entry e;
    e.info = std::move(info);
    e.info.layout = LayoutOf<Variant>::value;
    e.function = reinterpret_cast<const void*>(&gemm_entry<Variant>);
    e.launch = launch;
    entries.push_back(std::move(e));
  }
};

// The register function of each family file (kernels/<family>.cu).
void register_coarsened(Registry& r);
void register_regblocked(Registry& r);
void register_pipelined(Registry& r);
void register_splitk(Registry& r);
// Issue #18's misaligned fast path (kernels/repacked.cu): after the families it wraps.
void register_repacked(Registry& r);
// The GEMM launch (GemmArgs) of a configuration of kernels/textbook_families.cu by its
// function, or nullptr: what launch_variant calls for their variants, as for every other entry.
LaunchFn textbook_gemm_launch(const void* function);
// Test-only faulty kernels (kernels/planted_faults.cu): registers nothing unless
// OCCTUNE_TEST_KERNELS=1.
void register_planted_faults(Registry& r);
// Test-only slowed copies of tiled_dynamic (kernels/slowed.cu): registers nothing unless
// OCCTUNE_TEST_KERNELS=1.
void register_slowed(Registry& r);

}  // namespace occtune::kernels
