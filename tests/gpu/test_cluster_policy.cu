// The cluster launch of kernels/cluster_policy.cuh on the device (compute capability 9.0 and
// up; skips elsewhere): the residency it caches, asked with a grid of one cluster, is what the
// occupancy API answers for a whole grid; the policy it picks is the rule's
// (kernels/cluster_waves.hpp) on those counts, LoadBalancing just past a wave; under either
// policy every block of the grid runs once, in the cluster and at the rank the launch asked for;
// and a launch whose first residency query comes while its stream is captured into a CUDA graph
// (global capture mode, the strictest) is captured and replays.
#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "autotuner/cuda/cuda_check.cuh"
#include "kernels/cluster_policy.cuh"
#include "tests/support/applicable.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

#define OCCTUNE_REQUIRE_CLUSTERS()                                                 \
  do {                                                                             \
    OCCTUNE_REQUIRE_GPU();                                                         \
    if (test_support::current_compute_capability() < 90)                          \
      GTEST_SKIP() << "thread block clusters need sm_90; this device is sm_"       \
                   << test_support::current_compute_capability();                  \
  } while (0)

// Each block writes, at its place in the grid, 1 + its rank in its cluster (0 where the rank is
// not blockIdx.z % size: the launch did not cluster along z as asked). The shared memory only
// sets how many blocks fit an SM, as a skinny ring's does.
__global__ void mark_cluster_ranks(int* marks, unsigned size) {
  extern __shared__ int scratch[];
  const long block = (long(blockIdx.y) * gridDim.x + blockIdx.x) * gridDim.z + blockIdx.z;
  int mark = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned rank = cooperative_groups::this_cluster().block_rank();
  scratch[threadIdx.x] = int(rank);
  __syncthreads();
  if (scratch[0] == int(blockIdx.z % size)) mark = 1 + scratch[0];
#endif
  if (threadIdx.x == 0) marks[block] = mark;
}

constexpr unsigned kSize = 4;
constexpr unsigned kThreads = 256;
// About a skinny ring's shared memory (100 KB): two blocks an sm_90 SM.
constexpr std::size_t kSmem = 100 * 1024;

const void* kernel_address() { return reinterpret_cast<const void*>(&mark_cluster_ranks); }

void opt_in() {
  OCCTUNE_CUDA_CHECK(cudaFuncSetAttribute(
      mark_cluster_ranks, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem)));
}

// The occupancy API's answer for the whole grid `clusters` clusters make.
int resident_for_grid(long clusters, cudaClusterSchedulingPolicy policy) {
  cudaLaunchAttribute attributes[2];
  const cudaLaunchConfig_t config = kernels::cluster_config(
      attributes, dim3(unsigned(clusters), 1, kSize), dim3(kThreads), kSmem, kSize, policy);
  int resident = 0;
  OCCTUNE_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, kernel_address(), &config));
  return resident;
}

// How many of the `clusters` x `size` blocks `launch` (which launches over (clusters, 1, size)
// with the marks' address, returning the launch's error) leaves unmarked or marked with another
// rank than blockIdx.z % size; every block when the launch fails.
template <class Launch>
int count_misplaced_blocks(long clusters, unsigned size, Launch launch) {
  const std::size_t blocks = std::size_t(clusters) * size;
  int* marks = nullptr;
  OCCTUNE_CUDA_CHECK(cudaMalloc(&marks, blocks * sizeof(int)));
  OCCTUNE_CUDA_CHECK(cudaMemset(marks, 0xff, blocks * sizeof(int)));  // -1: never written
  OCCTUNE_CUDA_CHECK(cudaDeviceSynchronize());  // before a launch on a non-blocking stream
  const cudaError_t launched = launch(marks);
  EXPECT_EQ(launched, cudaSuccess) << cudaGetErrorString(launched);
  OCCTUNE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> got(blocks);
  OCCTUNE_CUDA_CHECK(cudaMemcpy(got.data(), marks, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  OCCTUNE_CUDA_CHECK(cudaFree(marks));
  if (launched != cudaSuccess) return int(blocks);
  int wrong = 0;
  for (std::size_t b = 0; b < blocks; ++b)
    if (got[b] != int(1 + b % size)) ++wrong;
  return wrong;
}

TEST(ClusterPolicy, ResidencyOfOneClusterIsTheWholeGrids) {
  OCCTUNE_REQUIRE_CLUSTERS();
  opt_in();
  const kernels::ClusterResidency r =
      kernels::cluster_residency(kernel_address(), dim3(kThreads), kSmem, kSize);
  std::printf("clusters of %u at %zu bytes a block: %d resident by default, %d balanced\n",
              kSize, kSmem, r.by_default, r.balanced);
  ASSERT_GT(r.by_default, 0);
  ASSERT_GT(r.balanced, 0);
  for (long clusters : {1L, 63L, 200L, 1000L}) {
    EXPECT_EQ(resident_for_grid(clusters, cudaClusterSchedulingPolicyDefault), r.by_default)
        << clusters << " clusters";
    EXPECT_EQ(resident_for_grid(clusters, cudaClusterSchedulingPolicyLoadBalancing), r.balanced)
        << clusters << " clusters";
  }
}

TEST(ClusterPolicy, PicksTheRulesPolicyAndRunsEveryBlockInItsCluster) {
  OCCTUNE_REQUIRE_CLUSTERS();
  opt_in();
  const kernels::ClusterResidency r =
      kernels::cluster_residency(kernel_address(), dim3(kThreads), kSmem, kSize);
  ASSERT_GT(r.by_default, 0);
  // One cluster, a wave exactly, one past it, and three waves and a bit: the policy must be
  // the rule's on the cached counts, and LoadBalancing one past a wave where it holds more.
  for (long clusters : {1L, long(r.by_default), long(r.by_default) + 1, 3L * r.by_default + 1}) {
    const dim3 grid(unsigned(clusters), 1, kSize);
    const bool balanced = kernels::balance_clusters(clusters, r.by_default, r.balanced);
    EXPECT_EQ(kernels::cluster_policy_for(kernel_address(), grid, dim3(kThreads), kSmem, kSize),
              balanced ? cudaClusterSchedulingPolicyLoadBalancing
                       : cudaClusterSchedulingPolicyDefault)
        << clusters << " clusters";
    if (clusters == r.by_default + 1 && r.balanced > r.by_default) EXPECT_TRUE(balanced);
    EXPECT_EQ(count_misplaced_blocks(clusters, kSize, [&](int* marks) {
                return kernels::launch_cluster(kSize, mark_cluster_ranks, grid, dim3(kThreads),
                                               kSmem, cudaStream_t{}, marks, kSize);
              }),
              0)
        << clusters << " clusters (" << (balanced ? "balanced" : "default")
        << "): blocks that did not run once at their cluster rank";
  }
}

TEST(ClusterPolicy, FirstQueryUnderGraphCaptureIsCapturedAndReplays) {
  OCCTUNE_REQUIRE_CLUSTERS();
  opt_in();
  // Clusters of 2 at this shared memory are asked about nowhere else in this process, so the
  // residency queries run inside the capture.
  constexpr unsigned size = 2;
  cudaStream_t stream;
  OCCTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const long clusters = 500;
  const dim3 grid(unsigned(clusters), 1, size);
  cudaGraphExec_t exec = nullptr;
  const int misplaced = count_misplaced_blocks(clusters, size, [&](int* marks) {
    cudaGraph_t graph;
    OCCTUNE_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const cudaError_t launched = kernels::launch_cluster(
        size, mark_cluster_ranks, grid, dim3(kThreads), kSmem, stream, marks, size);
    OCCTUNE_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    if (launched != cudaSuccess) return launched;
    OCCTUNE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaGraphDestroy(graph);
    for (int replay = 0; replay < 2; ++replay)
      if (const cudaError_t err = cudaGraphLaunch(exec, stream); err != cudaSuccess) return err;
    return cudaStreamSynchronize(stream);
  });
  EXPECT_EQ(misplaced, 0) << "blocks of the replayed graph not at their cluster rank";
  const kernels::ClusterResidency r =
      kernels::cluster_residency(kernel_address(), dim3(kThreads), kSmem, size);
  EXPECT_GT(r.by_default, 0) << "the residency asked during the capture was not kept";
  if (exec) cudaGraphExecDestroy(exec);
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace occtune
