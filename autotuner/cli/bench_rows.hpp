// What `occtune bench` reports per shape (issue #18): the race's winner, its interleaved
// re-measurement against cuBLAS (the headline ratio), its re-verification after those timed
// launches, and the clocks of every sample set; plus the printers of the three formats.
#pragma once

#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "autotuner/cli/tune_report.hpp"
#include "autotuner/core/backend.hpp"
#include "autotuner/engine/interleave.hpp"
#include "autotuner/engine/tune_result.hpp"

namespace occtune::cli {

struct BenchRow {
  const ShapeResult* result = nullptr;
  std::string category;                // from the suite file; empty otherwise
  ShapeBest best;                      // the race's winner over every family
  PairedTiming paired;                 // the interleaved A/B pairs (empty when not taken)
  std::optional<Measurement> recheck;  // the check after the timed pairs
  std::string note;                    // why the winner was not re-measured, when it was not

  double ratio() const { return paired.ratio; }  // the headline; 0 when not re-measured
  double race_ratio() const;                     // cuBLAS's race reference / winner's median
  // The interleaved medians (ms); 0 when not re-measured.
  double tuned_ms() const { return paired.candidate.summary.median; }
  double cublas_ms() const { return paired.reference.summary.median; }
  // The winner failed its re-verification or a timed pair.
  bool failed() const;
  // Bytes of the larger operand when M <= 16 or N <= 16 (a memory-bound shape), else 0.
  double large_operand_bytes() const;
  // Bytes of A and B together, each read once, for the same shapes (else 0): what the kernel
  // must read from HBM at least. Where M (or N) is not far below K, B (or A) is large too, and
  // the larger operand's bytes alone understate the traffic (C is never read: beta is 0).
  double read_bytes() const;
};

// Re-measures each shape's winner against cuBLAS, interleaved, on a freshly opened shape, then
// checks it once more. `categories` maps a shape ("MxNxK") to its suite category. Progress
// lines go to stderr unless `quiet`.
std::vector<BenchRow> confirm_winners(MeasurementBackend& backend,
                                      const std::vector<ShapeResult>& results,
                                      const std::map<std::string, std::string>& categories,
                                      Layout layout, const TimingPolicy& policy,
                                      const std::atomic<bool>& interrupted, bool quiet);

// Geometric mean of the positive values (0 when none) and how many there were.
std::pair<double, int> geomean(const std::vector<double>& values);

struct BenchHeader {
  DeviceInfo device;
  std::string build_id;
  Layout layout = Layout::kNN;
  TimingPolicy policy;
  std::vector<std::string> kernels;
  bool interrupted = false;
};

void print_bench_table(std::ostream& out, const BenchHeader& h, const std::vector<BenchRow>& rows);
nlohmann::json bench_json(const BenchHeader& h, const std::vector<BenchRow>& rows);
void print_bench_csv(std::ostream& out, const BenchHeader& h, const std::vector<BenchRow>& rows);

}  // namespace occtune::cli
