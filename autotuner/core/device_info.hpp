// Everything occtune knows about a GPU: read from the runtime (cuda/device_probe) or from a
// device profile (configs/profiles) for offline planning. Plain data, no CUDA types.
#pragma once

#include <cstddef>
#include <string>

namespace occtune {

struct DeviceInfo {
  int index = -1;               // runtime ordinal; -1 for a profile
  std::string uuid;             // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; empty for a profile
  std::string name;
  std::string source;           // "runtime" or "profile:<name or file>"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_block = 0;
  int regs_per_sm = 0;
  std::size_t shared_mem_per_block = 0;        // default per-block limit (48 KiB)
  std::size_t shared_mem_per_block_optin = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  std::size_t shared_mem_per_sm = 0;
  std::size_t reserved_shared_mem_per_block = 0;
  int max_grid_x = 2147483647;
  int max_grid_y = 65535;
  std::size_t l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  int clock_khz = 0;          // maximum SM clock
  int memory_clock_khz = 0;
  int memory_bus_width = 0;
  int driver_version = 0;     // e.g. 13000 (cudaDriverGetVersion); 0 for a profile
  int runtime_version = 0;    // e.g. 13000 (cudaRuntimeGetVersion); 0 for a profile
  std::string pci_bus_id;

  int compute_capability() const { return cc_major * 10 + cc_minor; }
  std::string arch() const { return "sm_" + std::to_string(compute_capability()); }
};

}  // namespace occtune
