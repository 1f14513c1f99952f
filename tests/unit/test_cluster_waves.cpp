// The rule that picks a thread block cluster launch's scheduling policy (kernels/cluster_waves.hpp),
// on the counts the H100 answered in wave 30 (docs/PERFORMANCE.md): 62 clusters of 4 at once by
// default and 66 balanced, 79 and 83 of 3.
#include <gtest/gtest.h>

#include "kernels/cluster_waves.hpp"

namespace occtune {
namespace {

using kernels::balance_clusters;
using kernels::cluster_waves;

TEST(ClusterWaves, CountsPartialWavesAsWhole) {
  EXPECT_EQ(cluster_waves(1, 62), 1);
  EXPECT_EQ(cluster_waves(62, 62), 1);
  EXPECT_EQ(cluster_waves(63, 62), 2);
  EXPECT_EQ(cluster_waves(124, 62), 2);
  EXPECT_EQ(cluster_waves(125, 62), 3);
  EXPECT_EQ(cluster_waves(0, 62), 0);
  EXPECT_EQ(cluster_waves(10, 0), 0);
}

TEST(ClusterWaves, BalancesOnlyWhereItSavesAWave) {
  // The 16-row ring over 4 at M = 1000: 63 clusters, two waves by default, one balanced.
  EXPECT_TRUE(balance_clusters(63, 62, 66));
  EXPECT_TRUE(balance_clusters(66, 62, 66));
  EXPECT_TRUE(balance_clusters(125, 62, 66));   // 3 waves -> 2
  EXPECT_TRUE(balance_clusters(80, 79, 83));    // clusters of 3
  // The same wave count either way: the default (LoadBalancing was as often slower there).
  EXPECT_FALSE(balance_clusters(62, 62, 66));
  EXPECT_FALSE(balance_clusters(67, 62, 66));
  EXPECT_FALSE(balance_clusters(32, 62, 66));
  EXPECT_FALSE(balance_clusters(133, 62, 66));  // 3 waves either way
  // Balanced holding fewer (not seen, but the rule must not follow it).
  EXPECT_FALSE(balance_clusters(63, 66, 62));
}

TEST(ClusterWaves, UnknownCountsKeepTheDefault) {
  // A failed occupancy query leaves 0: launch as before.
  EXPECT_FALSE(balance_clusters(63, 0, 66));
  EXPECT_FALSE(balance_clusters(63, 62, 0));
  EXPECT_FALSE(balance_clusters(63, -1, 66));
  EXPECT_FALSE(balance_clusters(0, 62, 66));
}

}  // namespace
}  // namespace occtune
