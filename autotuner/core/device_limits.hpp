// The hardware's range for every device property: the one rule set that device profiles, the
// GPU probe, imported exports and device rows read back from a store are held to before the
// occupancy arithmetic (which divides by the warp size and walks block sizes) may see them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/error.hpp"

namespace occtune {

// How a property is named in the message: as a DeviceInfo / stored JSON field ("clock_khz") or
// as the key of a device profile ("clock_mhz", values in MHz).
enum class DeviceFieldNames { kDeviceInfo, kProfile };

struct DeviceProblem {
  std::string field;    // the name of the offending property (per DeviceFieldNames)
  std::string problem;  // e.g. "is 0, outside the hardware's range 32..32 (...)"
};

// The first property outside the hardware's range, or the first relation every real GPU
// satisfies that is broken (max_threads_per_sm a multiple of warp_size, ...). Properties the
// occupancy arithmetic does not use (clocks, memory sizes, bus width) may be 0 = unknown unless
// `informational_required` (a device profile states them all).
std::optional<DeviceProblem> device_problem(const DeviceInfo& device,
                                            DeviceFieldNames names = DeviceFieldNames::kDeviceInfo,
                                            bool informational_required = false);

// Throws Error(code) "device properties of <origin>: <field> <problem>; <fix>" when
// device_problem finds one.
void require_valid_device(const DeviceInfo& device, std::string_view origin, ExitCode code,
                          std::string_view fix);

}  // namespace occtune
