// Registers the "pipelined" family (kernels/pipelined.cuh): its instantiations, listed once in
// OCCTUNE_PIPELINED_VARIANTS, compiled here.
#include "kernels/pipelined.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {

void register_pipelined(Registry& r) {
  r.families.push_back({"pipelined",
                        "register-blocked warp-tiled GEMM fed by a multi-stage cp.async "
                        "shared-memory pipeline (synchronous copies before sm_80)",
                        false, "", nullptr, 1});
#define OCCTUNE_REGISTER(...) add_tile_variant<__VA_ARGS__>(r, #__VA_ARGS__, "pipelined");
  OCCTUNE_PIPELINED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) \
  add_transposed_tile_variants<__VA_ARGS__>(r, #__VA_ARGS__, "pipelined");
  OCCTUNE_PIPELINED_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
}

}  // namespace occtune::kernels
