// What the HTML report shows, gathered from the store (no GPU): per device and shape every
// candidate of each family's newest complete run, the textbook occupancy pick and the measured
// winner, the history of each key across tune runs and checks, and the runs' provenance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/device_peaks.hpp"
#include "autotuner/core/shape.hpp"
#include "db/store.hpp"

namespace occtune::report {

// The device's FMA limit and its lanes per SM (autotuner/core/device_peaks.hpp).
using occtune::fma_peak_flops;
using occtune::fp32_lanes_per_sm;

// One candidate of one family's run.
struct Point {
  std::string family;
  std::string config;   // "tile=16"
  std::string variant;  // manifest symbol
  int threads = 0;
  double occupancy = 0;
  int active_blocks_per_sm = 0;
  std::string limiter;
  std::string outcome;  // Outcome text
  std::string error;
  double median_ms = 0, q1_ms = 0, q3_ms = 0;  // 0 when not timed
  std::size_t samples = 0;
  std::int64_t run_id = 0;
  bool textbook = false;       // origin "occupancy-api", step 1
  bool family_winner = false;  // what the family's run chose
  bool timed() const { return outcome == "ok" && median_ms > 0; }
};

struct FamilySummary {
  std::string family;
  std::int64_t run_id = 0;
  std::string started_at;
  std::string build_id;
  int candidates = 0, timed = 0, failed = 0;
  int winner = -1;  // index into ShapeView::points
  double cublas_ms = 0;
};

struct ShapeView {
  Shape shape;
  std::vector<Point> points;
  std::vector<FamilySummary> families;
  double cublas_ms = 0;  // newest family run's reference; 0 when none was measured
  int winner = -1;       // fastest family winner (index into points)
  int textbook = -1;     // the textbook pick (tiled_dynamic's step 1), if tuned
  int textbook_rank = 0; // 1-based rank of its median among the timed points; 0 if not timed
};

// One point of a key's history: a tune run's winner or a check's re-measurement.
struct HistoryPoint {
  std::string when;  // ISO 8601 UTC
  std::string kind;  // "tune" or "check"
  std::int64_t id = 0;  // run id or check id
  std::string config;
  std::string build_id;
  double median_ms = 0, low_ms = 0, high_ms = 0;  // interval of the median (0: none)
  std::string verdict;  // checks only
};

struct KeyHistory {
  std::string family;
  Shape shape;
  std::vector<HistoryPoint> points;  // oldest first
};

struct RunProvenance {
  db::StoredRun run;
  int sm_clock_min_mhz = 0, sm_clock_max_mhz = 0;  // over its timed measurements; 0 unknown
  int measurements = 0;
};

struct DeviceView {
  DeviceInfo device;  // the newest record of this UUID
  std::vector<ShapeView> shapes;
  std::vector<KeyHistory> history;
  std::vector<db::CheckRecord> checks;  // oldest first
  std::vector<RunProvenance> runs;      // newest first
};

struct ReportData {
  std::string db_path;
  std::string tool_version;
  std::string build_id;  // of this binary's kernels
  std::string generated_at;
  std::vector<DeviceView> devices;
};

// Every device of the store, or the one `device_selector` names (an index or a UUID prefix, as
// `occtune devices` prints them). Error(kUsage) for a selector naming no stored device,
// Error(kNotFound) for a store without complete runs.
ReportData gather(db::Store& store, const std::string& device_selector,
                  const std::string& tool_version);

}  // namespace occtune::report
