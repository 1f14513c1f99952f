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

// cudaFuncSetAttribute(MaxDynamicSharedMemorySize) on a built-in kernel and on its twins
// (GemmConfig::twin_functions, kernels/gemm_family.cuh), as an int: every built-in family's
// CudaHooks::set_max_dynamic_smem and prepare_variant's opt-in, so that whoever opts a
// configuration's function in (the engine, the API's launchers, a program that launches a
// KernelFamily itself) opts in the kernels its launch may run in its place.
int opt_in_dynamic_smem(const void* function, int bytes);

}  // namespace occtune::kernels
