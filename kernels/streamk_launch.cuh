// The host side of a stream-K launch, shared by the streamk (kernels/streamk.cu) and tma
// (kernels/tma.cu) families: the persistent blocks a device keeps resident for a kernel and the
// fix-up kernel of a plan's split tiles, launched after the persistent one on the same stream.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>

#include "kernels/dependent_launch.cuh"
#include "kernels/gemm_entry.cuh"
#include "kernels/streamk_fixup.cuh"
#include "kernels/streamk_plan.cuh"

namespace occtune::kernels::streamk {

// A persistent kernel as the occupancy API is asked about it, with the blocks per SM it wants.
struct Persistent {
  const void* kernel;
  int threads;
  std::size_t smem;
  int blocks_per_sm;
};

// The blocks `k` keeps resident on the current device at once: its blocks per SM, capped by the
// Occupancy API's answer, times the SM count. The registry's launch information carries the tile
// grid only, so this asks the device, once per device and Tag. 0 when there is no device or no
// answer.
template <class Tag>
int resident_blocks(const Persistent& k) {
  static std::atomic<int> cached[kMaxDevices];
  return per_device(cached, [&k](int device) {
    int sms = 0, per_sm = 0;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess && k.smem > 48 * 1024)
      err = cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(k.smem));
    if (err == cudaSuccess)
      err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.kernel, k.threads, k.smem);
    if (err != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return std::min(per_sm, k.blocks_per_sm) * sms;
  });
}

// The plan of an m x n x k launch of Variant (its tile bm x bn x bk) on the persistent grid the
// current device keeps for kernel `k` (Variant::make_plan: the family's hybrid choice). No
// tiles when the device gives no answer, which a launch refuses and which needs no workspace.
template <class Variant>
StreamKPlan device_plan(const Persistent& kernel, int m, int n, int k, int bm, int bn, int bk) {
  const int resident = resident_blocks<Variant>(kernel);
  if (resident <= 0) return StreamKPlan{};
  return Variant::make_plan(m, n, k, StreamKPlan::grid(m, n, k, bm, bn, bk, resident));
}

// Bytes of partial-sum slots the plan needs (0 when no tile is split, or without a plan).
inline std::size_t workspace_bytes(const StreamKPlan& plan, int bm, int bn) {
  return std::size_t(plan.workspace_floats(bm, bn)) * sizeof(float);
}

// Blocks (x: stream-K tile, y: its part) that add a split tile's partials into C
// (fixup_block_thread): fixup_blocks_per_tile blocks of kFixupThreads share a tile, one float4
// each.
// On sm_90 and up the kernel is a programmatic dependent of the persistent one (launch_fixup):
// its blocks may start while that kernel's last blocks still run, work out their tile, and
// wait (griddepcontrol.wait: the persistent kernel complete, its partials visible) before
// they read a partial. Elsewhere the stream orders the two kernels and the wait is absent.
template <class Variant>
__global__ void __launch_bounds__(kFixupThreads)
    fixup_kernel(GemmArgs args, const __grid_constant__ StreamKPlan plan) {
  __shared__ FixupTile split_tile;
  if (threadIdx.x == 0) split_tile = Variant::fixup_tile(plan, (long long)blockIdx.x);
  wait_for_primary();
  __syncthreads();
  fixup_block_thread<Variant>(args, plan, split_tile, (long long)blockIdx.x, int(blockIdx.y),
                              int(gridDim.y), int(threadIdx.x));
}

// The fix-up of `plan` (tiles of Variant::kTileM x kTileN outputs), after the persistent kernel on
// the same stream; on sm_90 and up launched as its programmatic dependent, which hides the
// launch and the tile's set-up in that kernel's tail (docs/PERFORMANCE.md, "streamk").
template <class Variant>
cudaError_t launch_fixup(const GemmArgs& args, const StreamKPlan& plan, cudaStream_t stream) {
  const dim3 grid(unsigned(plan.sk_tiles()),
                  unsigned(fixup_blocks_per_tile(Variant::kTileM * Variant::kTileN)));
  return launch_dependent(fixup_kernel<Variant>, grid, dim3(kFixupThreads), 0, stream, args,
                          plan);
}

}  // namespace occtune::kernels::streamk
