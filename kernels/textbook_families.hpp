// The textbook GEMM baselines, tiled_static and naive, as families of the registration API
// (occtune/kernel.hpp): one configuration per compiled tile and layout. kernels/registry.cu
// registers them through the one validation and expansion of user families (issue #13).
#pragma once

#include "occtune/kernel.hpp"

namespace occtune::kernels {

KernelFamily tiled_static_family();
KernelFamily naive_family();

}  // namespace occtune::kernels
