// The typed values the public API hands to applications: the problem asked about, the launch
// configuration to use, the measurement behind it and how the lookup chain answered. Plain data,
// C++17, no third-party or CUDA headers (compiles under nvcc -std=c++17 and host compilers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace occtune {

// A GEMM problem: C[m x n] = op(A)[m x k] op(B)[k x n], row-major, in the canonical layout
// "nn", "nt", "tn" or "tt" (op(A), op(B)); a column-major problem is the row-major one with the
// operands swapped (see occtune/sgemm.hpp). An empty family asks for the fastest configuration
// of any family.
struct Problem {
  std::string family;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::string dtype = "f32";
  std::string layout = "nn";
};

// A named integer parameter of a configuration ("tile" = 32, "bm" = 128, ...).
struct Param {
  std::string name;
  std::int64_t value = 0;
};

// What to launch: the kernel specialisation, its block, its dynamic shared memory and the grid
// for the problem that was asked about (also when the answer was measured at another shape).
struct LaunchConfig {
  std::string family;
  std::string variant;  // the specialisation's name, e.g. "TiledDynamic<32>"
  std::vector<Param> params;
  int block_x = 0, block_y = 0, block_z = 1;
  std::int64_t grid_x = 0, grid_y = 0, grid_z = 1;
  std::size_t dynamic_smem = 0;
  // The occupancy annotation the tuner stored (or computed, for the heuristic).
  int threads = 0;
  double occupancy = 0;  // active warps / maximum warps per SM
  int active_blocks_per_sm = 0;
  std::string limiter;  // warps | registers | shared_memory | blocks | barriers | none
};

// Summary of a sample set in milliseconds: median, quartiles, extremes and the count.
struct TimingSummary {
  double median_ms = 0, min_ms = 0, q1_ms = 0, q3_ms = 0, max_ms = 0;
  int count = 0;
};

// The measurement that answered (absent for the occupancy heuristic).
struct MeasuredResult {
  std::string device_uuid;  // the device it was measured on
  std::string device_name;
  std::int64_t m = 0, n = 0, k = 0;  // the shape it was measured at
  std::string kernel_build_id;
  TimingSummary timing;
  TimingSummary cublas;  // cuBLAS in the same run (count 0 when none was taken)
  double rel_error = 0;  // relative Frobenius error against cuBLAS
  std::int64_t run_id = 0;
  std::string run_finished_at;  // ISO 8601 UTC
};

// The steps of the lookup chain, in order (docs/architecture.md "The lookup chain").
enum class LookupStep { kExact, kSameModel, kSameArchitecture, kNearestShape, kHeuristic };
const char* to_string(LookupStep step);  // "exact", "same_model", ..., "heuristic"

struct StepReport {
  LookupStep step = LookupStep::kExact;
  std::string result;  // "hit", "miss" or "not_tried"
  std::string detail;  // what matched, or why nothing did
};

struct Answer {
  LaunchConfig config;
  LookupStep answered_by = LookupStep::kExact;
  std::optional<MeasuredResult> measurement;  // empty for the heuristic
  double shape_distance = 0;                  // nearest_shape: distance of the measured shape
  std::vector<StepReport> chain;              // every step, in chain order

  bool measured() const { return measurement.has_value(); }
};

// Identity of a device as the store keys it.
struct DeviceIdentity {
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;  // e.g. 13000
};

}  // namespace occtune
