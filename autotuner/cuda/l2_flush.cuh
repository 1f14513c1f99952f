// The L2 flush before every timed sample (LaunchSampler): a read of a buffer of twice the L2,
// which leaves only clean lines of that buffer resident.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace occtune::cuda {

// Reads `bytes` of `buffer` (zeros, 16-byte aligned, a multiple of 16 bytes) once with normal
// caching, on `blocks` blocks of 256 threads on `stream`. The reads evict what the previous
// launch left in L2 and write back its dirty lines here, outside the timed launch; a memset of
// the buffer instead would leave up to an L2 of dirty lines for the timed kernel to write back
// to HBM beside its own traffic (docs/PERFORMANCE.md, "The L2 flush"). `sink` is written only
// if the buffer is not zeros, which keeps the loads. Returns the launch error.
cudaError_t read_to_evict_l2(const void* buffer, std::size_t bytes, float* sink, int blocks,
                             cudaStream_t stream);

}  // namespace occtune::cuda
