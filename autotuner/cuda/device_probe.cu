#include "autotuner/cuda/device_probe.hpp"

#include <cstdio>

#include "autotuner/core/device_limits.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/device_selector.hpp"
#include "autotuner/cuda/cuda_check.cuh"

namespace occtune::cuda {
namespace {

std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[64];
  std::snprintf(text, sizeof text,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

std::string no_gpu_hint() {
  std::string names;
  for (auto& n : profile_names()) names += (names.empty() ? "" : ", ") + n;
  return "occtune needs an NVIDIA GPU and driver to measure; to plan offline without one, run "
         "`occtune plan --profile h100` (profiles: " + names + ")";
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  OCCTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

std::vector<DeviceInfo> probe_devices() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear it: nothing else may see this as sticky
    const std::string why = err == cudaSuccess ? "the driver reports 0 devices" : describe(err);
    throw Error(ExitCode::kRuntime, "no CUDA device is visible (" + why + "); " + no_gpu_hint());
  }
  int driver = 0, runtime = 0;
  OCCTUNE_CUDA_CHECK(cudaDriverGetVersion(&driver));
  OCCTUNE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  std::vector<DeviceInfo> out;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    OCCTUNE_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    DeviceInfo d;
    d.index = i;
    d.uuid = format_uuid(p.uuid);
    d.name = p.name;
    d.source = "runtime";
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.sm_count = p.multiProcessorCount;
    d.warp_size = p.warpSize;
    d.max_threads_per_block = p.maxThreadsPerBlock;
    d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d.regs_per_block = p.regsPerBlock;
    d.regs_per_sm = p.regsPerMultiprocessor;
    d.shared_mem_per_block = p.sharedMemPerBlock;
    d.shared_mem_per_block_optin = p.sharedMemPerBlockOptin;
    d.shared_mem_per_sm = p.sharedMemPerMultiprocessor;
    d.reserved_shared_mem_per_block = p.reservedSharedMemPerBlock;
    d.max_grid_x = p.maxGridSize[0];
    d.max_grid_y = p.maxGridSize[1];
    d.l2_bytes = size_t(p.l2CacheSize);
    d.global_mem_bytes = p.totalGlobalMem;
    // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain.
    d.clock_khz = attribute(cudaDevAttrClockRate, i);
    d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, i);
    d.memory_bus_width = p.memoryBusWidth;
    d.driver_version = driver;
    d.runtime_version = runtime;
    char bus[32] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) d.pci_bus_id = bus;
    // A driver answering outside the hardware's range would crash the occupancy arithmetic.
    require_valid_device(d, "GPU " + std::to_string(i) + " (" + d.name + ")", ExitCode::kRuntime,
                         "the driver reports impossible values; update or reinstall it");
    out.push_back(std::move(d));
  }
  return out;
}

DeviceInfo select_device(const std::string& selector) {
  // The selector is checked before the driver is asked, so a typo is a usage error on any
  // machine, GPU or not.
  const DeviceSelector parsed = parse_device_selector(selector);
  return match_device(probe_devices(), parsed);
}

}  // namespace occtune::cuda
