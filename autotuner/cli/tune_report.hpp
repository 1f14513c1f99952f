// The results of tuning one shape, and their table / JSON / CSV renderings.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/engine/tune_result.hpp"

namespace occtune::cli {

using occtune::KernelResult;
using occtune::ShapeResult;

void print_shape_table(std::ostream& out, const ShapeResult& result);
nlohmann::json shape_json(const ShapeResult& result);
void print_csv_header(std::ostream& out);
void print_csv_rows(std::ostream& out, const DeviceInfo& device, const ShapeResult& result);

}  // namespace occtune::cli
