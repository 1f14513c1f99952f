// The bench's confirmation phase: the interleaved re-measurement and re-verification of each
// shape's winner (docs/architecture.md, "Issue #18").
#include "autotuner/cli/bench_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "autotuner/core/error.hpp"

namespace occtune::cli {

double BenchRow::race_ratio() const {
  return best.m && best.m->timing.summary.median > 0
             ? result->cublas_ms() / best.m->timing.summary.median
             : 0.0;
}

bool BenchRow::failed() const {
  return paired.outcome != Outcome::kOk || (recheck && recheck->outcome != Outcome::kOk);
}

double BenchRow::large_operand_bytes() const {
  const Shape& s = result->shape;
  if (s.m > 16 && s.n > 16) return 0;
  return 4.0 * double(s.k) * double(std::max(s.m, s.n));
}

double BenchRow::read_bytes() const {
  if (large_operand_bytes() == 0) return 0;  // not a memory-bound shape
  const Shape& s = result->shape;
  return 4.0 * double(s.k) * (double(s.m) + double(s.n));
}

std::pair<double, int> geomean(const std::vector<double>& values) {
  double log_sum = 0;
  int n = 0;
  for (double v : values)
    if (v > 0) {
      log_sum += std::log(v);
      ++n;
    }
  return {n ? std::exp(log_sum / n) : 0.0, n};
}

std::vector<BenchRow> confirm_winners(MeasurementBackend& backend,
                                      const std::vector<ShapeResult>& results,
                                      const std::map<std::string, std::string>& categories,
                                      Layout layout, const TimingPolicy& policy,
                                      const std::atomic<bool>& interrupted, bool quiet) {
  std::vector<BenchRow> rows;
  for (size_t i = 0; i < results.size(); ++i) {
    BenchRow row;
    row.result = &results[i];
    if (auto it = categories.find(results[i].shape.str()); it != categories.end())
      row.category = it->second;
    row.best = best_of(results[i]);
    rows.push_back(row);
  }
  for (auto& row : rows) {
    const ShapeResult& r = *row.result;
    if (!row.best.m) {
      row.note = "no winner";
      continue;
    }
    if (interrupted) {
      row.note = "interrupted";
      continue;
    }
    try {
      // A fresh open: new buffers, cuBLAS warmed up and the clocks settled again.
      backend.open_shape(r.shape, layout, policy);
    } catch (const Error& e) {
      if (e.code() != ExitCode::kUsage) throw;
      row.note = e.what();
      continue;
    }
    const Candidate& winner = row.best.m->candidate;
    const int pairs = interleaved_pairs(r.cublas_ms(), row.best.m->timing.summary.median);
    row.paired = interleave(backend, winner, pairs, interrupted);
    // After its timed launches, the winner must still compute the right product (with its
    // output and workspace poisoned again).
    if (row.paired.outcome == Outcome::kOk) row.recheck = backend.check(winner);
    if (!quiet) {
      std::string verdict =
          row.failed()
              ? fmt::format("FAILED: {}", row.recheck ? row.recheck->error : row.paired.error)
              : "re-verified";
      std::cerr << fmt::format("occtune bench: {} interleaved: {:.3f}x cuBLAS over {} pairs, {}\n",
                               r.shape.str(), row.ratio(), row.paired.ratios.size(), verdict);
    }
  }
  return rows;
}

}  // namespace occtune::cli
