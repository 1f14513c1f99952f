// The results of tuning one shape, and their table / JSON / CSV renderings.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune::cli {

struct KernelResult {
  std::string kernel;
  std::int64_t run_id = 0;
  std::vector<Measurement> measurements;
  int winner = -1;  // index of the fastest ok measurement; -1 when none passed
};

struct ShapeResult {
  Shape shape;
  Timing cublas;
  std::vector<KernelResult> kernels;
};

// The winner: the fastest `ok` measurement by median; a wrong or failed result never wins.
int pick_winner(const std::vector<Measurement>& measurements);

void print_shape_table(std::ostream& out, const ShapeResult& result);
nlohmann::json shape_json(const ShapeResult& result);
void print_csv_header(std::ostream& out);
void print_csv_rows(std::ostream& out, const DeviceInfo& device, const ShapeResult& result);

}  // namespace occtune::cli
