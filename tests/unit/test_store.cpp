// Unit tests of the SQLite store (db/store.hpp): round trips, the best-configuration rules, key
// mismatches as misses, the connection pragmas, refusing foreign or newer files untouched, path
// errors, and rollback of failed writes. In-memory databases and throw-away temporary files only.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "autotuner/core/error.hpp"
#include "db/store.hpp"
#include "db/store_path.hpp"
#include "tests/support/seed_store.hpp"

namespace occtune::db {
namespace {

namespace fs = std::filesystem;

// --- fixtures and builders ------------------------------------------------------------------

// The seeded H100 with every remaining field set too, so the round trip checks them all.
DeviceInfo test_device() {
  DeviceInfo d = testing::seed_device("GPU-12345678-abcd-ef01-2345-6789abcdef01");
  d.index = 1;
  d.max_grid_x = 2147483647;
  d.max_grid_y = 65535;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width = 5120;
  d.pci_bus_id = "0000:19:00.0";
  return d;
}

void expect_same_device(const DeviceInfo& a, const DeviceInfo& b) {
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.uuid, b.uuid);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.cc_major, b.cc_major);
  EXPECT_EQ(a.cc_minor, b.cc_minor);
  EXPECT_EQ(a.sm_count, b.sm_count);
  EXPECT_EQ(a.warp_size, b.warp_size);
  EXPECT_EQ(a.max_threads_per_block, b.max_threads_per_block);
  EXPECT_EQ(a.max_threads_per_sm, b.max_threads_per_sm);
  EXPECT_EQ(a.max_blocks_per_sm, b.max_blocks_per_sm);
  EXPECT_EQ(a.regs_per_block, b.regs_per_block);
  EXPECT_EQ(a.regs_per_sm, b.regs_per_sm);
  EXPECT_EQ(a.shared_mem_per_block, b.shared_mem_per_block);
  EXPECT_EQ(a.shared_mem_per_block_optin, b.shared_mem_per_block_optin);
  EXPECT_EQ(a.shared_mem_per_sm, b.shared_mem_per_sm);
  EXPECT_EQ(a.reserved_shared_mem_per_block, b.reserved_shared_mem_per_block);
  EXPECT_EQ(a.max_grid_x, b.max_grid_x);
  EXPECT_EQ(a.max_grid_y, b.max_grid_y);
  EXPECT_EQ(a.l2_bytes, b.l2_bytes);
  EXPECT_EQ(a.global_mem_bytes, b.global_mem_bytes);
  EXPECT_EQ(a.clock_khz, b.clock_khz);
  EXPECT_EQ(a.memory_clock_khz, b.memory_clock_khz);
  EXPECT_EQ(a.memory_bus_width, b.memory_bus_width);
  EXPECT_EQ(a.driver_version, b.driver_version);
  EXPECT_EQ(a.runtime_version, b.runtime_version);
  EXPECT_EQ(a.pci_bus_id, b.pci_bus_id);
}

const kernels::VariantInfo& variant(int tile) {
  // Stable addresses for the lifetime of the test binary, as the real registry has.
  static const std::vector<kernels::VariantInfo> variants = [] {
    std::vector<kernels::VariantInfo> v;
    for (int t : {8, 16, 32}) {
      kernels::VariantInfo info;
      info.family = "tiled_dynamic";
      info.symbol = "TiledDynamic<" + std::to_string(t) + ">";
      info.params = {{"tile", t}};
      info.block_x = info.block_y = t;
      info.tile_m = info.tile_n = t;
      info.dynamic_smem = std::size_t(2 * t * t * 4);
      v.push_back(info);
    }
    return v;
  }();
  for (auto& v : variants)
    if (v.block_x == tile) return v;
  throw std::logic_error("no test variant");
}

const Shape kShape{1024, 1024, 1024};

Measurement measurement(int tile, Outcome outcome, double median_ms) {
  Measurement m;
  Candidate& c = m.candidate;
  c.variant = &variant(tile);
  c.origin = "occupancy-api";
  c.step = tile == 32 ? 1 : 2;
  c.suggested_block = 768;
  c.block_limit = 1024;
  c.threads = tile * tile;
  c.tile = tile;
  c.dynamic_smem = std::size_t(2 * tile * tile * 4);
  c.registers = 38;
  c.active_blocks_per_sm = 2048 / (tile * tile);
  c.occupancy = 1.0;
  c.limiter = "warps";
  c.grid_x = 1024 / tile;
  c.grid_y = 1024 / tile;
  c.waves = 1.5;
  m.outcome = outcome;
  m.flops = kShape.flops();
  if (outcome == Outcome::kExceedsLimits) {
    c.rejection = "threads 4096 > max_threads_per_block 1024";
    return m;
  }
  if (outcome != Outcome::kOk && outcome != Outcome::kWrongResult) {
    m.error = "cudaErrorInvalidValue";
    return m;
  }
  m.rel_error = outcome == Outcome::kOk ? 3.5e-7 : 0.25;
  m.timing.samples_ms = {median_ms * 1.02, median_ms, median_ms * 0.99, median_ms * 1.1, median_ms};
  m.timing.summary = summarize(m.timing.samples_ms);
  m.timing.sm_clock_mhz = 1980;
  return m;
}

RunStart run_start(const DeviceInfo& device = test_device(), Shape shape = kShape,
                   std::string build_id = "build-aaaa", std::string dtype = "f32",
                   std::string kernel = "tiled_dynamic") {
  RunStart s;
  s.device = device;
  s.kernel = std::move(kernel);
  s.build_id = std::move(build_id);
  s.dtype = std::move(dtype);
  s.shape = shape;
  s.tool_version = "0.1.0";
  s.argv = {"occtune", "tune", "--shape", "1024x1024x1024"};
  return s;
}

CacheKey key_of(const RunStart& s) {
  return CacheKey::make(s.device, s.kernel, s.build_id, s.shape, s.dtype, s.layout);
}

Timing timing(double median_ms) {
  Timing t;
  t.samples_ms = {median_ms, median_ms * 1.01, median_ms * 0.98};
  t.summary = summarize(t.samples_ms);
  t.sm_clock_mhz = 1755;
  return t;
}

// A complete run whose fastest ok candidate takes `best_ms`.
std::int64_t complete_run(Store& store, const RunStart& start, double best_ms,
                          RunStatus status = RunStatus::kComplete) {
  const auto id = store.begin_run(start);
  store.set_reference(id, timing(0.5));
  store.add_measurement(id, measurement(32, Outcome::kOk, best_ms * 2));
  store.add_measurement(id, measurement(16, Outcome::kOk, best_ms));
  store.finish_run(id, status);
  return id;
}

template <typename F>
ExitCode code_of(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no occtune::Error was thrown";
  return ExitCode::kOk;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class StoreFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    dir_ = fs::temp_directory_path() /
           ("occtune-test-store-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

// --- round trips and the best-configuration rules --------------------------------------------

TEST(Store, RoundTripPicksFastestOkNeverWrongResult) {
  auto store = Store::open(":memory:");
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  const RunStart start = run_start();
  const auto id = store.begin_run(start);
  store.set_reference(id, timing(0.8));
  store.add_measurement(id, measurement(32, Outcome::kOk, 2.0));
  store.add_measurement(id, measurement(8, Outcome::kWrongResult, 0.3));  // fastest, but wrong
  store.add_measurement(id, measurement(16, Outcome::kOk, 1.6));
  store.add_measurement(id, measurement(32, Outcome::kExceedsLimits, 0));
  store.add_measurement(id, measurement(8, Outcome::kCrashed, 0));
  store.finish_run(id, RunStatus::kComplete);

  const auto best = store.best(key_of(start));
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->run.id, id);
  EXPECT_EQ(best->best.variant, "TiledDynamic<16>");
  EXPECT_EQ(best->best.params, "tile=16");
  EXPECT_EQ(best->best.outcome, Outcome::kOk);
  EXPECT_DOUBLE_EQ(best->best.summary.median, 1.6);
  EXPECT_DOUBLE_EQ(best->run.cublas.median, 0.8);
  EXPECT_EQ(best->run.cublas.count, 3u);
  EXPECT_DOUBLE_EQ(best->ratio_to_cublas(), 0.8 / 1.6);
  EXPECT_EQ(best->run.status, RunStatus::kComplete);
  EXPECT_EQ(best->run.tool_version, "0.1.0");
  EXPECT_EQ(best->run.argv_json, R"(["occtune","tune","--shape","1024x1024x1024"])");
  EXPECT_NE(best->run.policy_json.find("\"samples\":20"), std::string::npos);

  const std::regex iso(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
  EXPECT_TRUE(std::regex_match(best->run.started_at, iso)) << best->run.started_at;
  EXPECT_TRUE(std::regex_match(best->run.finished_at, iso)) << best->run.finished_at;

  const auto stored = store.measurements(id);
  ASSERT_EQ(stored.size(), 5u);
  const Measurement original = measurement(32, Outcome::kOk, 2.0);
  const StoredMeasurement& first = stored[0];
  EXPECT_EQ(first.run_id, id);
  EXPECT_EQ(first.variant, "TiledDynamic<32>");
  EXPECT_EQ(first.threads, 1024);
  EXPECT_EQ(first.tile, 32);
  EXPECT_EQ(first.dynamic_smem, 8192);
  EXPECT_EQ(first.registers, 38);
  EXPECT_EQ(first.active_blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(first.occupancy, 1.0);
  EXPECT_EQ(first.limiter, "warps");
  EXPECT_EQ(first.origin, "occupancy-api");
  EXPECT_EQ(first.grid_x, 32);
  EXPECT_EQ(first.grid_y, 32);
  EXPECT_DOUBLE_EQ(first.waves, 1.5);
  EXPECT_DOUBLE_EQ(first.rel_error, 3.5e-7);
  EXPECT_EQ(first.samples_ms, original.timing.samples_ms);  // bit-exact through JSON
  EXPECT_EQ(first.summary.count, 5u);
  EXPECT_DOUBLE_EQ(first.summary.min, original.timing.summary.min);
  EXPECT_DOUBLE_EQ(first.summary.q1, original.timing.summary.q1);
  EXPECT_DOUBLE_EQ(first.summary.q3, original.timing.summary.q3);
  EXPECT_DOUBLE_EQ(first.summary.max, original.timing.summary.max);
  EXPECT_DOUBLE_EQ(first.summary.mean, original.timing.summary.mean);
  EXPECT_DOUBLE_EQ(first.gflops, original.gflops());
  EXPECT_EQ(first.sm_clock_mhz, 1980);

  // Insertion order, and the failure reasons survive.
  EXPECT_EQ(stored[1].outcome, Outcome::kWrongResult);
  EXPECT_DOUBLE_EQ(stored[1].rel_error, 0.25);
  EXPECT_EQ(stored[2].outcome, Outcome::kOk);
  EXPECT_EQ(stored[3].outcome, Outcome::kExceedsLimits);
  EXPECT_EQ(stored[3].error, "threads 4096 > max_threads_per_block 1024");
  EXPECT_DOUBLE_EQ(stored[3].rel_error, -1);
  EXPECT_TRUE(stored[3].samples_ms.empty());
  EXPECT_EQ(stored[4].outcome, Outcome::kCrashed);
  EXPECT_EQ(stored[4].error, "cudaErrorInvalidValue");
  for (std::size_t i = 1; i < stored.size(); ++i) EXPECT_GT(stored[i].id, stored[i - 1].id);
}

TEST(Store, OnlyFailedCandidatesMeansNoBest) {
  auto store = Store::open(":memory:");
  const RunStart start = run_start();
  const auto id = store.begin_run(start);
  store.add_measurement(id, measurement(8, Outcome::kWrongResult, 0.3));
  store.add_measurement(id, measurement(16, Outcome::kTimeout, 0));
  store.finish_run(id, RunStatus::kComplete);
  EXPECT_FALSE(store.best(key_of(start)).has_value());
}

TEST(Store, NewerCompleteRunReplacesOlder) {
  auto store = Store::open(":memory:");
  const RunStart start = run_start();
  const auto older = complete_run(store, start, 1.0);
  const auto newer = complete_run(store, start, 3.0);  // slower, but newer evidence wins
  const auto best = store.best(key_of(start));
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->run.id, newer);
  EXPECT_DOUBLE_EQ(best->best.summary.median, 3.0);

  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, newer);  // newest first
  EXPECT_EQ(runs[1].id, older);
}

TEST(Store, UnfinishedOrAbortedRunsAreNeverBest) {
  auto store = Store::open(":memory:");
  const RunStart start = run_start();
  EXPECT_FALSE(store.best(key_of(start)).has_value());

  const auto running = store.begin_run(start);
  store.add_measurement(running, measurement(16, Outcome::kOk, 0.5));
  EXPECT_FALSE(store.best(key_of(start)).has_value());

  const auto complete = complete_run(store, start, 2.0);
  complete_run(store, start, 0.1, RunStatus::kInterrupted);
  complete_run(store, start, 0.1, RunStatus::kFailed);
  const auto still_running = store.begin_run(start);
  store.add_measurement(still_running, measurement(16, Outcome::kOk, 0.05));

  const auto best = store.best(key_of(start));
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->run.id, complete);
  EXPECT_DOUBLE_EQ(best->best.summary.median, 2.0);

  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].status, RunStatus::kRunning);
  EXPECT_EQ(runs[0].finished_at, "");
  EXPECT_EQ(runs[1].status, RunStatus::kFailed);
  EXPECT_EQ(runs[2].status, RunStatus::kInterrupted);
  EXPECT_EQ(runs[3].status, RunStatus::kComplete);
}

struct Mismatch {
  std::string name;
  void (*change)(RunStart&);
  bool near;  // whether the stored key explains the miss (same kernel and shape)
};

class StoreKeyMismatch : public ::testing::TestWithParam<Mismatch> {};

TEST_P(StoreKeyMismatch, IsAMissAndExplained) {
  auto store = Store::open(":memory:");
  const RunStart stored = run_start();
  complete_run(store, stored, 1.0);
  ASSERT_TRUE(store.best(key_of(stored)).has_value());
  EXPECT_TRUE(store.near_keys(key_of(stored)).empty());  // the exact key is not "near"

  RunStart query = stored;
  GetParam().change(query);
  const CacheKey key = key_of(query);
  EXPECT_FALSE(store.best(key).has_value());

  const auto near = store.near_keys(key);
  if (!GetParam().near) {
    EXPECT_TRUE(near.empty());
    return;
  }
  ASSERT_EQ(near.size(), 1u);
  const CacheKey expected = key_of(stored);
  EXPECT_EQ(near[0].device_uuid, expected.device_uuid);
  EXPECT_EQ(near[0].device_name, expected.device_name);
  EXPECT_EQ(near[0].cc_major, expected.cc_major);
  EXPECT_EQ(near[0].cc_minor, expected.cc_minor);
  EXPECT_EQ(near[0].sm_count, expected.sm_count);
  EXPECT_EQ(near[0].driver_version, expected.driver_version);
  EXPECT_EQ(near[0].runtime_version, expected.runtime_version);
  EXPECT_EQ(near[0].kernel, expected.kernel);
  EXPECT_EQ(near[0].build_id, expected.build_id);
  EXPECT_EQ(near[0].dtype, expected.dtype);
  EXPECT_EQ(near[0].shape, expected.shape);
  // The near key is a real entry.
  EXPECT_TRUE(store.best(near[0]).has_value());
}

INSTANTIATE_TEST_SUITE_P(
    EveryField, StoreKeyMismatch,
    ::testing::Values(
        Mismatch{"driver", [](RunStart& s) { s.device.driver_version = 13010; }, true},
        Mismatch{"runtime", [](RunStart& s) { s.device.runtime_version = 12080; }, true},
        Mismatch{"build_id", [](RunStart& s) { s.build_id = "build-bbbb"; }, true},
        Mismatch{"uuid", [](RunStart& s) { s.device.uuid = "GPU-ffffffff-0000"; }, true},
        Mismatch{"name", [](RunStart& s) { s.device.name = "NVIDIA H100 PCIe"; }, true},
        Mismatch{"cc", [](RunStart& s) { s.device.cc_minor = 1; }, true},
        Mismatch{"sm_count", [](RunStart& s) { s.device.sm_count = 114; }, true},
        Mismatch{"dtype", [](RunStart& s) { s.dtype = "f16"; }, true},
        Mismatch{"shape",
                 [](RunStart& s) {
                   s.shape = Shape{1024, 1024, 2048};
                 },
                 false},
        Mismatch{"kernel", [](RunStart& s) { s.kernel = "tiled_static"; }, false},
        // Another layout is another problem (issue #12), not a near entry of this one.
        Mismatch{"layout", [](RunStart& s) { s.layout = "nt"; }, false}),
    [](const auto& test) { return test.param.name; });

// Each layout is its own key: entries of nn and tn of one shape live side by side, each found
// by its own key and by an entries() filter on its layout; a layout outside nn/nt/tn/tt is
// refused by the schema.
TEST(Store, LayoutIsPartOfTheKey) {
  auto store = Store::open(":memory:");
  RunStart nn = run_start();
  RunStart tn = run_start();
  tn.layout = "tn";
  complete_run(store, nn, 2.0);
  complete_run(store, tn, 1.0);
  const auto best_nn = store.best(key_of(nn));
  const auto best_tn = store.best(key_of(tn));
  ASSERT_TRUE(best_nn && best_tn);
  EXPECT_DOUBLE_EQ(best_nn->best.summary.median, 2.0);
  EXPECT_DOUBLE_EQ(best_tn->best.summary.median, 1.0);
  EXPECT_EQ(best_nn->run.key.layout, "nn");
  EXPECT_EQ(best_tn->run.key.layout, "tn");
  RunStart tt = run_start();
  tt.layout = "tt";
  EXPECT_FALSE(store.best(key_of(tt)).has_value());

  EntryQuery all;
  EXPECT_EQ(store.entries(all).entries.size(), 2u);
  EntryQuery only_tn;
  only_tn.layout = "tn";
  const auto page = store.entries(only_tn);
  ASSERT_EQ(page.entries.size(), 1u);
  EXPECT_EQ(page.entries[0].run.key.layout, "tn");

  RunStart bad = run_start();
  bad.layout = "xy";
  EXPECT_THROW(store.begin_run(bad), Error);
}

TEST(Store, NearKeysAreDistinctAndNewestFirst) {
  auto store = Store::open(":memory:");
  RunStart a = run_start();
  RunStart b = run_start();
  b.build_id = "build-old";
  complete_run(store, b, 1.0);
  complete_run(store, a, 1.0);
  complete_run(store, b, 1.0);  // b again: one key, now the newest
  RunStart query = run_start();
  query.build_id = "build-new";
  const auto near = store.near_keys(key_of(query));
  ASSERT_EQ(near.size(), 2u);
  EXPECT_EQ(near[0].build_id, "build-old");
  EXPECT_EQ(near[1].build_id, "build-aaaa");
}

TEST(Store, DevicesRoundTripEveryField) {
  auto store = Store::open(":memory:");
  EXPECT_TRUE(store.devices().empty());
  const DeviceInfo h100 = test_device();
  DeviceInfo a100;
  a100.index = 0;
  a100.uuid = "GPU-aaaaaaaa-0000";
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.source = "runtime";
  a100.cc_major = 8;
  a100.sm_count = 108;
  a100.driver_version = 12040;
  a100.runtime_version = 12040;

  complete_run(store, run_start(h100), 1.0);
  complete_run(store, run_start(a100), 1.0);
  complete_run(store, run_start(h100), 1.0);  // reuses the device row

  const auto devices = store.devices();
  ASSERT_EQ(devices.size(), 2u);
  expect_same_device(devices[0], h100);  // most recently used first
  expect_same_device(devices[1], a100);

  const auto found = store.device_by_uuid(h100.uuid);
  ASSERT_TRUE(found.has_value());
  expect_same_device(*found, h100);
  EXPECT_FALSE(store.device_by_uuid("GPU-nope").has_value());

  // A driver update is a new device record; the UUID lookup returns the newest.
  DeviceInfo updated = h100;
  updated.driver_version = 13010;
  updated.pci_bus_id = "0000:1a:00.0";
  complete_run(store, run_start(updated), 1.0);
  EXPECT_EQ(store.devices().size(), 3u);
  const auto newest = store.device_by_uuid(h100.uuid);
  ASSERT_TRUE(newest.has_value());
  expect_same_device(*newest, updated);
}

TEST(Store, RunStatusSpellingsAndKeyMake) {
  EXPECT_EQ(to_string(RunStatus::kRunning), "running");
  EXPECT_EQ(to_string(RunStatus::kComplete), "complete");
  EXPECT_EQ(to_string(RunStatus::kInterrupted), "interrupted");
  EXPECT_EQ(to_string(RunStatus::kFailed), "failed");
  const auto key = CacheKey::make(test_device(), "tiled_dynamic", "b1", Shape{1, 2, 3});
  EXPECT_EQ(key.device_uuid, test_device().uuid);
  EXPECT_EQ(key.device_name, test_device().name);
  EXPECT_EQ(key.cc_major, 9);
  EXPECT_EQ(key.sm_count, 132);
  EXPECT_EQ(key.driver_version, 13000);
  EXPECT_EQ(key.runtime_version, 13000);
  EXPECT_EQ(key.kernel, "tiled_dynamic");
  EXPECT_EQ(key.build_id, "b1");
  EXPECT_EQ(key.dtype, "f32");
  EXPECT_EQ(key.shape, (Shape{1, 2, 3}));
}

// --- failing writes leave the database as it was ----------------------------------------------

TEST(Store, WritesToAMissingRunAreRefusedAndChangeNothing) {
  auto store = Store::open(":memory:");
  const RunStart start = run_start();
  const auto id = complete_run(store, start, 1.0);
  const auto before = store.measurements(id);

  std::string message;
  // Refused by the foreign key, which proves foreign_keys=ON on the connection.
  EXPECT_EQ(code_of([&] { store.add_measurement(id + 100, measurement(8, Outcome::kOk, 0.1)); },
                    &message),
            ExitCode::kNotFound);
  EXPECT_NE(message.find(std::to_string(id + 100)), std::string::npos) << message;
  EXPECT_EQ(code_of([&] { store.set_reference(id + 100, timing(1.0)); }), ExitCode::kNotFound);
  EXPECT_EQ(code_of([&] { store.finish_run(id + 100, RunStatus::kFailed); }), ExitCode::kNotFound);

  EXPECT_EQ(store.measurements(id).size(), before.size());
  EXPECT_TRUE(store.measurements(id + 100).empty());
  ASSERT_EQ(store.runs().size(), 1u);
  const auto best = store.best(key_of(start));
  ASSERT_TRUE(best.has_value());
  EXPECT_DOUBLE_EQ(best->best.summary.median, 1.0);
}

TEST_F(StoreFile, FailureInTheMiddleOfAWriteRollsBackAllOfIt) {
  const fs::path path = dir_ / "occtune.db";
  auto store = Store::open(path);
  complete_run(store, run_start(), 1.0);
  {
    // Let the device row go in and make the run insert after it fail.
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec("CREATE TRIGGER boom BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'boom'); END");
  }
  DeviceInfo other = test_device();
  other.uuid = "GPU-other";
  std::string message;
  EXPECT_EQ(code_of([&] { store.begin_run(run_start(other)); }, &message), ExitCode::kRuntime);
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_EQ(store.devices().size(), 1u);  // the device upsert was rolled back with the run
  EXPECT_EQ(store.runs().size(), 1u);
}

TEST_F(StoreFile, ConcurrentWritersLoseNothing) {
  const fs::path path = dir_ / "occtune.db";
  Store::open(path);  // create once, so the writers race on writes, not on creation
  constexpr int kWriters = 4;
  constexpr int kRunsEach = 15;
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&] {
      try {
        auto store = Store::open(path);
        for (int i = 0; i < kRunsEach; ++i) complete_run(store, run_start(), 1.0);
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();  // gtest assertions are thread-safe with pthreads
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto store = Store::open(path, OpenMode::kReadOnly);
  EXPECT_EQ(store.runs().size(), std::size_t(kWriters * kRunsEach));
}

TEST_F(StoreFile, ConcurrentFirstOpensCreateTheSchemaOnce) {
  const fs::path path = dir_ / "fresh" / "occtune.db";
  constexpr int kOpeners = 6;
  std::atomic<int> failures{0};
  std::vector<std::thread> openers;
  for (int w = 0; w < kOpeners; ++w) {
    openers.emplace_back([&] {
      try {
        auto store = Store::open(path);
        complete_run(store, run_start(), 1.0);
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();  // gtest assertions are thread-safe with pthreads
      }
    });
  }
  for (auto& t : openers) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto store = Store::open(path);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  EXPECT_EQ(store.runs().size(), std::size_t(kOpeners));
  EXPECT_EQ(store.devices().size(), 1u);
}

// --- files: pragmas, persistence, refusals ---------------------------------------------------

TEST_F(StoreFile, FileConnectionUsesWalAndStampsTheHeader) {
  const fs::path path = dir_ / "occtune.db";
  { auto store = Store::open(path); }
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(raw.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ(raw.execAndGet("PRAGMA application_id").getInt(), kApplicationId);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), kSchemaVersion);
  EXPECT_TRUE(raw.tableExists("devices"));
  EXPECT_TRUE(raw.tableExists("runs"));
  EXPECT_TRUE(raw.tableExists("measurements"));
}

TEST_F(StoreFile, ReopeningKeepsEverything) {
  const fs::path path = dir_ / "nested" / "deeper" / "occtune.db";  // parents are created
  const RunStart start = run_start();
  std::int64_t id = 0;
  {
    auto store = Store::open(path);
    EXPECT_EQ(store.path(), path);
    id = complete_run(store, start, 1.25);
    store.add_measurement(id, measurement(8, Outcome::kWrongResult, 0.1));
  }
  ASSERT_TRUE(fs::is_regular_file(path));
  {
    auto store = Store::open(path);
    EXPECT_EQ(store.schema_version(), kSchemaVersion);
    const auto best = store.best(key_of(start));
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->run.id, id);
    EXPECT_DOUBLE_EQ(best->best.summary.median, 1.25);
    EXPECT_EQ(store.measurements(id).size(), 3u);
    ASSERT_EQ(store.devices().size(), 1u);
    expect_same_device(store.devices()[0], test_device());
  }
  {
    auto store = Store::open(path, OpenMode::kReadOnly);
    const auto best = store.best(key_of(start));
    ASSERT_TRUE(best.has_value());
    EXPECT_DOUBLE_EQ(best->best.summary.median, 1.25);
    EXPECT_EQ(store.runs().size(), 1u);
    // A read-only store refuses to write, with the path in the message.
    std::string message;
    EXPECT_EQ(code_of([&] { store.begin_run(start); }, &message), ExitCode::kRuntime);
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  }
  // Moving a store keeps it usable.
  auto first = Store::open(path);
  Store second = std::move(first);
  EXPECT_EQ(second.runs().size(), 1u);
}

TEST_F(StoreFile, EmptyFileGetsTheSchema) {
  const fs::path path = dir_ / "empty.db";
  std::ofstream(path).close();
  auto store = Store::open(path);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  complete_run(store, run_start(), 1.0);
  EXPECT_EQ(store.runs().size(), 1u);
}

TEST_F(StoreFile, EmptyFileIsNotFoundReadOnly) {
  const fs::path path = dir_ / "empty.db";
  std::ofstream(path).close();
  EXPECT_EQ(code_of([&] { Store::open(path, OpenMode::kReadOnly); }), ExitCode::kNotFound);
  EXPECT_EQ(fs::file_size(path), 0u);
}

TEST_F(StoreFile, NewerSchemaIsRefusedAndLeftUntouched) {
  const fs::path path = dir_ / "newer.db";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE future (x INTEGER)");
    raw.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    raw.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion + 1));
  }
  const std::string before = slurp(path);
  for (auto mode : {OpenMode::kReadWrite, OpenMode::kReadOnly}) {
    std::string message;
    EXPECT_EQ(code_of([&] { Store::open(path, mode); }, &message), ExitCode::kNotFound);
    EXPECT_NE(message.find("newer occtune"), std::string::npos) << message;
    EXPECT_NE(message.find("schema " + std::to_string(kSchemaVersion + 1)), std::string::npos)
        << message;
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  EXPECT_EQ(slurp(path), before);
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
}

TEST_F(StoreFile, ForeignSqliteFileIsRefusedAndLeftUntouched) {
  const fs::path path = dir_ / "foreign.db";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, blob BLOB)");
  }
  const std::string before = slurp(path);
  std::string message;
  EXPECT_EQ(code_of([&] { Store::open(path); }, &message), ExitCode::kNotFound);
  EXPECT_NE(message.find("not an occtune database"), std::string::npos) << message;
  EXPECT_NE(message.find("1 table)"), std::string::npos) << message;
  EXPECT_EQ(slurp(path), before);
}

TEST_F(StoreFile, TextFileIsARuntimeErrorNamingThePath) {
  const fs::path path = dir_ / "notes.txt";
  std::ofstream(path) << "these are not the pages you are looking for\n" << std::string(4096, 'x');
  const std::string before = slurp(path);
  for (auto mode : {OpenMode::kReadWrite, OpenMode::kReadOnly}) {
    std::string message;
    EXPECT_EQ(code_of([&] { Store::open(path, mode); }, &message), ExitCode::kRuntime);
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("not an SQLite database"), std::string::npos) << message;
  }
  EXPECT_EQ(slurp(path), before);
}

TEST_F(StoreFile, DirectoryIsARuntimeError) {
  std::string message;
  EXPECT_EQ(code_of([&] { Store::open(dir_); }, &message), ExitCode::kRuntime);
  EXPECT_NE(message.find(dir_.string()), std::string::npos) << message;
  EXPECT_NE(message.find("--db"), std::string::npos) << message;
  EXPECT_EQ(code_of([&] { Store::open(dir_, OpenMode::kReadOnly); }), ExitCode::kRuntime);
}

TEST_F(StoreFile, ParentThatIsAFileIsARuntimeError) {
  const fs::path file = dir_ / "plain";
  std::ofstream(file) << "x";
  EXPECT_EQ(code_of([&] { Store::open(file / "occtune.db"); }), ExitCode::kRuntime);
}

TEST_F(StoreFile, ReadOnlyDirectoryIsARuntimeError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  const fs::path locked = dir_ / "locked";
  fs::create_directories(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  std::string message;
  EXPECT_EQ(code_of([&] { Store::open(locked / "occtune.db"); }, &message), ExitCode::kRuntime);
  EXPECT_NE(message.find((locked / "occtune.db").string()), std::string::npos) << message;
  EXPECT_EQ(code_of([&] { Store::open(locked / "sub" / "occtune.db"); }), ExitCode::kRuntime);
  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_FALSE(fs::exists(locked / "occtune.db"));
}

TEST_F(StoreFile, ReadOnlyOpenOfAMissingFileCreatesNothing) {
  const fs::path path = dir_ / "missing" / "occtune.db";
  std::string message;
  EXPECT_EQ(code_of([&] { Store::open(path, OpenMode::kReadOnly); }, &message),
            ExitCode::kNotFound);
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("occtune tune"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.parent_path()));
}

// --- default path ------------------------------------------------------------------------------

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Store, DefaultPathFollowsXdgThenHome) {
  ScopedEnv home("HOME", "/home/tester");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/var/cache/tester");
    EXPECT_EQ(Store::default_path(), fs::path("/var/cache/tester/occtune/occtune.db"));
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    EXPECT_EQ(Store::default_path(), fs::path("/home/tester/.cache/occtune/occtune.db"));
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "");
    EXPECT_EQ(Store::default_path(), fs::path("/home/tester/.cache/occtune/occtune.db"));
  }
}

TEST(Store, PathFollowsFlagThenEnvironmentThenJobFileThenDefault) {
  ScopedEnv home("HOME", "/home/tester");
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  {
    ScopedEnv env("OCCTUNE_DB", "/env/occtune.db");
    EXPECT_EQ(resolve_store_path("/flag.db", "/job.db").path, fs::path("/flag.db"));
    const StorePath from_env = resolve_store_path("", "/job.db");
    EXPECT_EQ(from_env.path, fs::path("/env/occtune.db"));
    EXPECT_STREQ(from_env.source, "OCCTUNE_DB");
  }
  {
    ScopedEnv env("OCCTUNE_DB", nullptr);
    EXPECT_EQ(resolve_store_path("", "/job.db").path, fs::path("/job.db"));
    EXPECT_EQ(resolve_store_path().path, fs::path("/home/tester/.cache/occtune/occtune.db"));
  }
  {
    // Set but empty is an unexpanded variable in a script, not "use the default".
    ScopedEnv env("OCCTUNE_DB", "");
    try {
      resolve_store_path();
      FAIL() << "an empty OCCTUNE_DB was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(e.what()).find("OCCTUNE_DB"), std::string::npos) << e.what();
    }
    EXPECT_EQ(resolve_store_path("/flag.db").path, fs::path("/flag.db"));
  }
}

}  // namespace
}  // namespace occtune::db
