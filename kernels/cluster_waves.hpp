// When a thread block cluster launch asks for the LoadBalancing scheduling policy: a pure rule
// over counts, so the unit tests cover it without a GPU (kernels/cluster_policy.cuh asks the GPU
// for the counts and launches).
//
// Why: at two blocks an SM the H100 holds 62 clusters of 4 at once with the default policy and
// 66 with LoadBalancing (79 and 83 of 3). A grid of 63 clusters of 4 then runs in two waves by
// default and in one balanced: the 16-row ring for N <= 16 over 4 at 1000x12x100000 ran 193.5 us
// by default and 145.3 us balanced (docs/PERFORMANCE.md, wave 30). Where the policy leaves the
// wave count alone it was as often slower as faster (the 32-row ring over 8: 198.9 -> 229.9 us),
// so the rule asks for it only where it saves a wave.
#pragma once

namespace occtune::kernels {

// How many waves `clusters` clusters make when `resident` run at once; 0 when none fits.
constexpr long cluster_waves(long clusters, long resident) {
  return resident > 0 ? (clusters + resident - 1) / resident : 0;
}

// Whether `clusters` clusters should be launched with LoadBalancing: only where it makes fewer
// waves than the default (`resident_default` and `resident_balanced` clusters at once). A count
// that is not known (0 or less: the occupancy query failed) keeps the default.
constexpr bool balance_clusters(long clusters, long resident_default, long resident_balanced) {
  if (clusters <= 0 || resident_default <= 0 || resident_balanced <= 0) return false;
  return cluster_waves(clusters, resident_balanced) < cluster_waves(clusters, resident_default);
}

}  // namespace occtune::kernels
