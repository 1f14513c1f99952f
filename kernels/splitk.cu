// The "splitk" family (kernels/splitk.cuh) for the registry, with its own launch: the K-sliced GEMM
// into the workspace, then the reduction of the slices into C, both on the caller's stream.
#include "kernels/dependent_launch.cuh"
#include "kernels/splitk.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {
namespace {

// The second pass with G split groups per item (SplitKIn::reduce_block). On sm_90 and up a
// programmatic dependent of the first (kernels/dependent_launch.cuh): it may start in that
// kernel's tail and waits for it to complete before reading a slice.
template <class Variant, int G>
__global__ void __launch_bounds__(Variant::kReduceThreads) splitk_reduce(GemmArgs args) {
  __shared__ float4 part[Variant::kReduceThreads];
  wait_for_primary();
  Variant::template reduce_block<G>(args, part);
}

template <class Variant>
cudaError_t launch_splitk(const GemmArgs& args, dim3 grid, dim3 block, size_t smem,
                          cudaStream_t stream) {
  // Without its workspace the variant cannot run; refuse like a bad launch configuration.
  if (!args.workspace ||
      args.workspace_bytes < tile_workspace_bytes(Variant::kParams, args.m, args.n))
    return cudaErrorInvalidValue;
  gemm_entry<Variant><<<grid, block, smem, stream>>>(args);
  if (auto err = cudaGetLastError(); err != cudaSuccess) return err;
  constexpr int kThreads = Variant::kReduceThreads;
  // The items of the pass when C allows float4 groups (the kernel loops over more otherwise).
  const long long count = (long long)args.m * args.n;
  const long long items = args.n % 4 == 0 ? count / 4 : count;
  return with_reduce_groups<Variant::kParams.splits>(args.m, args.n, [&](auto groups) {
    constexpr int kItems = kThreads / decltype(groups)::value;  // per block
    const long long blocks = (items + kItems - 1) / kItems;
    return launch_dependent(splitk_reduce<Variant, decltype(groups)::value>,
                            dim3(unsigned(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096)),
                            dim3(kThreads), 0, stream, args);
  });
}

// The variant `V` with split-K's launch.
template <class V>
GemmConfig splitk_config(const char* spelled) {
  return tile_config<V>(spelled, "splitk", &launch_splitk<V>);
}

}  // namespace

BuiltinFamily splitk_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) configs.push_back(splitk_config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_SPLITK_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...)                                          \
  configs.push_back(splitk_config<NT<__VA_ARGS__>>(#__VA_ARGS__));     \
  configs.push_back(splitk_config<TN<__VA_ARGS__>>(#__VA_ARGS__));     \
  configs.push_back(splitk_config<TT<__VA_ARGS__>>(#__VA_ARGS__));
  OCCTUNE_SPLITK_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("splitk",
                     "split-K for small outputs with long K: pipelined tiles on K slices into a "
                     "workspace, then a deterministic reduction into C",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
