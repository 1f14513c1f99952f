// The one rule for whether a registered variant can run a problem at all (issue #18): its
// minimum compute capability and its operand alignment (VariantInfo). Planning rejects a
// candidate with these messages (autotuner/core/candidate_generation.cpp), a variant's launch
// refuses what they rule out (kernels/tma.cu), and occtune::sgemm never launches a cached
// winner on operands they rule out. Host-only, no CUDA types.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/registry.hpp"

namespace occtune::kernels {

// Empty when `v` runs on a device of compute capability `cc` (major * 10 + minor), else why
// not: "needs sm_90 (TMA); the device is sm_80". An exact match: architecture-specific code
// (sm_90a) runs on its own architecture only.
std::string arch_violation(const VariantInfo& v, int cc);

// A problem as a launch sees it: leading dimensions and operand addresses.
struct OperandLayout {
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::uintptr_t a = 0, b = 0, c = 0;
};

// Empty when `v` can read and write operands laid out as `o`, else why not.
std::string operand_violation(const VariantInfo& v, const OperandLayout& o);

// The same on the problem's dense operands in the variant's layout (what the engine allocates
// and planning assumes): "needs K and N multiples of 4 (TMA strides); here K = 1001".
std::string shape_violation(const VariantInfo& v, std::int64_t m, std::int64_t n,
                            std::int64_t k);

}  // namespace occtune::kernels
