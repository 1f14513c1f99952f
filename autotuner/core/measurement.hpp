// The result of measuring one candidate (or the cuBLAS reference) for one shape: outcome,
// correctness and timing with the protocol that produced it. Shared by the GPU engine, the
// store and the printers.
#pragma once

#include <string>
#include <vector>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/outcome.hpp"
#include "autotuner/core/stats.hpp"

namespace occtune {

// How samples were taken; stored with every run so numbers are never compared across policies
// without saying so.
struct TimingPolicy {
  int warmup = 3;            // untimed launches before sampling
  int samples = 20;          // timed launches
  bool flush_l2 = true;      // overwrite a buffer of 2x L2 before every sample
  double tolerance = 1e-5;   // relative Frobenius error accepted against cuBLAS
  unsigned long long seed = 20261122;  // input generator seed
  double max_seconds_per_candidate = 2.0;  // fewer samples (>= 5) for very slow candidates
  std::string timer = "cuda_event";
};

struct Timing {
  std::vector<double> samples_ms;
  Summary summary;           // of samples_ms
  int sm_clock_mhz = 0;      // read through NVML after sampling; 0 when NVML is unavailable
};

struct Measurement {
  Candidate candidate;       // what was launched (variant, threads, occupancy, grid, ...)
  Outcome outcome = Outcome::kOk;
  std::string error;         // CUDA error text or reason when outcome != ok
  double rel_error = -1;     // relative Frobenius error vs cuBLAS; -1 when not checked
  Timing timing;             // empty unless outcome == ok
  double gflops() const {
    return timing.summary.median > 0 ? flops / (timing.summary.median * 1e6) : 0.0;
  }
  double flops = 0;          // 2*M*N*K
};

}  // namespace occtune
