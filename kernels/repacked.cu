// Registers the "repacked" family (kernels/repacked.cuh): per listed inner variant, a variant
// whose launch copies the misaligned operands into its workspace (one kernel, both operands)
// and then calls the inner variant's own launch on the copies, on the caller's stream. The
// inner variant's kernel is the registered function, so occupancy and resources are its own.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/registry_internal.cuh"
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
// once by register_repacked (the registry is built once, before any launch).
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

void register_repacked(Registry& r) {
  r.families.push_back({"repacked",
                        "misaligned fast path: copies operands whose K or leading dimension is "
                        "not a multiple of 4 (or whose base is misaligned) into an aligned, "
                        "zero-padded workspace, then runs a float4 tile variant on the copies",
                        false, "", nullptr, 1});
  constexpr auto launch = launches(std::make_index_sequence<kCount>{});
  constexpr auto workspace = workspaces(std::make_index_sequence<kCount>{});
  for (std::size_t i = 0; i < kCount; ++i) {
    const std::string symbol = without_spaces(kSpelled[i]);
    const Entry* inner = nullptr;
    for (auto& e : r.entries)
      if (e.info.symbol == symbol) inner = &e;
    if (!inner || !inner->launch)
      throw std::logic_error("repacked variant over " + symbol +
                             ", which no family registers: register its family first, or fix "
                             "OCCTUNE_REPACKED_VARIANTS in kernels/repacked.cuh");
    inners[i] = {inner->launch, inner->info.workspace_bytes, inner->info.layout};
    Entry e = *inner;
    e.info.family = "repacked";
    e.info.symbol = repacked_symbol(symbol);
    e.info.workspace_bytes = workspace[i];
    e.launch = launch[i];
    r.entries.push_back(std::move(e));
  }
}

}  // namespace occtune::kernels
