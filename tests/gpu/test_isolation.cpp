// Worker isolation on the GPU (issue #5): a tuning job that mixes the planted faults
// (kernels/planted_faults.cu) with good candidates completes with exit 0, records every fault
// with its outcome in the JSON and the database, and the winner is a good candidate; the same
// job in-process (--no-isolation) ends at the first sticky error with exit 4 and keeps
// everything measured before it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "db/store.hpp"
#include "tests/support/gpu_guard.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("occtune_gpu_isolation_" + std::to_string(::getpid()) + "_" + std::to_string(::rand()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

const char* kEnv = "OCCTUNE_TEST_KERNELS=1";
// --abandon-factor 0: both families must reach a winner; halving's abandoning rule (issue #18)
// would drop planted_faults' good variant when it is 1.25x behind tiled_dynamic's best.
const char* kJob =
    "tune --kernel planted_faults --kernel tiled_dynamic --shape 256x256x256 "
    "--samples 5 --abandon-factor 0 --quiet";

// variant symbol -> stored outcome and error, for the runs of `kernel`.
std::map<std::string, std::pair<std::string, std::string>> stored(const fs::path& db,
                                                                  const std::string& kernel,
                                                                  std::string* status = nullptr) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  auto store = db::Store::open(db, db::OpenMode::kReadOnly);
  for (auto& run : store.runs()) {
    if (run.key.kernel != kernel) continue;
    if (status) *status = to_string(run.status);
    for (auto& m : store.measurements(run.id)) out[m.variant] = {std::string(to_string(m.outcome)), m.error};
  }
  return out;
}

const std::map<std::string, std::string> kExpected = {
    {"PlantedFault<0>", "ok"},           {"PlantedFault<1>", "wrong_result"},
    {"PlantedFault<2>", "exceeds_limits"}, {"PlantedFault<3>", "invalid_config"},
    {"PlantedFault<4>", "crashed"},      {"PlantedFault<5>", "crashed"},
    {"PlantedFault<6>", "timeout"},
};

// The tune's JSON: every fault under its outcome, a good winner in both families.
void check_tune_document(const nlohmann::json& doc) {
  EXPECT_NE(doc["backend"].get<std::string>().find("isolated"), std::string::npos);
  const auto& kernels = doc["shapes"][0]["kernels"];
  ASSERT_EQ(kernels.size(), 2u);
  std::map<std::string, std::string> json_status;
  for (auto& c : kernels[0]["candidates"]) json_status[c["variant"]] = c["outcome"];
  EXPECT_EQ(json_status, kExpected);
  const int winner = kernels[0]["winner"];
  ASSERT_GE(winner, 0);
  EXPECT_EQ(kernels[0]["candidates"][winner]["variant"], "PlantedFault<0>");
  // tiled_dynamic ran after every fault, on a replacement worker, and found a correct winner.
  ASSERT_GE(kernels[1]["winner"].get<int>(), 0);
  for (auto& c : kernels[1]["candidates"]) EXPECT_EQ(c["outcome"], "ok") << c.dump();
}

TEST(GpuIsolation, PlantedFaultsAreContainedAndTheRunCompletes) {
  OCCTUNE_REQUIRE_GPU();
  TempDir tmp;
  const auto db = tmp.path / "faults.db";
  const auto r =
      run_cli(std::string(kJob) + " --candidate-timeout 2 --format json --db " + db.string(), kEnv);
  ASSERT_EQ(r.code, 0) << r.err;
  // A document without the expected fields fails with the document in the message.
  try {
    check_tune_document(nlohmann::json::parse(r.out));
  } catch (const nlohmann::json::exception& e) {
    FAIL() << e.what() << "\nstdout:\n" << r.out.substr(0, 6000) << "\nstderr:\n" << r.err;
  }
  std::string status;
  const auto rows = stored(db, "planted_faults", &status);
  EXPECT_EQ(status, "complete");
  std::map<std::string, std::string> db_status;
  for (auto& [variant, row] : rows) db_status[variant] = row.first;
  EXPECT_EQ(db_status, kExpected);
  // The CUDA error of each crash is recorded; the timeout says how long it waited.
  EXPECT_NE(rows.at("PlantedFault<4>").second.find("IllegalAddress"), std::string::npos)
      << rows.at("PlantedFault<4>").second;
  EXPECT_FALSE(rows.at("PlantedFault<5>").second.empty());
  EXPECT_NE(rows.at("PlantedFault<6>").second.find("2 s"), std::string::npos)
      << rows.at("PlantedFault<6>").second;
  std::string td_status;
  stored(db, "tiled_dynamic", &td_status);
  EXPECT_EQ(td_status, "complete");
}

TEST(GpuIsolation, InProcessTheFirstCrashEndsTheRunAndKeepsWhatWasMeasured) {
  OCCTUNE_REQUIRE_GPU();
  TempDir tmp;
  const auto db = tmp.path / "inprocess.db";
  // The endless loop (fault=6) comes after the crashes, so this cannot hang. Exhaustive races the
  // families in the order asked (halving races the best estimate first, which may put
  // tiled_dynamic before the crash), so tiled_dynamic is the family the crash keeps from running.
  const auto r = run_cli(
      std::string(kJob) + " --strategy exhaustive --no-isolation --db " + db.string(), kEnv);
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("unusable"), std::string::npos) << r.err;
  std::string status;
  const auto rows = stored(db, "planted_faults", &status);
  EXPECT_EQ(status, "failed");
  ASSERT_TRUE(rows.count("PlantedFault<4>")) << r.err;
  EXPECT_EQ(rows.at("PlantedFault<1>").first, "wrong_result");
  EXPECT_EQ(rows.at("PlantedFault<2>").first, "exceeds_limits");
  EXPECT_EQ(rows.at("PlantedFault<3>").first, "invalid_config");
  EXPECT_EQ(rows.at("PlantedFault<4>").first, "crashed");
  EXPECT_FALSE(rows.count("PlantedFault<5>"));
  EXPECT_FALSE(rows.count("PlantedFault<6>"));
  EXPECT_TRUE(stored(db, "tiled_dynamic").empty());
}

}  // namespace
}  // namespace occtune
