// Schema 2 of the store: every measurement's provenance (noise, interval, clocks, throttling,
// how it left the search, tie and winner marks, reuse), the recorded winner as the cached best,
// the lookup of reusable measurements, and the migration of a version 1 file.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "autotuner/core/error.hpp"
#include "db/schema.hpp"
#include "db/store.hpp"

namespace occtune::db {
namespace {

namespace fs = std::filesystem;

DeviceInfo device() {
  DeviceInfo d;
  d.uuid = "GPU-00000000-1111-2222-3333-444444444444";
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.sm_count = 132;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  return d;
}

const Shape kShape{1024, 1024, 1024};

const kernels::VariantInfo& variant(int tile) {
  static const std::vector<kernels::VariantInfo> variants = [] {
    std::vector<kernels::VariantInfo> v;
    for (int t : {8, 16, 32}) {
      kernels::VariantInfo info;
      info.family = "tiled_dynamic";
      info.symbol = "TiledDynamic<" + std::to_string(t) + ">";
      info.params = {{"tile", t}};
      info.block_x = info.block_y = t;
      v.push_back(info);
    }
    return v;
  }();
  for (auto& v : variants)
    if (v.block_x == tile) return v;
  throw std::logic_error("no test variant");
}

Measurement measured(int tile, double median, StopReason stop, Outcome outcome = Outcome::kOk) {
  Measurement m;
  m.candidate.variant = &variant(tile);
  m.candidate.threads = tile * tile;
  m.candidate.tile = tile;
  m.candidate.dynamic_smem = std::size_t(8 * tile * tile);
  m.candidate.occupancy = 1.0;
  m.candidate.limiter = "warps";
  m.outcome = outcome;
  m.flops = kShape.flops();
  if (outcome != Outcome::kOk) return m;
  m.rel_error = 2e-7;
  Timing& t = m.timing;
  t.samples_ms = {median * 0.99, median, median * 1.01, median * 1.02, median};
  t.summary = summarize(t.samples_ms);
  t.noise = t.summary.relative_iqr();
  t.median_ci = median_interval(t.samples_ms);
  t.sm_clock_mhz = 1965;
  t.sm_clock_min_mhz = 1950;
  t.sm_clock_max_mhz = 1980;
  t.throttled_batches = 1;
  t.throttled = false;
  t.stop = stop;
  t.measured_s = 0.01;
  m.search_round = 2;
  return m;
}

// Starts a run of the test key with the given strategy.
std::int64_t begin(Store& store, const std::string& strategy = "halving") {
  RunStart s;
  s.device = device();
  s.kernel = "tiled_dynamic";
  s.build_id = "build-1";
  s.shape = kShape;
  s.tool_version = "test";
  s.policy.samples = 20;
  return store.begin_run(s, {strategy, 1980});
}

CacheKey key() { return CacheKey::make(device(), "tiled_dynamic", "build-1", kShape); }

TEST(StoreProvenance, EveryFieldRoundTripsAndUpdatesRewriteTheResult) {
  auto store = Store::open(":memory:");
  const auto run = begin(store);
  Measurement m = measured(16, 1.5, StopReason::kConverged);
  m.reused_from = 0;
  const auto id = store.add_measurement(run, m);
  EXPECT_GT(id, 0);
  auto rows = store.measurements(run);
  ASSERT_EQ(rows.size(), 1u);
  const auto& r = rows[0];
  EXPECT_EQ(r.id, id);
  EXPECT_DOUBLE_EQ(r.noise, m.timing.noise);
  EXPECT_DOUBLE_EQ(r.median_ci.low, m.timing.median_ci.low);
  EXPECT_DOUBLE_EQ(r.median_ci.high, m.timing.median_ci.high);
  EXPECT_EQ(r.sm_clock_min_mhz, 1950);
  EXPECT_EQ(r.sm_clock_max_mhz, 1980);
  EXPECT_EQ(r.throttled_batches, 1);
  EXPECT_FALSE(r.throttled);
  EXPECT_EQ(r.stop_reason, "converged");
  EXPECT_EQ(r.search_round, 2);
  EXPECT_FALSE(r.tie);
  EXPECT_FALSE(r.winner);
  EXPECT_EQ(r.reused_from, 0);
  EXPECT_EQ(store.runs().at(0).strategy, "halving");
  EXPECT_EQ(store.runs().at(0).reference_clock_mhz, 1980);

  m.timing.samples_ms.push_back(1.49);
  m.timing.summary = summarize(m.timing.samples_ms);
  m.timing.throttled = true;
  m.tie = true;
  m.winner = true;
  m.reused_from = 77;
  store.update_measurement(id, m);
  const auto u = store.measurements(run).at(0);
  EXPECT_EQ(u.summary.count, 6u);
  EXPECT_EQ(u.samples_ms.size(), 6u);
  EXPECT_TRUE(u.throttled);
  EXPECT_TRUE(u.tie);
  EXPECT_TRUE(u.winner);
  EXPECT_EQ(u.reused_from, 77);
  EXPECT_EQ(u.variant, "TiledDynamic<16>");  // the candidate columns stay
  try {
    store.update_measurement(id + 100, m);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kNotFound);
  }
}

TEST(StoreProvenance, TheRecordedWinnerIsTheCachedBest) {
  auto store = Store::open(":memory:");
  const auto run = begin(store);
  // Eliminated early on a lucky screen: a lower median than the winner's final one.
  store.add_measurement(run, measured(8, 1.00, StopReason::kEliminated));
  Measurement w = measured(16, 1.02, StopReason::kConverged);
  w.winner = true;
  store.add_measurement(run, w);
  store.finish_run(run, RunStatus::kComplete);
  EXPECT_EQ(store.best(key())->best.variant, "TiledDynamic<16>");
  // A run without winner marks (schema 1 rows): the fastest ok measurement, as before.
  const auto old = begin(store, "");
  store.add_measurement(old, measured(8, 1.00, StopReason::kNone));
  store.add_measurement(old, measured(16, 1.02, StopReason::kNone));
  store.finish_run(old, RunStatus::kComplete);
  EXPECT_EQ(store.best(key())->best.variant, "TiledDynamic<8>");
}

TEST(StoreProvenance, ReusableMeasurementsNeedTheSameKeyAndProtocol) {
  auto store = Store::open(":memory:");
  const auto run = begin(store, "halving");
  store.add_measurement(run, measured(8, 2.0, StopReason::kEliminated));
  store.add_measurement(run, measured(16, 1.5, StopReason::kInterrupted));  // partial: never
  store.add_measurement(run, measured(32, 1.0, StopReason::kConverged));
  store.add_measurement(run, measured(32, 0, StopReason::kNone, Outcome::kWrongResult));
  store.finish_run(run, RunStatus::kInterrupted);  // an unfinished run still counts
  TimingPolicy policy;
  policy.samples = 20;
  auto names = [](const std::vector<StoredMeasurement>& rows) {
    std::vector<std::string> out;
    for (auto& r : rows) out.push_back(r.variant + ":" + r.stop_reason);
    return out;
  };
  EXPECT_EQ(names(store.reusable_measurements(key(), policy, "halving")),
            (std::vector<std::string>{"TiledDynamic<32>:converged", "TiledDynamic<8>:eliminated"}));
  // Another strategy may reuse only what was measured to its stopping rule.
  EXPECT_EQ(names(store.reusable_measurements(key(), policy, "exhaustive")),
            (std::vector<std::string>{"TiledDynamic<32>:converged"}));
  // Another protocol or key: nothing.
  TimingPolicy other = policy;
  other.target_noise = 0.01;
  EXPECT_TRUE(store.reusable_measurements(key(), other, "halving").empty());
  CacheKey elsewhere = key();
  elsewhere.build_id = "build-2";
  EXPECT_TRUE(store.reusable_measurements(elsewhere, policy, "halving").empty());
  // The newest row of a candidate wins.
  const auto later = begin(store, "halving");
  store.add_measurement(later, measured(32, 0.9, StopReason::kTimeout));
  auto rows = store.reusable_measurements(key(), policy, "exhaustive");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].stop_reason, "timeout");
  EXPECT_EQ(rows[0].run_id, later);
}

// The flush's method is part of the protocol: a run that flushed with a memset (stored before
// the method was recorded: its policy has no flush_method) is not reused by one that reads,
// nor one with another method.
TEST(StoreProvenance, RunsTimedWithAnotherFlushAreNotReused) {
  std::random_device random;
  const fs::path path =
      fs::temp_directory_path() / ("occtune-test-flush-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(random()) + ".db");
  {
    auto store = Store::open(path.string());
    const auto run = begin(store);
    store.add_measurement(run, measured(32, 1.0, StopReason::kConverged));
    store.finish_run(run, RunStatus::kComplete);
    TimingPolicy policy;
    policy.samples = 20;
    EXPECT_EQ(policy.flush_method, "read");
    EXPECT_EQ(store.reusable_measurements(key(), policy, "halving").size(), 1u);
    TimingPolicy memset = policy;
    memset.flush_method = "memset";
    EXPECT_TRUE(store.reusable_measurements(key(), memset, "halving").empty());
    {
      SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
      raw.exec("UPDATE runs SET policy_json = json_remove(policy_json, '$.flush_method')");
    }
    EXPECT_TRUE(store.reusable_measurements(key(), policy, "halving").empty());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
}

TEST(StoreProvenance, AVersion1FileIsMigratedKeepingItsRows) {
  std::random_device random;
  const fs::path path =
      fs::temp_directory_path() / ("occtune-test-migrate-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(random()) + ".db");
  {
    // A file as schema 1 wrote it, with one complete run of the test key.
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    schema::create_as_version(raw, 1);
    const DeviceInfo d = device();
    raw.exec(
        "INSERT INTO devices (id, uuid, name, cc_major, cc_minor, sm_count, driver_version, "
        "runtime_version, properties_json, first_seen_at, last_seen_at) VALUES (1, '" +
        d.uuid + "', '" + d.name +
        "', 9, 0, 132, 13000, 13000, '{}', '2026-01-01T00:00:00.000Z', "
        "'2026-01-01T00:00:00.000Z')");
    raw.exec(
        "INSERT INTO runs (id, device_id, kernel, build_id, dtype, m, n, k, status, "
        "started_at, tool_version, argv_json, policy_json) VALUES (1, 1, 'tiled_dynamic', "
        "'build-1', 'f32', 1024, 1024, 1024, 'complete', '2026-01-01T00:00:00.000Z', "
        "'0.1.0', '[]', '{}')");
    for (int tile : {16, 32})
      raw.exec(
          "INSERT INTO measurements (run_id, variant, params, origin, step, "
          "suggested_block, block_limit, threads, tile, dynamic_smem, registers, "
          "active_blocks_per_sm, occupancy, limiter, grid_x, grid_y, waves, rejection, "
          "outcome, error, rel_error, sample_count, min_ms, q1_ms, median_ms, q3_ms, max_ms, "
          "mean_ms, samples_json, flops, gflops, sm_clock_mhz) VALUES (1, 'TiledDynamic<" +
          std::to_string(tile) + ">', 'tile=" + std::to_string(tile) +
          "', 'occupancy-api', 1, 0, 1024, 256, 16, 2048, 32, 8, 1.0, 'warps', 64, 64, 1.0, "
          "'', 'ok', '', 1e-7, 3, 1.0, 1.0, " +
          std::to_string(tile == 16 ? 1.5 : 1.2) +
          ", 1.0, 2.0, 1.2, '[1.0, 1.5, 2.0]', 2e9, 1000, 1980)");
  }
  {
    auto store = Store::open(path);
    EXPECT_EQ(store.schema_version(), kSchemaVersion);
    auto rows = store.measurements(1);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_DOUBLE_EQ(rows[0].summary.median, 1.5);
    EXPECT_EQ(rows[0].samples_ms.size(), 3u);
    EXPECT_EQ(rows[0].stop_reason, "");
    EXPECT_FALSE(rows[0].winner);
    EXPECT_FALSE(rows[0].throttled);
    EXPECT_EQ(rows[0].reused_from, 0);
    // No winner marks: the fastest ok measurement is the best, as schema 1 had it.
    EXPECT_EQ(store.best(key())->best.variant, "TiledDynamic<32>");
    EXPECT_EQ(store.runs().at(0).strategy, "");
    // And the migrated file takes schema 2 rows.
    const auto run = begin(store);
    store.add_measurement(run, measured(16, 1.5, StopReason::kConverged));
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
}

}  // namespace
}  // namespace occtune::db
