// Turns the gate's report of one `occtune check` into the record the store keeps (schema 4's
// check history), so the report can show verdicts and re-measured medians over time.
#pragma once

#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/engine/gate.hpp"
#include "autotuner/core/check_history.hpp"

namespace occtune::gate {

CheckRecord check_record(const GateReport& report, const DeviceInfo& device,
                             const std::string& tool_version,
                             const std::vector<std::string>& argv);

}  // namespace occtune::gate
