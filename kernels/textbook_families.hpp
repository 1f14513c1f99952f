// The textbook GEMM families, tiled_dynamic, tiled_static and naive, as families of the
// registration API (occtune/kernel.hpp), for host code that looks at them (tests): the registry
// registers them through the one validation and expansion of user families (issue #13).
#pragma once

#include "occtune/kernel.hpp"

namespace occtune::kernels {

KernelFamily tiled_dynamic_family();
KernelFamily tiled_static_family();
KernelFamily naive_family();

}  // namespace occtune::kernels
