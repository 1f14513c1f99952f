// A built-in GEMM family as the registration API takes it (occtune/kernel.hpp; issue #13,
// docs/architecture.md "Issue #13: every built-in family through the registration API"): one
// GemmConfig per compiled instantiation, from which gemm_family() builds the KernelFamily every
// GEMM family shares (dimensions m, n, k; the operand layout as its mode; buffers A, B, C; a
// device reference; 2mnk flops; a launch on GemmArgs) and keeps, beside it, what the GEMM engine
// reads of each variant (its C tile, grid z, workspace size and LaunchFn).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/registry_internal.cuh"
#include "occtune/kernel.hpp"

namespace occtune::kernels {

using WorkspaceBytes = std::size_t (*)(int m, int n, int k);

// One instantiation: the API's configuration (parameters, function, block, symbol, layout as
// its mode) and the GEMM side of it. The grid is (ceil(n / tile_n), ceil(m / tile_m), grid_z).
struct GemmConfig {
  KernelConfig config;
  int tile_m = 1, tile_n = 1;
  int grid_z = 1;
  std::size_t dynamic_smem = 0;
  WorkspaceBytes workspace_bytes = nullptr;
  LaunchFn launch = nullptr;
  // Other kernels that `launch` may run in the configuration's place (the same block and shared
  // memory; skinny's dense-B and A-window kernels, tma's waves): opt_in_dynamic_smem opts them in
  // to the shared memory with the configuration's own.
  std::vector<const void*> twin_functions;
  // Where it can run (VariantInfo's fields of the same names; kernels/applicability.hpp).
  int required_compute_capability = 0;
  int operand_alignment = 1;
  std::string requirement;
  std::string kernel_family;  // VariantInfo::kernel_family
};

// A family ready for the registry: `family.configs` and `gemm` are parallel.
struct BuiltinFamily {
  KernelFamily family;
  std::vector<GemmConfig> gemm;
  LaunchFn walk_launch = nullptr;  // the launch of family.walk, where the family walks
};

// The configuration of gemm_entry<Variant>, named by its trait type as written (`spelled`,
// spaces dropped, the layout's prefix added: "NT<RegBlocked<...>>"), which is how the
// build-time manifest names it.
template <class Variant>
GemmConfig gemm_config(std::string spelled, std::vector<occtune::Param> params, Block block,
                       LaunchFn launch = &launch_entry<Variant>) {
  spelled.erase(std::remove(spelled.begin(), spelled.end(), ' '), spelled.end());
  constexpr Layout layout = LayoutOf<Variant>::value;
  GemmConfig g;
  g.config.params = std::move(params);
  g.config.function = reinterpret_cast<const void*>(&gemm_entry<Variant>);
  g.config.block = block;
  g.config.symbol = layout_symbol(layout, std::move(spelled));
  g.config.mode = layout_name(layout);
  g.launch = launch;
  return g;
}

// The family of `configs` under `rule` (kFixed: each configuration's block; kSquare: every
// configuration specialised to its square block). Its smem, grid, workspace and launch read the
// configuration's GemmConfig, found by its function (unique within a family: a duplicate is a
// std::logic_error, a programming error any registry test finds).
BuiltinFamily gemm_family(std::string name, std::string description, BlockRule rule,
                          std::vector<GemmConfig> configs);

// Each built-in family (kernels/<family>.cu), in the order register_all() adds them.
BuiltinFamily tiled_dynamic_builtin();
BuiltinFamily tiled_static_builtin();
BuiltinFamily naive_builtin();
BuiltinFamily coarsened_builtin();
BuiltinFamily regblocked_builtin();
BuiltinFamily pipelined_builtin();
BuiltinFamily splitk_builtin();
BuiltinFamily skinny_builtin();
BuiltinFamily streamk_builtin();
// Hopper only (kernels/tma.cu, compiled for sm_90a alone): nn configurations.
BuiltinFamily tma_builtin();
// Wraps variants of the families above, found among `registered` by symbol (a missing one is a
// std::logic_error naming it).
BuiltinFamily repacked_builtin(const std::vector<Entry>& registered);
// Test only: empty (no configurations) unless OCCTUNE_TEST_KERNELS=1.
BuiltinFamily planted_faults_builtin();
std::vector<BuiltinFamily> slowed_builtins();
bool test_kernels_enabled();

}  // namespace occtune::kernels
