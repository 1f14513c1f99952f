// The "coarsened" family (kernels/coarsened.cuh) for the registry: its instantiations, listed
// once in OCCTUNE_COARSENED_VARIANTS, compiled here.
#include "kernels/coarsened.cuh"
#include "kernels/tile_registration.cuh"

namespace occtune::kernels {

BuiltinFamily coarsened_builtin() {
  std::vector<GemmConfig> configs;
#define OCCTUNE_REGISTER(...) configs.push_back(tile_config<__VA_ARGS__>(#__VA_ARGS__, "coarsened"));
  OCCTUNE_COARSENED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
#define OCCTUNE_REGISTER(...) \
  add_transposed_tile_configs<__VA_ARGS__>(configs, #__VA_ARGS__, "coarsened");
  OCCTUNE_COARSENED_TRANSPOSED_VARIANTS(OCCTUNE_REGISTER)
#undef OCCTUNE_REGISTER
  return gemm_family("coarsened",
                     "thread coarsening (Volkov & Demmel): each thread computes TM outputs of "
                     "one column of C, reusing every B value from shared memory TM times",
                     BlockRule::kFixed, std::move(configs));
}

}  // namespace occtune::kernels
