// Reads the visible GPUs through the CUDA runtime. No GPU or no driver is Error(kRuntime) with
// a message that says how to plan offline instead.
#pragma once

#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"

namespace occtune::cuda {

std::vector<DeviceInfo> probe_devices();
// `selector` is an index ("0") or a UUID ("GPU-...", a unique prefix is enough); empty = 0
// (autotuner/core/device_selector.hpp). Throws Error(kUsage) for a bad or unmatched selector.
DeviceInfo select_device(const std::string& selector);

}  // namespace occtune::cuda
