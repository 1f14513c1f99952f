// The element-wise check of a GEMM result on the GPU (issue #18): counts the elements of C that
// break |c - ref| <= tol * magnitude (autotuner/core/element_bound.hpp) and reports the first
// of them with its values, so a wrong_result message can name the element.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace occtune::cuda {

struct ElementCheckReport {
  std::size_t violations = 0;
  std::size_t first = 0;  // index of the first element out of bound (when violations > 0)
  float c = 0, ref = 0, magnitude = 0;  // its values
};

// Owns the two device counters the check needs; one per stream user (not thread-safe).
class ElementChecker {
 public:
  ElementChecker();
  ~ElementChecker();
  ElementChecker(const ElementChecker&) = delete;
  ElementChecker& operator=(const ElementChecker&) = delete;

  // Compares `count` contiguous elements on `stream` with at most `max_blocks` blocks and
  // waits for the answer. Throws Error(kRuntime) on a CUDA error.
  ElementCheckReport run(const float* c, const float* ref, const float* magnitude,
                         std::size_t count, double tolerance, cudaStream_t stream, int max_blocks);

 private:
  unsigned long long* counters_ = nullptr;  // violations, first index
};

}  // namespace occtune::cuda
