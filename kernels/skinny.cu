// The "skinny" family (kernels/skinny.cuh) for the registry: its instantiations, listed once in
// OCCTUNE_SKINNY_VARIANTS, with their own launch (the split reduction's tickets zeroed, then the
// kernel, its programmatic dependent on sm_90 and up).
#include <algorithm>
#include <string>

#include "kernels/dependent_launch.cuh"
#include "kernels/gemm_family.cuh"
#include "kernels/skinny.cuh"

namespace occtune::kernels {
namespace {

template <class Variant>
std::size_t skinny_workspace(int m, int n, int /*k*/) {
  return Variant::workspace_bytes(m, n);
}

// Zeroes `count` tickets; its dependent (the skinny GEMM) may start at once.
constexpr int kZeroThreads = 256;
__global__ void __launch_bounds__(kZeroThreads) zero_tickets(unsigned* tickets, long long count) {
  allow_dependents();
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    tickets[i] = 0u;
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
    // our own zeroes them rather than a memset, so that the GEMM can be its programmatic
    // dependent and stream the large operand while they are zeroed (Variant::finish_split
    // waits for it before it takes a ticket).
    const long long tickets = Variant::tiles(args.m, args.n);
    const long long blocks = std::clamp((tickets + kZeroThreads - 1) / kZeroThreads, 1LL, 64LL);
    zero_tickets<<<unsigned(blocks), kZeroThreads, 0, stream>>>(Variant::tickets(args), tickets);
    if (auto err = cudaGetLastError(); err != cudaSuccess) return err;
    return launch_dependent(gemm_entry<Variant>, grid, block, smem, stream, args);
  }
  gemm_entry<Variant><<<grid, block, smem, stream>>>(args);
  return cudaGetLastError();
}

template <int S, int SIDE, int SPLITS, class Variant>
GemmConfig skinny_config(const char* spelled) {
  GemmConfig g = gemm_config<Variant>(spelled, {{"s", S}, {"side", SIDE}, {"splits", SPLITS}},
                                      {Variant::kMaxThreads, 1}, &launch_skinny<Variant, SPLITS>);
  g.tile_m = Variant::kTileM;
  g.tile_n = Variant::kTileN;
  g.dynamic_smem = Variant::kSmemBytes;
  g.grid_z = SPLITS;
  if (SPLITS > 1) g.workspace_bytes = &skinny_workspace<Variant>;
  return g;
}

// Skinny<S, SIDE, SPLITS> in every layout W names.
template <class Nn>
struct SkinnyArgs;
template <int S, int SIDE, int SPLITS>
struct SkinnyArgs<Skinny<S, SIDE, SPLITS>> {
  template <class Variant>
  static GemmConfig config(const char* spelled) {
    return skinny_config<S, SIDE, SPLITS, Variant>(spelled);
  }
};

}  // namespace

BuiltinFamily skinny_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) \
  configs.push_back(SkinnyArgs<__VA_ARGS__>::config<__VA_ARGS__>(#__VA_ARGS__));
  OCCTUNE_SKINNY_VARIANTS(OCCTUNE_REGISTER)
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
