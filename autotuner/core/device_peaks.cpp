// The FMA peak and DRAM bandwidth of a device (autotuner/core/device_peaks.hpp).
#include "autotuner/core/device_peaks.hpp"

#include <fmt/format.h>

namespace occtune {

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  if (cc_major <= 5) return 128;
  if (cc_major == 6) return cc_minor == 0 ? 64 : 128;
  if (cc_major == 7) return 64;
  if (cc_major == 8) return cc_minor == 0 ? 64 : 128;
  return 128;
}

double fma_peak_flops(const DeviceInfo& d) {
  return 2.0 * d.sm_count * fp32_lanes_per_sm(d.cc_major, d.cc_minor) * d.clock_khz * 1e3;
}

double dram_bandwidth(const DeviceInfo& d) {
  return 2.0 * double(d.memory_clock_khz) * 1e3 * double(d.memory_bus_width) / 8.0;
}

LimitShare share_of_limit(double flops, double bytes, double seconds, const DeviceInfo& device) {
  LimitShare share;
  if (!(seconds > 0)) return share;
  const double peak = fma_peak_flops(device), bandwidth = dram_bandwidth(device);
  if (flops > 0 && peak > 0) share = {flops / seconds / peak, "FMA"};
  if (bytes > 0 && bandwidth > 0 && bytes / seconds / bandwidth > share.fraction)
    share = {bytes / seconds / bandwidth, "DRAM"};
  return share;
}

std::string share_text(const LimitShare& share) {
  return share.fraction > 0 ? fmt::format("{:.0f}% {}", share.fraction * 100, share.limit) : "-";
}

std::string limits_line(const DeviceInfo& d) {
  return fmt::format(
      "limits of {} ({}): DRAM {:.0f} GB/s = 2 x {} MHz x {} bit / 8; FMA {:.1f} TFLOP/s = 2 x {} "
      "SMs x {} lanes x {} MHz",
      d.name, d.source, dram_bandwidth(d) / 1e9, d.memory_clock_khz / 1000, d.memory_bus_width,
      fma_peak_flops(d) / 1e12, d.sm_count, fp32_lanes_per_sm(d.cc_major, d.cc_minor),
      d.clock_khz / 1000);
}

}  // namespace occtune
