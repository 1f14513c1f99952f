// Registers the "regblocked" family (kernels/regblocked.cuh): its instantiations, listed once
// in OCCTUNE_REGBLOCKED_VARIANTS, compiled here.
#include "kernels/regblocked.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {

void register_regblocked(Registry& r) {
  r.families.push_back({"regblocked",
                        "2D register blocking: BMxBN block tile, TMxTN outputs per thread in "
                        "warp tiles, A transposed in shared memory, float4 loads staged through "
                        "registers into two buffers",
                        false, "", nullptr, 1});
#define OCCTUNE_REGISTER(...) add_tile_variant<__VA_ARGS__>(r, #__VA_ARGS__, "regblocked");
  OCCTUNE_REGBLOCKED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) \
  add_transposed_tile_variants<__VA_ARGS__>(r, #__VA_ARGS__, "regblocked");
  OCCTUNE_REGBLOCKED_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
}

}  // namespace occtune::kernels
