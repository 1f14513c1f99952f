// The typed records of tuning runs: the complete cache key, a run and its provenance, every
// stored measurement, the best entry of a key. One model shared by the engine (which emits them
// through MeasurementSink), the store (which keeps them in SQLite), export/import, the output
// writers, the service and the gate. No SQLite, JSON or CUDA types here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/outcome.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune {

// The complete cache key (design.md 1.2): a mismatch in any field is a miss.
struct CacheKey {
  std::string device_uuid;
  std::string device_name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int driver_version = 0;
  int runtime_version = 0;
  std::string kernel;        // family name, e.g. "tiled_dynamic"
  std::string build_id;      // kernels::kernel_build_id()
  std::string dtype = "f32";
  Shape shape;
  std::string layout = "nn";  // operand layout (autotuner/core/layout.hpp): nn, nt, tn, tt

  static CacheKey make(const DeviceInfo& device, std::string kernel, std::string build_id,
                       Shape shape, std::string dtype = "f32", std::string layout = "nn");
};

enum class RunStatus { kRunning, kComplete, kInterrupted, kFailed };
std::string_view to_string(RunStatus status);
// The stored spelling back to the state; nullopt for text no occtune writes.
std::optional<RunStatus> run_status_from_string(std::string_view text);

struct RunStart {
  DeviceInfo device;         // full properties are kept as JSON on the device row
  std::string kernel;
  std::string build_id;
  std::string dtype = "f32";
  Shape shape;
  std::string tool_version;
  std::vector<std::string> argv;
  TimingPolicy policy;
  std::string layout = "nn";  // last, so brace-initialised RunStarts stay valid
};

// How a run searched (schema 2): kept beside RunStart so brace-initialised RunStarts stay valid.
struct RunSearch {
  std::string strategy;          // "halving", ...; "" for a single-shot run
  int reference_clock_mhz = 0;   // SM clock the throttle test compares against; 0 = unknown
};

// A stored measurement as read back.
struct StoredMeasurement {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string variant;       // manifest symbol
  std::string params;        // "tile=16"
  int threads = 0, tile = 0;
  std::int64_t dynamic_smem = 0;
  int registers = 0;
  int active_blocks_per_sm = 0;
  double occupancy = 0;
  std::string limiter;
  std::string origin;
  int step = 0;              // 1 = the textbook occupancy answer (origin "occupancy-api")
  int suggested_block = 0;   // the occupancy API's block size for this step's limit
  int block_limit = 0;       // the limit the API was called with (0: none)
  std::int64_t grid_x = 0, grid_y = 0;
  double waves = 0;
  Outcome outcome = Outcome::kOk;
  std::string error;
  double rel_error = -1;
  Summary summary;
  std::vector<double> samples_ms;
  double flops = 0;          // of one launch of the problem
  double gflops = 0;
  int sm_clock_mhz = 0;
  // Provenance of the sample set and the search's decision (schema 2; 0 / "" in older rows).
  double noise = 0;          // relative IQR
  Interval median_ci;
  int sm_clock_min_mhz = 0, sm_clock_max_mhz = 0;
  bool throttled = false;
  int throttled_batches = 0;
  std::string stop_reason;   // StopReason text
  int search_round = 0;
  bool tie = false, winner = false;
  std::int64_t reused_from = 0;
};

struct StoredRun {
  std::int64_t id = 0;
  CacheKey key;
  RunStatus status = RunStatus::kRunning;
  std::string started_at, finished_at;  // ISO 8601 UTC
  std::string tool_version;
  std::string argv_json;
  std::string policy_json;
  std::string strategy;
  int reference_clock_mhz = 0;
  Summary cublas;            // the reference measured in the same run (count 0 if none)
  std::vector<double> cublas_samples_ms;
  int cublas_sm_clock_mhz = 0;
};

// The best configuration for a key: the winner of the newest complete run (the measurement the
// search chose, tie-break included); for runs without a recorded winner, its fastest `ok` one.
struct BestEntry {
  StoredRun run;
  StoredMeasurement best;
  double ratio_to_cublas() const {
    return best.summary.median > 0 ? run.cublas.median / best.summary.median : 0.0;
  }
};

// The stored form of a measurement the engine emitted: the candidate's columns and the result's,
// exactly as a store reads it back (a sink that keeps records in memory uses it too).
StoredMeasurement stored_form(const Measurement& m, std::int64_t id, std::int64_t run_id);

// A run with every measurement it stored (export, import, compare).
struct RunRecord {
  StoredRun run;
  std::vector<StoredMeasurement> measurements;
};

}  // namespace occtune
