// The tuning engine end to end on a fake backend with synthetic timing distributions whose truth
// is known: strategies find the true best, halving with far fewer samples, repeated runs agree
// within the tie band, rounds interleave, throttled batches are retaken and marked, budgets and
// --max-candidates cut, an interrupted run resumes from the store, and failures never win.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "autotuner/engine/tuner.hpp"
#include "db/store.hpp"  // the resume test: reuse across runs is the store's rule
#include "tests/support/memory_sink.hpp"

namespace occtune {
namespace {

const Shape kShape{512, 512, 512};

DeviceInfo fake_device() {
  DeviceInfo d;
  d.uuid = "GPU-fake-0000";
  d.name = "Fake GPU";
  d.cc_major = 9;
  d.sm_count = 132;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  d.clock_khz = 1980000;
  return d;
}

// Candidates whose sample times are drawn from lognormal(truth, sigma), with occasional
// outliers, and a simulated clock advanced by every sample (so budgets are deterministic).
class FakeBackend : public MeasurementBackend {
 public:
  struct Call {
    int candidate;
    int count;
  };

  FakeBackend(std::vector<double> truth, double sigma, unsigned seed, double outliers = 0.0)
      : truth_(std::move(truth)), sigma_(sigma), outliers_(outliers), random_(seed) {
    variants_.reserve(truth_.size());
    for (size_t i = 0; i < truth_.size(); ++i) {
      kernels::VariantInfo v;
      v.family = "tiled_dynamic";
      v.symbol = "Fake<" + std::to_string(i) + ">";
      v.params = {{"v", int(i)}};
      v.block_x = v.block_y = 16;
      variants_.push_back(v);
    }
  }

  const DeviceInfo& device() const override { return device_; }
  Plan plan(const kernels::FamilyInfo& family, Shape, int, Layout) override {
    Plan p;
    p.family = family.name;
    p.oracle = "fake";
    const std::vector<kernels::VariantInfo>& variants = variants_of(family.name);
    for (size_t i = 0; i < truth_.size(); ++i) {
      Candidate c;
      c.variant = &variants[i];
      c.origin = i == textbook ? "occupancy-api" : "registered";
      c.step = i == textbook ? 1 : 0;
      c.threads = 64 << (i % 5);
      c.occupancy = 1.0 - 0.1 * double(i % 4);
      p.candidates.push_back(c);
    }
    return p;
  }
  void open_shape(Shape, Layout, const TimingPolicy&) override { ++shapes_opened; }
  SampleBatch reference_samples(int count) override {
    SampleBatch b;
    // cuBLAS takes reference_before_ms until the first candidate sample, 0.5 ms afterwards.
    const bool before = calls.empty();
    if (!before) reference_batches_after += 1;
    for (int i = 0; i < count; ++i) b.samples_ms.push_back(before ? reference_before_ms : 0.5);
    now += 0.0005 * count;
    return b;
  }
  Measurement check(const Candidate& c) override {
    Measurement m;
    m.candidate = c;
    m.rel_error = 1e-7;
    const int i = index_of(c);
    if (wrong.count(i)) {
      m.outcome = Outcome::kWrongResult;
      m.rel_error = 0.5;
      m.error = "fake wrong result";
    }
    if (crash.count(i)) {
      m.outcome = Outcome::kCrashed;
      m.error = "fake illegal address";
    }
    checks.push_back(i);
    now += 0.001;
    return m;
  }
  SampleBatch samples(const Candidate& c, int count) override {
    const int i = index_of(c);
    calls.push_back({i, count});
    SampleBatch b;
    std::lognormal_distribution<double> noise(0.0, sigma_);
    std::uniform_real_distribution<double> u(0, 1);
    for (int k = 0; k < count; ++k) {
      double ms = truth_[size_t(i)] * scale_of(c) * noise(random_);
      if (u(random_) < outliers_) ms *= 1.3;
      b.samples_ms.push_back(ms);
      now += ms / 1000.0 + 0.00005;
    }
    b.sm_clock_mhz = 1980;
    if (auto it = clocks.find(i); it != clocks.end() && !it->second.empty()) {
      b.sm_clock_mhz = it->second.front();
      if (it->second.size() > 1) it->second.pop_front();
    }
    if (interrupt_after > 0 && int(calls.size()) >= interrupt_after && interrupt) *interrupt = true;
    return b;
  }
  std::string description() const override { return "fake"; }
  bool survives_crashes() const override { return isolates; }

  // Gives variant i a tile, so the cost model (issue #18) can estimate it; fake variants have
  // none otherwise and are never pruned.
  void set_tile(size_t i, int tile) { variants_[i].tile_m = variants_[i].tile_n = tile; }

  int samples_for(int i) const {
    int n = 0;
    for (auto& c : calls) n += c.candidate == i ? c.count : 0;
    return n;
  }

  double now = 0;
  std::vector<Call> calls;
  std::vector<int> checks;
  std::set<int> wrong, crash;
  std::map<int, std::deque<int>> clocks;  // per candidate: readings of successive batches
  int interrupt_after = 0;
  std::atomic<bool>* interrupt = nullptr;
  bool isolates = false;
  int shapes_opened = 0;
  size_t textbook = 0;
  double reference_before_ms = 0.5;
  int reference_batches_after = 0;
  // A family named here gets its own variants, each `truth x scale` ms (issue #18's test of
  // families far behind the shape's best); every other family shares the first set.
  std::map<std::string, double> family_scale;

 private:
  const std::vector<kernels::VariantInfo>& variants_of(const std::string& family) {
    if (!family_scale.count(family)) return variants_;
    auto [it, fresh] = scaled_.try_emplace(family, variants_);
    if (fresh)
      for (auto& v : it->second) v.family = family;
    return it->second;
  }
  double scale_of(const Candidate& c) const {
    auto it = family_scale.find(c.variant->family);
    return it == family_scale.end() ? 1.0 : it->second;
  }
  int index_of(const Candidate& c) const {
    const auto it = scaled_.find(c.variant->family);
    return int(c.variant - (it == scaled_.end() ? variants_ : it->second).data());
  }
  std::map<std::string, std::vector<kernels::VariantInfo>> scaled_;
  std::vector<double> truth_;
  double sigma_, outliers_;
  std::mt19937 random_;
  std::vector<kernels::VariantInfo> variants_;
  DeviceInfo device_ = fake_device();
};

TuneRequest request_for(FakeBackend& backend, const std::string& strategy) {
  TuneRequest r;
  r.kernels = {"tiled_dynamic"};
  r.shapes = {kShape};
  r.policy.samples = 20;
  r.policy.min_time_s = 0;
  r.policy.target_noise = 0.02;
  r.search.strategy = strategy;
  r.reference_clock_mhz = 1980;
  r.tool_version = "test";
  r.build_id = "build-test";
  r.argv = {"occtune", "tune"};
  r.clock = [&backend] { return backend.now; };
  return r;
}

struct TuneRun {
  TuneOutcome outcome;
  const KernelResult& kernel() const { return outcome.shapes.at(0).kernels.at(0); }
  int winner_variant() const {
    auto& k = kernel();
    return k.winner < 0 ? -1 : k.measurements[size_t(k.winner)].candidate.variant->params[0].value;
  }
  std::set<int> tie_variants() const {
    std::set<int> out;
    auto& k = kernel();
    for (int i : k.ties) out.insert(k.measurements[size_t(i)].candidate.variant->params[0].value);
    if (k.winner >= 0) out.insert(winner_variant());
    return out;
  }
};

TuneRun tune(FakeBackend& backend, MeasurementSink& store, const TuneRequest& request,
             std::atomic<bool>* interrupted = nullptr, TuneEvents events = {}) {
  std::atomic<bool> local{false};
  return {run_tune(backend, store, request, events, interrupted ? *interrupted : local)};
}

// 50 candidates: the best at 1.0 ms, two near-ties (0.4% and 0.8% slower), the rest spread to 3x.
std::vector<double> fifty_truths() {
  std::vector<double> t;
  for (int i = 0; i < 50; ++i) t.push_back(1.02 + 0.04 * ((i * 37) % 50));
  t[17] = 1.0;
  t[3] = 1.004;
  t[41] = 1.008;
  return t;
}

TEST(TuneEngine, ExhaustiveMeasuresEveryCandidateToItsStoppingRule) {
  std::vector<double> truth = {2.0, 1.5, 1.0, 3.0, 1.2, 2.5};
  FakeBackend backend(truth, 0.003, 1);
  testing::MemorySink store;
  auto run = tune(backend, store, request_for(backend, "exhaustive"));
  auto& k = run.kernel();
  ASSERT_EQ(k.measurements.size(), truth.size());
  EXPECT_EQ(run.winner_variant(), 2);
  EXPECT_EQ(k.strategy, "exhaustive");
  for (auto& m : k.measurements) {
    EXPECT_EQ(m.outcome, Outcome::kOk);
    EXPECT_TRUE(is_final(m.timing.stop)) << to_string(m.timing.stop);
    EXPECT_GE(m.timing.summary.count, 20u);
    EXPECT_LE(m.timing.noise, 0.02);
    EXPECT_EQ(m.timing.sm_clock_min_mhz, 1980);
  }
  // The emitted run marks the same winner, and every row carries its provenance.
  const auto& emitted = store.run(k.run_id);
  EXPECT_EQ(emitted.run.key.kernel, "tiled_dynamic");
  EXPECT_EQ(emitted.run.status, RunStatus::kComplete);
  const auto winner = store.winner(k.run_id);
  ASSERT_TRUE(winner.has_value());
  EXPECT_EQ(winner->variant, "Fake<2>");
  EXPECT_EQ(emitted.run.strategy, "exhaustive");
  EXPECT_EQ(emitted.run.reference_clock_mhz, 1980);
  auto rows = store.run(k.run_id).measurements;
  ASSERT_EQ(rows.size(), truth.size());
  for (auto& r : rows) {
    EXPECT_EQ(r.stop_reason, "converged");
    EXPECT_GT(r.noise, 0);
    EXPECT_LE(r.median_ci.low, r.summary.median);
    EXPECT_GE(r.median_ci.high, r.summary.median);
    EXPECT_EQ(r.sm_clock_max_mhz, 1980);
  }
  EXPECT_GT(run.outcome.wall_s, 0);
  EXPECT_EQ(backend.shapes_opened, 1);
}

TEST(TuneEngine, RoundsInterleaveWithARotatingStart) {
  FakeBackend backend({1.0, 1.1, 1.2, 1.3}, 0.001, 2);
  testing::MemorySink store;
  auto request = request_for(backend, "exhaustive");
  request.policy.batch = 5;  // 20 samples: four rounds of one batch each
  tune(backend, store, request);
  ASSERT_GE(backend.calls.size(), 8u);
  // Every round gives each candidate one batch before anyone gets a second.
  for (size_t round = 0; round + 4 <= backend.calls.size() && round < 16; round += 4) {
    std::set<int> seen;
    for (size_t k = round; k < round + 4; ++k) seen.insert(backend.calls[k].candidate);
    EXPECT_EQ(seen.size(), 4u) << "round starting at call " << round;
  }
  // The start rotates, so no candidate is always sampled first.
  EXPECT_NE(backend.calls[0].candidate, backend.calls[4].candidate);
  EXPECT_NE(backend.calls[4].candidate, backend.calls[8].candidate);
  // Verification of every candidate comes before any timing.
  EXPECT_EQ(backend.checks.size(), 4u);
}

TEST(TuneEngine, HalvingFindsTheBestWithFarFewerSamplesThanExhaustive) {
  const auto truth = fifty_truths();
  const double best = *std::min_element(truth.begin(), truth.end());
  FakeBackend exhaustive_backend(truth, 0.01, 11, 0.03);
  testing::MemorySink store_e;
  auto exhaustive =
      tune(exhaustive_backend, store_e, request_for(exhaustive_backend, "exhaustive"));
  FakeBackend halving_backend(truth, 0.01, 12, 0.03);
  testing::MemorySink store_h;
  auto halving = tune(halving_backend, store_h, request_for(halving_backend, "halving"));

  EXPECT_LE(truth[size_t(exhaustive.winner_variant())], best * 1.01);
  EXPECT_LE(truth[size_t(halving.winner_variant())], best * 1.01);
  const int e = exhaustive.kernel().samples_taken, h = halving.kernel().samples_taken;
  EXPECT_LT(h * 2, e) << "halving " << h << " samples, exhaustive " << e;
  EXPECT_EQ(halving.kernel().measurements.size(), 50u);  // everyone screened and recorded
  int dropped = 0, eliminated = 0;
  for (auto& m : halving.kernel().measurements) {
    dropped += m.timing.stop == StopReason::kDropped;
    eliminated += m.timing.stop == StopReason::kEliminated;
  }
  EXPECT_GT(dropped, 0);
  EXPECT_GT(eliminated, 0);
  // The emitted winner is the search's decision, not merely the lowest median.
  EXPECT_EQ(store_h.winner(halving.kernel().run_id)->variant,
            "Fake<" + std::to_string(halving.winner_variant()) + ">");
}

TEST(TuneEngine, RepeatedRunsAgreeWithinTheTieBand) {
  const auto truth = fifty_truths();
  struct Decision {
    int winner;
    std::set<int> band;
  };
  std::vector<Decision> runs;
  for (unsigned seed : {21u, 22u, 23u, 24u, 25u}) {
    FakeBackend backend(truth, 0.01, seed, 0.03);
    testing::MemorySink store;
    auto run = tune(backend, store, request_for(backend, "halving"));
    runs.push_back({run.winner_variant(), run.tie_variants()});
  }
  for (size_t a = 0; a < runs.size(); ++a) {
    EXPECT_LE(truth[size_t(runs[a].winner)], 1.01);
    for (size_t b = 0; b < runs.size(); ++b) {
      const int wa = runs[a].winner, wb = runs[b].winner;
      EXPECT_TRUE(wa == wb || runs[a].band.count(wb) || runs[b].band.count(wa))
          << "run " << a << " chose " << wa << ", run " << b << " chose " << wb;
    }
  }
}

TEST(TuneEngine, TiesAreConfirmedAndBrokenByTheDocumentedRule) {
  // Two identical candidates and a slow one: a tie, confirmed with more samples.
  FakeBackend backend({1.0, 1.0, 1.5}, 0.005, 5);
  testing::MemorySink store;
  auto request = request_for(backend, "exhaustive");
  request.search.confirm_samples = 10;
  auto run = tune(backend, store, request);
  auto& k = run.kernel();
  ASSERT_GE(k.winner, 0);
  EXPECT_TRUE(k.confirmed);
  ASSERT_EQ(k.ties.size(), 2u);
  EXPECT_EQ(k.ties[0], k.winner);
  EXPECT_EQ(run.tie_variants(), (std::set<int>{0, 1}));
  const auto& w = k.measurements[size_t(k.winner)];
  const auto& other = k.measurements[size_t(k.ties[1])];
  EXPECT_LE(w.timing.summary.median, other.timing.summary.median);  // lower median first
  EXPECT_GE(w.timing.summary.count, 30u);                           // 20 + 10 confirming
  EXPECT_GE(backend.samples_for(0), 30);
  EXPECT_LT(backend.samples_for(2), 30);
  // The stored rows carry the tie, the winner and the confirming samples.
  int tied = 0, winners = 0;
  for (auto& r : store.run(k.run_id).measurements) {
    tied += r.tie;
    winners += r.winner;
    if (r.tie) {
      EXPECT_GE(r.summary.count, 30u);
    }
  }
  EXPECT_EQ(tied, 2);
  EXPECT_EQ(winners, 1);
}

TEST(TuneEngine, ThrottledBatchesAreRetakenThenKeptAndMarked) {
  FakeBackend backend({1.0, 1.2, 1.4}, 0.002, 6);
  backend.clocks[1] = {1000, 1980};  // one throttled batch, then normal
  backend.clocks[2] = {900};         // always throttled
  testing::MemorySink store;
  auto request = request_for(backend, "exhaustive");
  request.policy.throttle_retries = 2;
  auto run = tune(backend, store, request);
  auto& k = run.kernel();
  auto& once = k.measurements[1].timing;
  EXPECT_EQ(once.throttled_batches, 1);
  EXPECT_FALSE(once.throttled);
  EXPECT_EQ(once.summary.count, 20u);  // the discarded batch is not among the samples
  EXPECT_EQ(backend.samples_for(1), 25);
  EXPECT_EQ(once.sm_clock_min_mhz, 1980);
  auto& always = k.measurements[2].timing;
  EXPECT_EQ(always.throttled_batches, 2 + 4);  // 2 retakes, then each kept batch is counted
  EXPECT_TRUE(always.throttled);
  EXPECT_EQ(always.sm_clock_min_mhz, 900);
  EXPECT_EQ(k.throttled_batches, 1 + 6);
  auto rows = store.run(k.run_id).measurements;
  EXPECT_FALSE(rows[1].throttled);
  EXPECT_EQ(rows[1].throttled_batches, 1);
  EXPECT_TRUE(rows[2].throttled);
  // Without a reference clock (no NVML) nothing is called throttled.
  FakeBackend quiet({1.0}, 0.002, 6);
  quiet.clocks[0] = {900};
  testing::MemorySink store2;
  auto r2 = request_for(quiet, "exhaustive");
  r2.reference_clock_mhz = 0;
  EXPECT_EQ(tune(quiet, store2, r2).kernel().measurements[0].timing.throttled_batches, 0);
}

TEST(TuneEngine, WrongResultsNeverWinAndFailuresAreStored) {
  FakeBackend backend({0.5, 1.0, 1.2}, 0.002, 7);
  backend.wrong = {0};
  testing::MemorySink store;
  auto run = tune(backend, store, request_for(backend, "halving"));
  EXPECT_EQ(run.winner_variant(), 1);
  EXPECT_EQ(run.kernel().measurements[0].outcome, Outcome::kWrongResult);
  EXPECT_EQ(backend.samples_for(0), 0);
  EXPECT_EQ(store.run(run.kernel().run_id).measurements[0].outcome, Outcome::kWrongResult);
}

TEST(TuneEngine, ACrashEndsAnInProcessRunButNotAnIsolatedOne) {
  for (bool isolates : {false, true}) {
    FakeBackend backend({1.0, 1.1, 1.2}, 0.002, 8);
    backend.crash = {1};
    backend.isolates = isolates;
    testing::MemorySink store;
    auto run = tune(backend, store, request_for(backend, "exhaustive"));
    EXPECT_EQ(run.outcome.context_lost, !isolates);
    EXPECT_EQ(run.kernel().winner >= 0, isolates);
    EXPECT_EQ(backend.checks.size(), isolates ? 3u : 2u);
  }
}

TEST(TuneEngine, MaxCandidatesMeasuresTheFirstInStrategyOrder) {
  FakeBackend backend(fifty_truths(), 0.005, 9);
  backend.textbook = 30;
  testing::MemorySink store;
  auto request = request_for(backend, "occupancy");
  request.search.max_candidates = 5;
  auto run = tune(backend, store, request);
  auto& k = run.kernel();
  EXPECT_EQ(k.measurements.size(), 5u);
  EXPECT_EQ(k.unmeasured, 45);
  EXPECT_EQ(backend.checks.front(), 30);  // the textbook answer first
}

TEST(TuneEngine, TimeBudgetCutsTheRaceAndSaysSo) {
  const auto truth = fifty_truths();
  FakeBackend backend(truth, 0.005, 10);
  testing::MemorySink store;
  auto request = request_for(backend, "exhaustive");
  request.search.time_budget_s = 0.3;  // exhaustive needs about 50 x 20 x 2 ms = 2 s
  auto run = tune(backend, store, request);
  EXPECT_TRUE(run.outcome.budget_exhausted);
  auto& k = run.kernel();
  EXPECT_EQ(k.stopped, StopReason::kBudget);
  EXPECT_LT(backend.now, 0.3 + 0.05);  // stops within one batch of the deadline
  int cut = 0;
  for (auto& m : k.measurements) cut += m.timing.stop == StopReason::kBudget;
  EXPECT_GT(cut + k.unmeasured, 0);
  EXPECT_GE(k.winner, 0);  // the best of what was measured
}

// Issue #18: halving prunes by the cost model before measuring; a pruned candidate is listed with
// its reason, never checked, sampled or stored; prune = none and exhaustive measure it.
TEST(TuneEngine, CostModelPrunesBeforeHalvingMeasures) {
  std::vector<double> truth = {1.0, 1.1, 50.0, 60.0};
  FakeBackend backend(truth, 0.003, 21);
  for (size_t i = 0; i < truth.size(); ++i) backend.set_tile(i, i < 2 ? 16 : 1);
  testing::MemorySink store;
  auto request = request_for(backend, "halving");
  request.search.prune_keep = 0;
  auto run = tune(backend, store, request);
  auto& k = run.kernel();
  ASSERT_EQ(k.measurements.size(), truth.size());  // every candidate listed, in plan order
  EXPECT_EQ(k.pruned, 2);
  EXPECT_EQ(k.unmeasured, 0);
  for (int i : {2, 3}) {
    const Measurement& m = k.measurements[size_t(i)];
    EXPECT_EQ(m.timing.stop, StopReason::kPruned);
    EXPECT_EQ(m.error.rfind("cost model: est ", 0), 0u) << m.error;
    EXPECT_EQ(m.timing.summary.count, 0u);
    EXPECT_EQ(backend.samples_for(i), 0);
    EXPECT_EQ(std::count(backend.checks.begin(), backend.checks.end(), i), 0);
  }
  EXPECT_EQ(run.winner_variant(), 0);
  EXPECT_EQ(store.run(k.run_id).measurements.size(), 2u);  // only what ran is stored

  for (auto [strategy, prune] : {std::pair{"halving", "none"}, std::pair{"exhaustive", "cost"}}) {
    FakeBackend again(truth, 0.003, 22);
    for (size_t i = 0; i < truth.size(); ++i) again.set_tile(i, i < 2 ? 16 : 1);
    testing::MemorySink other;
    auto r = request_for(again, strategy);
    r.search.prune = prune;
    r.search.prune_keep = 0;
    auto all = tune(again, other, r);
    EXPECT_EQ(all.kernel().pruned, 0) << strategy << " " << prune;
    EXPECT_EQ(again.checks.size(), truth.size()) << strategy << " " << prune;
  }
}

// With a store, not the in-memory sink: which earlier rows a run may reuse is the store's rule
// (Store::reusable_measurements), and this test checks the engine and that rule together.
TEST(TuneEngine, AnInterruptedRunResumesAndForceMeasuresAgain) {
  const std::vector<double> truth = {1.0, 1.1, 1.2, 1.3, 1.4, 1.5};
  auto store = db::Store::open(":memory:");
  std::atomic<bool> interrupted{false};
  {
    FakeBackend backend(truth, 0.001, 13);
    auto request = request_for(backend, "exhaustive");
    request.policy.batch = 10;  // two batches to reach the 20 samples of the stopping rule
    backend.interrupt = &interrupted;
    backend.interrupt_after = 8;  // round 1 (6 batches), then 2 batches of round 2
    auto run = tune(backend, store, request, &interrupted);
    EXPECT_TRUE(run.outcome.interrupted);
    EXPECT_EQ(store.runs().at(0).status, RunStatus::kInterrupted);
    // Round 2 starts at candidate 1: candidates 1 and 2 have their 20 samples and count as
    // converged; the others stay interrupted, which is not reusable.
    std::vector<std::string> stops;
    for (auto& m : run.kernel().measurements) stops.emplace_back(to_string(m.timing.stop));
    EXPECT_EQ(stops, (std::vector<std::string>{"interrupted", "converged", "converged",
                                               "interrupted", "interrupted", "interrupted"}));
  }
  FakeBackend backend(truth, 0.001, 14);
  auto request = request_for(backend, "exhaustive");
  request.policy.batch = 10;
  auto second = tune(backend, store, request);
  EXPECT_FALSE(second.outcome.interrupted);
  EXPECT_EQ(second.kernel().reused, 2);
  EXPECT_EQ(backend.samples_for(1) + backend.samples_for(2), 0);
  EXPECT_EQ(backend.checks.size(), 4u);
  EXPECT_EQ(second.winner_variant(), 0);
  // A third run reuses everything: nothing is checked or sampled again, the winner stands.
  FakeBackend again(truth, 0.001, 15);
  auto third = tune(again, store, request);
  EXPECT_EQ(third.kernel().reused, 6);
  EXPECT_TRUE(again.calls.empty());
  EXPECT_TRUE(again.checks.empty());
  EXPECT_EQ(third.winner_variant(), 0);
  for (auto& m : third.kernel().measurements) EXPECT_GT(m.reused_from, 0);
  auto key = db::CacheKey::make(again.device(), "tiled_dynamic", "build-test", kShape);
  EXPECT_EQ(store.best(key)->run.id, third.kernel().run_id);
  // --force measures everything again.
  FakeBackend forced(truth, 0.001, 16);
  request.force = true;
  auto fourth = tune(forced, store, request);
  EXPECT_EQ(fourth.kernel().reused, 0);
  EXPECT_EQ(forced.checks.size(), 6u);
  // A different protocol reuses nothing either.
  FakeBackend other(truth, 0.001, 17);
  request.force = false;
  request.policy.samples = 25;
  EXPECT_EQ(tune(other, store, request).kernel().reused, 0);
  // Eliminated rows are reused only under the same strategy; finished ones under any.
  request.policy.samples = 30;
  FakeBackend halving(truth, 0.001, 18);
  auto h = request_for(halving, "halving");
  h.policy = request.policy;
  auto first_halving = tune(halving, store, h);
  int eliminated = 0;
  for (auto& m : first_halving.kernel().measurements)
    eliminated += m.timing.stop == StopReason::kEliminated;
  EXPECT_EQ(eliminated, 3);  // 6 -> keep 3 finalists
  FakeBackend exhaustive(truth, 0.001, 19);
  auto e = request_for(exhaustive, "exhaustive");
  e.policy = request.policy;
  EXPECT_EQ(tune(exhaustive, store, e).kernel().reused, 3);
  EXPECT_EQ(exhaustive.checks.size(), 3u);
  FakeBackend halving_again(truth, 0.001, 20);
  auto h2 = request_for(halving_again, "halving");
  h2.policy = request.policy;
  EXPECT_EQ(tune(halving_again, store, h2).kernel().reused, 6);
}

// Issue #18: a family whose candidates are all far behind the shape's best so far is abandoned
// at the screen's probe: every candidate checked, sampled kAbandonMinSamples times (once),
// stored as abandoned with its few samples, and none is the winner; a family within the factor
// races on.
// Exhaustive measures the same families fully.
TEST(TuneEngine, HalvingAbandonsFamiliesFarBehindTheShapesBest) {
  const std::vector<double> truth = {1.0, 1.2, 1.6, 1.7};
  auto run_with = [&](const std::string& strategy, testing::MemorySink& store, unsigned seed) {
    FakeBackend backend(truth, 0.003, seed);
    backend.family_scale["tiled_static"] = 2.0;  // 2.0 ms and slower: all beyond 1.5x
    auto request = request_for(backend, strategy);
    request.kernels = {"tiled_dynamic", "tiled_static"};
    auto run = tune(backend, store, request);
    return std::make_pair(std::move(run.outcome), backend.checks.size());
  };
  testing::MemorySink store;
  auto [outcome, checks] = run_with("halving", store, 31);
  const auto& kernels = outcome.shapes.at(0).kernels;
  ASSERT_EQ(kernels.size(), 2u);
  const KernelResult& fast = kernels[0];
  const KernelResult& slow = kernels[1];
  EXPECT_EQ(fast.kernel, "tiled_dynamic");
  ASSERT_GE(fast.winner, 0);
  EXPECT_EQ(fast.measurements[size_t(fast.winner)].candidate.variant->symbol, "Fake<0>");
  EXPECT_EQ(slow.kernel, "tiled_static");
  EXPECT_EQ(slow.winner, -1);  // an abandoned candidate never wins
  EXPECT_EQ(slow.abandoned, 4);
  EXPECT_EQ(checks, 8u);  // everyone's correctness is still checked
  for (const Measurement& m : slow.measurements) {
    EXPECT_EQ(m.timing.stop, StopReason::kAbandoned);
    EXPECT_EQ(m.timing.summary.count, size_t(kAbandonMinSamples));
    EXPECT_GE(m.behind, 1.5);
    EXPECT_FALSE(m.winner);
  }
  // The store keeps what was measured and that it was abandoned; nothing is its winner.
  const auto& rows = store.run(slow.run_id).measurements;
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.stop_reason, "abandoned");
    EXPECT_EQ(row.samples_ms.size(), size_t(kAbandonMinSamples));
    EXPECT_FALSE(row.winner);
  }
  EXPECT_FALSE(store.winner(slow.run_id).has_value());
  // Within its own family nothing is abandoned until a contender has finished.
  EXPECT_EQ(fast.abandoned, 0);

  testing::MemorySink full;
  auto [exhaustive, all_checks] = run_with("exhaustive", full, 32);
  for (const KernelResult& k : exhaustive.shapes.at(0).kernels) {
    EXPECT_EQ(k.abandoned, 0) << k.kernel;
    EXPECT_GE(k.winner, 0) << k.kernel;
    for (const Measurement& m : k.measurements) EXPECT_TRUE(is_final(m.timing.stop)) << k.kernel;
  }
  EXPECT_EQ(all_checks, 8u);
}

// Issue #18, "tuning within 2 s": after the first family, a candidate 1.25x or more behind the
// shape's best leaves after its one-sample probe and one 1.05x or more behind after the
// screen's three samples; the best of a family within 1.05x still races to its final. The
// winner stays the true best; the abandoned rows are stored with their samples.
TEST(TuneEngine, HalvingProbesThenAbandonsTheFarAndTheSomewhatBehind) {
  const std::vector<double> truth = {1.0, 1.02, 1.2, 1.6};
  FakeBackend backend(truth, 0.003, 41);
  backend.family_scale["tiled_static"] = 1.1;  // 1.1, 1.122: behind; 1.32, 1.76: far
  backend.family_scale["naive"] = 3.0;         // all far
  backend.family_scale["coarsened"] = 1.02;    // 1.02, 1.04: within; 1.22: behind; 1.63: far
  testing::MemorySink store;
  auto request = request_for(backend, "halving");
  request.kernels = {"tiled_dynamic", "tiled_static", "naive", "coarsened"};
  auto run = tune(backend, store, request);
  const auto& ks = run.outcome.shapes.at(0).kernels;
  ASSERT_EQ(ks.size(), 4u);
  EXPECT_EQ(backend.checks.size(), 16u);  // everyone's correctness is still checked
  auto samples_of = [](const KernelResult& k) {
    std::vector<size_t> n;
    for (const Measurement& m : k.measurements) n.push_back(m.timing.summary.count);
    return n;
  };
  ASSERT_GE(ks[0].winner, 0);
  EXPECT_EQ(ks[0].measurements[size_t(ks[0].winner)].candidate.variant->symbol, "Fake<0>");
  EXPECT_EQ(ks[1].abandoned, 4);
  EXPECT_EQ(samples_of(ks[1]), (std::vector<size_t>{3, 3, 1, 1}));
  EXPECT_EQ(ks[2].abandoned, 4);
  EXPECT_EQ(samples_of(ks[2]), (std::vector<size_t>{1, 1, 1, 1}));
  for (const KernelResult* k : {&ks[1], &ks[2]}) {
    EXPECT_EQ(k->winner, -1) << k->kernel;
    for (const Measurement& m : k->measurements) {
      EXPECT_EQ(m.timing.stop, StopReason::kAbandoned) << k->kernel;
      EXPECT_GE(m.behind, 1.05) << k->kernel;
    }
    const auto& rows = store.run(k->run_id).measurements;
    ASSERT_EQ(rows.size(), 4u) << k->kernel;
    for (const auto& row : rows) EXPECT_EQ(row.stop_reason, "abandoned") << k->kernel;
  }
  // coarsened at 1.02x: its best races on to the stopping rule; its 1.2x and 1.6x do not.
  ASSERT_GE(ks[3].winner, 0);
  EXPECT_EQ(ks[3].measurements[size_t(ks[3].winner)].candidate.variant->symbol, "Fake<0>");
  EXPECT_TRUE(is_final(ks[3].measurements[size_t(ks[3].winner)].timing.stop));
  EXPECT_EQ(ks[3].measurements[2].timing.summary.count, 3u);  // 1.224x: behind, not far
  EXPECT_EQ(ks[3].measurements[3].timing.summary.count, 1u);  // 1.632x: far
  // With the thresholds off the same families cost many times the samples.
  FakeBackend all(truth, 0.003, 42);
  all.family_scale = backend.family_scale;
  testing::MemorySink other;
  auto off = request_for(all, "halving");
  off.kernels = request.kernels;
  off.search.abandon_factor = 0;
  tune(all, other, off);
  EXPECT_GT(all.now, 2 * backend.now) << "off " << all.now << " s, on " << backend.now << " s";
}

TEST(TuneEngine, ProgressCountsToTheTotal) {
  FakeBackend backend(fifty_truths(), 0.005, 19);
  testing::MemorySink store;
  TuneEvents events;
  std::vector<TuneProgress> seen;
  events.on_progress = [&](const TuneProgress& p) { seen.push_back(p); };
  tune(backend, store, request_for(backend, "halving"), nullptr, events);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().done, 50);
  EXPECT_EQ(seen.back().total, 50);
  EXPECT_EQ(seen.back().phase, "done");
  EXPECT_FALSE(seen.back().best.empty());
  bool eta = false, screen = false;
  for (auto& p : seen) {
    EXPECT_LE(p.done, p.total);
    eta |= p.eta_s > 0;
    screen |= p.phase == "screen";
  }
  EXPECT_TRUE(eta);
  EXPECT_TRUE(screen);
}

TEST(TuneEngine, ReferenceAfterTimesCublasAgainAndTheFasterSetIsTheReference) {
  for (bool after : {false, true}) {
    SCOPED_TRACE(after ? "reference_after" : "reference once");
    FakeBackend backend({1.0, 1.2, 1.4}, 0.01, 5);
    backend.reference_before_ms = 0.6;  // a slow first set
    testing::MemorySink store;
    TuneRequest request = request_for(backend, "exhaustive");
    request.reference_after = after;
    const TuneRun run = tune(backend, store, request);
    const ShapeResult& r = run.outcome.shapes.at(0);
    EXPECT_DOUBLE_EQ(r.cublas.summary.median, 0.6);
    if (after) {
      EXPECT_GT(backend.reference_batches_after, 0);
      EXPECT_DOUBLE_EQ(r.cublas_after.summary.median, 0.5);
      EXPECT_DOUBLE_EQ(r.cublas_ms(), 0.5);
    } else {
      EXPECT_EQ(backend.reference_batches_after, 0);
      EXPECT_EQ(r.cublas_after.summary.count, 0u);
      EXPECT_DOUBLE_EQ(r.cublas_ms(), 0.6);
    }
  }
}

}  // namespace
}  // namespace occtune
