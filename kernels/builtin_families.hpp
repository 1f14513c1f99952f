// The built-in GEMM families as registered through the registration API (occtune/kernel.hpp;
// kernels/gemm_family.cuh): for host code that launches them through the API's own launch and
// device reference (tests) rather than through the GEMM engine's entries.
#pragma once

#include <string_view>

#include "occtune/kernel.hpp"

namespace occtune::kernels {

// The family `name` as the registry registered it (test families only under
// OCCTUNE_TEST_KERNELS=1), or nullptr for a name that is not a built-in family.
const KernelFamily* builtin_family(std::string_view name);

}  // namespace occtune::kernels
