// Issue #13: every built-in family moves onto the registration API with the registry the engine
// sees unchanged. tests/unit/data/registry_golden.txt is the whole registry (test families
// included) printed from the private table of fce0cba, before the move: every variant's
// family, symbol, layout, label, block, tile, shared memory, grid z and workspace at five shapes,
// and every family's metadata with its walk's shared memory at the thread counts the occupancy
// API asks about. The registry printed now must be that file, line for line. One value was
// changed on purpose: tiled_dynamic's walk asks for the shared memory of the square block of
// each size (8 isqrt(t)^2 bytes, not 8t) at the non-square sizes 15, 63, 255, 511 and 1023;
// test_builtin_families shows the walk's answers unchanged on every profile.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/registry.hpp"

namespace occtune {
namespace {

// The test-only families register only under OCCTUNE_TEST_KERNELS=1, read when the registry is
// first built: set before main, so before any test touches it.
const bool kTestKernels = [] {
  setenv("OCCTUNE_TEST_KERNELS", "1", 1);
  return true;
}();

const int kShapes[][3] = {{1, 1, 1}, {17, 1000, 4097}, {4096, 4096, 4096}, {1, 4096, 4096},
                          {256, 256, 16384}};
// Square and non-square block sizes: the walk asks for every multiple of 32 and for the limit
// it is given (one below each snapped answer when it widens).
const int kWalkThreads[] = {1, 4, 15, 16, 63, 64, 255, 256, 511, 1023, 1024};

std::vector<std::string> printed_registry() {
  std::vector<std::string> out;
  for (const kernels::FamilyInfo& f : kernels::families()) {
    std::ostringstream line;
    line << "family|" << f.name << "|" << f.description << "|" << f.baseline << "|"
         << f.generation_symbol << "|" << f.default_min_tile << "|";
    if (f.smem_for_threads)
      for (int t : kWalkThreads) line << f.smem_for_threads(t) << ",";
    out.push_back(line.str());
  }
  const auto& all = kernels::variants();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const kernels::VariantInfo& v = all[i];
    std::ostringstream line;
    line << i << "|" << v.family << "|" << v.symbol << "|" << layout_name(v.layout) << "|"
         << v.label() << "|" << v.block_x << "x" << v.block_y << "|" << v.tile_m << "x"
         << v.tile_n << "|" << v.dynamic_smem << "|" << v.grid_z << "|";
    for (const auto& s : kShapes) line << v.workspace(s[0], s[1], s[2]) << ",";
    out.push_back(line.str());
  }
  return out;
}

TEST(RegistryGolden, TheRegistryIsTheOneOfThePrivateTable) {
  ASSERT_TRUE(kTestKernels);
  const std::string path = OCCTUNE_SOURCE_DIR "/tests/unit/data/registry_golden.txt";
  const std::vector<std::string> now = printed_registry();
  if (const char* write = std::getenv("OCCTUNE_WRITE_REGISTRY_GOLDEN"); write && *write == '1') {
    std::ofstream file(path);
    for (const auto& line : now) file << line << "\n";
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream file(path);
  ASSERT_TRUE(file) << path;
  std::vector<std::string> golden;
  for (std::string line; std::getline(file, line);) golden.push_back(line);
  for (std::size_t i = 0; i < std::min(now.size(), golden.size()); ++i)
    EXPECT_EQ(now[i], golden[i]) << "line " << i + 1;
  EXPECT_EQ(now.size(), golden.size());
}

}  // namespace
}  // namespace occtune
