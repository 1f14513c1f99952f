// The "pipelined" family (kernels/pipelined.cuh) for the registry: its instantiations, listed once in
// OCCTUNE_PIPELINED_VARIANTS, compiled here.
#include "kernels/pipelined.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {

BuiltinFamily pipelined_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) configs.push_back(tile_config<__VA_ARGS__>(#__VA_ARGS__, "pipelined"));
  OCCTUNE_PIPELINED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) \
  add_transposed_tile_configs<__VA_ARGS__>(configs, #__VA_ARGS__, "pipelined");
  OCCTUNE_PIPELINED_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("pipelined",
                     "register-blocked warp-tiled GEMM fed by a multi-stage cp.async "
                     "shared-memory pipeline (synchronous copies before sm_80)",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
