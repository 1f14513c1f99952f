// The "repacked" family (kernels/repacked.cuh) for the registry: per listed inner variant, one
// whose launch copies the misaligned operands into its workspace (one kernel, both operands)
// and then calls the inner variant's own launch on the copies, on the caller's stream. The
// inner variant's kernel is the registered function, so occupancy and resources are its own.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/gemm_family.cuh"
#include "kernels/repacked.cuh"

namespace occtune::kernels {
namespace {

constexpr long long kMaxGridX = 2147483647;

// The copy kernel of kernels/repacked.cuh: one block per tile of a copy, both operands.
__global__ void __launch_bounds__(repack::kCopyThreads)
    repack_operands(repack::Job a, repack::Job b, unsigned blocks_a) {
  __shared__ __align__(16) float staged[repack::kCopyTileFloats];
  repack::copy_block(a, b, blocks_a, staged);
}

// The inner variant of each repacked variant, by position in OCCTUNE_REPACKED_VARIANTS, filled
// once by repacked_builtin (the registry is built once, before any launch).
struct Inner {
  LaunchFn launch = nullptr;
  std::size_t (*workspace)(int m, int n, int k) = nullptr;
  Layout layout = Layout::kNN;
};

#define OCCTUNE_SPELL(...) #__VA_ARGS__,
constexpr const char* kSpelled[] = {OCCTUNE_REPACKED_VARIANTS(OCCTUNE_SPELL)};
#undef OCCTUNE_SPELL
constexpr std::size_t kCount = std::size(kSpelled);
std::array<Inner, kCount> inners;

template <std::size_t I>
std::size_t repacked_workspace(int m, int n, int k) {
  const Inner& in = inners[I];
  return repack::operand_bytes(in.layout, m, n, k) +
         (in.workspace ? in.workspace(m, n, repack::round4(k)) : 0);
}

template <std::size_t I>
cudaError_t launch_repacked(const GemmArgs& args, dim3 grid, dim3 block, size_t smem,
                            cudaStream_t stream) {
  const Inner& in = inners[I];
  // Without its workspace (or with one the float4 paths cannot use) the variant cannot run;
  // refuse like a bad launch configuration, as split-K does.
  if (!args.workspace || !repack::usable_in_place(args.workspace, 4) ||
      args.workspace_bytes < repack::operand_bytes(in.layout, args.m, args.n, args.k))
    return cudaErrorInvalidValue;
  const repack::Plan plan = repack::plan(in.layout, args);
  const long long blocks_a = repack::copy_blocks(plan.a);
  const long long blocks = blocks_a + repack::copy_blocks(plan.b);
  if (blocks > kMaxGridX) return cudaErrorInvalidValue;  // a copy of over 2^43 floats
  if (blocks > 0) {
    repack_operands<<<unsigned(blocks), dim3(32, repack::kCopyWarps), 0, stream>>>(
        plan.a, plan.b, unsigned(blocks_a));
    if (auto err = cudaGetLastError(); err != cudaSuccess) return err;
  }
  return in.launch(plan.inner, grid, block, smem, stream);
}

template <std::size_t... I>
constexpr auto launches(std::index_sequence<I...>) {
  return std::array<LaunchFn, kCount>{&launch_repacked<I>...};
}
template <std::size_t... I>
constexpr auto workspaces(std::index_sequence<I...>) {
  return std::array<std::size_t (*)(int, int, int), kCount>{&repacked_workspace<I>...};
}

std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

}  // namespace

BuiltinFamily repacked_builtin(const std::vector<Entry>& registered) {
  constexpr auto launch = launches(std::make_index_sequence<kCount>{});
  constexpr auto workspace = workspaces(std::make_index_sequence<kCount>{});
  std::vector<GemmConfig> configs;
  for (std::size_t i = 0; i < kCount; ++i) {
    const std::string symbol = without_spaces(kSpelled[i]);
    const Entry* inner = nullptr;
    for (auto& e : registered)
      if (e.info.symbol == symbol) inner = &e;
    if (!inner || !inner->launch)
      throw std::logic_error("repacked variant over " + symbol +
                             ", which no family registers: register its family first, or fix "
                             "OCCTUNE_REPACKED_VARIANTS in kernels/repacked.cuh");
    inners[i] = {inner->launch, inner->info.workspace_bytes, inner->info.layout};
    // The inner variant's kernel, block, parameters and tile, under its own symbol wrapped.
    GemmConfig g;
    for (const Param& p : inner->info.params) g.config.params.push_back({p.name, p.value});
    g.config.function = inner->function;
    g.config.block = {inner->info.block_x, inner->info.block_y};
    g.config.symbol = repacked_symbol(symbol);
    g.config.mode = layout_name(inner->info.layout);
    g.tile_m = inner->info.tile_m;
    g.tile_n = inner->info.tile_n;
    g.grid_z = inner->info.grid_z;
    g.dynamic_smem = inner->info.dynamic_smem;
    g.workspace_bytes = workspace[i];
    g.launch = launch[i];
    // Where the inner variant's code runs, it runs wrapped; its operand rule is met by the
    // copies (A and B aligned, leading dimensions multiples of 4; C is any).
    g.required_compute_capability = inner->info.required_compute_capability;
    g.requirement = inner->info.requirement;
    g.kernel_family = inner->info.family;  // what the cost model prices it as
    configs.push_back(std::move(g));
  }
  return gemm_family("repacked",
                     "misaligned fast path: copies operands whose K or leading dimension is not a "
                     "multiple of 4 (or whose base is misaligned) into an aligned, zero-padded "
                     "workspace, then runs a float4 tile (or, on sm_90, a tma) variant on the copies",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
