// What the in-process backend measures on once a problem is open: a GEMM shape (ShapeBench:
// cuBLAS reference and speed baseline, element-wise bound) or a registered family's problem
// (UserBench: the family's buffers, reference and comparison). One interface, so the backend
// drives every family the same way (docs/architecture.md, "Issue #13: the built-in families
// through the registration API").
#pragma once

#include "autotuner/core/backend.hpp"
#include "autotuner/core/candidate.hpp"
#include "autotuner/core/measurement.hpp"

namespace occtune::cuda {

class Workload {
 public:
  virtual ~Workload() = default;
  // One launch on NaN-poisoned outputs, compared with the reference; no timing.
  virtual Measurement check(const Candidate& candidate) = 0;
  // `count` timed samples, preceded by the policy's warm-up on a candidate's first batch.
  virtual SampleBatch samples(const Candidate& candidate, int count) = 0;
  // Timed samples of the speed reference the candidates are compared with (cuBLAS for a GEMM);
  // Error(kRuntime) from a workload without one (the engine does not ask it).
  virtual SampleBatch reference_samples(int count) = 0;
};

}  // namespace occtune::cuda
