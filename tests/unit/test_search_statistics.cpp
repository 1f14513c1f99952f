// The statistics behind tuning decisions, on synthetic samples with known answers: the
// stopping rule, batch sizing, the throttle test, ties and the tie-break rule, the halving
// schedule and cut, the occupancy order, and the abandon rule (issue #18).
#include <gtest/gtest.h>

#include <algorithm>

#include "autotuner/core/error.hpp"
#include "autotuner/core/search_strategy.hpp"
#include "autotuner/core/stopping_rule.hpp"
#include "autotuner/core/ties.hpp"

namespace occtune {
namespace {

StoppingRule rule(int n, double t, double noise, double timeout, int max_samples) {
  StoppingRule r;
  r.min_samples = n;
  r.min_time_s = t;
  r.target_noise = noise;
  r.timeout_s = timeout;
  r.max_samples = max_samples;
  return r;
}

TEST(StoppingRule, NeedsTheMinimumSamplesAndTimeThenLowNoise) {
  const auto r = rule(5, 0.0, 0.02, 10, 100);
  EXPECT_FALSE(evaluate(r, {}).stop);
  EXPECT_FALSE(evaluate(r, {1, 1, 1, 1}).stop);  // quiet, but only 4 of 5 samples
  auto c = evaluate(r, {1, 1, 1, 1, 1});
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.reason, StopReason::kConverged);
  EXPECT_DOUBLE_EQ(c.noise, 0);
  EXPECT_DOUBLE_EQ(c.measured_s, 0.005);
  // Five 1 ms samples are 5 ms of timed execution, short of T = 10 ms.
  EXPECT_FALSE(evaluate(rule(5, 0.010, 0.02, 10, 100), {1, 1, 1, 1, 1}).stop);
  EXPECT_TRUE(evaluate(rule(5, 0.010, 0.02, 10, 100), std::vector<double>(10, 1.0)).stop);
}

TEST(StoppingRule, NoiseIsTheRelativeIqr) {
  // q1 = 2, median = 3, q3 = 4 (type-7 quartiles): noise = 2 / 3.
  auto c = evaluate(rule(5, 0, 0.5, 10, 100), {10, 1, 3, 2, 4});
  EXPECT_NEAR(c.noise, 2.0 / 3.0, 1e-12);
  EXPECT_FALSE(c.stop);  // 0.67 > 0.5
  EXPECT_TRUE(evaluate(rule(5, 0, 0.7, 10, 100), {10, 1, 3, 2, 4}).stop);
}

TEST(StoppingRule, GivesUpAtTheTimeoutRecordingTheNoiseReached) {
  // Alternating 1 ms / 2 ms never gets under 2% noise; 10 ms of samples hits the timeout.
  std::vector<double> noisy;
  for (int i = 0; i < 6; ++i) noisy.push_back(i % 2 ? 2.0 : 1.0);
  const auto r = rule(5, 0, 0.02, 0.010, 100);
  EXPECT_FALSE(evaluate(r, noisy).stop);  // 10 ms not reached yet (6 samples = 9 ms)
  noisy.push_back(2.0);                   // 11 ms
  auto c = evaluate(r, noisy);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.reason, StopReason::kTimeout);
  EXPECT_NEAR(c.noise, summarize(noisy).relative_iqr(), 1e-12);
  EXPECT_GT(c.noise, 0.3);
}

TEST(StoppingRule, ASlowCandidateStillGetsTheFloorOfSamples) {
  const auto r = rule(20, 0, 0.02, 0.001, 100);  // a 1 ms timeout, 10 ms samples
  EXPECT_FALSE(evaluate(r, {10, 10, 10, 10}).stop);
  auto c = evaluate(r, {10, 10, 10, 10, 10});
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.reason, StopReason::kTimeout);
  // With N below the floor, N is enough.
  EXPECT_TRUE(evaluate(rule(3, 0, 1e-9, 0.001, 100), {10, 11, 12}).stop);
}

TEST(StoppingRule, StopsAtMaxSamples) {
  std::vector<double> noisy;
  for (int i = 0; i < 12; ++i) noisy.push_back(i % 2 ? 2.0 : 1.0);
  auto c = evaluate(rule(5, 0, 0.02, 1000, 12), noisy);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.reason, StopReason::kMaxSamples);
}

TEST(StoppingRule, NextBatchFillsTheMinimumThenTakesBatches) {
  const auto r = rule(20, 0, 0.02, 10, 22);
  EXPECT_EQ(next_batch(r, {}, 5), 5);
  EXPECT_EQ(next_batch(r, std::vector<double>(18, 1.0), 5), 2);
  EXPECT_EQ(next_batch(r, std::vector<double>(20, 1.0), 5), 2);  // max_samples 22
  EXPECT_EQ(next_batch(rule(20, 0, 0.02, 10, 100), std::vector<double>(20, 1.0), 5), 5);
  // 1.2 s spent at 400 ms a sample with a 1 s timeout: only the floor (5) is still owed.
  EXPECT_EQ(next_batch(rule(20, 0, 0.02, 1.0, 100), {400, 400, 400}, 5), 2);
  // 125 ms spent at 31.25 ms a sample with 62.5 ms of the timeout left: two more fit.
  EXPECT_EQ(next_batch(rule(20, 0, 0.02, 0.1875, 100), {31.25, 31.25, 31.25, 31.25}, 5), 2);
  EXPECT_EQ(next_batch(r, {}, 0), 1);
}

TEST(StopReason, SpellingsRoundTrip) {
  for (auto r : {StopReason::kNone, StopReason::kConverged, StopReason::kTimeout,
                 StopReason::kMaxSamples, StopReason::kEliminated, StopReason::kDropped,
                 StopReason::kBudget, StopReason::kInterrupted})
    EXPECT_EQ(stop_reason_from_string(to_string(r)), r);
  EXPECT_FALSE(stop_reason_from_string("finished").has_value());
  EXPECT_TRUE(is_final(StopReason::kTimeout));
  EXPECT_FALSE(is_final(StopReason::kEliminated));
}

TEST(Throttle, BelowTheRatioOfTheReferenceClock) {
  EXPECT_TRUE(is_throttled(1400, 1980, 0.75));  // threshold 1485 MHz
  EXPECT_FALSE(is_throttled(1485, 1980, 0.75));
  EXPECT_FALSE(is_throttled(1755, 1980, 0.75));
  EXPECT_FALSE(is_throttled(0, 1980, 0.75));    // no NVML: unknown, never throttled
  EXPECT_FALSE(is_throttled(1000, 0, 0.75));    // no reference
  EXPECT_FALSE(is_throttled(1000, 1980, 0.0));  // test turned off
}

Contestant at(double median, double low, double high, double occupancy = 1.0, int threads = 256,
              int order = 0) {
  Contestant c;
  c.median = median;
  c.ci = {low, high};
  c.occupancy = occupancy;
  c.threads = threads;
  c.order = order;
  return c;
}

TEST(Ties, OverlappingIntervalsOfTheBestAreATie) {
  auto r = find_ties({at(1.005, 1.000, 1.020, 1, 256, 0), at(1.000, 0.990, 1.010, 1, 256, 1),
                      at(1.100, 1.090, 1.110, 1, 256, 2), at(1.015, 1.011, 1.030, 1, 256, 3)});
  EXPECT_EQ(r.best, 1);
  EXPECT_EQ(r.tied, (std::vector<int>{1, 0}));  // 3 overlaps 0 but not the best: not a tie
  EXPECT_TRUE(r.is_tie());
  auto alone = find_ties({at(1.0, 0.99, 1.01), at(2.0, 1.9, 2.1)});
  EXPECT_EQ(alone.best, 0);
  EXPECT_FALSE(alone.is_tie());
  EXPECT_EQ(find_ties({}).best, -1);
}

TEST(Ties, TieBreakRuleIsMedianThenOccupancyThenThreadsThenPlanOrder) {
  EXPECT_TRUE(better(at(1.0, 0, 2, 0.5), at(1.1, 0, 2, 1.0)));       // median first
  EXPECT_TRUE(better(at(1.0, 0, 2, 1.0), at(1.0, 0, 2, 0.5)));       // then occupancy
  EXPECT_TRUE(better(at(1.0, 0, 2, 1, 64), at(1.0, 0, 2, 1, 256)));  // then fewer threads
  EXPECT_TRUE(better(at(1.0, 0, 2, 1, 64, 1), at(1.0, 0, 2, 1, 64, 2)));
  EXPECT_FALSE(better(at(1.0, 0, 2, 1, 64, 1), at(1.0, 0, 2, 1, 64, 1)));
  auto r = find_ties({at(1.0, 0.9, 1.1, 0.5, 64, 0), at(1.0, 0.9, 1.1, 1.0, 1024, 1),
                      at(1.0, 0.9, 1.1, 1.0, 256, 2)});
  EXPECT_EQ(r.best, 2);
  EXPECT_EQ(r.tied, (std::vector<int>{2, 1, 0}));
}

TEST(Ties, ContestantFromSamples) {
  auto c = contestant({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.95, 0.5, 128, 7);
  EXPECT_DOUBLE_EQ(c.median, 5.5);
  EXPECT_DOUBLE_EQ(c.ci.low, 2);  // binomial order statistics, n = 10 (see Stats tests)
  EXPECT_DOUBLE_EQ(c.ci.high, 9);
  EXPECT_EQ(c.order, 7);
}

TEST(Halving, ScheduleHalvesDownToTheFinalistsDoublingSamplesUpToN) {
  const std::vector<std::pair<int, int>> expected = {{50, 3}, {25, 6}, {13, 12},
                                                     {7, 20}, {4, 20}, {3, 20}};
  auto s = halving_schedule(50, 3, 20, 3);
  ASSERT_EQ(s.size(), expected.size());
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i].survivors, expected[i].first) << i;
    EXPECT_EQ(s[i].samples, expected[i].second) << i;
  }
  auto few = halving_schedule(3, 3, 20, 3);  // already the finalists: straight to the final
  ASSERT_EQ(few.size(), 1u);
  EXPECT_EQ(few[0].survivors, 3);
  EXPECT_EQ(few[0].samples, 20);
  EXPECT_TRUE(halving_schedule(0, 3, 20, 3).empty());
  EXPECT_EQ(halving_keep(7, 3), 4);
  EXPECT_EQ(halving_keep(4, 3), 3);
  EXPECT_EQ(halving_keep(2, 3), 2);
  EXPECT_EQ(halving_next_target(3, 20), 6);
  EXPECT_EQ(halving_next_target(12, 20), 20);
  EXPECT_EQ(halving_next_target(20, 20), 20);
  EXPECT_EQ(halving_next_target(30, 20), 30);
}

Contender contender(int index, double median, double spread = 0.001, int n = 3) {
  Contender c;
  c.index = index;
  c.state = RaceState::kActive;
  c.traits.occupancy = 1.0;
  c.traits.threads = 256;
  for (int i = 0; i < n; ++i) c.samples_ms.push_back(median * (1 + spread * (i - (n - 1) / 2.0)));
  return c;
}

TEST(Halving, CutDropsTheFarBehindAndEliminatesTheWorseHalf) {
  std::vector<Contender> race;
  for (int i = 0; i < 7; ++i) race.push_back(contender(i, 1.0 + 0.1 * i));
  race.push_back(contender(7, 2.5));  // beyond 2x the best
  const int left = halving_cut(race, 3, 2.0, 0.95, 0);
  EXPECT_EQ(left, 4);
  EXPECT_EQ(race[7].state, RaceState::kDropped);
  EXPECT_EQ(race[7].stop, StopReason::kDropped);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(race[size_t(i)].state, RaceState::kActive) << i;
  for (int i = 4; i < 7; ++i) {
    EXPECT_EQ(race[size_t(i)].state, RaceState::kEliminated) << i;
    EXPECT_EQ(race[size_t(i)].round, 0);
  }
}

TEST(Halving, CutNeverEliminatesANearTieOfTheBest) {
  std::vector<Contender> race;
  race.push_back(contender(0, 1.0, 0.02));  // interval [0.98, 1.02]
  race.push_back(contender(1, 1.3));
  race.push_back(contender(2, 1.4));
  race.push_back(contender(3, 1.01, 0.02));  // worst half by median, but overlaps the best
  race[3].samples_ms = {1.015, 1.5, 1.6};    // median 1.5, interval [1.015, 1.6]
  halving_cut(race, 1, 0, 0.95, 2);
  EXPECT_EQ(race[0].state, RaceState::kActive);
  EXPECT_EQ(race[1].state, RaceState::kActive);
  EXPECT_EQ(race[2].state, RaceState::kEliminated);
  EXPECT_EQ(race[3].state, RaceState::kActive);  // kept: 1.015 is inside the best's interval
}

TEST(Strategies, OccupancyOrderPutsTheTextbookAnswerFirstThenOccupancy) {
  std::vector<CandidateTraits> cs = {{0.5, 16, "occupancy-api", 4},
                                     {1.0, 1024, "occupancy-api", 1},
                                     {1.0, 64, "occupancy-api", 3},
                                     {1.0, 256, "occupancy-api", 2},
                                     {0.75, 128, "registered", 0}};
  EXPECT_EQ(occupancy_order(cs), (std::vector<int>{1, 3, 2, 4, 0}));
}

TEST(Strategies, NamesAreValidated) {
  EXPECT_EQ(strategy_names(), "halving, exhaustive, occupancy");
  EXPECT_NO_THROW(validate_strategy("exhaustive"));
  try {
    validate_strategy("greedy");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("'greedy'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("halving"), std::string::npos);
  }
}

// Feeds each turn `samples` copies of the contender's true time: the strategies' bookkeeping
// with no noise at all.
int drive(SearchStrategy& s, std::vector<Contender>& race, const std::vector<double>& truth) {
  int total = 0;
  for (int round = 0; round < 1000; ++round) {
    auto turns = s.next_round(race);
    if (turns.empty()) return total;
    std::vector<int> seen;
    for (auto& t : turns) {
      EXPECT_EQ(std::count(seen.begin(), seen.end(), t.contender), 0) << "two turns in a round";
      seen.push_back(t.contender);
      auto& c = race[size_t(t.contender)];
      for (int k = 0; k < t.samples; ++k) c.samples_ms.push_back(truth[size_t(c.index)]);
      total += t.samples;
    }
  }
  ADD_FAILURE() << "the strategy never ended the race";
  return total;
}

std::vector<Contender> fresh_race(int n) {
  std::vector<Contender> race(size_t(n), Contender{});
  for (int i = 0; i < n; ++i) {
    race[size_t(i)].index = i;
    race[size_t(i)].state = RaceState::kActive;
  }
  return race;
}

TEST(Strategies, ExhaustiveTakesEveryoneToTheStoppingRule) {
  TimingPolicy p;
  p.samples = 10;
  p.min_time_s = 0;
  p.batch = 4;
  SearchSettings s;
  s.strategy = "exhaustive";
  auto strategy = make_strategy(s, p);
  std::vector<double> truth;
  for (int i = 0; i < 6; ++i) truth.push_back(1.0 + i);
  auto race = fresh_race(6);
  EXPECT_EQ(drive(*strategy, race, truth), 60);
  for (auto& c : race) {
    EXPECT_EQ(c.state, RaceState::kFinished);
    EXPECT_EQ(c.stop, StopReason::kConverged);
    EXPECT_EQ(c.samples_ms.size(), 10u);
  }
}

TEST(Strategies, HalvingSpendsFarFewerSamplesAndKeepsTheBest) {
  TimingPolicy p;
  p.samples = 20;
  p.min_time_s = 0;
  SearchSettings s;  // halving, screen 3, finalists 3, drop 2x
  auto strategy = make_strategy(s, p);
  std::vector<double> truth;
  for (int i = 0; i < 50; ++i) truth.push_back(1.0 + 0.05 * ((i * 37) % 50));  // best: i = 0
  auto race = fresh_race(50);
  const int total = drive(*strategy, race, truth);
  EXPECT_LT(total, 50 * 20 / 2);
  EXPECT_EQ(race[0].state, RaceState::kFinished);
  int finished = 0, dropped = 0;
  for (auto& c : race) {
    finished += c.state == RaceState::kFinished;
    dropped += c.state == RaceState::kDropped;
    if (c.state == RaceState::kDropped) {
      EXPECT_EQ(c.samples_ms.size(), 3u);
    }
  }
  EXPECT_EQ(finished, 3);
  EXPECT_GT(dropped, 0);  // medians up to 3.45: everything beyond 2.0 goes after the screen
  EXPECT_EQ(strategy->phase(), "final");
}

// Issue #18: the abandon rule. A contender whose fastest sample is at least factor x the
// incumbent's median leaves from kAbandonMinSamples (one sample); one at least behind x leaves
// from kBehindMinSamples (three); one within both stays, and so does one with too few samples
// for the threshold it crosses.
TEST(Abandon, BeyondEachFactorAfterItsMinimumSamplesOnly) {
  ASSERT_EQ(kAbandonMinSamples, 1);
  ASSERT_EQ(kBehindMinSamples, 3);
  const AbandonRule rule{1.25, 1.05};
  std::vector<Contender> race;
  race.push_back(contender(0, 3.0, 0.001, 1));      // one sample, 3.0x the incumbent
  race.push_back(contender(1, 1.2, 0.001, 1));      // one sample within 1.25x
  race.push_back(contender(2, 1.1, 0.001, 3));      // three samples, all beyond 1.05x
  race.push_back(contender(3, 1.1, 0.001, 2));      // two: not yet for the behind threshold
  race.push_back(contender(4, 1.03, 0.001, 10));    // within 1.05x
  race.push_back(contender(5, 1.6, 0.001, 10));
  race[5].samples_ms.push_back(1.02);  // one fast sample: the minimum is within both factors
  const int left = abandon_hopeless(race, 1.0, rule, 2);
  EXPECT_EQ(left, 2);
  for (int i : {0, 2}) {
    EXPECT_EQ(race[size_t(i)].state, RaceState::kAbandoned) << i;
    EXPECT_EQ(race[size_t(i)].stop, StopReason::kAbandoned) << i;
    EXPECT_EQ(race[size_t(i)].round, 2) << i;
    EXPECT_TRUE(race[size_t(i)].retired()) << i;
  }
  EXPECT_NEAR(race[0].behind, 3.0, 1e-9);  // its fastest sample / the incumbent
  EXPECT_NEAR(race[2].behind, 1.1 * (1 - 0.001), 1e-9);
  for (int i : {1, 3, 4, 5}) EXPECT_EQ(race[size_t(i)].state, RaceState::kActive) << i;
  // Exactly at a factor is abandoned; no incumbent or a rule that is off abandons nothing; a
  // rule without the behind threshold keeps the three-sample contender at 1.1x.
  std::vector<Contender> edge = {contender(0, 1.25, 0.0, 1)};
  EXPECT_EQ(abandon_hopeless(edge, 0.0, rule, 0), 0);
  EXPECT_EQ(abandon_hopeless(edge, 1.0, AbandonRule{}, 0), 0);
  EXPECT_EQ(abandon_hopeless(edge, 1.0, rule, 0), 1);
  std::vector<Contender> near = {contender(0, 1.1, 0.001, 3)};
  EXPECT_EQ(abandon_hopeless(near, 1.0, AbandonRule{1.25, 0}, 0), 0);
  EXPECT_EQ(abandon_hopeless(near, 1.0, AbandonRule{0, 1.05}, 0), 1);
  EXPECT_EQ(to_string(StopReason::kAbandoned), "abandoned");
  // Off in the settings: no threshold at all; exhaustive never abandons.
  SearchSettings s;
  EXPECT_DOUBLE_EQ(AbandonRule::of(s).factor, 1.25);
  EXPECT_DOUBLE_EQ(AbandonRule::of(s).behind, 1.05);
  s.abandon_factor = 0;
  EXPECT_DOUBLE_EQ(AbandonRule::of(s).factor, 0);
  EXPECT_DOUBLE_EQ(AbandonRule::of(s).behind, 0);
  s.abandon_factor = 1.25;
  s.strategy = "exhaustive";
  EXPECT_DOUBLE_EQ(AbandonRule::of(s).behind, 0);
}

// The incumbent: the shape's best so far, or a faster median of this race measured to the
// stopping rule; never an active or dropped contender's few samples.
TEST(Abandon, IncumbentIsTheBestMedianMeasuredToTheStoppingRule) {
  std::vector<Contender> race = {contender(0, 0.5), contender(1, 0.8), contender(2, 0.9),
                                 contender(3, 0.7)};
  race[1].state = RaceState::kFinished;
  race[1].stop = StopReason::kConverged;
  race[2].state = RaceState::kFinished;
  race[2].stop = StopReason::kTimeout;
  race[3].state = RaceState::kDropped;  // and race[0] is active
  EXPECT_DOUBLE_EQ(race_incumbent_ms(race, 0), 0.8);
  EXPECT_DOUBLE_EQ(race_incumbent_ms(race, 1.2), 0.8);
  EXPECT_DOUBLE_EQ(race_incumbent_ms(race, 0.6), 0.6);
  EXPECT_DOUBLE_EQ(race_incumbent_ms({contender(0, 0.5)}, 0), 0.0);
}

// Halving with an incumbent from an earlier family (issue #18, "tuning within 2 s"): the screen
// probes everyone with one sample first; the far behind (>= 1.25x) leave after that one
// sample, the somewhat behind (>= 1.05x) after the screen's three, and the finalists are the
// rest; an abandoned contender is never finished (so never a winner). Exhaustive with the same
// incumbent measures everyone to the stopping rule.
TEST(Abandon, HalvingProbesThenAbandonsAndExhaustiveNever) {
  TimingPolicy p;
  p.samples = 20;
  p.min_time_s = 0;
  SearchSettings s;  // halving, screen 3, abandon_factor 1.25, behind_factor 1.05
  ASSERT_EQ(s.screen_samples, kBehindMinSamples);
  const std::vector<double> truth = {0.98, 1.0, 1.03, 1.06, 1.2, 1.3, 1.6, 5.0};
  auto halving = make_strategy(s, p, /*shape_best_ms=*/1.0);
  auto race = fresh_race(int(truth.size()));
  // The first round is the probe: one sample each.
  const auto probe = halving->next_round(race);
  ASSERT_EQ(probe.size(), truth.size());
  for (const Turn& t : probe) EXPECT_EQ(t.samples, 1);
  EXPECT_EQ(halving->phase(), "screen");
  for (const Turn& t : probe) race[size_t(t.contender)].samples_ms.push_back(truth[size_t(t.contender)]);
  drive(*halving, race, truth);
  for (size_t i = 0; i < truth.size(); ++i) {
    const bool far = truth[i] >= 1.25, behind = truth[i] >= 1.05;
    EXPECT_EQ(race[i].state, behind ? RaceState::kAbandoned : RaceState::kFinished) << i;
    if (behind) {
      EXPECT_EQ(race[i].samples_ms.size(), size_t(far ? 1 : kBehindMinSamples)) << i;
      EXPECT_EQ(race[i].round, 0) << i;
    }
  }
  // Without an incumbent (the first family of a shape) there is no probe and nothing is
  // abandoned at the screen: the 5.0 is dropped by halving (beyond 2x the best), the rest race.
  auto first = make_strategy(s, p, 0);
  auto race0 = fresh_race(int(truth.size()));
  for (const Turn& t : first->next_round(race0)) EXPECT_EQ(t.samples, 3);
  race0 = fresh_race(int(truth.size()));
  first = make_strategy(s, p, 0);
  drive(*first, race0, truth);
  EXPECT_EQ(race0[7].state, RaceState::kDropped);
  for (size_t i = 0; i < 7; ++i) EXPECT_NE(race0[i].state, RaceState::kAbandoned) << i;

  s.strategy = "exhaustive";
  EXPECT_FALSE(s.abandons());
  auto exhaustive = make_strategy(s, p, 1.0);
  auto all = fresh_race(int(truth.size()));
  drive(*exhaustive, all, truth);
  for (auto& c : all) {
    EXPECT_EQ(c.state, RaceState::kFinished);
    EXPECT_EQ(c.samples_ms.size(), 20u);
  }
}

}  // namespace
}  // namespace occtune
