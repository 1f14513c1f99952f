// Device properties outside the hardware's range (autotuner/core/device_limits) are refused
// wherever they enter, before the occupancy arithmetic sees them (issue #16, defect 2): a warp
// size of 0 used to kill `query --fallback` and `/v1/best` with SIGFPE, and a warp size of 1
// with thread limits of 2^31-1 cost 46 s of CPU per plan. Each case here runs in the test
// process, so a SIGFPE or a runaway walk fails the test (ctest's timeout).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <fstream>
#include <string>

#include "autotuner/core/device_limits.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/embedded_configs.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "kernels/kernel_manifest.hpp"
#include "tests/support/seed_store.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;

DeviceInfo h100() { return load_device_profile("h100"); }

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.what()) + " [exit " + std::to_string(int(e.code())) + "]";
  }
  return "no error";
}

TEST(DeviceLimits, EveryShippedProfileIsInRange) {
  for (auto& name : profile_names()) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(device_problem(load_device_profile(name), DeviceFieldNames::kProfile, true));
  }
}

TEST(DeviceLimits, ProblemsNameTheFieldAndTheValue) {
  DeviceInfo d = h100();
  d.warp_size = 0;
  auto p = device_problem(d);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->field, "warp_size");
  EXPECT_NE(p->problem.find("is 0"), std::string::npos) << p->problem;

  d = h100();
  d.max_threads_per_block = INT_MAX;
  p = device_problem(d);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->field, "max_threads_per_block");
  EXPECT_NE(p->problem.find("2147483647"), std::string::npos) << p->problem;

  // Unknown informational values (0) are fine for a stored record, not for a profile.
  d = h100();
  d.memory_clock_khz = 0;
  EXPECT_FALSE(device_problem(d));
  p = device_problem(d, DeviceFieldNames::kProfile, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->field, "memory_clock_mhz");
}

// The forged values of the issue, straight into the arithmetic: refused at once, exit 2.
TEST(DeviceLimits, OccupancyArithmeticRefusesForgedDevices) {
  DeviceInfo zero = h100();
  zero.warp_size = 0;
  DeviceInfo huge = h100();
  huge.warp_size = 1;
  huge.max_threads_per_block = INT_MAX;
  huge.max_threads_per_sm = INT_MAX;
  for (const DeviceInfo& d : {zero, huge}) {
    const auto start = std::chrono::steady_clock::now();
    const std::string msg = error_of([&] { OfflineOccupancy oracle(d); });
    EXPECT_NE(msg.find("warp_size"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[exit 2]"), std::string::npos) << msg;
    const std::string direct =
        error_of([&] { OfflineOccupancy::compute(d, 32, 0, INT_MAX, 1, 256, 0); });
    EXPECT_NE(direct.find("warp_size"), std::string::npos) << direct;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  }
}

TEST(DeviceLimits, ProfilesOutsideTheRangeAreUsageErrors) {
  std::string text;
  for (auto& f : embedded_configs())
    if (f.path == "profiles/h100.toml") text = std::string(f.contents);
  ASSERT_FALSE(text.empty());
  auto with = [&](const std::string& key, const std::string& line) {
    const auto at = text.find("\n" + key + " = ");
    const auto end = text.find('\n', at + 1);
    return text.substr(0, at + 1) + line + text.substr(end);
  };
  std::string msg =
      error_of([&] { parse_device_profile(with("warp_size", "warp_size = 1"), "t.toml"); });
  EXPECT_NE(msg.find("'warp_size'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be 32"), std::string::npos) << msg;
  msg = error_of([&] {
    parse_device_profile(with("max_threads_per_block", "max_threads_per_block = 2147483647"),
                         "t.toml");
  });
  EXPECT_NE(msg.find("'max_threads_per_block'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[exit 2]"), std::string::npos) << msg;
}

// A store row with warp_size 0 (written before validation, or forged): the heuristic step
// reports a miss that names the field, and the process lives.
TEST(DeviceLimits, StoredForgedPropertiesMakeTheHeuristicMissNotCrash) {
  const fs::path dir = fs::temp_directory_path() / ("occtune_limits_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    db::Store store = db::Store::open(dir / "s.db");
    DeviceInfo d = testing::seed_device("GPU-0bad0000-1111-2222-3333-444455556666");
    d.warp_size = 0;
    db::RunStart start;
    start.device = d;
    start.kernel = "tiled_dynamic";
    start.build_id = std::string(kernels::kernel_build_id());
    start.shape = {1024, 1024, 1024};
    start.tool_version = "test";
    store.finish_run(store.begin_run(start), db::RunStatus::kFailed);
    const db::CacheKey key = db::CacheKey::make(
        d, "tiled_dynamic", std::string(kernels::kernel_build_id()), {1024, 1024, 1024});
    const db::LookupResult r = db::lookup(store, key, {});
    EXPECT_FALSE(r.hit());
    const auto& step = r.steps[static_cast<std::size_t>(db::LookupStep::kHeuristic)];
    EXPECT_EQ(step.state, db::StepReport::State::kMiss);
    EXPECT_NE(step.detail.find("warp_size is 0"), std::string::npos) << step.detail;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace occtune
