// Where candidates are measured. The tuning engine (parent process, owner of the database)
// talks only to this interface: the in-process backend calls the GPU directly; the isolated
// backend (issue #5) forwards every call to a worker process that holds the CUDA context, so a
// faulting or hanging candidate cannot take the tuner down.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/measurement.hpp"

namespace occtune {

// Timed samples of one candidate (or the reference), taken with the shape's policy.
struct SampleBatch {
  Outcome outcome = Outcome::kOk;  // a failure while sampling (e.g. a fault on a later launch)
  std::string error;
  std::vector<double> samples_ms;
  int sm_clock_mhz = 0;            // read after the batch; 0 when NVML is unavailable
};

class MeasurementBackend {
 public:
  virtual ~MeasurementBackend() = default;
  virtual const DeviceInfo& device() const = 0;
  // Candidate generation on the device (runtime Occupancy API): the family's variants of
  // `layout` (autotuner/core/layout.hpp).
  virtual Plan plan(const kernels::FamilyInfo& family, Shape shape, int min_tile,
                    Layout layout) = 0;
  // Allocates inputs stored as `layout` says and the cuBLAS reference result for `shape`;
  // throws Error(kUsage) when the shape cannot fit in device memory. Candidates checked on it
  // must be variants of that layout.
  virtual void open_shape(Shape shape, Layout layout, const TimingPolicy& policy) = 0;
  // Opens the problem of a user kernel family (occtune/kernel.hpp) instead of a GEMM shape:
  // its buffers, seeded inputs and reference (host or device). `problem` holds the family's dimensions as
  // to_shape() writes them (autotuner/core/user_family.hpp). Candidates checked on it must be
  // that family's; there is no cuBLAS reference to sample. Throws Error(kUsage) naming the
  // family when its buffers are unusable or do not fit.
  virtual void open_user_problem(const std::string& family, Shape problem,
                                 const TimingPolicy& policy);
  virtual SampleBatch reference_samples(int count) = 0;
  // One launch on a NaN-poisoned output, verified against the reference; no timing. The
  // outcome is ok, wrong_result, or the launch/limit/crash outcome.
  virtual Measurement check(const Candidate& candidate) = 0;
  // `count` timed samples (L2 flushed before each); the first batch of a candidate is preceded
  // by the policy's warm-up launches.
  virtual SampleBatch samples(const Candidate& candidate, int count) = 0;
  virtual std::string description() const = 0;
  // The clock a batch is compared against for throttling: NVML's default SM clock, else the
  // device's maximum SM clock. Asked of the backend because NVML opens the driver
  // (/dev/nvidiactl), which the parent of an isolated run never does.
  virtual int throttle_reference_clock_mhz() const { return device().clock_khz / 1000; }
  // False when a `crashed` outcome leaves this backend unable to run anything more (in-process:
  // the context is gone), so the engine stops; an isolating backend replaces its worker and
  // returns true.
  virtual bool survives_crashes() const { return false; }
};

inline void MeasurementBackend::open_user_problem(const std::string& family, Shape,
                                                  const TimingPolicy&) {
  fail(ExitCode::kRuntime, "internal: " + description() +
                               " cannot measure the user kernel "
                               "family '" +
                               family + "'");
}

}  // namespace occtune
