// Issue #13, the built-in families on the registration API (docs/architecture.md, "Issue #13:
// every built-in family through the registration API"): the textbook families expanded by the
// code that expands user families give the rows of the private registry of 280dfa3 (the whole
// registry is compared in test_registry_golden); tiled_dynamic's walk through the API gives the
// textbook walk's answers on every device profile; and the validation of what only built-in
// families may set.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/core/user_family.hpp"
#include "kernels/builtin_families.hpp"
#include "kernels/registry.hpp"
#include "kernels/registry_extension.hpp"
#include "kernels/textbook_families.hpp"

namespace occtune {
namespace {

struct Row {
  int index;  // position in kernels::variants()
  const char* family;
  const char* symbol;
  const char* layout;
  const char* label;
  int block_x, block_y, tile_m, tile_n;
  std::size_t dynamic_smem;
  int grid_z;
};

// The first 49 rows of the registry at 280dfa3 (every variant of the textbook families, with
// the walk's TiledDynamic<0>); none of them has a workspace.
const std::vector<Row> kGolden = {
    {0, "tiled_dynamic_generation", "TiledDynamic<0>", "nn", "tile=0", 0, 0, 0, 0, 0, 1},
    {1, "tiled_dynamic", "TiledDynamic<1>", "nn", "tile=1", 1, 1, 1, 1, 8, 1},
    {2, "tiled_dynamic", "TiledDynamic<2>", "nn", "tile=2", 2, 2, 2, 2, 32, 1},
    {3, "tiled_dynamic", "TiledDynamic<4>", "nn", "tile=4", 4, 4, 4, 4, 128, 1},
    {4, "tiled_dynamic", "TiledDynamic<8>", "nn", "tile=8", 8, 8, 8, 8, 512, 1},
    {5, "tiled_dynamic", "TiledDynamic<16>", "nn", "tile=16", 16, 16, 16, 16, 2048, 1},
    {6, "tiled_dynamic", "TiledDynamic<32>", "nn", "tile=32", 32, 32, 32, 32, 8192, 1},
    {7, "tiled_static", "TiledStatic<8>", "nn", "tile=8", 8, 8, 8, 8, 0, 1},
    {8, "tiled_static", "TiledStatic<16>", "nn", "tile=16", 16, 16, 16, 16, 0, 1},
    {9, "tiled_static", "TiledStatic<32>", "nn", "tile=32", 32, 32, 32, 32, 0, 1},
    {10, "naive", "Naive<8>", "nn", "block=8", 8, 8, 8, 8, 0, 1},
    {11, "naive", "Naive<16>", "nn", "block=16", 16, 16, 16, 16, 0, 1},
    {12, "naive", "Naive<32>", "nn", "block=32", 32, 32, 32, 32, 0, 1},
    {13, "tiled_dynamic", "NT<TiledDynamic<1>>", "nt", "tile=1", 1, 1, 1, 1, 8, 1},
    {14, "tiled_dynamic", "NT<TiledDynamic<2>>", "nt", "tile=2", 2, 2, 2, 2, 32, 1},
    {15, "tiled_dynamic", "NT<TiledDynamic<4>>", "nt", "tile=4", 4, 4, 4, 4, 128, 1},
    {16, "tiled_dynamic", "NT<TiledDynamic<8>>", "nt", "tile=8", 8, 8, 8, 8, 512, 1},
    {17, "tiled_dynamic", "NT<TiledDynamic<16>>", "nt", "tile=16", 16, 16, 16, 16, 2048, 1},
    {18, "tiled_dynamic", "NT<TiledDynamic<32>>", "nt", "tile=32", 32, 32, 32, 32, 8192, 1},
    {19, "tiled_static", "NT<TiledStatic<8>>", "nt", "tile=8", 8, 8, 8, 8, 0, 1},
    {20, "tiled_static", "NT<TiledStatic<16>>", "nt", "tile=16", 16, 16, 16, 16, 0, 1},
    {21, "tiled_static", "NT<TiledStatic<32>>", "nt", "tile=32", 32, 32, 32, 32, 0, 1},
    {22, "naive", "NT<Naive<8>>", "nt", "block=8", 8, 8, 8, 8, 0, 1},
    {23, "naive", "NT<Naive<16>>", "nt", "block=16", 16, 16, 16, 16, 0, 1},
    {24, "naive", "NT<Naive<32>>", "nt", "block=32", 32, 32, 32, 32, 0, 1},
    {25, "tiled_dynamic", "TN<TiledDynamic<1>>", "tn", "tile=1", 1, 1, 1, 1, 8, 1},
    {26, "tiled_dynamic", "TN<TiledDynamic<2>>", "tn", "tile=2", 2, 2, 2, 2, 32, 1},
    {27, "tiled_dynamic", "TN<TiledDynamic<4>>", "tn", "tile=4", 4, 4, 4, 4, 128, 1},
    {28, "tiled_dynamic", "TN<TiledDynamic<8>>", "tn", "tile=8", 8, 8, 8, 8, 512, 1},
    {29, "tiled_dynamic", "TN<TiledDynamic<16>>", "tn", "tile=16", 16, 16, 16, 16, 2048, 1},
    {30, "tiled_dynamic", "TN<TiledDynamic<32>>", "tn", "tile=32", 32, 32, 32, 32, 8192, 1},
    {31, "tiled_static", "TN<TiledStatic<8>>", "tn", "tile=8", 8, 8, 8, 8, 0, 1},
    {32, "tiled_static", "TN<TiledStatic<16>>", "tn", "tile=16", 16, 16, 16, 16, 0, 1},
    {33, "tiled_static", "TN<TiledStatic<32>>", "tn", "tile=32", 32, 32, 32, 32, 0, 1},
    {34, "naive", "TN<Naive<8>>", "tn", "block=8", 8, 8, 8, 8, 0, 1},
    {35, "naive", "TN<Naive<16>>", "tn", "block=16", 16, 16, 16, 16, 0, 1},
    {36, "naive", "TN<Naive<32>>", "tn", "block=32", 32, 32, 32, 32, 0, 1},
    {37, "tiled_dynamic", "TT<TiledDynamic<1>>", "tt", "tile=1", 1, 1, 1, 1, 8, 1},
    {38, "tiled_dynamic", "TT<TiledDynamic<2>>", "tt", "tile=2", 2, 2, 2, 2, 32, 1},
    {39, "tiled_dynamic", "TT<TiledDynamic<4>>", "tt", "tile=4", 4, 4, 4, 4, 128, 1},
    {40, "tiled_dynamic", "TT<TiledDynamic<8>>", "tt", "tile=8", 8, 8, 8, 8, 512, 1},
    {41, "tiled_dynamic", "TT<TiledDynamic<16>>", "tt", "tile=16", 16, 16, 16, 16, 2048, 1},
    {42, "tiled_dynamic", "TT<TiledDynamic<32>>", "tt", "tile=32", 32, 32, 32, 32, 8192, 1},
    {43, "tiled_static", "TT<TiledStatic<8>>", "tt", "tile=8", 8, 8, 8, 8, 0, 1},
    {44, "tiled_static", "TT<TiledStatic<16>>", "tt", "tile=16", 16, 16, 16, 16, 0, 1},
    {45, "tiled_static", "TT<TiledStatic<32>>", "tt", "tile=32", 32, 32, 32, 32, 0, 1},
    {46, "naive", "TT<Naive<8>>", "tt", "block=8", 8, 8, 8, 8, 0, 1},
    {47, "naive", "TT<Naive<16>>", "tt", "block=16", 16, 16, 16, 16, 0, 1},
    {48, "naive", "TT<Naive<32>>", "tt", "block=32", 32, 32, 32, 32, 0, 1},
};

struct FamilyRow {
  const char* name;
  const char* description;
  bool baseline;
  const char* generation_symbol;
  int default_min_tile;
};

const std::vector<FamilyRow> kGoldenFamilies = {
    {"tiled_dynamic",
     "textbook tiled GEMM, dynamic shared memory, compile-time tile width chosen from "
     "occupancy-API candidates",
     false, "TiledDynamic<0>", 4},
    {"tiled_static", "textbook tiled GEMM, static shared memory (baseline)", true, "", 1},
    {"naive", "one output per thread from global memory (baseline)", true, "", 1},
};

void expect_row(const kernels::VariantInfo& v, const Row& g) {
  SCOPED_TRACE(g.symbol);
  EXPECT_EQ(v.family, g.family);
  EXPECT_EQ(v.symbol, g.symbol);
  EXPECT_STREQ(layout_name(v.layout), g.layout);
  EXPECT_EQ(v.label(), g.label);
  EXPECT_EQ(v.block_x, g.block_x);
  EXPECT_EQ(v.block_y, g.block_y);
  EXPECT_EQ(v.dynamic_smem, g.dynamic_smem);
  EXPECT_EQ(v.workspace(4096, 4096, 4096), 0u);
}

TEST(BuiltinFamilies, RegistryRowsAreThoseOfThePrivateTable) {
  const auto& all = kernels::variants();
  ASSERT_GE(all.size(), kGolden.size());
  for (const Row& g : kGolden) {
    const kernels::VariantInfo& v = all[std::size_t(g.index)];
    expect_row(v, g);
    EXPECT_EQ(v.tile_m, g.tile_m) << g.symbol;
    EXPECT_EQ(v.tile_n, g.tile_n) << g.symbol;
    EXPECT_EQ(v.grid_z, g.grid_z) << g.symbol;
  }
  // The three textbook families come first, as before, with the same metadata.
  ASSERT_GE(kernels::families().size(), kGoldenFamilies.size());
  for (std::size_t i = 0; i < kGoldenFamilies.size(); ++i) {
    const kernels::FamilyInfo& f = kernels::families()[i];
    const FamilyRow& g = kGoldenFamilies[i];
    EXPECT_EQ(f.name, g.name);
    EXPECT_EQ(f.description, g.description);
    EXPECT_EQ(f.baseline, g.baseline) << g.name;
    EXPECT_EQ(f.generation_symbol, g.generation_symbol) << g.name;
    EXPECT_EQ(f.default_min_tile, g.default_min_tile) << g.name;
  }
}

// The expansion itself (not the registry built from it) gives each migrated family's golden
// rows in order, and the family's grid function is the grid the engine computes from the tiles.
void expect_expansion(const KernelFamily& family) {
  const kernels::ExpandedFamily e = kernels::expand_builtin_family(family);
  std::vector<Row> golden;
  for (const Row& g : kGolden)
    if (family.name == g.family) golden.push_back(g);
  ASSERT_EQ(e.variants.size(), golden.size()) << family.name;
  EXPECT_EQ(e.info.name, family.name);
  for (const FamilyRow& g : kGoldenFamilies)
    if (family.name == g.name) {
      EXPECT_EQ(e.info.baseline, g.baseline);
      EXPECT_EQ(e.info.generation_symbol, g.generation_symbol);
      EXPECT_EQ(e.info.default_min_tile, g.default_min_tile);
    }
  const std::int64_t shapes[][3] = {{4096, 4096, 4096}, {17, 1000, 4097}, {1, 1, 1},
                                    {33, 65, 7}, {8192, 24, 129}};
  for (std::size_t i = 0; i < golden.size(); ++i) {
    expect_row(e.variants[i], golden[i]);
    const KernelConfig& config = family.configs[std::size_t(e.config_of[i])];
    for (const auto& s : shapes) {
      Dims problem;
      problem.values = {{"m", s[0]}, {"n", s[1]}, {"k", s[2]}};
      problem.mode = config.mode;
      const Grid grid = family.grid(problem, config, {golden[i].block_x, golden[i].block_y});
      EXPECT_EQ(grid.x, (s[1] + golden[i].tile_n - 1) / golden[i].tile_n) << golden[i].symbol;
      EXPECT_EQ(grid.y, (s[0] + golden[i].tile_m - 1) / golden[i].tile_m) << golden[i].symbol;
      EXPECT_EQ(grid.z, golden[i].grid_z) << golden[i].symbol;
    }
  }
}

TEST(BuiltinFamilies, TiledDynamicExpandsToItsGoldenRows) {
  expect_expansion(kernels::tiled_dynamic_family());
}

TEST(BuiltinFamilies, TiledStaticExpandsToItsGoldenRows) {
  expect_expansion(kernels::tiled_static_family());
}

TEST(BuiltinFamilies, NaiveExpandsToItsGoldenRows) { expect_expansion(kernels::naive_family()); }

// A launch of skinny's rings for N <= 16 may run their dense-B twin kernel instead
// (GemmConfig::twin_functions), so every route that opts a configuration in to its shared memory
// must opt the twin in too: the engine's prepare_variant and, for a program launching a
// built-in family itself, the family's own hook. Wave 18's build had only the first, and
// BuiltinApiFamilies (GPU) failed on the first dense ring (docs/PERFORMANCE.md, "Dense B for
// the rings for N <= 16").
TEST(BuiltinFamilies, EveryFamilyOptsInTwinKernelsThroughItsHook) {
  int checked = 0;
  for (const kernels::FamilyInfo& info : kernels::families()) {
    const KernelFamily* f = kernels::builtin_family(info.name);
    if (!f) continue;  // a walk's family (`*_generation`) is no API family
    EXPECT_EQ(f->cuda.set_max_dynamic_smem, &kernels::opt_in_dynamic_smem) << info.name;
    ++checked;
  }
  EXPECT_GE(checked, 11);  // tiled_dynamic ... repacked, skinny among them
}

void expect_refused(KernelFamily f, FamilyOrigin origin, const std::string& needle) {
  try {
    expand_family(std::move(f), {}, origin);
    ADD_FAILURE() << "accepted; expected an error containing: " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(BuiltinFamilies, WhatOnlyBuiltinFamiliesSetIsRefusedFromAUserFamily) {
  KernelFamily f = kernels::tiled_static_family();
  f.name = "my_static";
  expect_refused(f, FamilyOrigin::kUser, "modes 'layout' are taken only from occtune's built-in");
  f.modes = {};
  expect_refused(f, FamilyOrigin::kUser, "sets symbol 'TiledStatic<8>'");
  for (auto& c : f.configs) c.symbol.clear();
  expect_refused(f, FamilyOrigin::kUser, "sets mode 'nn'");
  f = kernels::tiled_dynamic_family();
  f.name = "my_dynamic";
  f.modes = {};
  for (auto& c : f.configs) c.symbol.clear(), c.mode.clear();
  expect_refused(f, FamilyOrigin::kUser, "KernelFamily::walk is taken only from occtune's");
  // And through the public call, before anything is kept.
  f = kernels::naive_family();
  f.name = "my_naive";
  EXPECT_THROW(register_family(f), Error);
}

TEST(BuiltinFamilies, ModesAndSpecialisedBlocksAreValidated) {
  KernelFamily f = kernels::tiled_static_family();
  f.modes.name = "order";
  expect_refused(f, FamilyOrigin::kBuiltin, "name it \"layout\"");
  f = kernels::tiled_static_family();
  f.modes.values.push_back("xy");
  expect_refused(f, FamilyOrigin::kBuiltin, "mode value: ");
  f = kernels::tiled_static_family();
  f.modes.values.push_back("nt");
  expect_refused(f, FamilyOrigin::kBuiltin, "mode value 'nt' is given twice");
  f = kernels::tiled_static_family();
  f.configs[4].mode = "tt_";
  expect_refused(f, FamilyOrigin::kBuiltin, "configuration 5 computes mode 'tt_'");
  f = kernels::tiled_static_family();
  f.configs[1].block = {16, 8};
  expect_refused(f, FamilyOrigin::kBuiltin, "specialised to block 16x8");
  f = kernels::tiled_static_family();
  f.configs[2].symbol = f.configs[0].symbol;
  expect_refused(f, FamilyOrigin::kBuiltin, "configurations 1 and 3 are both TiledStatic<8>");
  f = kernels::tiled_static_family();
  f.configs[0].symbol = "Tiled Static<8>";
  expect_refused(f, FamilyOrigin::kBuiltin, "symbol 'Tiled Static<8>' must be");
  // A template's arguments are spelt with commas, as the manifest names them.
  f = kernels::tiled_static_family();
  f.configs[0].symbol = "TiledStatic<8,1>";
  EXPECT_NO_THROW(expand_family(f, {}, FamilyOrigin::kBuiltin));
  // A walk picks specialised square blocks: it needs the square rule, its symbol, and a symbol
  // on every configuration.
  f = kernels::tiled_dynamic_family();
  f.walk.symbol.clear();
  expect_refused(f, FamilyOrigin::kBuiltin, "a walk needs BlockRule::kSquare and the walk's symbol");
  f = kernels::tiled_dynamic_family();
  f.configs[3].symbol.clear();
  expect_refused(f, FamilyOrigin::kBuiltin, "configuration 4 has no symbol, but the family walks");
}

// The walk through the API asks the occupancy API for the shared memory of the rule's block for
// each size, 8 isqrt(t)^2 bytes, where the textbook walk asked 8t; the two differ at thread
// counts that are not squares. The answers are the same on every shipped profile (shared memory
// never limits a tiled_dynamic block: 8 KiB at 1024 threads), which this shows walk by walk.
TEST(BuiltinFamilies, TiledDynamicWalksAsTheTextbookWalkOnEveryProfile) {
  const kernels::FamilyInfo* api = kernels::find_family("tiled_dynamic");
  ASSERT_NE(api, nullptr);
  ASSERT_EQ(api->generation_symbol, "TiledDynamic<0>");
  EXPECT_EQ(api->smem_for_threads(63), 8u * 49u);  // the 7 x 7 block
  kernels::FamilyInfo textbook = *api;
  textbook.smem_for_threads = [](int threads) { return std::size_t(8) * std::size_t(threads); };
  const auto profiles = profile_names();
  ASSERT_GE(profiles.size(), 3u);
  for (const std::string& name : profiles) {
    SCOPED_TRACE(name);
    const DeviceInfo device = load_device_profile(name);
    for (const int min_tile : {0, 1, 2}) {
      OfflineOccupancy oracle_api(device), oracle_textbook(device);
      const Plan a = plan_family(*api, device, {17, 1000, 4097}, oracle_api, min_tile);
      const Plan b = plan_family(textbook, device, {17, 1000, 4097}, oracle_textbook, min_tile);
      ASSERT_FALSE(a.candidates.empty());
      ASSERT_EQ(a.candidates.size(), b.candidates.size());
      for (std::size_t i = 0; i < a.candidates.size(); ++i) {
        EXPECT_EQ(a.candidates[i].suggested_block, b.candidates[i].suggested_block);
        EXPECT_EQ(a.candidates[i].block_limit, b.candidates[i].block_limit);
        EXPECT_EQ(a.candidates[i].tile, b.candidates[i].tile);
        EXPECT_EQ(a.candidates[i].active_blocks_per_sm, b.candidates[i].active_blocks_per_sm);
      }
      EXPECT_EQ(a.notes, b.notes);
    }
  }
}

}  // namespace
}  // namespace occtune
