// The gate's judgement per key (autotuner/engine/gate.hpp) and its report forms: which run is the
// baseline, WRONG/SLOW/DRIFT/MISSING/INCOMPATIBLE decisions, exit codes, and the table, JSON,
// JUnit and markdown outputs, on synthetic exports with injected slow-downs (no GPU).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/core/model_json.hpp"
#include "autotuner/engine/gate.hpp"
#include "autotuner/output/gate_output.hpp"
#include "db/exchange.hpp"
#include "tests/support/gate_fixtures.hpp"

namespace occtune::gate {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::add_tuning_run;
using testing::FakeCandidate;
using testing::gate_device;

const Shape kSquare{1024, 1024, 1024};
const Shape kOdd{3001, 1000, 4097};
const testing::NoiseModel kNoise{0.01, 0.02, 0.5};

// A store on disk, filled by the caller, read back as the gate reads an export.
class Snapshot {
 public:
  Snapshot() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("occtune_gate_" + std::to_string(::getpid()) + "_" +
                                         std::to_string(counter++) + ".db");
    store_ = std::make_unique<db::Store>(db::Store::open(path_));
  }
  ~Snapshot() {
    store_.reset();
    for (auto suffix : {"", "-wal", "-shm"}) fs::remove(path_.string() + suffix);
  }
  db::Store& store() { return *store_; }
  std::vector<db::RunRecord> records() {
    return db::read_export(db::export_runs(*store_, {"t", {}}).json, path_.string());
  }

 private:
  fs::path path_;
  std::unique_ptr<db::Store> store_;
};

// Baseline and current stores of one job; `factor` slows the current tile-32 winner down.
struct Pair {
  Snapshot base, current;
  Pair(double factor, std::uint64_t seed = 5, double tile16 = 0.29) {
    std::mt19937_64 rng(seed);
    add_tuning_run(base.store(), gate_device(), kSquare, {{32, 0.26}, {16, 0.29}, {8, 0.43}}, rng,
                   kNoise);
    add_tuning_run(base.store(), gate_device(), kOdd, {{32, 2.9}, {16, 3.1}}, rng, kNoise);
    // The current side ran on another H100 (another UUID) with another kernel build.
    const DeviceInfo runner = gate_device("GPU-aaaaaaaa-2222-3333-4444-555555555555");
    add_tuning_run(current.store(), runner, kSquare, {{32, 0.26 * factor}, {16, tile16}, {8, 0.43}},
                   rng, kNoise, 20, "build-b");
    add_tuning_run(current.store(), runner, kOdd, {{32, 2.9}, {16, 3.1}}, rng, kNoise, 20,
                   "build-b");
  }
  GateReport compare(const GateOptions& options = {}) {
    return compare_runs(base.records(), current.records(), options);
  }
};

const KeyVerdict& key_of(const GateReport& report, Shape shape) {
  for (auto& k : report.keys)
    if (k.shape == shape) return k;
  throw std::runtime_error("no key " + shape.str());
}

TEST(Gate, IdenticalPerformanceIsSameAndPasses) {
  Pair pair(1.0);
  const GateReport report = pair.compare();
  ASSERT_EQ(report.keys.size(), 2u);
  for (auto& k : report.keys) {
    EXPECT_TRUE(k.verdict == Verdict::kSame || k.verdict == Verdict::kAmbiguous)
        << to_string(k.verdict) << ": " << k.reason;
    ASSERT_TRUE(k.baseline && k.current);
    EXPECT_EQ(k.baseline->config, "tile=32");
    EXPECT_EQ(k.current->config, "tile=32");
    EXPECT_EQ(k.baseline->build_id, "build-a");
    EXPECT_EQ(k.current->build_id, "build-b");
  }
  EXPECT_EQ(report.exit_code(), 0);
}

TEST(Gate, InjectedSlowDownIsSlowAndFails) {
  for (double factor : {1.10, 1.30}) {
    Pair pair(factor);
    const GateReport report = pair.compare();
    const KeyVerdict& k = key_of(report, kSquare);
    EXPECT_EQ(k.verdict, Verdict::kSlow) << factor << ": " << k.reason;
    EXPECT_NEAR(k.comparison.ratio, factor, 0.03);
    EXPECT_TRUE(k.comparison.clearly_separated);
    EXPECT_NE(k.reason.find("slower"), std::string::npos) << k.reason;
    EXPECT_NE(key_of(report, kOdd).verdict, Verdict::kSlow);
    EXPECT_EQ(report.exit_code(), 1);
  }
}

TEST(Gate, SlowDownBelowTheThresholdPasses) {
  Pair pair(1.03);
  const GateReport report = pair.compare();
  EXPECT_NE(key_of(report, kSquare).verdict, Verdict::kSlow) << key_of(report, kSquare).reason;
  EXPECT_EQ(report.exit_code(), 0);
  GateOptions tight;
  tight.policy.threshold = 0.01;
  EXPECT_EQ(key_of(pair.compare(tight), kSquare).verdict, Verdict::kSlow);
}

TEST(Gate, RunnerUpThatNowWinsIsDriftAndFailsOnlyWhenStrict) {
  Pair pair(1.0, 5, /*tile16=*/0.20);  // tile 16 is now 1.3x faster than the cached tile 32
  const GateReport report = pair.compare();
  const KeyVerdict& k = key_of(report, kSquare);
  EXPECT_EQ(k.verdict, Verdict::kDrift) << k.reason;
  EXPECT_NE(k.reason.find("tile=16"), std::string::npos) << k.reason;
  EXPECT_NE(k.reason.find("re-tune"), std::string::npos) << k.reason;
  EXPECT_EQ(report.exit_code(), 0);
  GateOptions strict;
  strict.strict = true;
  EXPECT_EQ(pair.compare(strict).exit_code(), 1);
}

TEST(Gate, SlowWinsOverDriftWhichBecomesANote) {
  Pair pair(1.5, 5, /*tile16=*/0.29);  // tile 32 now 0.39 ms: tile 16 beats it, but it is SLOW
  const GateReport report = pair.compare();
  const KeyVerdict& k = key_of(report, kSquare);
  EXPECT_EQ(k.verdict, Verdict::kSlow);
  ASSERT_EQ(k.notes.size(), 1u);
  EXPECT_NE(k.notes[0].find("tile=16"), std::string::npos) << k.notes[0];
}

TEST(Gate, WrongResultIsWrong) {
  Snapshot base, current;
  std::mt19937_64 rng(9);
  add_tuning_run(base.store(), gate_device(), kSquare, {{32, 0.26}, {16, 0.29}}, rng, kNoise);
  add_tuning_run(current.store(), gate_device(), kSquare,
                 {{32, 0.26, Outcome::kWrongResult}, {16, 0.29}}, rng, kNoise);
  const GateReport report = compare_runs(base.records(), current.records(), {});
  ASSERT_EQ(report.keys.size(), 1u);
  EXPECT_EQ(report.keys[0].verdict, Verdict::kWrong);
  EXPECT_NE(report.keys[0].reason.find("wrong_result"), std::string::npos) << report.keys[0].reason;
  EXPECT_EQ(report.exit_code(), 1);
}

TEST(Gate, NoBaselineIsMissingAndExitsThree) {
  Snapshot base, current;
  std::mt19937_64 rng(3);
  add_tuning_run(base.store(), gate_device(), kOdd, {{32, 2.9}}, rng, kNoise);
  add_tuning_run(current.store(), gate_device(), kSquare, {{32, 0.26}}, rng, kNoise);
  const GateReport report = compare_runs(base.records(), current.records(), {});
  ASSERT_EQ(report.keys.size(), 1u);
  EXPECT_EQ(report.keys[0].verdict, Verdict::kMissing);
  EXPECT_EQ(report.exit_code(), 3);
  // The baseline key NEW does not measure is named, so a vanished key is not silent.
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find(kOdd.str()), std::string::npos);
}

// The layout is part of the key: a tn run is judged against a tn baseline only, never against
// the nn run of the same shape, and each report key says its layout.
TEST(Gate, LayoutsAreSeparateKeys) {
  Snapshot base, current;
  std::mt19937_64 rng(3);
  add_tuning_run(base.store(), gate_device(), kSquare, {{32, 0.26}}, rng, kNoise);
  add_tuning_run(current.store(), gate_device(), kSquare, {{32, 0.26}}, rng, kNoise, 20, "build-b",
                 "tiled_dynamic", db::RunStatus::kComplete, "tn");
  const GateReport report = compare_runs(base.records(), current.records(), {});
  ASSERT_EQ(report.keys.size(), 1u);
  EXPECT_EQ(report.keys[0].layout, "tn");
  EXPECT_EQ(report.keys[0].verdict, Verdict::kMissing);
  EXPECT_NE(report.keys[0].reason.find("layout tn"), std::string::npos) << report.keys[0].reason;
  ASSERT_EQ(report.notes.size(), 1u);  // the nn baseline is not measured by NEW
  EXPECT_NE(report.notes[0].find(kSquare.str()), std::string::npos);
}

TEST(Gate, OtherDriverIsIncompatibleUnlessAllowed) {
  Snapshot base, current;
  std::mt19937_64 rng(4);
  const std::string uuid = "GPU-10000000-2222-3333-4444-555555555555";
  add_tuning_run(base.store(), gate_device(uuid, 12080), kSquare, {{32, 0.26}}, rng, kNoise);
  add_tuning_run(current.store(), gate_device(uuid, 13000), kSquare, {{32, 0.26}}, rng, kNoise);
  GateReport report = compare_runs(base.records(), current.records(), {});
  ASSERT_EQ(report.keys.size(), 1u);
  EXPECT_EQ(report.keys[0].verdict, Verdict::kIncompatible);
  EXPECT_NE(report.keys[0].reason.find("driver 12080"), std::string::npos) << report.keys[0].reason;
  EXPECT_EQ(report.exit_code(), 3);
  GateOptions allow;
  allow.allow_different_device = true;
  report = compare_runs(base.records(), current.records(), allow);
  EXPECT_TRUE(report.keys[0].different_platform);
  EXPECT_NE(report.keys[0].verdict, Verdict::kIncompatible);
  EXPECT_EQ(report.exit_code(), 0);
}

// An export stored before the flush's method was recorded (its policy without flush_method)
// was timed with the memset flush: a NEW run timed with the read flush is not judged against it.
TEST(Gate, BaselineTimedWithAnotherL2FlushIsIncompatible) {
  Pair pair(1.0);
  std::vector<db::RunRecord> base = pair.base.records();
  for (auto& r : base) {
    auto policy = nlohmann::json::parse(r.run.policy_json);
    ASSERT_EQ(policy.at("flush_method"), "read");
    policy.erase("flush_method");
    r.run.policy_json = policy.dump();
  }
  const GateReport report = compare_runs(base, pair.current.records(), {});
  ASSERT_EQ(report.keys.size(), 2u);
  for (auto& k : report.keys) {
    EXPECT_EQ(k.verdict, Verdict::kIncompatible) << k.reason;
    EXPECT_NE(k.reason.find("L2 flush memset and NEW with read"), std::string::npos) << k.reason;
    EXPECT_NE(k.reason.find("occtune tune --kernel tiled_dynamic --shape " + k.shape.str()),
              std::string::npos)
        << k.reason;
  }
  EXPECT_EQ(report.exit_code(), 3);
}

TEST(Gate, BaselinePrefersTheSameDeviceThenTheNewestOfTheModel) {
  std::vector<db::StoredRun> runs(4);
  const auto target = db::CacheKey::make(gate_device("GPU-me"), "tiled_dynamic", "b", kSquare);
  for (auto& r : runs) {
    r.key = target;
    r.status = RunStatus::kComplete;
  }
  runs[0].key.device_uuid = "GPU-other";                     // newest, same model
  runs[1].status = RunStatus::kInterrupted;                            // never a baseline
  runs[3].key.shape = kOdd;                                  // another key
  EXPECT_EQ(choose_baseline(runs, target, false).index, 2);  // same UUID wins over newer
  runs[2].key.device_uuid = "GPU-third";
  EXPECT_EQ(choose_baseline(runs, target, false).index, 0);  // else the newest of the model
  runs[0].key.runtime_version = 12000;
  runs[2].key.device_name = "NVIDIA A100-SXM4-80GB";
  const BaselineChoice none = choose_baseline(runs, target, false);
  EXPECT_EQ(none.status, BaselineStatus::kIncompatible);
  EXPECT_NE(none.reason.find("--allow-different-device"), std::string::npos);
  EXPECT_EQ(choose_baseline(runs, target, true).index, 0);
  EXPECT_EQ(choose_baseline({}, target, false).status, BaselineStatus::kMissing);
}

// A run timed with another L2 flush is skipped for an older one timed as the current side is;
// with none such the key is INCOMPATIBLE. A side whose flush is unknown takes the newest run.
TEST(Gate, BaselineIsTheNewestRunTimedWithTheSameFlush) {
  std::vector<db::StoredRun> runs(2);
  const auto target = db::CacheKey::make(gate_device("GPU-me"), "tiled_dynamic", "b", kSquare);
  for (auto& r : runs) {
    r.key = target;
    r.status = RunStatus::kComplete;
  }
  runs[0].id = 8;
  runs[0].policy_json = R"({"flush_l2": false})";                      // newest, no flush
  runs[1].id = 7;
  runs[1].policy_json = model::to_json(TimingPolicy{}).dump();          // the read flush
  EXPECT_EQ(choose_baseline(runs, target, false, {"read", "this check"}).index, 1);
  EXPECT_EQ(choose_baseline(runs, target, false, {"off", "this check"}).index, 0);
  EXPECT_EQ(choose_baseline(runs, target, false).index, 0);
  const BaselineChoice none = choose_baseline(runs, target, true, {"memset", "NEW"});
  EXPECT_EQ(none.status, BaselineStatus::kIncompatible);
  EXPECT_NE(none.reason.find("(run 8) was timed with the L2 flush off and NEW with memset"),
            std::string::npos)
      << none.reason;
}

TEST(Gate, TheRecordedWinnerIsTheCachedWinner) {
  std::vector<db::StoredMeasurement> ms(3);
  ms[0].id = 1, ms[0].outcome = Outcome::kOk, ms[0].summary.median = 1.0;
  ms[1].id = 2, ms[1].outcome = Outcome::kOk, ms[1].summary.median = 0.9, ms[1].params = "fast";
  ms[2].id = 3, ms[2].outcome = Outcome::kWrongResult, ms[2].summary.median = 0.1;
  auto ranked = ranked_ok(ms);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0]->id, 2);
  ms[0].winner = true;  // a tie broken by the search in favour of the slightly slower one
  ranked = ranked_ok(ms);
  EXPECT_EQ(ranked[0]->id, 1);
}

TEST(Gate, ExitCodePrecedence) {
  GateReport r;
  auto with = [&](std::vector<Verdict> verdicts, bool strict = false) {
    r.keys.clear();
    r.options.strict = strict;
    for (auto v : verdicts) {
      KeyVerdict k;
      k.verdict = v;
      r.keys.push_back(k);
    }
    return r.exit_code();
  };
  EXPECT_EQ(with({Verdict::kSame, Verdict::kFast, Verdict::kAmbiguous}), 0);
  EXPECT_EQ(with({Verdict::kSame, Verdict::kDrift}), 0);
  EXPECT_EQ(with({Verdict::kSame, Verdict::kDrift}, true), 1);
  EXPECT_EQ(with({Verdict::kMissing, Verdict::kSame}), 3);
  EXPECT_EQ(with({Verdict::kIncompatible}), 3);
  EXPECT_EQ(with({Verdict::kMissing, Verdict::kSlow}), 1);
  EXPECT_EQ(with({Verdict::kWrong}), 1);
}

TEST(GateOutput, EveryFormCarriesTheVerdictsAndNumbers) {
  Pair pair(1.30);
  const GateReport report = pair.compare();

  std::ostringstream table;
  output::print_gate_table(table, report);
  EXPECT_NE(table.str().find("SLOW"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("exit 1"), std::string::npos) << table.str();

  const json doc = output::gate_json(report);
  EXPECT_EQ(doc["schema_version"], 3);
  EXPECT_EQ(doc["kind"], "compare");
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_EQ(doc["counts"]["SLOW"], 1);
  bool found = false;
  for (auto& k : doc["keys"]) {
    if (k["shape"] != kSquare.str()) continue;
    found = true;
    EXPECT_EQ(k["verdict"], "SLOW");
    EXPECT_TRUE(k["fails"].get<bool>());
    EXPECT_NEAR(k["comparison"]["ratio"].get<double>(), 1.3, 0.05);
    EXPECT_EQ(k["baseline"]["samples_ms"].size(), 20u);
    EXPECT_EQ(k["current"]["config"], "tile=32");
  }
  EXPECT_TRUE(found);

  const std::string junit = output::gate_junit(report);
  EXPECT_EQ(junit.rfind("<?xml", 0), 0u);
  EXPECT_NE(junit.find("tests=\"2\" failures=\"1\" errors=\"0\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<failure type=\"SLOW\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("name=\"1024x1024x1024 f32\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("x slower"), std::string::npos) << junit;

  const std::string md = output::gate_markdown(report);
  EXPECT_NE(md.find("### occtune compare: **failed**"), std::string::npos) << md;
  EXPECT_NE(md.find("| **SLOW** | tiled_dynamic | 1024x1024x1024 | tile=32 |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("1.3"), std::string::npos) << md;
}

TEST(GateOutput, JunitEscapesAndReportsUnjudgedKeysAsErrors) {
  GateReport r;
  r.kind = "check";
  r.device = "GPU 0 <weird> & \"quoted\"";
  KeyVerdict k;
  k.kernel = "tiled_dynamic";
  k.shape = kSquare;
  k.verdict = Verdict::kMissing;
  k.reason = "no baseline <here>";
  r.keys.push_back(k);
  const std::string junit = output::gate_junit(r);
  EXPECT_EQ(junit.find("<weird>"), std::string::npos);
  EXPECT_NE(junit.find("&lt;weird&gt; &amp; &quot;quoted&quot;"), std::string::npos) << junit;
  EXPECT_NE(junit.find("<error type=\"MISSING\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("errors=\"1\""), std::string::npos);
}

TEST(GateConfig, TheShippedCiJobParses) {
  const JobConfig job = load_job_config(std::string(OCCTUNE_SOURCE_DIR) + "/configs/ci.toml");
  EXPECT_EQ(job.kernels, (std::vector<std::string>{"tiled_dynamic", "tiled_static"}));
  EXPECT_EQ(job.shapes.size(), 3u);
  EXPECT_DOUBLE_EQ(job.check.threshold, 0.05);
  EXPECT_EQ(job.check.runners_up, 2);
  EXPECT_GE(job.policy.samples, 20);
}

TEST(GateConfig, CheckSectionIsValidated) {
  auto parse = [](const std::string& check) {
    return parse_job_config("version = 1\n[check]\n" + check + "\n", "test.toml");
  };
  EXPECT_DOUBLE_EQ(parse("threshold = 2.5").check.threshold, 0.025);
  EXPECT_DOUBLE_EQ(parse("threshold = 10").check.threshold, 0.10);
  EXPECT_EQ(parse("runners_up = 0").check.runners_up, 0);
  for (std::string bad : {"threshold = 0", "threshold = 150", "threshold = \"5%\"",
                          "runners_up = -1", "treshold = 5"}) {
    try {
      parse(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << bad;
      EXPECT_NE(std::string(e.what()).find("check."), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace occtune::gate
