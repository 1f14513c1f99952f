// What tuning one shape produced: every kernel family's measurements and its winner, plus the
// cuBLAS reference measured in the same session.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune {

struct KernelResult {
  std::string kernel;
  std::int64_t run_id = 0;
  std::vector<Measurement> measurements;
  int winner = -1;  // index of the winning measurement; -1 when no candidate passed
};

struct ShapeResult {
  Shape shape;
  Timing cublas;
  std::vector<KernelResult> kernels;
};

// The fastest `ok` measurement by median; a wrong or failed result never wins.
int pick_winner(const std::vector<Measurement>& measurements);

}  // namespace occtune
