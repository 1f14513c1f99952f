// The host side of a thread block cluster launch (sm_90): clusters of `size` blocks along grid z
// (occtune's split of K), with the LoadBalancing scheduling policy where the rule of
// kernels/cluster_waves.hpp says it saves a wave. The rule needs how many clusters the device
// holds at once under each policy: cudaOccupancyMaxActiveClusters, asked once per device,
// kernel, block, shared memory and cluster size and cached. Only .cu files include this.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>

#include "kernels/cluster_waves.hpp"
#include "kernels/dependent_launch.cuh"

namespace occtune::kernels {

// The configuration of a launch over `grid` (`block` threads, `smem` bytes of dynamic shared
// memory a block, on `stream`) in clusters of `size` blocks along grid z, with `policy` where it
// is not the default; `attributes` holds what the configuration points to. The one place a
// cluster launch is described: the occupancy query, the launch, the lab and the GPU test.
inline cudaLaunchConfig_t cluster_config(cudaLaunchAttribute (&attributes)[2], dim3 grid,
                                         dim3 block, std::size_t smem, unsigned size,
                                         cudaClusterSchedulingPolicy policy,
                                         cudaStream_t stream = nullptr) {
  attributes[0] = {}, attributes[1] = {};
  attributes[0].id = cudaLaunchAttributeClusterDimension;
  attributes[0].val.clusterDim.x = 1;
  attributes[0].val.clusterDim.y = 1;
  attributes[0].val.clusterDim.z = size;
  attributes[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
  attributes[1].val.clusterSchedulingPolicyPreference = policy;
  return launch_config(grid, block, smem, stream, attributes,
                       policy == cudaClusterSchedulingPolicyDefault ? 1 : 2);
}

// How many clusters of `size` blocks of `kernel` (`block` threads, `smem` bytes of dynamic
// shared memory a block) the current device holds at once under `policy`; 0 where the query
// fails (its error is cleared: the launch that follows reports its own). The grid asked about
// is one cluster: the answer is a property of the kernel and the device, not of the grid.
inline int resident_clusters(const void* kernel, dim3 block, std::size_t smem, unsigned size,
                             cudaClusterSchedulingPolicy policy) {
  cudaLaunchAttribute attributes[2];
  const cudaLaunchConfig_t config =
      cluster_config(attributes, dim3(1, 1, size), block, smem, size, policy);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return clusters;
}

// The clusters the current device holds at once, by default and with LoadBalancing.
struct ClusterResidency {
  int by_default = 0;
  int balanced = 0;
};

// resident_clusters under both policies, asked once per device, kernel, block, shared memory
// and cluster size (a launch asks on every call; the answers cannot change while the process
// lives). A failed query is not kept, so a later launch asks again.
inline ClusterResidency cluster_residency(const void* kernel, dim3 block, std::size_t smem,
                                          unsigned size) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  using Key = std::tuple<int, const void*, unsigned, unsigned, unsigned, std::size_t, unsigned>;
  static std::mutex mutex;
  static std::map<Key, ClusterResidency> known;
  const Key key{device, kernel, block.x, block.y, block.z, smem, size};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  ClusterResidency answer;
  answer.by_default =
      resident_clusters(kernel, block, smem, size, cudaClusterSchedulingPolicyDefault);
  answer.balanced =
      resident_clusters(kernel, block, smem, size, cudaClusterSchedulingPolicyLoadBalancing);
  if (answer.by_default > 0 && answer.balanced > 0) {
    std::lock_guard<std::mutex> lock(mutex);
    known.emplace(key, answer);
  }
  return answer;
}

// The scheduling policy of `kernel`'s launch over `grid` in clusters of `size` blocks along z:
// LoadBalancing where it makes fewer waves of clusters (balance_clusters), else the default.
inline cudaClusterSchedulingPolicy cluster_policy_for(const void* kernel, dim3 grid, dim3 block,
                                                      std::size_t smem, unsigned size) {
  const long clusters = long(grid.x) * grid.y * (grid.z / size);
  const ClusterResidency resident = cluster_residency(kernel, block, smem, size);
  return balance_clusters(clusters, resident.by_default, resident.balanced)
             ? cudaClusterSchedulingPolicyLoadBalancing
             : cudaClusterSchedulingPolicyDefault;
}

// `kernel`<<<grid, block, smem, stream>>>(args...) in clusters of `size` blocks along grid z
// (grid.z a multiple of it), with the policy cluster_policy_for picks; the launch's error.
template <class... Params, class... Args>
cudaError_t launch_cluster(unsigned size, void (*kernel)(Params...), dim3 grid, dim3 block,
                           std::size_t smem, cudaStream_t stream, Args... args) {
  const cudaClusterSchedulingPolicy policy =
      cluster_policy_for(reinterpret_cast<const void*>(kernel), grid, block, smem, size);
  cudaLaunchAttribute attributes[2];
  const cudaLaunchConfig_t config =
      cluster_config(attributes, grid, block, smem, size, policy, stream);
  return cudaLaunchKernelEx(&config, kernel, args...);
}

}  // namespace occtune::kernels
