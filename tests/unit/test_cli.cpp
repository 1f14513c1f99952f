// The CLI contract as a user meets it: exit codes of design.md, one-line errors that name the
// value and the fix, JSON with schema_version, and nothing lost in the database on bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "db/store.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("occtune_cli_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(::rand()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// A device record as a tune on it would store (queries by UUID read only the database).
DeviceInfo test_device(const std::string& uuid) {
  DeviceInfo d;
  d.uuid = uuid;
  d.name = "Test GPU";
  d.cc_major = 9;
  d.sm_count = 132;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  return d;
}

void expect_error(const testing::CliResult& r, int code, const std::string& mention) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
}

TEST(Cli, BadShapesAreUsageErrors) {
  TempDir tmp;
  const std::string db = " --db " + (tmp.path / "x.db").string();
  for (std::string shape : {"0x1x1", "-5x1x1", "ax1x1", "99999999999x1x1", "1x1"})
    expect_error(run_cli("tune --shape " + shape + db), 2, "'" + shape + "'");
}

// --layout takes nn, nt, tn or tt on every command that keys by it; anything else is exit 2
// naming the value, before any GPU or database is touched.
TEST(Cli, BadLayoutsAreUsageErrors) {
  TempDir tmp;
  const std::string db = " --db " + (tmp.path / "x.db").string();
  for (std::string verb : {"tune --shape 8x8x8", "bench --shape 8x8x8", "check --shape 8x8x8",
                           "query --device GPU-11111111-2222-3333-4444-555555555555 --shape 8x8x8"})
    expect_error(run_cli(verb + " --layout xt" + db), 2, "unknown layout 'xt'");
  EXPECT_FALSE(fs::exists(tmp.path / "x.db"));
}

// A query keys by layout: a tt entry answers only a tt query.
TEST(Cli, QueryKeysByLayout) {
  TempDir tmp;
  auto db_path = tmp.path / "q.db";
  const std::string uuid = "GPU-11111111-2222-3333-4444-555555555555";
  {
    auto store = db::Store::open(db_path);
    const DeviceInfo d = test_device(uuid);
    db::RunStart start{d, "tiled_dynamic", "otherbuild", "f32", Shape{8, 8, 8}, "t", {}, {}};
    start.layout = "tt";
    store.finish_run(store.begin_run(start), db::RunStatus::kComplete);
  }
  const std::string base = "query --device " + uuid + " --shape 8x8x8 --db " + db_path.string();
  auto nn = run_cli(base, "CUDA_VISIBLE_DEVICES=");
  expect_error(nn, 3, "(layout nn)");
  auto tt = run_cli(base + " --layout tt", "CUDA_VISIBLE_DEVICES=");
  expect_error(tt, 3, "(layout tt)");
  // The tt entry is a near key of the tt query only (another build), never of the nn one.
  EXPECT_NE(tt.err.find("otherbuild"), std::string::npos) << tt.err;
  EXPECT_EQ(nn.err.find("otherbuild"), std::string::npos) << nn.err;
  EXPECT_NE(tt.err.find("--layout tt"), std::string::npos) << tt.err;
}

TEST(Cli, UnknownKernelListsTheKnownOnes) {
  auto r = run_cli("tune --kernel tiled_nope --shape 8x8x8");
  expect_error(r, 2, "tiled_nope");
  EXPECT_NE(r.err.find("tiled_dynamic, tiled_static, naive"), std::string::npos) << r.err;
  expect_error(run_cli("plan --profile h100 --kernel nope"), 2, "'nope'");
}

TEST(Cli, BadConfigFilesAreUsageErrors) {
  TempDir tmp;
  expect_error(run_cli("tune --config " + (tmp.path / "missing.toml").string()), 2,
               "missing.toml");
  auto bad = tmp.path / "bad.toml";
  std::ofstream(bad) << "version = 1\n[job]\nshapez = [\"8x8x8\"]\n";
  expect_error(run_cli("tune --config " + bad.string()), 2, "'job.shapez'");
  expect_error(run_cli("tune", "OCCTUNE_CONFIG=" + bad.string()), 2, "'job.shapez'");
}

TEST(Cli, UnknownFormatAndArgumentsAreUsageErrors) {
  expect_error(run_cli("plan --profile h100 --format xml"), 2, "'xml'");
  expect_error(run_cli("frobnicate"), 2, "frobnicate");
  expect_error(run_cli("tune --samples many"), 2, "many");
  expect_error(run_cli("plan"), 2, "--profile");
  expect_error(run_cli("plan --profile h100 --device 0"), 2, "exactly one");
  expect_error(run_cli("query --device GPU-00000000-0000-0000-0000-000000000000"), 2, "--shape");
}

TEST(Cli, UnwritableDatabaseIsARuntimeErrorNamingThePath) {
  // A path whose parent is a regular file can never be created, even by root.
  TempDir tmp;
  auto file = tmp.path / "plain";
  std::ofstream(file) << "x";
  auto r = run_cli("tune --shape 8x8x8 --db " + (file / "o.db").string());
  expect_error(r, 4, (file / "o.db").string());
  expect_error(run_cli("tune --shape 8x8x8 --db " + tmp.path.string()), 4, tmp.path.string());
}

TEST(Cli, BadInputLeavesAnExistingDatabaseUntouched) {
  TempDir tmp;
  auto db_path = tmp.path / "keep.db";
  {
    auto store = db::Store::open(db_path);
    DeviceInfo d;
    d.uuid = "GPU-11111111-2222-3333-4444-555555555555";
    d.name = "Test GPU";
    auto id = store.begin_run({d, "tiled_dynamic", "b1", "f32", Shape{8, 8, 8}, "t", {}, {}});
    store.finish_run(id, db::RunStatus::kComplete);
  }
  const auto before = testing::slurp(db_path);
  for (std::string args : {"tune --shape 0x8x8", "tune --kernel nope", "tune --config /nope.toml"})
    EXPECT_EQ(run_cli(args + " --db " + db_path.string()).code, 2) << args;
  EXPECT_EQ(testing::slurp(db_path), before);
  auto store = db::Store::open(db_path);
  EXPECT_EQ(store.runs().size(), 1u);
}

TEST(Cli, WithoutAGpuTuneAndDevicesExplainHowToPlanOffline) {
  if (testing::gpu_visible()) GTEST_SKIP() << "a GPU is visible; this checks the no-GPU path";
  TempDir tmp;
  auto r = run_cli("tune --db " + (tmp.path / "t.db").string());
  expect_error(r, 4, "no CUDA device is visible");
  EXPECT_NE(r.err.find("occtune plan --profile h100"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path / "t.db")) << "a tune without a GPU created the store";
  expect_error(run_cli("devices"), 4, "no CUDA device is visible");
  db::Store::open(tmp.path / "t.db");  // a store to query: the GPU probe is what fails
  expect_error(run_cli("query --device 0 --shape 8x8x8 --db " + (tmp.path / "t.db").string()), 4,
               "no CUDA device");
}

TEST(Cli, QueryWithoutDatabaseOrEntryIsNotFound) {
  TempDir tmp;
  const std::string uuid = "GPU-11111111-2222-3333-4444-555555555555";
  expect_error(run_cli("query --device " + uuid + " --shape 8x8x8 --db " +
                       (tmp.path / "none.db").string()),
               3, "none.db");
  EXPECT_FALSE(fs::exists(tmp.path / "none.db"));
}

TEST(Cli, QueryByUuidReadsTheDatabaseOnly) {
  TempDir tmp;
  auto db_path = tmp.path / "q.db";
  const std::string uuid = "GPU-11111111-2222-3333-4444-555555555555";
  {
    auto store = db::Store::open(db_path);
    const DeviceInfo d = test_device(uuid);
    // A run keyed by another kernel build: the query must miss and say why.
    auto id = store.begin_run({d, "tiled_dynamic", "otherbuild", "f32", Shape{8, 8, 8}, "t", {}, {}});
    store.finish_run(id, db::RunStatus::kComplete);
  }
  auto r = run_cli("query --device " + uuid + " --shape 8x8x8 --db " + db_path.string(),
                   "CUDA_VISIBLE_DEVICES=");
  expect_error(r, 3, "no cached configuration");
  EXPECT_NE(r.err.find("otherbuild"), std::string::npos) << r.err;
}

TEST(Cli, PlanOfflineOnAProfile) {
  auto r = run_cli("plan --profile h100 --shape 4096x4096x4096");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("tile=32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cuda_occupancy.h"), std::string::npos) << r.out;
  auto j = run_cli("plan --profile t4 --kernel tiled_dynamic --kernel naive --format json");
  ASSERT_EQ(j.code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["schema_version"], 3);
  EXPECT_EQ(doc["kind"], "plan");
  EXPECT_EQ(doc["device"]["compute_capability"], "7.5");
  ASSERT_EQ(doc["plans"].size(), 2u);
  for (auto& c : doc["plans"][0]["candidates"]) {
    for (auto* field : {"threads", "tile", "dynamic_smem", "active_blocks_per_sm", "occupancy",
                        "limiter", "grid_x", "grid_y", "waves", "family", "label"})
      EXPECT_TRUE(c.contains(field)) << field;
  }
  expect_error(run_cli("plan --profile nope"), 2, "unknown device profile 'nope'");
}

}  // namespace
}  // namespace occtune
