// Registers the "coarsened" family (kernels/coarsened.cuh): its instantiations, listed once in
// OCCTUNE_COARSENED_VARIANTS, compiled here.
#include "kernels/coarsened.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {

void register_coarsened(Registry& r) {
  r.families.push_back({"coarsened",
                        "thread coarsening (Volkov & Demmel): each thread computes TM outputs of "
                        "one column of C, reusing every B value from shared memory TM times",
                        false, "", nullptr, 1});
#define OCCTUNE_REGISTER(...) add_tile_variant<__VA_ARGS__>(r, #__VA_ARGS__, "coarsened");
  OCCTUNE_COARSENED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) \
  add_transposed_tile_variants<__VA_ARGS__>(r, #__VA_ARGS__, "coarsened");
  OCCTUNE_COARSENED_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
}

}  // namespace occtune::kernels
