// The "streamk" family (kernels/streamk.cuh) for the registry, with its own launch: the persistent
// blocks (a grid sized from the device, not from the tiles), then, when some tile was split,
// the fix-up kernel that adds the partial sums in block order, both on the caller's stream.
#include <string>

#include "kernels/streamk.cuh"
#include "kernels/streamk_launch.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {
namespace {

// The variant's plan on the current device's persistent grid (kernels/streamk_launch.cuh).
template <class Variant>
StreamKPlan plan_on_device(int m, int n, int k) {
  const auto& p = Variant::kParams;
  return streamk::device_plan<Variant>({reinterpret_cast<const void*>(&gemm_entry<Variant>),
                                        Variant::kMaxThreads, Variant::kSmemBytes,
                                        Variant::kBlocksPerSm},
                                       m, n, k, p.bm, p.bn, p.bk);
}

// Partial-sum slots of the shape on the current device (0 when no tile is split there).
template <class Variant>
std::size_t streamk_workspace(int m, int n, int k) {
  return streamk::workspace_bytes(plan_on_device<Variant>(m, n, k), Variant::kParams.bm,
                                  Variant::kParams.bn);
}

template <class Variant>
cudaError_t launch_streamk(const GemmArgs& args, dim3 /*tile grid*/, dim3 block, size_t smem,
                           cudaStream_t stream) {
  const StreamKPlan plan = plan_on_device<Variant>(args.m, args.n, args.k);
  if (plan.tiles == 0) return cudaErrorInvalidValue;  // no device answer: a bad configuration
  const std::size_t need = streamk::workspace_bytes(plan, Variant::kParams.bm, Variant::kParams.bn);
  // Without its workspace the variant cannot run; refuse like a bad launch configuration.
  if (need > 0 && (!args.workspace || args.workspace_bytes < need)) return cudaErrorInvalidValue;
  gemm_entry<Variant><<<unsigned(plan.blocks), block, smem, stream>>>(args);
  if (auto err = cudaGetLastError(); err != cudaSuccess || need == 0) return err;
  return streamk::launch_fixup<Variant>(args, plan, stream);
}

template <class Variant>
GemmConfig streamk_config(const char* spelled) {
  // The tile's parameters under the pipelined family's names, then the launch's own two.
  std::vector<occtune::Param> params = tile_params("pipelined", Variant::kParams);
  params.push_back({"blocks_per_sm", Variant::kBlocksPerSm});
  params.push_back({"hybrid", Variant::kHybrid});
  GemmConfig g = gemm_config<Variant>(spelled, std::move(params), {Variant::kMaxThreads, 1},
                                      &launch_streamk<Variant>);
  g.tile_m = Variant::kParams.bm;
  g.tile_n = Variant::kParams.bn;
  g.dynamic_smem = Variant::kSmemBytes;
  g.workspace_bytes = &streamk_workspace<Variant>;
  return g;
}

}  // namespace

BuiltinFamily streamk_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) configs.push_back(streamk_config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_STREAMK_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...)                                       \
  configs.push_back(streamk_config<NT<__VA_ARGS__>>(#__VA_ARGS__)); \
  configs.push_back(streamk_config<TN<__VA_ARGS__>>(#__VA_ARGS__)); \
  configs.push_back(streamk_config<TT<__VA_ARGS__>>(#__VA_ARGS__));
  OCCTUNE_STREAMK_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("streamk",
                     "stream-K: persistent blocks share the MAC-loop iterations of all tiles "
                     "evenly (pipelined tile); split tiles meet in a workspace and a "
                     "deterministic fix-up",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
