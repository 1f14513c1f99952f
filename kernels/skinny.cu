// The "skinny" family (kernels/skinny.cuh) for the registry: its instantiations, listed once in
// OCCTUNE_SKINNY_VARIANTS, with their own launch (the split reduction's tickets zeroed, then the
// kernel).
#include <algorithm>
#include <string>

#include "kernels/gemm_family.cuh"
#include "kernels/skinny.cuh"

namespace occtune::kernels {
namespace {

template <class Variant>
std::size_t skinny_workspace(int m, int n, int /*k*/) {
  return Variant::workspace_bytes(m, n);
}

template <class Variant, int SPLITS>
cudaError_t launch_skinny(const GemmArgs& args, dim3 grid, dim3 block, size_t smem,
                          cudaStream_t stream) {
  if constexpr (SPLITS > 1) {
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
  gemm_entry<Variant><<<grid, block, smem, stream>>>(args);
  return cudaGetLastError();
}

// A cluster variant's launch: the SPLITS blocks of a tile (grid z) form one thread block
// cluster, which takes cudaLaunchKernelEx.
template <class Variant, int SPLITS>
cudaError_t launch_skinny_cluster(const GemmArgs& args, dim3 grid, dim3 block, size_t smem,
                                  cudaStream_t stream) {
  cudaLaunchAttribute cluster[1] = {};
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = 1;
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = SPLITS;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, gemm_entry<Variant>, args);
}

template <int S, int SIDE, int SPLITS, int LANES, class Variant>
GemmConfig skinny_config(const char* spelled) {
  // "lanes" only where it is not the default 32, so the earlier variants keep their parameters.
  std::vector<occtune::Param> params = {{"s", S}, {"side", SIDE}, {"splits", SPLITS}};
  if (LANES != 32) params.push_back({"lanes", LANES});
  GemmConfig g = gemm_config<Variant>(spelled, std::move(params), {Variant::kMaxThreads, 1},
                                      &launch_skinny<Variant, SPLITS>);
  g.tile_m = Variant::kTileM;
  g.tile_n = Variant::kTileN;
  g.dynamic_smem = Variant::kSmemBytes;
  g.grid_z = SPLITS;
  if (SPLITS > 1) g.workspace_bytes = &skinny_workspace<Variant>;
  return g;
}

// Skinny<S, SIDE, SPLITS> and SkinnyNarrow<S, SIDE, LANES> in every layout W names.
template <class Nn>
struct SkinnyArgs;
template <int S, int SIDE, int SPLITS>
struct SkinnyArgs<Skinny<S, SIDE, SPLITS>> {
  template <class Variant>
  static GemmConfig config(const char* spelled) {
    return skinny_config<S, SIDE, SPLITS, 32, Variant>(spelled);
  }
};
template <int S, int SIDE, int LANES>
struct SkinnyArgs<SkinnyNarrow<S, SIDE, LANES>> {
  template <class Variant>
  static GemmConfig config(const char* spelled) {
    return skinny_config<S, SIDE, 1, LANES, Variant>(spelled);
  }
};
template <int S, int SIDE, int SPLITS>
struct SkinnyArgs<SkinnyCluster<S, SIDE, SPLITS>> {
  template <class Variant>
  static GemmConfig config(const char* spelled) {
    GemmConfig g = skinny_config<S, SIDE, SPLITS, 32, Variant>(spelled);
    g.config.params.push_back({"cluster", 1});
    g.launch = &launch_skinny_cluster<Variant, SPLITS>;
    g.workspace_bytes = nullptr;
    g.required_compute_capability = 90;
    g.requirement = "thread block clusters";
    return g;
  }
};

}  // namespace

BuiltinFamily skinny_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) \
  configs.push_back(SkinnyArgs<__VA_ARGS__>::config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_SKINNY_VARIANTS(OCCTUNE_REGISTER)
  OCCTUNE_SKINNY_CLUSTER_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...)                                                        \
  configs.push_back(SkinnyArgs<__VA_ARGS__>::config<NT<__VA_ARGS__>>(#__VA_ARGS__)); \
  configs.push_back(SkinnyArgs<__VA_ARGS__>::config<TN<__VA_ARGS__>>(#__VA_ARGS__)); \
  configs.push_back(SkinnyArgs<__VA_ARGS__>::config<TT<__VA_ARGS__>>(#__VA_ARGS__));
  OCCTUNE_SKINNY_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("skinny",
                     "small M or N (up to 16): warps own rows or columns of the output, float4 "
                     "loads of the large operand, K split across warps and blocks with a "
                     "deterministic reduction",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
