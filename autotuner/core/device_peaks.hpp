// The device's limits a work measure is compared with: the FP32 FMA peak and the DRAM (HBM)
// bandwidth, computed from the device info (the runtime's answer or a device profile), and a
// line that says how, so a table's "% of limit" can be checked by hand.
#pragma once

#include <string>

#include "autotuner/core/device_info.hpp"

namespace occtune {

// FP32 lanes per SM by compute capability (64 on sm_60/70/75/80, 128 on sm_61/86/89/90 and
// later), and the device's FMA limit: 2 FLOP x SMs x lanes x the maximum SM clock.
int fp32_lanes_per_sm(int cc_major, int cc_minor);
double fma_peak_flops(const DeviceInfo& device);
// Bytes per second: 2 transfers per memory clock (DDR) x the bus width in bytes; 0 when the
// device info has no memory clock or bus width.
double dram_bandwidth(const DeviceInfo& device);

// The limit a launch came closest to: the larger of flops / FMA peak and bytes / bandwidth.
struct LimitShare {
  double fraction = 0;   // 0 when the launch has no work measure or the device no limit
  const char* limit = "";  // "DRAM" or "FMA"
};
LimitShare share_of_limit(double flops, double bytes, double seconds, const DeviceInfo& device);
// "82% DRAM" / "12% FMA", or "-" without a share.
std::string share_text(const LimitShare& share);

// "limits of NVIDIA H100 (runtime): DRAM 3352 GB/s = 2 x 2619 MHz x 5120 bit / 8; FMA 66.9
// TFLOP/s = 2 x 132 SMs x 128 lanes x 1980 MHz"
std::string limits_line(const DeviceInfo& device);

}  // namespace occtune
