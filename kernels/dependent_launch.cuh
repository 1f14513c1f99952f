// The host side of a programmatic dependent launch (kernels/grid_dependency.cuh says what it
// is and what the two kernels must do): whether the device has it, and the launch, through a
// one-attribute launch; and the configuration every cudaLaunchKernelEx launch fills. Only .cu
// files include this (the host emulator of the unit tests cannot compile a launch).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>

#include "kernels/grid_dependency.cuh"

namespace occtune::kernels {

// Devices whose answers are cached; beyond them the device is asked each time.
inline constexpr int kMaxDevices = 64;

// A positive answer about the current device, asked once per device (the answers cannot change
// while the process lives) and kept in `cache` (0: not asked yet). `ask` takes the device and
// returns the answer, 0 when it has none, which is not kept. 0 when there is no device.
template <class Ask>
int per_device(std::atomic<int> (&cache)[kMaxDevices], Ask ask) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  const bool cacheable = device >= 0 && device < kMaxDevices;
  if (cacheable)
    if (const int known = cache[device].load(std::memory_order_relaxed)) return known;
  const int answer = ask(device);
  if (cacheable && answer > 0) cache[device].store(answer, std::memory_order_relaxed);
  return answer;
}

// Whether the current device runs a kernel as a programmatic dependent of the one before it
// on the stream (compute capability 9.0 and up), asked once per device.
inline bool programmatic_launch() {
  static std::atomic<int> cached[kMaxDevices];  // 1 no, 2 yes
  const int answer = per_device(cached, [](int device) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return major >= 9 ? 2 : 1;
  });
  return answer == 2;
}

// The configuration cudaLaunchKernelEx (and cudaOccupancyMaxActiveClusters) takes for a launch
// over `grid` (`block` threads, `smem` bytes of dynamic shared memory a block, on `stream`) with
// the first `count` of `attributes`, which must outlive it. Every launch through
// cudaLaunchKernelEx fills its configuration here (launch_with below, cluster_config in
// kernels/cluster_policy.cuh).
inline cudaLaunchConfig_t launch_config(dim3 grid, dim3 block, std::size_t smem,
                                        cudaStream_t stream, cudaLaunchAttribute* attributes,
                                        unsigned count) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = count;
  return config;
}

// `kernel`<<<grid, block, smem, stream>>>(args...) with one launch attribute (which only
// cudaLaunchKernelEx takes); the launch's error.
template <class... Params, class... Args>
cudaError_t launch_with(const cudaLaunchAttribute& attribute, void (*kernel)(Params...),
                        dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                        Args... args) {
  cudaLaunchAttribute attributes[1] = {attribute};
  const cudaLaunchConfig_t config = launch_config(grid, block, smem, stream, attributes, 1);
  return cudaLaunchKernelEx(&config, kernel, args...);
}

// `kernel`<<<grid, block, smem, stream>>>(args...), as a programmatic dependent of the kernel
// before it on the stream where the device allows it; the launch's error either way.
template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                             cudaStream_t stream, Args... args) {
  if (!programmatic_launch()) {
    kernel<<<grid, block, smem, stream>>>(args...);
    return cudaGetLastError();
  }
  cudaLaunchAttribute dependent = {};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  return launch_with(dependent, kernel, grid, block, smem, stream, args...);
}

}  // namespace occtune::kernels
