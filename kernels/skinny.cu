// The "skinny" family (kernels/skinny.cuh) for the registry: its instantiations, listed once in
// OCCTUNE_SKINNY_VARIANTS, OCCTUNE_SKINNY_CLUSTER_VARIANTS and the lists of skinny_pipe.cuh and
// skinny_rowdot.cuh, with their own launch (the split reduction's tickets zeroed, then the
// kernel; a cluster variant in clusters along K, kernels/cluster_policy.cuh).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cluster_policy.cuh"
#include "kernels/gemm_family.cuh"
#include "kernels/skinny.cuh"

namespace occtune::kernels {
namespace {

template <class Variant>
std::size_t skinny_workspace(int m, int n, int /*k*/) {
  return Variant::workspace_bytes(m, n);
}

// The workspace split's launch: its tickets zeroed, then the kernel; the others' (no split, or
// the split in a cluster): the kernel alone, a ring for N <= 16 as the twin kernel its operands
// call for (SkinnyPipeIn::with_twin_for: A-window, dense-B or both; all among the configuration's
// twin_functions, opted in to the shared memory with the configuration's own by
// opt_in_dynamic_smem).
// The entry of the kernel SkinnyPipeIn::with_twin_for picks.
struct TwinEntry {
  void (*&kernel)(GemmArgs);
  template <class Kernel>
  void operator()() const {
    kernel = gemm_entry<Kernel>;
  }
};
// SkinnyPipeIn::for_each_twin's kernels into a configuration's twin_functions.
struct TwinFunctions {
  std::vector<const void*>& out;
  template <class Kernel>
  void operator()() const {
    out.push_back(reinterpret_cast<const void*>(&gemm_entry<Kernel>));
  }
};

template <class Variant>
cudaError_t launch_skinny(const GemmArgs& args, dim3 grid, dim3 block, size_t smem,
                          cudaStream_t stream) {
  void (*kernel)(GemmArgs) = gemm_entry<Variant>;
  if constexpr (Variant::kDenseTwin) Variant::with_twin_for(args, TwinEntry{kernel});
  if constexpr (Variant::kWorkspaceSplit) {
    // Without its workspace the variant cannot run; refuse like a bad launch configuration.
    if (!args.workspace || args.workspace_bytes < Variant::workspace_bytes(args.m, args.n))
      return cudaErrorInvalidValue;
    // The tickets of the split reduction start at zero in every launch: the workspace may hold
    // anything (it is poisoned between candidates, and an application shares it). A kernel of
    // ours zeroing them, with this one its programmatic dependent (as split-K's reduction is),
    // was not shown to pay (docs/PERFORMANCE.md, "Programmatic dependent launch").
    const std::size_t tickets = std::size_t(Variant::tiles(args.m, args.n)) * sizeof(unsigned);
    if (auto err = cudaMemsetAsync(Variant::tickets(args), 0, tickets, stream); err != cudaSuccess)
      return err;
  }
  if constexpr (Variant::kCluster) {
    // The kSplits blocks of a tile (grid z) form one thread block cluster, scheduled with
    // LoadBalancing where that saves a wave (kernels/cluster_policy.cuh).
    return launch_cluster(unsigned(Variant::kSplits), kernel, grid, block, smem, stream, args);
  } else {
    kernel<<<grid, block, smem, stream>>>(args);
    return cudaGetLastError();
  }
}

// What every skinny configuration reads from its variant: one block of kMaxThreads threads, the
// C tile and the dynamic shared memory.
template <class Variant>
GemmConfig skinny_gemm_config(const char* spelled, std::vector<occtune::Param> params,
                              LaunchFn launch) {
  GemmConfig g =
      gemm_config<Variant>(spelled, std::move(params), {Variant::kMaxThreads, 1}, launch);
  g.tile_m = Variant::kTileM;
  g.tile_n = Variant::kTileN;
  g.dynamic_smem = Variant::kSmemBytes;
  return g;
}

// Variant's configuration, its parameters read from the variant in any layout: "lanes" only
// where it is not the default 32, "cluster" only on a cluster variant, "realign" only on a
// realigning one, "rows" and "stages" only on a cp.async ring (SkinnyPipe), "window" only on
// a windowed ring (SkinnyPipeWindow) and "row_groups" only on a ring whose rows of C are split
// between groups of warps (SkinnyPipeSmallNRowGroups), so the earlier variants keep their
// parameters.
template <class Variant>
GemmConfig skinny_config(const char* spelled) {
  std::vector<occtune::Param> params = {
      {"s", Variant::kS}, {"side", Variant::kSide}, {"splits", Variant::kSplits}};
  if (Variant::kLanes != 32) params.push_back({"lanes", Variant::kLanes});
  if (Variant::kCluster) params.push_back({"cluster", 1});
  if (Variant::kRealign) params.push_back({"realign", 1});
  if (Variant::kPipeStages > 0) {
    params.push_back({"rows", Variant::kPipeRows});
    params.push_back({"stages", Variant::kPipeStages});
  }
  if (Variant::kPipeWindow) params.push_back({"window", 1});
  if (Variant::kRowGroups > 1) params.push_back({"row_groups", Variant::kRowGroups});
  GemmConfig g = skinny_gemm_config<Variant>(spelled, std::move(params), &launch_skinny<Variant>);
  g.grid_z = Variant::kSplits;
  if (Variant::kWorkspaceSplit) g.workspace_bytes = &skinny_workspace<Variant>;
  if constexpr (Variant::kDenseTwin) Variant::for_each_twin(TwinFunctions{g.twin_functions});
  if (Variant::kCluster) {
    g.required_compute_capability = 90;
    g.requirement = "thread block clusters";
  }
  return g;
}

// The row-dot kernel's configuration (kernels/skinny_rowdot.cuh): its own parameters beside
// "s" (its columns of C a block) and "side" 1, which every skinny configuration has, and "ring"
// (its depth) only where A goes through a ring, so the others keep their parameters; one kernel
// launch, no workspace.
template <class Variant>
GemmConfig rowdot_config(const char* spelled) {
  std::vector<occtune::Param> params = {{"s", Variant::kColumns},
                                        {"side", 1},
                                        {"splits", 1},
                                        {"rowdot", Variant::kRows},
                                        {"lanes", Variant::kLanesPerRow},
                                        {"kwarps", Variant::kWarpsAlongK},
                                        {"unroll", Variant::kUnroll}};
  if (Variant::kRing > 0) params.push_back({"ring", Variant::kRing});
  return skinny_gemm_config<Variant>(spelled, std::move(params), &launch_entry<Variant>);
}

}  // namespace

BuiltinFamily skinny_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) configs.push_back(skinny_config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_SKINNY_VARIANTS(OCCTUNE_REGISTER)
  OCCTUNE_SKINNY_CLUSTER_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...)                                      \
  configs.push_back(skinny_config<NT<__VA_ARGS__>>(#__VA_ARGS__)); \
  configs.push_back(skinny_config<TN<__VA_ARGS__>>(#__VA_ARGS__)); \
  configs.push_back(skinny_config<TT<__VA_ARGS__>>(#__VA_ARGS__));
  OCCTUNE_SKINNY_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) configs.push_back(rowdot_config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_SKINNY_ROWDOT_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) configs.push_back(rowdot_config<NT<__VA_ARGS__>>(#__VA_ARGS__));
  OCCTUNE_SKINNY_ROWDOT_NT_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) configs.push_back(rowdot_config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_SKINNY_ROWDOT_RING_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) configs.push_back(skinny_config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_SKINNY_ROW_GROUP_VARIANTS(OCCTUNE_REGISTER)
  OCCTUNE_SKINNY_SMALL_N_CLUSTER_VARIANTS(OCCTUNE_REGISTER)
  OCCTUNE_SKINNY_WORKSPACE_SPLIT_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("skinny",
                     "small M or N (up to 16): warps own rows or columns of the output, float4 "
                     "loads of the large operand, K split across warps and blocks with a "
                     "deterministic reduction; for M up to 16 (or N up to 16 with A large) "
                     "also a cp.async ring of shared-memory slabs over all of K, or over K "
                     "split between a thread block cluster's blocks on sm_90 (for N up to 16 "
                     "also 32 or 64 rows of C a block in groups of warps), or over 6-256 blocks "
                     "through a workspace, and for N up to 4 "
                     "rows of A read straight into registers, or through a cp.async ring of "
                     "their own, against B in L1 (row-dot)",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
