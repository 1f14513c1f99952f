// Registers the "skinny" family (kernels/skinny.cuh): its instantiations, listed once in
// OCCTUNE_SKINNY_VARIANTS, with their own launch (the split reduction's tickets zeroed, then the
// kernel).
#include <algorithm>
#include <string>

#include "kernels/registry_internal.cuh"
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
    // anything (it is poisoned between candidates, and an application shares it).
    const std::size_t tickets = std::size_t(Variant::tiles(args.m, args.n)) * sizeof(unsigned);
    if (auto err = cudaMemsetAsync(Variant::tickets(args), 0, tickets, stream); err != cudaSuccess)
      return err;
  }
  gemm_entry<Variant><<<grid, block, smem, stream>>>(args);
  return cudaGetLastError();
}

template <int S, int SIDE, int SPLITS, class Variant>
void add_skinny(Registry& r, std::string spelled) {
  spelled.erase(std::remove(spelled.begin(), spelled.end(), ' '), spelled.end());
  VariantInfo info;
  info.family = "skinny";
  info.symbol = layout_symbol(Variant::kLayout, std::move(spelled));
  info.params = {{"s", S}, {"side", SIDE}, {"splits", SPLITS}};
  info.block_x = Variant::kMaxThreads;
  info.block_y = 1;
  info.tile_m = Variant::kTileM;
  info.tile_n = Variant::kTileN;
  info.dynamic_smem = Variant::kSmemBytes;
  info.grid_z = SPLITS;
  if (SPLITS > 1) info.workspace_bytes = &skinny_workspace<Variant>;
  r.add<Variant>(std::move(info), &launch_skinny<Variant, SPLITS>);
}

// Skinny<S, SIDE, SPLITS> in every layout W names.
template <class Nn>
struct SkinnyArgs;
template <int S, int SIDE, int SPLITS>
struct SkinnyArgs<Skinny<S, SIDE, SPLITS>> {
  template <class Variant>
  static void add(Registry& r, const char* spelled) {
    add_skinny<S, SIDE, SPLITS, Variant>(r, spelled);
  }
};

}  // namespace

void register_skinny(Registry& r) {
  r.families.push_back({"skinny",
                        "small M or N (up to 16): warps own rows or columns of the output, "
                        "float4 loads of the large operand, K split across warps and blocks "
                        "with a deterministic reduction",
                        false, "", nullptr, 1});
#define OCCTUNE_REGISTER(...) SkinnyArgs<__VA_ARGS__>::add<__VA_ARGS__>(r, #__VA_ARGS__);
  OCCTUNE_SKINNY_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...)                                     \
  SkinnyArgs<__VA_ARGS__>::add<NT<__VA_ARGS__>>(r, #__VA_ARGS__); \
  SkinnyArgs<__VA_ARGS__>::add<TN<__VA_ARGS__>>(r, #__VA_ARGS__); \
  SkinnyArgs<__VA_ARGS__>::add<TT<__VA_ARGS__>>(r, #__VA_ARGS__);
  OCCTUNE_SKINNY_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
}

}  // namespace occtune::kernels
