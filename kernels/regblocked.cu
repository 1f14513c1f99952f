// The "regblocked" family (kernels/regblocked.cuh) for the registry: its instantiations, listed once in
// OCCTUNE_REGBLOCKED_VARIANTS, compiled here.
#include "kernels/regblocked.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {

BuiltinFamily regblocked_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) configs.push_back(tile_config<__VA_ARGS__>(#__VA_ARGS__, "regblocked"));
  OCCTUNE_REGBLOCKED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) \
  add_transposed_tile_configs<__VA_ARGS__>(configs, #__VA_ARGS__, "regblocked");
  OCCTUNE_REGBLOCKED_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("regblocked",
                     "2D register blocking: BMxBN block tile, TMxTN outputs per thread in "
                     "warp tiles, A transposed in shared memory, float4 loads staged through "
                     "registers into two buffers",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
