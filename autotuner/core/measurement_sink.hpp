// Where the tuning engine's results go: the engine emits each run and measurement through this
// interface and never sees SQLite. db::Store implements it (the CLI, the service's workers and
// the library's on-miss tuner tune into a store); tests use an in-memory sink. A sink may also
// hand back earlier measurements the engine can reuse instead of measuring again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autotuner/core/measurement.hpp"
#include "autotuner/core/records.hpp"

namespace occtune {

class MeasurementSink {
 public:
  virtual ~MeasurementSink() = default;
  // Returns the run's id; each later call names it.
  virtual std::int64_t begin_run(const RunStart& start, const RunSearch& search) = 0;
  // Returns the measurement's id, for update_measurement.
  virtual std::int64_t add_measurement(std::int64_t run_id, const Measurement& m) = 0;
  // More samples after a tie was confirmed, the tie and winner marks.
  virtual void update_measurement(std::int64_t measurement_id, const Measurement& m) = 0;
  virtual void set_reference(std::int64_t run_id, const Timing& cublas) = 0;
  virtual void finish_run(std::int64_t run_id, RunStatus status) = 0;
  // Measurements of `key` taken under the same protocol that a new run may use instead of
  // measuring again (db::Store: see its reusable_measurements); empty: measure everything.
  virtual std::vector<StoredMeasurement> reusable_measurements(const CacheKey& key,
                                                               const TimingPolicy& policy,
                                                               const std::string& strategy) = 0;
};

// Makes a sink for one thread of a multi-GPU tune: each thread writes through its own (a store:
// its own connection to the file, whose BEGIN IMMEDIATE writes SQLite serialises).
using SinkFactory = std::function<std::unique_ptr<MeasurementSink>()>;

// The runs and measurements `occtune check` compares against (baselines).
class RunHistory {
 public:
  virtual ~RunHistory() = default;
  virtual std::vector<StoredRun> runs() = 0;  // newest first
  virtual std::vector<StoredMeasurement> measurements(std::int64_t run_id) = 0;
};

}  // namespace occtune
