// The "splitk" family (kernels/splitk.cuh) for the registry, with its own launch: the K-sliced GEMM
// into the workspace, then the reduction of the slices into C, both on the caller's stream.
#include "kernels/splitk.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {
namespace {

constexpr int kReduceThreads = 256;

template <class Variant>
__global__ void __launch_bounds__(kReduceThreads) splitk_reduce(GemmArgs args) {
  const bool vec = Variant::reduce_vectorized(args);
  const long long items = Variant::reduce_items(args, vec);
  for (long long i = (long long)blockIdx.x * kReduceThreads + threadIdx.x; i < items;
       i += (long long)gridDim.x * kReduceThreads)
    Variant::reduce_item(args, i, vec);
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
  const long long items = (long long)args.m * args.n;  // an upper bound of the float4 groups
  const long long blocks = (items + kReduceThreads - 1) / kReduceThreads;
  splitk_reduce<Variant>
      <<<unsigned(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096), kReduceThreads, 0, stream>>>(
          args);
  return cudaGetLastError();
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
