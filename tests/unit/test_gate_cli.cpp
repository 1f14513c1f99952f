// The regression gate as CI runs it without a GPU: occtune export, import (twice: nothing added
// the second time) and compare of two exports with an injected slow-down (exit 1, SLOW in the
// table, JSON, JUnit and markdown), plus the usage and not-found errors of check and compare.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "db/exchange.hpp"
#include "tests/support/gate_fixtures.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::add_tuning_run;
using testing::gate_device;
using testing::run_cli;
using testing::slurp;

struct Workspace {
  fs::path dir;
  Workspace() {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("occtune_gate_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir);
  }
  ~Workspace() { fs::remove_all(dir); }
  std::string path(const std::string& name) const { return (dir / name).string(); }

  // base.db: the baseline; new.db: the same job on another H100 and build, tile 32 slowed.
  void make_stores(double slowdown) {
    std::mt19937_64 rng(11);
    const testing::NoiseModel noise{0.01, 0.02, 0.5};
    {
      auto base = db::Store::open(path("base.db"));
      add_tuning_run(base, gate_device(), {1024, 1024, 1024}, {{32, 0.26}, {16, 0.29}}, rng, noise);
      add_tuning_run(base, gate_device(), {2048, 2048, 2048}, {{32, 2.1}, {16, 2.3}}, rng, noise);
    }
    {
      auto now = db::Store::open(path("new.db"));
      const DeviceInfo runner = gate_device("GPU-bbbbbbbb-2222-3333-4444-555555555555");
      add_tuning_run(now, runner, {1024, 1024, 1024}, {{32, 0.26 * slowdown}, {16, 0.29}}, rng,
                     noise, 20, "build-b");
      add_tuning_run(now, runner, {2048, 2048, 2048}, {{32, 2.1}, {16, 2.3}}, rng, noise, 20,
                     "build-b");
    }
  }
};

void expect_error(const testing::CliResult& r, int code, const std::string& mention) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
}

TEST(GateCli, CompareOfExportsFailsOnAnInjectedSlowDown) {
  Workspace ws;
  ws.make_stores(1.25);
  ASSERT_EQ(run_cli("export --db " + ws.path("base.db") + " --out " + ws.path("base.json")).code,
            0);
  ASSERT_EQ(run_cli("export --db " + ws.path("new.db") + " --out " + ws.path("new.json")).code, 0);

  auto r = run_cli("compare " + ws.path("base.json") + " " + ws.path("new.json") + " --junit " +
                   ws.path("gate.xml") + " --markdown " + ws.path("gate.md"));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("SLOW"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit 1"), std::string::npos) << r.out;

  const std::string junit = slurp(ws.path("gate.xml"));
  EXPECT_NE(junit.find("<failure type=\"SLOW\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
  const std::string md = slurp(ws.path("gate.md"));
  EXPECT_NE(md.find("| **SLOW** |"), std::string::npos) << md;
  EXPECT_NE(md.find("exit 1"), std::string::npos) << md;

  r = run_cli("compare " + ws.path("base.json") + " " + ws.path("new.json") + " --format json");
  EXPECT_EQ(r.code, 1);
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 3);
  EXPECT_EQ(doc["kind"], "compare");
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_EQ(doc["counts"]["SLOW"], 1);
  for (auto& k : doc["keys"]) {
    if (k["shape"] == "1024x1024x1024") {
      EXPECT_EQ(k["verdict"], "SLOW");
      EXPECT_NEAR(k["comparison"]["ratio"].get<double>(), 1.25, 0.04);
    } else {
      EXPECT_NE(k["verdict"], "SLOW");
    }
  }

  // A threshold above the slow-down lets it pass; the environment sets it as well.
  EXPECT_EQ(
      run_cli("compare " + ws.path("base.json") + " " + ws.path("new.json") + " --threshold 40%")
          .code,
      0);
  EXPECT_EQ(
      run_cli("compare " + ws.path("base.json") + " " + ws.path("new.json"), "OCCTUNE_THRESHOLD=40")
          .code,
      0);
}

TEST(GateCli, CompareOfTheSameExportPasses) {
  Workspace ws;
  ws.make_stores(1.0);
  ASSERT_EQ(run_cli("export --db " + ws.path("base.db") + " --out " + ws.path("base.json")).code,
            0);
  ASSERT_EQ(run_cli("export --db " + ws.path("new.db") + " --out " + ws.path("new.json")).code, 0);
  auto r = run_cli("compare " + ws.path("base.json") + " " + ws.path("base.json"));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 SAME"), std::string::npos) << r.out;
  r = run_cli("compare " + ws.path("base.json") + " " + ws.path("new.json"));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST(GateCli, ImportTwiceAddsNothing) {
  Workspace ws;
  ws.make_stores(1.0);
  const std::string exported = run_cli("export --db " + ws.path("base.db")).out;
  ASSERT_FALSE(exported.empty());
  std::ofstream(ws.path("base.json")) << exported;

  auto r = run_cli("import " + ws.path("base.json") + " --db " + ws.path("copy.db"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("imported 2 runs (4 measurements)"), std::string::npos) << r.out;
  r = run_cli("import " + ws.path("base.json") + " --db " + ws.path("copy.db") + " --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["kind"], "import");
  EXPECT_EQ(doc["runs_added"], 0);
  EXPECT_EQ(doc["runs_skipped"], 2);
  EXPECT_EQ(doc["measurements_added"], 0);
  EXPECT_EQ(db::Store::open(ws.path("copy.db")).runs().size(), 2u);
}

TEST(GateCli, BadInputIsAUsageErrorNamingIt) {
  Workspace ws;
  ws.make_stores(1.0);
  ASSERT_EQ(run_cli("export --db " + ws.path("base.db") + " --out " + ws.path("base.json")).code,
            0);
  expect_error(run_cli("compare " + ws.path("nope.json") + " " + ws.path("base.json")), 2,
               "nope.json");
  std::ofstream(ws.path("tune.json")) << R"({"schema_version": 1, "kind": "tune"})";
  expect_error(run_cli("compare " + ws.path("base.json") + " " + ws.path("tune.json")), 2,
               "tune.json");
  expect_error(run_cli("compare " + ws.path("base.json")), 2, "NEW");
  for (std::string t : {"abc", "0", "150", "5x"})
    expect_error(run_cli("compare " + ws.path("base.json") + " " + ws.path("base.json") +
                         " --threshold " + t),
                 2, "'" + t + "'");
  expect_error(
      run_cli("compare " + ws.path("base.json") + " " + ws.path("base.json") + " --format xml"), 2,
      "'xml'");
  expect_error(run_cli("import " + ws.path("nope.json") + " --db " + ws.path("x.db")), 2,
               "nope.json");
  expect_error(run_cli("import " + ws.path("tune.json") + " --db " + ws.path("x.db")), 2,
               "tune.json");
  // check refuses bad input before it touches the database or the GPU.
  expect_error(run_cli("check --threshold abc --shape 64x64x64 --db " + ws.path("base.db")), 2,
               "'abc'");
  expect_error(
      run_cli("check --shape 64x64x64 --kernel-override tiled_dynamic --db " + ws.path("base.db")),
      2, "FAMILY=FAMILY");
  expect_error(run_cli("check --shape 64x64x64 --kernel-override tiled_dynamic=nope --db " +
                       ws.path("base.db")),
               2, "OCCTUNE_TEST_KERNELS=1");
  expect_error(run_cli("check --shape 64x64x64 --format xml --db " + ws.path("base.db")), 2,
               "'xml'");
}

TEST(GateCli, MissingDatabasesAreNotFound) {
  Workspace ws;
  expect_error(run_cli("export --db " + ws.path("none.db")), 3, "none.db");
  expect_error(run_cli("check --shape 64x64x64 --db " + ws.path("none.db")), 3, "none.db");
  EXPECT_FALSE(fs::exists(ws.path("none.db")));
}

TEST(GateCli, CheckWithoutAGpuIsARuntimeFailure) {
  if (testing::gpu_visible()) GTEST_SKIP() << "a GPU is visible; the no-GPU path cannot be shown";
  Workspace ws;
  ws.make_stores(1.0);
  const auto r = run_cli("check --no-isolation --shape 1024x1024x1024 --db " + ws.path("base.db"));
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  // Through the worker process the failure is the same exit code.
  EXPECT_EQ(run_cli("check --shape 1024x1024x1024 --db " + ws.path("base.db")).code, 4);
}

TEST(GateCli, TestKernelsAppearOnlyWhenAskedFor) {
  auto plain = run_cli("plan --profile h100 --kernel tiled_dynamic_slow25 --shape 256x256x256");
  EXPECT_EQ(plain.code, 2) << plain.err;
  auto test = run_cli("plan --profile h100 --kernel tiled_dynamic_slow25 --shape 256x256x256",
                      "OCCTUNE_TEST_KERNELS=1");
  EXPECT_EQ(test.code, 0) << test.err;
  EXPECT_NE(test.out.find("tile=32"), std::string::npos) << test.out;
}

}  // namespace
}  // namespace occtune
