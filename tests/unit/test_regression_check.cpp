// `occtune check`'s engine (autotuner/engine/regression_check.hpp) against a scripted backend:
// the re-measurement of a suspected SLOW (confirmed -> SLOW, not confirmed -> AMBIGUOUS),
// WRONG from a failing re-check, DRIFT from a runner-up, MISSING and INCOMPATIBLE keys, the
// kernel override, interleaved sampling, and that the store is never written. No GPU.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "autotuner/engine/regression_check.hpp"
#include "tests/support/gate_fixtures.hpp"

namespace occtune::gate {
namespace {

using testing::add_tuning_run;
using testing::gate_device;

const Shape kSquare{1024, 1024, 1024};
const testing::NoiseModel kNoise{0.01, 0.02, 0.5};

// A GPU whose speed per tile is scripted (median_ms[family][tile]); the first `slow_batches`
// batches of any configuration are taken `transient` times slower (a machine-wide hiccup).
class ScriptedBackend final : public MeasurementBackend {
 public:
  explicit ScriptedBackend(DeviceInfo device) : device_(std::move(device)) {}

  std::map<std::string, std::map<int, double>> median_ms;
  std::map<int, Outcome> check_outcome;  // by tile; default ok
  double transient = 1.0;
  int slow_batches = 0;
  std::vector<std::string> calls;  // "check tile=32", "samples tile=16 x5", ...
  int opened = 0;

  const DeviceInfo& device() const override { return device_; }
  Plan plan(const kernels::FamilyInfo& family, Shape, int min_tile, Layout layout) override {
    Plan p;
    p.family = family.name;
    for (auto* v : kernels::variants_of(family.name, layout)) {
      const int tile = v->param("tile");
      if (tile < std::max(min_tile, 8)) continue;
      Candidate c;
      c.variant = v;
      c.threads = v->threads();
      c.tile = tile;
      p.candidates.push_back(c);
    }
    return p;
  }
  void open_shape(Shape, Layout, const TimingPolicy&) override { ++opened; }
  SampleBatch reference_samples(int) override { return {}; }
  Measurement check(const Candidate& c) override {
    calls.push_back("check " + c.variant->label());
    Measurement m;
    m.candidate = c;
    auto it = check_outcome.find(c.tile);
    m.outcome = it == check_outcome.end() ? Outcome::kOk : it->second;
    m.rel_error = m.outcome == Outcome::kOk ? 1e-7 : 2e-2;
    return m;
  }
  SampleBatch samples(const Candidate& c, int count) override {
    calls.push_back("samples " + c.variant->label() + " x" + std::to_string(count));
    double median = median_ms.at(c.variant->family).at(c.tile);
    if (slow_batches > 0) {
      --slow_batches;
      median *= transient;
    }
    SampleBatch b;
    b.samples_ms = testing::gpu_like_samples(rng_, median, count, kNoise);
    return b;
  }
  std::string description() const override { return "scripted"; }

 private:
  DeviceInfo device_;
  std::mt19937_64 rng_{77};
};

struct Fixture {
  db::Store store = db::Store::open(":memory:");
  ScriptedBackend backend{gate_device("GPU-check-runner")};
  CheckRequest request;
  Fixture() {
    std::mt19937_64 rng(5);
    add_tuning_run(store, gate_device(), kSquare, {{32, 0.26}, {16, 0.29}, {8, 0.43}}, rng, kNoise,
                   30);
    backend.median_ms["tiled_dynamic"] = {{32, 0.26}, {16, 0.29}, {8, 0.43}};
    backend.median_ms["tiled_static"] = {{32, 0.26 * 1.25}, {16, 0.29}, {8, 0.43}};
    request.kernels = {"tiled_dynamic"};
    request.shapes = {kSquare};
    request.min_tile = 8;
    request.policy.samples = 30;
    request.build_id = "build-now";
  }
  GateReport run() {
    const auto before = store.runs().size();
    GateReport r = run_check(backend, store, request, {});
    EXPECT_EQ(store.runs().size(), before) << "check must not write the store";
    return r;
  }
};

TEST(RegressionCheck, UnchangedSpeedPasses) {
  Fixture f;
  const GateReport r = f.run();
  ASSERT_EQ(r.keys.size(), 1u);
  const KeyVerdict& k = r.keys[0];
  EXPECT_TRUE(k.verdict == Verdict::kSame || k.verdict == Verdict::kAmbiguous) << k.reason;
  ASSERT_TRUE(k.current);
  EXPECT_EQ(k.current->config, "tile=32");
  EXPECT_EQ(k.current->samples_ms.size(), 30u);
  EXPECT_EQ(k.current->build_id, "build-now");
  EXPECT_EQ(k.runners_up.size(), 2u);  // tile 16 and tile 8, measured in the same session
  EXPECT_FALSE(k.first_comparison);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(f.backend.opened, 1);
}

TEST(RegressionCheck, SamplingIsInterleavedAfterEveryCheck) {
  Fixture f;
  f.run();
  const auto& c = f.backend.calls;
  ASSERT_GE(c.size(), 6u);
  EXPECT_EQ(c[0], "check tile=32");
  EXPECT_EQ(c[1], "check tile=16");
  EXPECT_EQ(c[2], "check tile=8");
  EXPECT_EQ(c[3], "samples tile=32 x5");
  EXPECT_EQ(c[4], "samples tile=16 x5");
  EXPECT_EQ(c[5], "samples tile=8 x5");
  EXPECT_EQ(c.size(), 3u + 3u * 6u);  // 30 samples each in batches of 5
}

TEST(RegressionCheck, ConfirmedSlowDownIsSlow) {
  Fixture f;
  f.backend.median_ms["tiled_dynamic"][32] = 0.26 * 1.25;
  const GateReport r = f.run();
  const KeyVerdict& k = r.keys[0];
  EXPECT_EQ(k.verdict, Verdict::kSlow) << k.reason;
  ASSERT_TRUE(k.first_comparison);
  EXPECT_EQ(k.first_comparison->verdict, Verdict::kSlow);
  EXPECT_NEAR(k.comparison.ratio, 1.25, 0.03);
  EXPECT_NE(k.reason.find("confirmed"), std::string::npos) << k.reason;
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(RegressionCheck, TransientSlowDownIsNotConfirmed) {
  Fixture f;
  f.backend.transient = 1.3;
  f.backend.slow_batches = 18;  // the whole interleaved first pass, not the re-measurement
  const GateReport r = f.run();
  const KeyVerdict& k = r.keys[0];
  ASSERT_TRUE(k.first_comparison);
  EXPECT_EQ(k.first_comparison->verdict, Verdict::kSlow);
  EXPECT_EQ(k.verdict, Verdict::kAmbiguous) << k.reason;
  EXPECT_NE(k.reason.find("not confirmed"), std::string::npos) << k.reason;
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(RegressionCheck, FailingRecheckIsWrong) {
  Fixture f;
  f.backend.check_outcome[32] = Outcome::kWrongResult;
  const GateReport r = f.run();
  EXPECT_EQ(r.keys[0].verdict, Verdict::kWrong) << r.keys[0].reason;
  EXPECT_EQ(r.exit_code(), 1);
  // Nothing is timed for a winner that is no longer correct.
  for (auto& call : f.backend.calls) EXPECT_EQ(call.rfind("samples", 0), std::string::npos);
}

TEST(RegressionCheck, RunnerUpThatNowWinsIsDrift) {
  Fixture f;
  f.backend.median_ms["tiled_dynamic"][16] = 0.20;
  const GateReport r = f.run();
  EXPECT_EQ(r.keys[0].verdict, Verdict::kDrift) << r.keys[0].reason;
  EXPECT_EQ(r.exit_code(), 0);
  f.request.gate.strict = true;
  EXPECT_EQ(f.run().exit_code(), 1);
}

TEST(RegressionCheck, FailingRunnerUpIsANote) {
  Fixture f;
  f.backend.check_outcome[8] = Outcome::kLaunchFailed;
  const GateReport r = f.run();
  EXPECT_NE(r.keys[0].verdict, Verdict::kWrong);
  ASSERT_EQ(r.keys[0].notes.size(), 1u);
  EXPECT_NE(r.keys[0].notes[0].find("tile=8 is now launch_failed"), std::string::npos);
}

TEST(RegressionCheck, KeysWithoutAComparableBaseline) {
  Fixture f;
  f.request.shapes = {kSquare, Shape{512, 512, 512}};
  GateReport r = f.run();
  ASSERT_EQ(r.keys.size(), 2u);
  EXPECT_EQ(r.keys[1].verdict, Verdict::kMissing);
  EXPECT_NE(r.keys[1].reason.find("occtune tune"), std::string::npos) << r.keys[1].reason;
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_EQ(f.backend.opened, 1) << "a shape with nothing to measure is not opened";

  Fixture other;
  DeviceInfo newer_driver = gate_device("GPU-check-runner", 13100);
  ScriptedBackend backend(newer_driver);
  backend.median_ms = other.backend.median_ms;
  r = run_check(backend, other.store, other.request, {});
  EXPECT_EQ(r.keys[0].verdict, Verdict::kIncompatible) << r.keys[0].reason;
  EXPECT_EQ(r.exit_code(), 3);
  other.request.gate.allow_different_device = true;
  r = run_check(backend, other.store, other.request, {});
  EXPECT_TRUE(r.keys[0].different_platform);
  EXPECT_NE(r.keys[0].verdict, Verdict::kIncompatible);
}

// A baseline timed with another L2 flush is not judged (docs/ci.md): its samples differ by the
// protocol. Here the check runs without a flush against a baseline flushed by a read; nothing is
// measured, and the reason says how to store a comparable baseline.
TEST(RegressionCheck, BaselineTimedWithAnotherL2FlushIsIncompatible) {
  Fixture f;
  f.request.policy.flush_l2 = false;
  const GateReport r = f.run();
  ASSERT_EQ(r.keys.size(), 1u);
  const KeyVerdict& k = r.keys[0];
  EXPECT_EQ(k.verdict, Verdict::kIncompatible) << k.reason;
  EXPECT_NE(k.reason.find("L2 flush read and this check with off"), std::string::npos) << k.reason;
  EXPECT_NE(k.reason.find("occtune tune --kernel tiled_dynamic --shape 1024x1024x1024"),
            std::string::npos)
      << k.reason;
  EXPECT_TRUE(f.backend.calls.empty()) << "nothing is measured for a key that cannot be judged";
  EXPECT_EQ(r.exit_code(), 3);
  f.request.policy.flush_l2 = true;
  EXPECT_NE(f.run().keys[0].verdict, Verdict::kIncompatible);
}

TEST(RegressionCheck, OverrideMeasuresAnotherFamilyWithTheCachedParameters) {
  Fixture f;
  f.request.kernel_override["tiled_dynamic"] = "tiled_static";  // 25% slower at tile 32 here
  const GateReport r = f.run();
  const KeyVerdict& k = r.keys[0];
  EXPECT_EQ(k.kernel, "tiled_dynamic");
  EXPECT_EQ(k.launched_kernel, "tiled_static");
  ASSERT_TRUE(k.current);
  EXPECT_EQ(k.current->variant, "TiledStatic<32>");
  EXPECT_EQ(k.baseline->variant, "TiledDynamic<32>");
  EXPECT_EQ(k.verdict, Verdict::kSlow) << k.reason;
}

TEST(RegressionCheck, CachedWinnerThatIsNoLongerACandidateIsMissing) {
  Fixture f;
  f.request.kernel_override["tiled_dynamic"] = "naive";  // params "block=N": no tile=32 there
  const GateReport r = f.run();
  EXPECT_EQ(r.keys[0].verdict, Verdict::kMissing);
  EXPECT_NE(r.keys[0].reason.find("not a candidate"), std::string::npos) << r.keys[0].reason;
}

}  // namespace
}  // namespace occtune::gate
