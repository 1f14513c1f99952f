// What tuning one shape produced: every kernel family's measurements, its winner and tie band,
// plus the cuBLAS reference measured in the same session.
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
  // Every candidate that was checked, reused or pruned by the cost model (stop kPruned, its
  // reason in `error`, no samples), in plan order. Candidates cut by --max-candidates or the
  // time budget before their check are only counted (unmeasured).
  std::vector<Measurement> measurements;
  int winner = -1;         // index of the winning measurement; -1 when no candidate passed
  std::vector<int> ties;   // the winner's tie band (winner included), best first
  bool confirmed = false;  // the tie was measured again before the decision
  std::string strategy;
  int candidates = 0;  // in the plan
  int unmeasured = 0;
  int pruned = 0;  // left out by the cost model before measuring (in measurements, not stored)
  int abandoned = 0;  // halving: stopped after a few samples far behind the shape's incumbent
  int reused = 0;             // measurements taken from the store instead of the GPU
  int samples_taken = 0;      // timed samples taken on the GPU in this run, retakes included
  int throttled_batches = 0;  // batches discarded for a throttled clock
  double wall_s = 0;          // check, race and decision of this family
  double compile_s = 0;       // compiling its configurations before planning (source kernels)
  StopReason stopped = StopReason::kNone;  // kBudget or kInterrupted when cut short
};

struct ShapeResult {
  Shape shape;
  Timing cublas;        // cuBLAS SGEMM before the races (stored with every run as the reference)
  Timing cublas_after;  // again after the races, when TuneRequest::reference_after asked for it
  std::vector<KernelResult> kernels;
  double wall_s = 0;  // the whole shape: buffers, reference, every family

  // cuBLAS's time to compare against: the faster median of the sets taken, so a slow reference
  // set can only make the tuned kernels look worse, never better. 0 when none was taken.
  double cublas_ms() const;
};

// The fastest `ok` measurement with samples, by median; a wrong or failed result never wins.
// (The engine's decision is KernelResult::winner; this is the rule for single-shot sets.)
int pick_winner(const std::vector<Measurement>& measurements);

}  // namespace occtune
