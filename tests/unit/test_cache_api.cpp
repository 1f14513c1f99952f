// The public occtune::Cache (include/occtune/cache.hpp) on real temporary stores: answers of every
// step of the chain with the launch configuration filled for the asked problem, any family,
// memoised answers that follow writes of another connection, a read-only store, and bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "db/store.hpp"
#include "kernels/registry.hpp"
#include "occtune/cache.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune::testing {
namespace {

constexpr const char* kA = "GPU-aaaaaaaa-0000-4000-8000-000000000001";
constexpr const char* kB = "GPU-bbbbbbbb-0000-4000-8000-000000000002";

class CacheApi : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path / "cache.db";
    auto store = db::Store::open(path_);
    seed_run(store, seed_device(kA), Shape{1024, 1024, 1024}, 0.25);
    seed_run(store, seed_device(kA), Shape{1024, 1024, 1024}, 0.1, "regblocked");
    seed_run(store, seed_device(kB), Shape{2048, 2048, 2048}, 2.0);
  }
  TempDir dir_;
  std::filesystem::path path_;
};

TEST_F(CacheApi, ExactAnswerCarriesTheLaunchConfigurationAndItsMeasurement) {
  const Cache cache = Cache::open(path_.string());
  Problem p;
  p.family = "tiled_dynamic";
  p.m = p.n = p.k = 1024;
  const Answer a = cache.best(p, kA);
  EXPECT_EQ(a.answered_by, LookupStep::kExact);
  ASSERT_TRUE(a.measured());
  EXPECT_EQ(a.config.family, "tiled_dynamic");
  EXPECT_EQ(a.config.variant, "TiledDynamic<16>");
  EXPECT_EQ(a.config.block_x, 16);
  EXPECT_EQ(a.config.block_y, 16);
  EXPECT_EQ(a.config.grid_x, 64);
  EXPECT_EQ(a.config.grid_y, 64);
  EXPECT_EQ(a.config.dynamic_smem, 2u * 256 * sizeof(float));
  ASSERT_EQ(a.config.params.size(), 1u);
  EXPECT_EQ(a.config.params[0].name, "tile");
  EXPECT_EQ(a.config.params[0].value, 16);
  EXPECT_DOUBLE_EQ(a.measurement->timing.median_ms, 0.25);
  EXPECT_EQ(a.measurement->device_uuid, kA);
  EXPECT_EQ(a.chain.size(), 5u);
  EXPECT_STREQ(to_string(a.chain[3].step), "nearest_shape");
}

TEST_F(CacheApi, NoFamilyAnswersTheFastestAndTheGridFollowsTheAskedShape) {
  const Cache cache = Cache::open(path_.string());
  Problem p;
  p.m = p.n = p.k = 1024;
  EXPECT_DOUBLE_EQ(cache.best(p, kA).measurement->timing.median_ms, 0.1);
  // 1000^3 was never measured on A: the nearest shape (1024^3) answers, with a grid for 1000.
  p.m = p.n = p.k = 1000;
  const Answer a = cache.best(p, kA);
  EXPECT_EQ(a.answered_by, LookupStep::kNearestShape);
  EXPECT_EQ(a.measurement->m, 1024);
  EXPECT_GT(a.shape_distance, 0.0);
  EXPECT_EQ(a.config.grid_x, (1000 + 15) / 16);
  // Exact only: a miss is nullopt from find() and kNotFound from best().
  LookupOptions exact;
  exact.fallback = false;
  EXPECT_FALSE(cache.find(p, kA, exact).has_value());
  try {
    cache.best(p, kA, exact);
    FAIL() << "expected a miss";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find(kA), std::string::npos) << e.what();
  }
}

TEST_F(CacheApi, RememberedAnswersFollowCommitsOfOtherConnections) {
  const Cache cache = Cache::open(path_.string());
  Problem p;
  p.family = "tiled_dynamic";
  p.m = p.n = p.k = 1024;
  EXPECT_DOUBLE_EQ(cache.best(p, kA).measurement->timing.median_ms, 0.25);
  EXPECT_DOUBLE_EQ(cache.best(p, kA).measurement->timing.median_ms, 0.25);  // remembered
  {
    auto writer = db::Store::open(path_);
    seed_run(writer, seed_device(kA), Shape{1024, 1024, 1024}, 0.2);  // a newer complete run
  }
  EXPECT_DOUBLE_EQ(cache.best(p, kA).measurement->timing.median_ms, 0.2);
}

TEST_F(CacheApi, AStoreNobodyMayWriteIsReadable) {
  // A copy of the store made read-only: the file 0444 in a directory 0555. Root ignores the
  // bits, so this checks that a read-only open works; the permission case is in test_store.
  const auto ro_dir = dir_.path / "ro";
  std::filesystem::create_directory(ro_dir);
  {
    auto store = db::Store::open(path_);
    (void)store;
  }
  std::filesystem::copy_file(path_, ro_dir / "cache.db");
  ::chmod((ro_dir / "cache.db").c_str(), 0444);
  ::chmod(ro_dir.c_str(), 0555);
  Problem p;
  p.m = p.n = p.k = 1024;
  const Cache cache = Cache::open((ro_dir / "cache.db").string());
  EXPECT_TRUE(cache.best(p, kA).measured());
  ::chmod(ro_dir.c_str(), 0755);
}

TEST_F(CacheApi, BadProblemsNameTheValue) {
  const Cache cache = Cache::open(path_.string());
  auto expect_usage = [&](Problem p, const std::string& uuid, const std::string& needle) {
    try {
      cache.best(p, uuid);
      ADD_FAILURE() << "accepted " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  Problem ok;
  ok.m = ok.n = ok.k = 64;
  Problem p = ok;
  p.m = -5;
  expect_usage(p, kA, "-5");
  p = ok;
  p.k = 3000000000LL;
  expect_usage(p, kA, "3000000000");
  p = ok;
  p.family = "tiledd";
  expect_usage(p, kA, "tiledd");
  p = ok;
  p.layout = "xy";
  expect_usage(p, kA, "xy");
  expect_usage(ok, "", "UUID");
  // A device the store has never seen: no properties to plan with, so nothing answers.
  EXPECT_FALSE(cache.find(ok, "GPU-00000000-0000-4000-8000-00000000dead").has_value());
}

TEST_F(CacheApi, MissingStoreIsNotFoundAndOcctuneDbIsHonoured) {
  try {
    Cache::open((dir_.path / "missing.db").string());
    FAIL() << "opened a missing store";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kNotFound);
  }
  ::setenv("OCCTUNE_DB", path_.c_str(), 1);
  EXPECT_EQ(Cache::open().path(), path_.string());
  ::unsetenv("OCCTUNE_DB");
}

}  // namespace
}  // namespace occtune::testing
