// The results of tuning one shape, and their table / JSON / CSV renderings.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/search_strategy.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/engine/tune_result.hpp"

namespace occtune::cli {

using occtune::KernelResult;
using occtune::ShapeResult;

// One table per shape: every candidate with occupancy, timing, noise, how it left the search
// and the tie band; then a line per kernel on the decision. Without `wide` the columns of detail
// (smem, limiter, waves, quartiles, count, noise, error) are left out.
// A user family's table shows GB/s and the share of the device's limit in place of the ratio
// to cuBLAS, with a line that says where the limits come from (core/device_peaks.hpp).
void print_shape_table(std::ostream& out, const ShapeResult& result, const DeviceInfo& device,
                       bool wide);
// The summary a person reads first, after every shape's table: per shape the winner across
// families (family, configuration, time, TFLOP/s, ratio to cuBLAS) and where the textbook
// occupancy pick (tiled_dynamic, occupancy API step 1) landed.
void print_summary(std::ostream& out, const std::vector<ShapeResult>& results);

// The fastest family winner of a shape (nullptr members when no family has a correct result).
struct ShapeBest {
  const KernelResult* kernel = nullptr;
  const Measurement* m = nullptr;
};
ShapeBest best_of(const ShapeResult& result);

nlohmann::json search_json(const SearchSettings& search);
// One measured (or pruned, or failed) candidate as `tune --format json` lists it: the stored
// form, "pruned" with its reason, how far behind an abandoned one was, and for a timed one its
// ratio to `cublas_ms` and share of the device's limit. `bench` lists its races' the same way.
nlohmann::json candidate_json(const Measurement& m, double cublas_ms, const DeviceInfo& device);
nlohmann::json shape_json(const ShapeResult& result, const DeviceInfo& device);
void print_csv_header(std::ostream& out);
void print_csv_rows(std::ostream& out, const DeviceInfo& device, const ShapeResult& result);

}  // namespace occtune::cli
