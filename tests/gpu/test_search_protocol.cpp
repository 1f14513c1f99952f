// The measurement protocol and the search on the device: batches of CUDA-event samples with the
// SM clock, warm-up until clocks settle, the stopping rule ending every candidate, interleaved
// rounds, throttled batches (clock readings injected through a recording backend) retaken and
// marked, and halving agreeing with exhaustive.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/cuda/in_process_backend.hpp"
#include "autotuner/cuda/nvml_clock.hpp"
#include "autotuner/cuda/runtime_occupancy.hpp"
#include "autotuner/cuda/shape_bench.hpp"
#include "autotuner/engine/tuner.hpp"
#include "db/store.hpp"
#include "tests/support/gpu_guard.hpp"

namespace occtune {
namespace {

// Forwards to the real in-process backend, records the order of sample batches and lets a test
// replace the SM clock reading of chosen batches (the throttle test hook).
class Recording : public MeasurementBackend {
 public:
  explicit Recording(std::unique_ptr<MeasurementBackend> inner) : inner_(std::move(inner)) {}
  const DeviceInfo& device() const override { return inner_->device(); }
  Plan plan(const kernels::FamilyInfo& f, Shape s, int min_tile, Layout l) override {
    return inner_->plan(f, s, min_tile, l);
  }
  void open_shape(Shape s, Layout l, const TimingPolicy& p) override {
    inner_->open_shape(s, l, p);
  }
  SampleBatch reference_samples(int count) override { return inner_->reference_samples(count); }
  Measurement check(const Candidate& c) override { return inner_->check(c); }
  SampleBatch samples(const Candidate& c, int count) override {
    SampleBatch b = inner_->samples(c, count);
    const std::string& symbol = c.variant->symbol;
    order.push_back(symbol);
    real_clocks.push_back(b.sm_clock_mhz);
    const int nth = batches[symbol]++;
    if (clock_of) b.sm_clock_mhz = clock_of(symbol, nth, b.sm_clock_mhz);
    return b;
  }
  std::string description() const override { return "recording " + inner_->description(); }

  std::vector<std::string> order;
  std::vector<int> real_clocks;
  std::map<std::string, int> batches;
  std::function<int(const std::string& symbol, int nth, int real)> clock_of;

 private:
  std::unique_ptr<MeasurementBackend> inner_;
};

TuneRequest request(const std::string& strategy, Shape shape) {
  TuneRequest r;
  r.kernels = {"tiled_dynamic"};
  r.shapes = {shape};
  r.min_tile = 4;
  r.search.strategy = strategy;
  r.reference_clock_mhz = 1000;  // the tests inject readings against this reference
  r.tool_version = "gpu-test";
  r.build_id = "gpu-test";
  return r;
}

TuneOutcome tune(MeasurementBackend& backend, const TuneRequest& r) {
  auto store = db::Store::open(":memory:");
  std::atomic<bool> interrupted{false};
  return run_tune(backend, store, r, {}, interrupted);
}

TEST(SearchProtocol, BatchesAreEventTimedWithTheClockAndWarmUpSettles) {
  OCCTUNE_REQUIRE_GPU();
  auto device = cuda::select_device("0");
  cuda::RuntimeOccupancy oracle(device);
  TimingPolicy policy;
  policy.settle_ms = 100;
  policy.settle_timeout_ms = 2000;
  const Shape shape{1024, 1024, 1024};
  cuda::ShapeBench bench(device, shape, policy);
  EXPECT_GE(bench.settle_seconds(), 0.1);
  EXPECT_LT(bench.settle_seconds(), 2.5);
  auto c = annotate(*kernels::find_tile_variant("tiled_dynamic", 16), device, shape, oracle);
  ASSERT_EQ(bench.check(c).outcome, Outcome::kOk);
  auto batch = bench.samples(c, 25);
  ASSERT_EQ(batch.outcome, Outcome::kOk) << batch.error;
  ASSERT_EQ(batch.samples_ms.size(), 25u);
  for (double ms : batch.samples_ms) EXPECT_GT(ms, 0);
  // L2 flushed and clocks settled: a 1024^3 GEMM is steady to a few percent.
  EXPECT_LT(summarize(batch.samples_ms).relative_iqr(), 0.05);
  if (cuda::NvmlClock::instance().available()) {
    EXPECT_GT(batch.sm_clock_mhz, 0);
    EXPECT_GT(bench.settled_clock_mhz(), 0);
    const int reference = cuda::NvmlClock::instance().default_sm_clock_mhz(device.uuid);
    if (reference > 0) {
      EXPECT_GE(batch.sm_clock_mhz, reference * 3 / 4) << "throttled GPU?";
    }
  } else {
    EXPECT_EQ(batch.sm_clock_mhz, 0);
    GTEST_LOG_(INFO) << "NVML unavailable: " << cuda::NvmlClock::instance().why_unavailable();
  }
}

TEST(SearchProtocol, TheStoppingRuleEndsEveryCandidateInInterleavedRounds) {
  OCCTUNE_REQUIRE_GPU();
  Recording backend(cuda::make_in_process_backend("0"));
  auto r = request("exhaustive", Shape{1024, 1024, 1024});
  r.policy.samples = 10;
  r.policy.batch = 5;
  auto outcome = tune(backend, r);
  ASSERT_EQ(outcome.shapes.size(), 1u);
  auto& k = outcome.shapes[0].kernels.at(0);
  ASSERT_GE(k.measurements.size(), 3u);
  int converged = 0;
  for (auto& m : k.measurements) {
    ASSERT_EQ(m.outcome, Outcome::kOk) << m.error;
    EXPECT_TRUE(is_final(m.timing.stop)) << to_string(m.timing.stop);
    EXPECT_GE(m.timing.summary.count, 10u);
    EXPECT_GT(m.timing.noise, 0);
    converged += m.timing.stop == StopReason::kConverged;
  }
  EXPECT_GT(converged, 0);
  EXPECT_GE(k.winner, 0);
  // The first two rounds give every candidate one batch each, the second starting elsewhere.
  const size_t n = k.measurements.size();
  ASSERT_GE(backend.order.size(), 2 * n);
  std::set<std::string> first(backend.order.begin(), backend.order.begin() + long(n));
  std::set<std::string> second(backend.order.begin() + long(n),
                               backend.order.begin() + long(2 * n));
  EXPECT_EQ(first.size(), n);
  EXPECT_EQ(second.size(), n);
  EXPECT_NE(backend.order[0], backend.order[n]);
  EXPECT_GT(outcome.wall_s, 0);
}

TEST(SearchProtocol, ThrottledBatchesAreRetakenAndMarked) {
  OCCTUNE_REQUIRE_GPU();
  Recording backend(cuda::make_in_process_backend("0"));
  // Against a reference of 1000 MHz: 700 MHz is throttled (< 750). TiledDynamic<16> reads
  // throttled on its first batch only; TiledDynamic<8> on every batch.
  backend.clock_of = [](const std::string& symbol, int nth, int) {
    if (symbol == "TiledDynamic<16>" && nth == 0) return 700;
    if (symbol == "TiledDynamic<8>") return 700;
    return 1000;
  };
  auto r = request("exhaustive", Shape{512, 512, 512});
  r.policy.samples = 10;
  r.policy.throttle_retries = 2;
  auto outcome = tune(backend, r);
  auto& k = outcome.shapes.at(0).kernels.at(0);
  std::map<std::string, const Measurement*> by;
  for (auto& m : k.measurements) by[m.candidate.variant->symbol] = &m;
  ASSERT_TRUE(by.count("TiledDynamic<16>") && by.count("TiledDynamic<8>"));
  const Timing& once = by["TiledDynamic<16>"]->timing;
  EXPECT_EQ(once.throttled_batches, 1);
  EXPECT_FALSE(once.throttled);
  EXPECT_EQ(once.summary.count + 5, size_t(backend.batches["TiledDynamic<16>"]) * 5);
  const Timing& always = by["TiledDynamic<8>"]->timing;
  EXPECT_TRUE(always.throttled);
  EXPECT_EQ(always.sm_clock_min_mhz, 700);
  EXPECT_GT(k.throttled_batches, 2);
}

TEST(SearchProtocol, HalvingAgreesWithExhaustiveOnTheDevice) {
  OCCTUNE_REQUIRE_GPU();
  auto exhaustive_backend = cuda::make_in_process_backend("0");
  const Shape shape{1024, 1024, 1024};
  auto e = tune(*exhaustive_backend, request("exhaustive", shape)).shapes.at(0).kernels.at(0);
  exhaustive_backend.reset();
  auto halving_backend = cuda::make_in_process_backend("0");
  auto h = tune(*halving_backend, request("halving", shape)).shapes.at(0).kernels.at(0);
  ASSERT_GE(e.winner, 0);
  ASSERT_GE(h.winner, 0);
  const std::string chosen = h.measurements[size_t(h.winner)].candidate.variant->symbol;
  double best = e.measurements[size_t(e.winner)].timing.summary.median, chosen_ms = 0;
  for (auto& m : e.measurements)
    if (m.candidate.variant->symbol == chosen) chosen_ms = m.timing.summary.median;
  EXPECT_LE(chosen_ms, best * 1.01) << "halving chose " << chosen;
  EXPECT_LE(h.samples_taken, e.samples_taken);
}

}  // namespace
}  // namespace occtune
