// Programmatic dependent launch, for the families whose launch is two kernels on one stream (a
// kernel, then one that reads what it wrote: stream-K's fix-up, split-K's reduction). On sm_90
// and up the second kernel is launched as a programmatic dependent (launch_dependent,
// kernels/dependent_launch.cuh): once every block of the first has run allow_dependents(), the
// second's blocks may start in the SM room the first leaves or frees, do what needs none of its
// results, and wait_for_primary() (the first complete, its writes visible) before they read
// them. That hides the second launch's latency and set-up in the first's tail
// (docs/PERFORMANCE.md, "Programmatic dependent launch"). Elsewhere, and in the host emulator
// of the unit tests, the stream orders the two kernels and both calls compile to nothing.
//
// Every block of a dependent runs wait_for_primary() before it exits, so that the dependent's
// completion, which the stream's next work waits for, implies the first kernel's.
#pragma once

#include <cuda_runtime.h>  // __device__, __forceinline__ outside nvcc too

namespace occtune::kernels {

// In the first kernel: its dependent may be scheduled once every block has been here.
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

// In the dependent: wait until the kernel before it has completed and its writes are visible.
__device__ __forceinline__ void wait_for_primary() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace occtune::kernels
