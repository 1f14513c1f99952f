// Device property ranges (autotuner/core/device_limits.hpp). The bounds are those of every CUDA
// GPU so far with generous headroom (an H100 has 132 SMs, 1024 threads per block, 228 KiB of
// shared memory per SM); values outside them are typos or forgeries, and letting them through
// costs a SIGFPE (warp size 0) or minutes of CPU (a block-size walk of 2^31 steps).
#include "autotuner/core/device_limits.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstdint>

namespace occtune {
namespace {

struct FieldRange {
  std::string_view field;
  std::int64_t (*get)(const DeviceInfo&);
  std::int64_t min, max;
  bool informational;  // not used by the occupancy arithmetic: 0 means unknown
  std::string_view why;
};

#define OCCTUNE_FIELD(member) \
#member, [](const DeviceInfo& d) { return static_cast<std::int64_t>(d.member); }

constexpr std::int64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;

const FieldRange kRanges[] = {
    {OCCTUNE_FIELD(cc_major), 1, 99, false, "compute capability major"},
    {OCCTUNE_FIELD(cc_minor), 0, 9, false, "compute capability minor"},
    {OCCTUNE_FIELD(sm_count), 1, 4096, false, "an H100 has 132"},
    {OCCTUNE_FIELD(warp_size), 32, 32, false, "every CUDA GPU has 32-thread warps"},
    {OCCTUNE_FIELD(max_threads_per_block), 32, 4096, false, "1024 on every GPU so far"},
    {OCCTUNE_FIELD(max_threads_per_sm), 32, 8192, false, "2048 on an H100"},
    {OCCTUNE_FIELD(max_blocks_per_sm), 1, 256, false, "32 on an H100"},
    {OCCTUNE_FIELD(regs_per_block), 1, 1 << 20, false, "65536 on an H100"},
    {OCCTUNE_FIELD(regs_per_sm), 1, 1 << 20, false, "65536 on an H100"},
    {OCCTUNE_FIELD(shared_mem_per_block), 1, 16 * kMiB, false, "49152 on every GPU so far"},
    {OCCTUNE_FIELD(shared_mem_per_block_optin), 1, 16 * kMiB, false, "232448 on an H100"},
    {OCCTUNE_FIELD(shared_mem_per_sm), 1, 16 * kMiB, false, "233472 on an H100"},
    {OCCTUNE_FIELD(reserved_shared_mem_per_block), 0, 64 * kKiB, false, "1024 on an H100"},
    {OCCTUNE_FIELD(max_grid_x), 1, INT_MAX, false, "2147483647 on every GPU so far"},
    {OCCTUNE_FIELD(max_grid_y), 1, INT_MAX, false, "65535 on every GPU so far"},
    {OCCTUNE_FIELD(l2_bytes), 0, 64 * kGiB, true, "52428800 on an H100"},
    {OCCTUNE_FIELD(global_mem_bytes), 0, 1024 * 1024 * kGiB, true, "about 80 GiB on an H100"},
    {OCCTUNE_FIELD(clock_khz), 0, 10'000'000, true, "1980 MHz on an H100"},
    {OCCTUNE_FIELD(memory_clock_khz), 0, 100'000'000, true, "2619 MHz on an H100"},
    {OCCTUNE_FIELD(memory_bus_width), 0, 65536, true, "5120 on an H100"},
    {OCCTUNE_FIELD(driver_version), 0, 1'000'000, true, "13000 for CUDA 13.0"},
    {OCCTUNE_FIELD(runtime_version), 0, 1'000'000, true, "13000 for CUDA 13.0"},
};
#undef OCCTUNE_FIELD

std::string_view profile_key(std::string_view field) {
  if (field == "cc_major" || field == "cc_minor") return "compute_capability";
  if (field == "clock_khz") return "clock_mhz";
  if (field == "memory_clock_khz") return "memory_clock_mhz";
  return field;
}

std::int64_t profile_scale(std::string_view field) {
  return field == "clock_khz" || field == "memory_clock_khz" ? 1000 : 1;
}

DeviceProblem relation(DeviceFieldNames names, std::string_view field, std::string problem) {
  return {std::string(names == DeviceFieldNames::kProfile ? profile_key(field) : field),
          std::move(problem) +
              "; check both against the CUDA Programming Guide table for this compute capability"};
}

}  // namespace

std::optional<DeviceProblem> device_problem(const DeviceInfo& d, DeviceFieldNames names,
                                            bool informational_required) {
  const bool profile = names == DeviceFieldNames::kProfile;
  for (const FieldRange& r : kRanges) {
    if (profile && (r.field == "driver_version" || r.field == "runtime_version")) continue;
    const std::int64_t value = r.get(d);
    const std::int64_t min = r.informational && !informational_required ? 0
                             : r.informational                          ? 1
                                                                        : r.min;
    if (value >= min && value <= r.max) continue;
    const std::int64_t scale = profile ? profile_scale(r.field) : 1;
    const std::string_view name = profile ? profile_key(r.field) : r.field;
    std::string problem =
        min == r.max
            ? fmt::format("is {}, but must be {} ({})", value / scale, r.max / scale, r.why)
            : fmt::format("is {}, outside the hardware's range {}..{} ({})", value / scale,
                          min / scale, r.max / scale, r.why);
    if (profile && r.field == "cc_minor") problem = fmt::format("has minor version {}", value);
    return DeviceProblem{std::string(name), std::move(problem)};
  }
  // Relations every real GPU satisfies; breaking one means a mistyped number.
  if (d.max_threads_per_sm % d.warp_size != 0)
    return relation(
        names, "max_threads_per_sm",
        fmt::format("({}) is not a multiple of warp_size ({})", d.max_threads_per_sm, d.warp_size));
  if (d.max_threads_per_block > d.max_threads_per_sm)
    return relation(names, "max_threads_per_block",
                    fmt::format("({}) exceeds max_threads_per_sm ({})", d.max_threads_per_block,
                                d.max_threads_per_sm));
  if (d.regs_per_block > d.regs_per_sm)
    return relation(names, "regs_per_block",
                    fmt::format("({}) exceeds regs_per_sm ({})", d.regs_per_block, d.regs_per_sm));
  if (d.shared_mem_per_block_optin < d.shared_mem_per_block)
    return DeviceProblem{
        "shared_mem_per_block_optin",
        fmt::format("({}) is below shared_mem_per_block ({}); the opt-in limit is at least the "
                    "default one; where there is no opt-in, repeat the default value",
                    d.shared_mem_per_block_optin, d.shared_mem_per_block)};
  if (d.shared_mem_per_block_optin > d.shared_mem_per_sm)
    return relation(names, "shared_mem_per_block_optin",
                    fmt::format("({}) exceeds shared_mem_per_sm ({})", d.shared_mem_per_block_optin,
                                d.shared_mem_per_sm));
  return std::nullopt;
}

void require_valid_device(const DeviceInfo& device, std::string_view origin, ExitCode code,
                          std::string_view fix) {
  if (auto p = device_problem(device))
    fail(code,
         fmt::format("device properties of {}: {} {}; {}", origin, p->field, p->problem, fix));
}

}  // namespace occtune
