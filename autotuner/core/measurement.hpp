// The result of measuring one candidate (or the cuBLAS reference) for one shape: outcome,
// correctness and timing with the protocol that produced it. Shared by the GPU engine, the
// store and the printers. Included by .cu files: C++17, no host-only libraries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/outcome.hpp"
#include "autotuner/core/stats.hpp"

namespace occtune {

// The measurement protocol ([measure] in a job file, docs/architecture.md "Measurement
// protocol"). Stored with every run; a stored measurement is reused only under an identical one.
struct TimingPolicy {
  int warmup = 3;            // untimed launches before a candidate's first batch
  // Stopping rule of a finalist: at least `samples` samples and `min_time_s` seconds of timed
  // execution, then stop once the relative IQR is at most `target_noise`; give up (recording the
  // noise reached) after `max_seconds_per_candidate` seconds or `max_samples` samples.
  int samples = 20;
  double min_time_s = 0.005;
  double target_noise = 0.02;
  double max_seconds_per_candidate = 2.0;
  int max_samples = 200;
  int batch = 5;             // samples per interleaved turn: smaller spreads drift more finely
  bool flush_l2 = true;      // flush L2 before every sample (flush_method, below)
  double tolerance = 1e-5;   // relative Frobenius error accepted against cuBLAS
  unsigned long long seed = 20261122;  // input generator seed
  // Warm-up until clocks settle, once per shape: at least settle_ms of launches, then until
  // three SM clock readings agree within 2% (NVML), at most settle_timeout_ms.
  int settle_ms = 50;
  int settle_timeout_ms = 1000;
  // A batch whose SM clock was below throttle_ratio x the reference clock is discarded and
  // retaken, at most throttle_retries times per candidate; then it is kept and marked.
  double throttle_ratio = 0.75;
  int throttle_retries = 3;
  std::string timer = "cuda_event";
  // How flush_l2 flushes, stored with every run so that runs timed differently are never
  // reused for one another: "read", a read of a zeroed buffer of 2x L2 that leaves only clean
  // lines (since wave 22). Runs stored without this field flushed with a memset of that
  // buffer, which left dirty lines for the timed launch to write back (docs/PERFORMANCE.md,
  // "The L2 flush").
  std::string flush_method = "read";
};

// Why a candidate stopped being sampled. Stored as text (measurements.stop_reason).
enum class StopReason {
  kNone,         // a one-shot measurement, or the check failed
  kConverged,    // stopping rule met: enough samples, enough time, noise under the target
  kTimeout,      // gave up at max_seconds_per_candidate with the noise it reached
  kMaxSamples,   // gave up at max_samples
  kEliminated,   // halving: in the worse half of a round
  kDropped,      // halving: screen median beyond drop_factor x the best
  kBudget,       // the time budget ran out while it was still being sampled
  kInterrupted,  // Ctrl-C while it was still being sampled
  kPruned,       // the cost model left it out before measuring (issue #18); never stored
  kAbandoned,    // halving: its first samples were far behind the shape's incumbent (issue #18)
};
std::string_view to_string(StopReason reason);
std::optional<StopReason> stop_reason_from_string(std::string_view text);
// Measured to its stopping rule (converged or gave up): valid under any search strategy.
inline bool is_final(StopReason r) {
  return r == StopReason::kConverged || r == StopReason::kTimeout || r == StopReason::kMaxSamples;
}

struct Timing {
  std::vector<double> samples_ms;
  Summary summary;           // of samples_ms
  int sm_clock_mhz = 0;      // lowest SM clock of the last kept batch; 0 without NVML
  // Provenance of the sample set.
  int sm_clock_min_mhz = 0;  // lowest and highest batch clock over the kept batches
  int sm_clock_max_mhz = 0;
  double noise = 0;          // relative IQR of samples_ms
  Interval median_ci;        // distribution-free interval of the median (search tie level)
  int throttled_batches = 0; // batches that read throttled: retaken while retries last, then kept
  bool throttled = false;    // a kept batch was throttled (retries ran out)
  StopReason stop = StopReason::kNone;
  double measured_s = 0;     // sum of the kept samples, in seconds
};

// The work of one launch: floating-point operations and bytes moved (0: not measured).
struct Work {
  double flops = 0;
  double bytes = 0;
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
  double bytes = 0;          // a user family's work measure (KernelFamily::bytes); 0 without
  double gbps() const {
    return timing.summary.median > 0 ? bytes / (timing.summary.median * 1e6) : 0.0;
  }
  // The search's decision about it.
  int search_round = 0;      // round of the race in which it left (0 = screen)
  double behind = 0;         // abandoned: its fastest sample / the incumbent's median
  bool tie = false;          // inside the winner's tie band (median intervals overlap)
  bool winner = false;
  std::int64_t reused_from = 0;  // stored measurement whose samples were reused; 0 if measured
};

}  // namespace occtune
